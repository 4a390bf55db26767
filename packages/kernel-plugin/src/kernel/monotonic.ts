/**
 * A monotonic clock for lease expiry inside the kernel. goja has no `performance.now()` and the
 * plugin runtime offers no elapsed-time source (contract Part 2 §6), so this one is built from
 * `Date.now()`: it never goes backwards, a backwards wall-clock step counts as zero elapsed time,
 * and forward progress counts as measured. A step is only seen when the clock is read, so the
 * authority reads it every second (main.ts): a step back is absorbed within that second instead
 * of being netted against the progress after it. Residual: a forward wall-clock jump (NTP, a user
 * setting the clock) counts in full, so it can shorten a lease, never lengthen one; a step back
 * followed by a step forward within one sampling interval nets out.
 */
import type { Clock } from "@sisyphus/write-safety";

/** Elapsed milliseconds since creation, read from `wall`, never decreasing. */
export function monotonicFromWall(wall: () => number = () => Date.now()): Clock {
  let last = wall();
  let elapsed = 0;
  return {
    now() {
      const t = wall();
      if (t > last) elapsed += t - last;
      last = t;
      return elapsed;
    },
  };
}
