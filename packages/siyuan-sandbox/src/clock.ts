/** Injected time and randomness: block IDs and `updated` timestamps come from here. */
import type { Clock } from "@sisyphus/write-safety";
import { DETERMINISTIC_START_MS, DETERMINISTIC_STEP_MS } from "./constants.js";

/** The project's one clock type (`@sisyphus/write-safety`), re-exported for the sandbox's callers. */
export type { Clock };
/** Source of uniform random numbers in [0, 1). */
export interface RandomSource {
  next(): number;
}

/**
 * The system clock. The sandbox imports only write-safety's types, so its built bundle runs without
 * write-safety's build; this is the same one line as write-safety's `systemClock`.
 */
export const systemClock: Clock = { now: () => Date.now() };
/** Math.random as a RandomSource. */
export const systemRandom: RandomSource = { next: () => Math.random() };

/**
 * A clock that starts at `startMs` and advances `stepMs` on every reading, so that a
 * sequence of operations gives the same IDs and timestamps on every run.
 */
export function steppingClock(
  startMs: number = DETERMINISTIC_START_MS,
  stepMs: number = DETERMINISTIC_STEP_MS,
): Clock {
  let t = startMs - stepMs;
  return {
    now: () => {
      t += stepMs;
      return t;
    },
  };
}

/** A seeded PRNG (mulberry32). Same seed, same sequence. */
export function seededRandom(seed: number): RandomSource {
  let a = seed >>> 0;
  return {
    next: () => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
  };
}

const pad = (n: number, w = 2): string => String(n).padStart(w, "0");

/** Year, month (1–12), day, hour, minute and second of `ms`, in local time or UTC. */
export function dateParts(
  ms: number,
  utc: boolean,
): [number, number, number, number, number, number] {
  const d = new Date(ms);
  return utc
    ? [
        d.getUTCFullYear(),
        d.getUTCMonth() + 1,
        d.getUTCDate(),
        d.getUTCHours(),
        d.getUTCMinutes(),
        d.getUTCSeconds(),
      ]
    : [
        d.getFullYear(),
        d.getMonth() + 1,
        d.getDate(),
        d.getHours(),
        d.getMinutes(),
        d.getSeconds(),
      ];
}

/** Formats ms as SiYuan's 14-digit timestamp `YYYYMMDDHHMMSS`, in local time or UTC. */
export function formatTimestamp(ms: number, utc: boolean): string {
  const [y, mo, da, h, mi, s] = dateParts(ms, utc);
  return `${y}${pad(mo)}${pad(da)}${pad(h)}${pad(mi)}${pad(s)}`;
}

/** Parses a 14-digit timestamp back to ms (local time or UTC). NaN when malformed. */
export function parseTimestamp(ts: string, utc: boolean): number {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})/.exec(ts);
  if (!m) return Number.NaN;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return utc ? Date.UTC(y, mo - 1, d, h, mi, s) : new Date(y, mo - 1, d, h, mi, s).getTime();
}

/**
 * The node-ID shape as a regular-expression source (no anchors, no groups): a 14-digit timestamp,
 * `-`, 7 of `[a-z0-9]` (contract §2.1). A kernel-side fact: the real kernel defines it (Lute's
 * `ast.IsNodeIDPattern`, behind `util.InvalidIDPattern`), so this test kernel keeps its own
 * definition instead of importing siyuan-api's `NODE_ID_PATTERN`, the product's one copy: the
 * sandbox must not share code with the client it tests. Every sandbox pattern that matches an ID
 * is built from this.
 */
export const NODE_ID_SOURCE = String.raw`\d{14}-[a-z0-9]{7}`;

const ID_PATTERN = new RegExp(`^${NODE_ID_SOURCE}$`);
/** True when `id` has SiYuan's node-ID shape: 14 digits, `-`, 7 of `[a-z0-9]`. */
export function isValidNodeId(id: unknown): id is string {
  return typeof id === "string" && ID_PATTERN.test(id);
}

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/** Issues node IDs and timestamps from an injected clock and random source. */
export class IdIssuer {
  constructor(
    readonly clock: Clock,
    readonly random: RandomSource,
    readonly utc: boolean,
  ) {}
  /** The current 14-digit timestamp. */
  timestamp(): string {
    return formatTimestamp(this.clock.now(), this.utc);
  }
  /** A fresh node ID; `taken` rejects collisions. */
  newId(taken?: (id: string) => boolean): string {
    for (;;) {
      let suffix = "";
      for (let i = 0; i < 7; i++) {
        suffix += ALPHABET[Math.floor(this.random.next() * ALPHABET.length)] ?? "a";
      }
      const id = `${this.timestamp()}-${suffix}`;
      if (!taken?.(id)) return id;
    }
  }
  /** A short random message ID (pushMsg). */
  shortId(): string {
    let s = "";
    for (let i = 0; i < 7; i++)
      s += ALPHABET[Math.floor(this.random.next() * ALPHABET.length)] ?? "a";
    return s;
  }
}
