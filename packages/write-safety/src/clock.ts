/** Injected time source. */

/** Wall-clock milliseconds since the Unix epoch. Everything that expires reads time only through this. */
export interface Clock {
  now(): number;
}

/** The real clock (`Date.now`). Pure code never calls it implicitly; runtimes pass it in. */
export const systemClock: Clock = Object.freeze({ now: () => Date.now() });
