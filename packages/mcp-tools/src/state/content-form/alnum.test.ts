import { describe, expect, it } from "vitest";
import { ALNUM_RANGES, ALNUM_UNICODE_VERSION } from "./alnum.generated.js";
import { alnumRangesOfThisRuntime, isAlnum } from "./alnum.js";

describe("isAlnum (\\p{L} ∪ \\p{N} without a \\p regex)", () => {
  it("agrees with this runtime's \\p{L}\\p{N} (exactly on the generator's Unicode version)", () => {
    const runtime = alnumRangesOfThisRuntime();
    if (process.versions.unicode === ALNUM_UNICODE_VERSION) {
      expect(ALNUM_RANGES, "regenerate: pnpm --filter @sisyphus/mcp-tools gen:alnum").toEqual(
        runtime,
      );
      return;
    }
    // Another Unicode version may only have assigned more letters and numbers.
    const inRuntime = (cp: number) => /[\p{L}\p{N}]/u.test(String.fromCodePoint(cp));
    for (let i = 0; i < ALNUM_RANGES.length; i += 2) {
      for (let cp = ALNUM_RANGES[i] as number; cp <= (ALNUM_RANGES[i + 1] as number); cp++) {
        if (!inRuntime(cp)) expect.fail(`U+${cp.toString(16)} is no longer \\p{L}/\\p{N}`);
      }
    }
  });

  it("tells letters and numbers of every script from punctuation, symbols and spaces", () => {
    for (const ch of ["a", "Z", "7", "é", "ß", "中", "ｱ", "٣", "Ⅻ", "𝔸", "ㄱ"]) {
      expect(isAlnum(ch), ch).toBe(true);
    }
    for (const ch of ["_", "*", " ", "。", "、", "—", "\u00a0", "😀", "€", "", "\u3000"]) {
      expect(isAlnum(ch), JSON.stringify(ch)).toBe(false);
    }
  });
});
