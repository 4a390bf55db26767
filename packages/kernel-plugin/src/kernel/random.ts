/**
 * Randomness in the kernel runtime, which has no `crypto` (contract §6). The source is
 * `Math.random`: goja implements it with Go's `math/rand` top-level generator, which Go seeds from
 * the operating system (since Go 1.20) and, since Go 1.22, draws from the runtime's per-thread
 * ChaCha8 generator. Request IDs and `requestState` handles come from here; neither is trusted as a
 * proof on its own — every one is checked against a server-side record (the reservation set, the
 * ledger, the confirmation book).
 */
import type { RandomSource } from "@sisyphus/core-hash";

/** 32 random bits from two draws of `Math.random` (16 bits each: well inside its 53 bits). */
function uint32(): number {
  const hi = Math.floor(Math.random() * 0x10000);
  const lo = Math.floor(Math.random() * 0x10000);
  return ((hi << 16) | lo) >>> 0;
}

/** A uniform `RandomSource` over `Math.random`, by rejection sampling (no modulo bias). */
export const mathRandomSource: RandomSource = {
  nextInt(maxExclusive: number): number {
    if (!Number.isInteger(maxExclusive) || maxExclusive < 1 || maxExclusive > 0x100000000) {
      throw new RangeError("maxExclusive must be an integer in [1, 2^32]");
    }
    const limit = 0x100000000 - (0x100000000 % maxExclusive);
    for (;;) {
      const x = uint32();
      if (x < limit) return x % maxExclusive;
    }
  },
};

/** `digits` random lowercase hex digits. */
export function randomHex(digits: number): string {
  let out = "";
  for (let i = 0; i < digits; i++) out += mathRandomSource.nextInt(16).toString(16);
  return out;
}
