/**
 * The seeds of a history test: RELIABILITY_SEED=<n> replays one; otherwise consecutive seeds from
 * the clock, so every run explores new histories (each test prints its seed and how to replay it).
 */

/** RELIABILITY_LONG=1: more and longer histories. */
export const LONG = process.env["RELIABILITY_LONG"] === "1";
/** What a replay command needs besides RELIABILITY_SEED. */
export const REPLAY = LONG ? "RELIABILITY_LONG=1 " : "";

/** RELIABILITY_SEED's seed alone, else `short` seeds (`long` with RELIABILITY_LONG=1). */
export function historySeeds(short: number, long: number): number[] {
  const seed = process.env["RELIABILITY_SEED"];
  if (seed !== undefined) return [Number.parseInt(seed, 10)];
  const base = Date.now() % 1_000_000;
  return Array.from({ length: LONG ? long : short }, (_, i) => base + i);
}
