import { describe, expect, it } from "vitest";
import {
  bearerMatches,
  exceedsJsonDepth,
  originAllowed,
  parseHostHeader,
  principalOf,
} from "./security.js";

describe("bearerMatches", () => {
  const token = "0123456789abcdef0123";
  it("accepts exactly the configured bearer token", () => {
    expect(bearerMatches(`Bearer ${token}`, token)).toBe(true);
    expect(bearerMatches(`bearer ${token}`, token)).toBe(true);
  });
  it("refuses absent, empty, other-scheme, prefixed and longer tokens", () => {
    expect(bearerMatches(undefined, token)).toBe(false);
    expect(bearerMatches("Bearer ", token)).toBe(false);
    expect(bearerMatches(`Token ${token}`, token)).toBe(false);
    expect(bearerMatches(`Bearer ${token.slice(0, -1)}`, token)).toBe(false);
    expect(bearerMatches(`Bearer ${token}x`, token)).toBe(false);
    expect(bearerMatches(token, token)).toBe(false);
  });
  it("compares the exact credential after the scheme and one space: no trimming", () => {
    const nbsp = "\u00a0";
    // What Node hands over for UTF-8 bytes C2 A0 in a header (decoded as Latin-1).
    const nbspBytes = Buffer.from(nbsp, "utf8").toString("latin1");
    for (const header of [
      `Bearer ${token}${nbsp}`,
      `Bearer ${nbsp}${token}`,
      `Bearer ${token}${nbspBytes}`,
      `Bearer ${nbspBytes}${token}`,
      `Bearer  ${token}`,
      `Bearer\t${token}`,
      `Bearer ${token} `,
      `Bearer ${token}\t`,
      `Bearer${nbsp}${token}`,
    ]) {
      expect(bearerMatches(header, token), JSON.stringify(header)).toBe(false);
    }
  });
});

describe("parseHostHeader", () => {
  it("parses names, IPv4 and bracketed IPv6 with an optional port", () => {
    expect(parseHostHeader("127.0.0.1:36806")).toEqual({ host: "127.0.0.1", port: 36806 });
    expect(parseHostHeader("LocalHost")).toEqual({ host: "localhost" });
    expect(parseHostHeader("[::1]:8080")).toEqual({ host: "::1", port: 8080 });
    expect(parseHostHeader("app.example")).toEqual({ host: "app.example" });
  });
  it("refuses userinfo, trailing junk, empty values, bad ports and anything but host and port", () => {
    for (const value of [
      undefined,
      "",
      "evil.example:36806@127.0.0.1",
      "127.0.0.1:36806.evil.example",
      "127.0.0.1:36806/path",
      "127.0.0.1:99999",
      "127.0.0.1:",
      ":36806",
      "[::1",
      "::1",
      "127.0.0.1 evil",
      "127.0.0.1%2f",
      "127.0.0.1:80:80",
      "user@127.0.0.1",
      "127.0.0.1?x",
      "127.0.0.1#x",
    ]) {
      expect(parseHostHeader(value), JSON.stringify(value)).toBeUndefined();
    }
  });
});

describe("originAllowed", () => {
  it("passes requests without Origin and loopback origins on any port", () => {
    expect(originAllowed(undefined, [])).toBe(true);
    expect(originAllowed("http://localhost:3000", [])).toBe(true);
    expect(originAllowed("https://127.0.0.1", [])).toBe(true);
    expect(originAllowed("http://[::1]:8080", [])).toBe(true);
  });
  it("refuses foreign, null and malformed origins unless listed exactly", () => {
    expect(originAllowed("http://evil.example", [])).toBe(false);
    expect(originAllowed("http://localhost.evil.example", [])).toBe(false);
    expect(originAllowed("null", [])).toBe(false);
    expect(originAllowed("::::", [])).toBe(false);
    expect(originAllowed("https://app.example", ["https://app.example"])).toBe(true);
    expect(originAllowed("https://app.example:444", ["https://app.example"])).toBe(false);
  });
});

describe("principalOf", () => {
  it("is stable per token and never contains it", () => {
    const token = "0123456789abcdef0123";
    expect(principalOf(token)).toBe(principalOf(token));
    expect(principalOf(token)).not.toContain(token);
    expect(principalOf(token)).not.toBe(principalOf(`${token}x`));
  });
});

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
