/** The Node server's randomness: a CSPRNG `RandomSource` (request IDs, confirmation states). */
import { randomBytes, randomInt } from "node:crypto";
import type { RandomSource } from "@sisyphus/core-hash";

/** A CSPRNG `RandomSource` over `node:crypto`. */
export const cryptoRandomSource: RandomSource = {
  nextInt(maxExclusive: number): number {
    if (maxExclusive === 0x100000000) return randomBytes(4).readUInt32BE(0);
    return randomInt(0, maxExclusive);
  },
};
