/**
 * Whether a character is a Unicode letter or number (`\p{L}` or `\p{N}`), by binary search over
 * generated ranges instead of a `\p{…}` regex: SiYuan's goja runtime compiles `/\p{L}/u` without
 * complaint and matches the literal text `p{L}` (contract §6), so the kernel plugin must not use one.
 */
import { ALNUM_RANGES } from "./alnum.generated.js";

/** True when the first code point of `ch` is in \p{L} or \p{N}. */
export function isAlnum(ch: string): boolean {
  const cp = ch.codePointAt(0);
  if (cp === undefined) return false;
  if (cp < 0x80) return (cp >= 0x30 && cp <= 0x39) || ((cp | 0x20) >= 0x61 && (cp | 0x20) <= 0x7a);
  let lo = 0;
  let hi = ALNUM_RANGES.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < (ALNUM_RANGES[2 * mid] as number)) hi = mid - 1;
    else if (cp > (ALNUM_RANGES[2 * mid + 1] as number)) lo = mid + 1;
    else return true;
  }
  return false;
}

/**
 * The ranges this runtime's own `\p{L}`/`\p{N}` give (the generator's source, and the test's
 * reference). Builds the regex at run time so this module stays loadable in goja.
 */
export function alnumRangesOfThisRuntime(): number[] {
  const re = /[\p{L}\p{N}]/u;
  const out: number[] = [];
  let start = -1;
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    const hit = cp < 0xd800 || cp > 0xdfff ? re.test(String.fromCodePoint(cp)) : false;
    if (hit && start < 0) start = cp;
    if (!hit && start >= 0) {
      out.push(start, cp - 1);
      start = -1;
    }
  }
  if (start >= 0) out.push(start, 0x10ffff);
  return out;
}
