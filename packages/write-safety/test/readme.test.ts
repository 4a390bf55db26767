/**
 * The README quotes every limit by its constant's name with the value beside it, `NAME` (value);
 * this keeps the quoted values equal to `src/constants.ts` and every limit quoted.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as limits from "../src/constants.js";

const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/** How the README writes a value: durations in the largest whole unit, counts with thousands commas. */
function render(name: string, value: number): string {
  if (name.endsWith("_MS")) {
    if (value % DAY_MS === 0) return `${value / DAY_MS} days`;
    if (value % MINUTE_MS === 0) return `${value / MINUTE_MS} min`;
    return `${value} ms`;
  }
  return value.toLocaleString("en-US");
}

describe("README limits", () => {
  const quoted = new Map<string, string[]>();
  for (const m of README.matchAll(/`([A-Z][A-Z0-9_]+)` \(([^)]+)\)/g)) {
    quoted.set(m[1]!, [...(quoted.get(m[1]!) ?? []), m[2]!]);
  }

  it("quotes every limit of constants.ts", () => {
    expect([...quoted.keys()].sort()).toEqual(Object.keys(limits).sort());
  });

  it("quotes each with its current value", () => {
    for (const [name, values] of quoted) {
      const value = (limits as Record<string, number | undefined>)[name];
      expect(value, name).toBeTypeOf("number");
      for (const v of values) expect(v, name).toBe(render(name, value!));
    }
  });
});
