import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseCredential } from "./alias-pool.js";

describe("parseCredential", () => {
  it.each([
    ["abcd", "abcd"],
    ["ABCD", "abcd"],
    ["sha256:v1:abcd", "abcd"],
    ["SHA256:V1:AbCd1", "abcd1"],
    ["0".repeat(64), "0".repeat(64)],
    [`sha256:v1:${"F".repeat(64)}`, "f".repeat(64)],
  ])("accepts %s", (input, hex) => {
    expect(parseCredential(input)).toEqual({ ok: true, hex });
  });

  it.each([
    ["3 digits", "abc"],
    ["65 digits", "a".repeat(65)],
    ["prefixed 65 digits", `sha256:v1:${"a".repeat(65)}`],
    ["prefix only", "sha256:v1:"],
    ["leading space", " abcd"],
    ["trailing space", "abcd "],
    ["trailing newline", "abcd\n"],
    ["inner space", "ab cd"],
    ["wrong prefix", "sha256:v2:abcd"],
    ["other algorithm", "sha512:v1:abcd"],
    ["prefix without version", "sha256:abcd"],
    ["non-hex", "abcg"],
    ["0x prefix", "0xabcd"],
    ["empty", ""],
    ["fullwidth digits", "\uff10\uff11\uff12\uff13"],
    ["number", 43981],
    ["null", null],
    ["object", { hex: "abcd" }],
    ["very long", "a".repeat(100_000)],
  ])("rejects %s", (_label, input) => {
    const r = parseCredential(input);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.code).toBe("credential_malformed");
      expect(r.message.length).toBeGreaterThan(0);
    }
  });

  it("accepts exactly the 4-64 hex digit strings, in either case, with or without the prefix", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), fc.boolean(), (s, prefixed) => {
        const input = prefixed ? `sha256:v1:${s}` : s;
        const r = parseCredential(input);
        const expected = /^[0-9a-fA-F]{4,64}$/.test(s);
        expect(r.ok).toBe(expected);
        if (r.ok) expect(r.hex).toBe(s.toLowerCase());
      }),
      { numRuns: 2000 },
    );
  });
});
