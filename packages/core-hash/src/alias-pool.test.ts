import { describe, expect, it } from "vitest";
import { AliasPool } from "./alias-pool.js";
import { seededRandomSource } from "./random.js";
import type { StateDigest } from "./state-hash.js";

/** `n` random lowercase hex digits, 8 per draw. */
function randomHex(random: ReturnType<typeof seededRandomSource>, n: number): string {
  let s = "";
  while (s.length < n) s += random.nextInt(0x100000000).toString(16).padStart(8, "0");
  return s.slice(0, n);
}

const digest = (hex: string): StateDigest => `sha256:v1:${hex.padEnd(64, "0")}`;

describe("AliasPool", () => {
  it("follows the spec's scenario: abcd stays, a later abcd1... digest receives abcd1", () => {
    const pool = new AliasPool();
    const first = digest("abcd0f");
    const second = digest("abcd1e");
    expect(pool.aliasFor(first)).toBe("abcd");
    expect(pool.aliasFor(second)).toBe("abcd1");
    expect(pool.aliasFor(first)).toBe("abcd");
    expect(pool.resolve("abcd")).toBe(first);
    expect(pool.resolve("abcd1")).toBe(second);
    expect(pool.resolve("ABCD1")).toBe(second);
    expect(pool.resolve("sha256:v1:abcd1")).toBe(second);
  });

  it("skips every prefix held by another digest, one digit at a time", () => {
    const pool = new AliasPool();
    const a = digest("1234567a");
    const b = digest("12345b");
    const c = digest("1234567b");
    expect(pool.aliasFor(a)).toBe("1234");
    expect(pool.aliasFor(b)).toBe("12345");
    // 1234 -> a, 12345 -> b, 123456 free.
    expect(pool.aliasFor(c)).toBe("123456");
    const d = digest("1234567c");
    expect(pool.aliasFor(d)).toBe("1234567");
  });

  it("never changes an alias once given, even when a later digest would own a shorter prefix", () => {
    const pool = new AliasPool();
    const a = digest("ffff12");
    const b = digest("ffff13");
    expect(pool.aliasFor(a)).toBe("ffff");
    expect(pool.aliasFor(b)).toBe("ffff1");
    const c = digest("fffe");
    expect(pool.aliasFor(c)).toBe("fffe");
    expect([pool.aliasFor(a), pool.aliasFor(b), pool.aliasFor(c)]).toEqual([
      "ffff",
      "ffff1",
      "fffe",
    ]);
    expect(pool.size).toBe(3);
  });

  it("resolves exactly, never by prefix", () => {
    const pool = new AliasPool();
    const a = digest("abcdef");
    pool.aliasFor(a);
    expect(pool.resolve("abcd")).toBe(a);
    expect(pool.resolve("abcde")).toBeUndefined();
    expect(pool.resolve("abcdef")).toBeUndefined();
    expect(pool.resolve("abc")).toBeUndefined();
    expect(pool.resolve("abcd ")).toBeUndefined();
    expect(pool.resolve("")).toBeUndefined();
    expect(pool.resolve(42 as never)).toBeUndefined();
  });

  it("resolves a complete 64-digit digest to itself only if it is in the pool", () => {
    const pool = new AliasPool();
    const a = digest("abcdef");
    const hexA = a.slice("sha256:v1:".length);
    expect(pool.resolve(hexA)).toBeUndefined();
    pool.aliasFor(a);
    expect(pool.resolve(hexA)).toBe(a);
    expect(pool.resolve(hexA.toUpperCase())).toBe(a);
    expect(pool.resolve(a)).toBe(a);
    expect(pool.resolve(digest("abcdee").slice(10))).toBeUndefined();
  });

  it("gives a digest its full hex when every shorter prefix is taken", () => {
    const pool = new AliasPool();
    const full = "a".repeat(64);
    for (let n = 4; n < 64; n++) pool.aliasFor(digest("a".repeat(n) + "b"));
    expect(pool.aliasFor(digest(full))).toBe(full);
    expect(pool.resolve(full)).toBe(digest(full));
  });

  it("rejects a malformed digest with digest_malformed", () => {
    const pool = new AliasPool();
    for (const bad of ["abcd", `sha256:v1:${"A".repeat(64)}`, `sha256:v1:${"a".repeat(63)}`, 7]) {
      expect(() => pool.aliasFor(bad as never)).toThrowError(
        expect.objectContaining({ code: "digest_malformed" }),
      );
    }
    expect(pool.size).toBe(0);
  });

  it("keeps every alias stable across many inserts", () => {
    const pool = new AliasPool();
    const random = seededRandomSource(1);
    const given = new Map<StateDigest, string>();
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 2000; i++) {
        const d = digest(randomHex(random, 64));
        given.set(d, pool.aliasFor(d));
      }
      let changed = 0;
      for (const [d, alias] of given) if (pool.aliasFor(d) !== alias) changed++;
      expect(changed).toBe(0);
    }
    expect(pool.size).toBe(given.size);
  }, 60_000);

  it("resolves 100,000 random digests with forced 16-bit collisions back correctly", () => {
    const pool = new AliasPool();
    const random = seededRandomSource(2);
    // Only 256 distinct 4-digit prefixes, so every prefix is shared by ~390 digests.
    const digests: StateDigest[] = [];
    for (let i = 0; i < 100_000; i++) {
      digests.push(digest("ab" + randomHex(random, 2) + randomHex(random, 60)));
    }
    const aliases = digests.map((d) => pool.aliasFor(d));
    const seen = new Map<string, StateDigest>();
    let extended = 0;
    let wrong = 0;
    for (let i = 0; i < digests.length; i++) {
      const d = digests[i]!;
      const alias = aliases[i]!;
      if (!d.slice(10).startsWith(alias)) wrong++;
      const prior = seen.get(alias);
      if (prior !== undefined && prior !== d) wrong++;
      seen.set(alias, d);
      if (alias.length > 4) extended++;
      if (pool.resolve(alias) !== d || pool.resolve(alias.toUpperCase()) !== d) wrong++;
      if (pool.aliasFor(d) !== alias) wrong++;
    }
    expect(wrong).toBe(0);
    expect(extended).toBeGreaterThan(90_000);
    expect(pool.size).toBe(new Set(digests).size);
  }, 60_000);
});
