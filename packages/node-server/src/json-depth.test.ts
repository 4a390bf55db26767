import { describe, expect, it } from "vitest";
import { exceedsJsonDepth } from "./json-depth.js";

const bytes = (text: string) => Buffer.from(text, "utf8");
const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

describe("exceedsJsonDepth", () => {
  it("allows nesting up to the limit and refuses one level more", () => {
    expect(exceedsJsonDepth(bytes(nested(64)), 64)).toBe(false);
    expect(exceedsJsonDepth(bytes(nested(65)), 64)).toBe(true);
    expect(exceedsJsonDepth(bytes(`{"a":${nested(63)}}`), 64)).toBe(false);
    expect(exceedsJsonDepth(bytes(`{"a":${nested(64)}}`), 64)).toBe(true);
    expect(exceedsJsonDepth(bytes(nested(10_000)), 64)).toBe(true);
  });
  it("counts depth, not the number of brackets", () => {
    expect(
      exceedsJsonDepth(bytes(`[${Array.from({ length: 500 }, () => "[]").join(",")}]`), 2),
    ).toBe(false);
  });
  it("ignores brackets inside strings, escaped quotes included", () => {
    const inString = JSON.stringify({ s: `${"[".repeat(200)}"\\{` });
    expect(exceedsJsonDepth(bytes(inString), 2)).toBe(false);
    expect(exceedsJsonDepth(bytes(JSON.stringify(["\\", "[[[[", "é{{{"])), 1)).toBe(false);
    // A string ending in an escaped backslash closes normally; the brackets after it count.
    expect(exceedsJsonDepth(bytes(`["a\\\\",[[[]]]]`), 3)).toBe(true);
  });
});
