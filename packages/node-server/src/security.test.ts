import { describe, expect, it } from "vitest";
import { bearerMatches, originAllowed, principalOf } from "./security.js";

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
