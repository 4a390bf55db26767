import { describe, expect, it } from "vitest";
import { CoreHashError, isCoreHashError } from "./errors.js";
import { digestHex, isStateDigest, stateHash } from "./state-hash.js";

describe("state digests", () => {
  it("are sha256:v1: + 64 lowercase hex of SHA-256 over the UTF-8 of canonical JSON", () => {
    // sha256('{"a":"\u00e9"}' as UTF-8), checked against node:crypto in the bundle test too.
    const d = stateHash({ a: "\u00e9" });
    expect(isStateDigest(d)).toBe(true);
    expect(d).toMatch(/^sha256:v1:[0-9a-f]{64}$/);
    expect(digestHex(d)).toBe(d.slice(10));
  });
  it("isStateDigest is strict", () => {
    const hex = "a".repeat(64);
    expect(isStateDigest(`sha256:v1:${hex}`)).toBe(true);
    for (const bad of [
      hex,
      `sha256:v1:${hex.toUpperCase()}`,
      `SHA256:V1:${hex}`,
      `sha256:v1:${hex}0`,
      `sha256:v1:${hex.slice(1)}`,
      `sha256:v1:${hex}\n`,
      null,
      1,
    ]) {
      expect(isStateDigest(bad)).toBe(false);
    }
  });
  it("digestHex rejects a malformed digest", () => {
    expect(() => digestHex("sha256:v1:abcd" as never)).toThrowError(
      expect.objectContaining({ code: "digest_malformed" }),
    );
  });
  it("errors carry a brand that works without instanceof", () => {
    const e = new CoreHashError("invalid_argument", "x", { path: "$" });
    expect(isCoreHashError(e)).toBe(true);
    expect(isCoreHashError({ code: "invalid_argument" })).toBe(false);
    expect(isCoreHashError(new Error("x"))).toBe(false);
    expect(isCoreHashError(null)).toBe(false);
    const cause = new Error("root");
    expect(new CoreHashError("invalid_argument", "x", {}, { cause }).cause).toBe(cause);
  });
});
