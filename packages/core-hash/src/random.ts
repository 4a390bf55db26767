/** Injected randomness: the `RandomSource` port and a deterministic PRNG for tests and sandboxes. */
import { CoreHashError } from "./errors.js";

/** A source of uniform random integers. Production wires a CSPRNG; tests use `seededRandomSource`. */
export interface RandomSource {
  /** A uniform integer in `[0, maxExclusive)`; `maxExclusive` is an integer in `[1, 2^32]`. */
  nextInt(maxExclusive: number): number;
}

const TWO_POW_32 = 0x100000000;

/** Throws `invalid_argument` unless `maxExclusive` is an integer in `[1, 2^32]`. */
function assertRange(maxExclusive: number): void {
  if (!Number.isInteger(maxExclusive) || maxExclusive < 1 || maxExclusive > TWO_POW_32) {
    throw new CoreHashError("invalid_argument", "maxExclusive must be an integer in [1, 2^32]", {
      argument: "maxExclusive",
      received: String(maxExclusive),
    });
  }
}

/**
 * A deterministic `RandomSource` (mulberry32, 32-bit state) for tests and sandboxes: the same seed
 * always gives the same sequence. Not for production request IDs, which must be unpredictable.
 * Uniform by rejection sampling, so `nextInt(n)` has no modulo bias for any `n`.
 */
export function seededRandomSource(seed: number): RandomSource {
  let state = seed | 0;
  const nextUint32 = (): number => {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  return {
    nextInt(maxExclusive: number): number {
      assertRange(maxExclusive);
      // Largest multiple of maxExclusive not above 2^32; draws at or above it are redrawn.
      const limit = TWO_POW_32 - (TWO_POW_32 % maxExclusive);
      let x = nextUint32();
      while (x >= limit) x = nextUint32();
      return x % maxExclusive;
    },
  };
}

/**
 * Draws from `random` and checks the answer, so a faulty source fails loudly instead of producing
 * skewed IDs. @throws CoreHashError `random_out_of_range`.
 */
export function drawInt(random: RandomSource, maxExclusive: number): number {
  const x = random.nextInt(maxExclusive);
  if (!Number.isInteger(x) || x < 0 || x >= maxExclusive) {
    throw new CoreHashError(
      "random_out_of_range",
      `RandomSource.nextInt(${maxExclusive}) returned ${String(x)}`,
      { maxExclusive, received: String(x) },
    );
  }
  return x;
}
