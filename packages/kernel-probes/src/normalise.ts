/**
 * Normalisation of recorded answers: volatile values (node IDs, timestamps, dates, hashes, random
 * names) become stable placeholders so that two kernels' answers compare by structure.
 *
 * Node IDs: an ID the probe sends (in a request) is numbered probe-wide in order of first
 * appearance (`<id:1>`, `<id:2>`, …), so "the same block as before" still compares; an ID seen only
 * in answers is numbered within its step (`<new:1>`, …), so one extra or missing ID in one answer
 * does not renumber the rest of the probe. Object keys are visited in sorted order (Go sorts map
 * keys; struct order is not part of the contract) and written sorted. The pairs of an IAL
 * (`{: a="1" b="2"}`) are sorted too: SiYuan itself writes them in Go map order, which varies
 * from call to call.
 */

/** SiYuan's node ID: 14 digits of local time, `-`, 7 lowercase letters or digits. */
const NODE_ID = /\b\d{14}-[0-9a-z]{7}\b/g;
/** A 14-digit timestamp (`updated="20261201232116"`). */
const TIMESTAMP_14 = /\b\d{14}\b/g;
/** A date-time (ISO 8601 or `2006-01-02 15:04:05`), with optional fraction and zone. */
const DATETIME = /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g;
/** A date (`2006-01-02`). */
const DATE = /\b\d{4}-\d{2}-\d{2}\b/g;
/** A `yyyy/mm/` path segment pair (daily-note save paths). */
const YEAR_MONTH_PATH = /\/\d{4}\/\d{2}\//g;
/** A `yyyymmdd` day (daily-note attributes). */
const YYYYMMDD = /\b20\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\b/g;
/** An absolute workspace root in a message (`open /…/ws/data/…`): the part before `/data/` etc. */
const WORKSPACE_ROOT = /(?:\/[\w.-]+)+?(?=\/(?:data|temp|conf|repo)\/)/g;
/** 32 or 64 lowercase hex digits (export names, content hashes). */
const HEX = /\b(?:[0-9a-f]{64}|[0-9a-f]{32})\b/g;

/** Keys whose numeric value is a point in time (ms or s since the epoch). */
const TIME_KEYS = new Set([
  "timestamp",
  "created",
  "updated",
  "mtime",
  "ctime",
  "createdAt",
  "updatedAt",
  "viewedAt",
  "openAt",
  "closedAt",
  "modTime",
  "lastReview",
]);
/** Keys whose string value is a humanised time (`hMtime`: "2 minutes ago" or a date). */
const HUMAN_TIME_KEYS = new Set(["hMtime", "hCtime"]);
/** Keys whose value is a content hash. */
const HASH_KEYS = new Set(["hash"]);

/** The placeholder of a masked value. */
export const VOLATILE = "<volatile>";

/** An IAL: `{: ` then `name="value"` pairs (values have no raw `"`), then `}`. */
const IAL = /\{: ((?:[A-Za-z][\w-]*="[^"]*" ?)+)\}/g;
const IAL_PAIR = /[A-Za-z][\w-]*="[^"]*"/g;

/** Normalises the values of one probe; one instance per probe keeps one ID numbering. */
export class Normaliser {
  private readonly ids = new Map<string, string>();
  private local = new Map<string, string>();
  private readonly literals = new Map<string, string>();
  private registering = false;

  /** Replaces every occurrence of `literal` (e.g. a session ID, a workspace path) by `placeholder`. */
  alias(literal: string, placeholder: string): void {
    if (literal !== "") this.literals.set(literal, placeholder);
  }

  /** Starts a step: answer-only IDs are numbered afresh. */
  beginStep(): void {
    this.local = new Map();
  }

  /** The placeholder of a node ID. */
  id(raw: string): string {
    const known = this.ids.get(raw);
    if (known !== undefined) return known;
    if (this.registering) {
      const p = `<id:${this.ids.size + 1}>`;
      this.ids.set(raw, p);
      return p;
    }
    let p = this.local.get(raw);
    if (p === undefined) {
      p = `<new:${this.local.size + 1}>`;
      this.local.set(raw, p);
    }
    return p;
  }

  /** Normalises what the probe sent: its IDs are numbered probe-wide. */
  request(v: unknown): unknown {
    this.registering = true;
    try {
      return this.value(v);
    } finally {
      this.registering = false;
    }
  }

  /** Normalises a string's volatile parts. */
  string(s: string): string {
    let out = s;
    // longest first, so a literal inside another literal does not cut it
    const lits = [...this.literals].sort((a, b) => b[0].length - a[0].length);
    for (const [lit, ph] of lits) out = out.split(lit).join(ph);
    return out
      .replace(IAL, (_m, pairs: string) => `{: ${(pairs.match(IAL_PAIR) ?? []).sort().join(" ")}}`)
      .replace(WORKSPACE_ROOT, "<workspace>")
      .replace(NODE_ID, (m) => this.id(m))
      .replace(TIMESTAMP_14, "<time>")
      .replace(DATETIME, "<datetime>")
      .replace(DATE, "<date>")
      .replace(YEAR_MONTH_PATH, "/<yyyy>/<mm>/")
      .replace(YYYYMMDD, "<yyyymmdd>")
      .replace(HEX, (m) => `<hex${m.length}>`);
  }

  /** Normalises any JSON value; `key` is the object key it sits under, if any. */
  value(v: unknown, key?: string): unknown {
    if (typeof v === "string") {
      if (key !== undefined && HUMAN_TIME_KEYS.has(key)) return "<htime>";
      if (key !== undefined && HASH_KEYS.has(key) && v !== "") return "<hash>";
      return this.string(v);
    }
    if (typeof v === "number") {
      if (key !== undefined && TIME_KEYS.has(key) && v > 1e9) return "<time>";
      return v;
    }
    if (Array.isArray(v)) return v.map((x) => this.value(x));
    if (v !== null && typeof v === "object") {
      const entries = Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      const out: Record<string, unknown> = {};
      for (const [k, x] of entries) out[this.string(k)] = this.value(x, k);
      return out;
    }
    return v;
  }
}

/**
 * Replaces the values at `paths` (dot paths into `v`, `*` for any one key or index) by
 * {@link VOLATILE}. Used for values no rule can recognise (random message IDs, durations).
 */
export function mask(v: unknown, paths: readonly string[]): unknown {
  let out = v;
  for (const p of paths) out = maskOne(out, p.split("."));
  return out;
}

function maskOne(v: unknown, segs: readonly string[]): unknown {
  if (segs.length === 0) return v === undefined ? v : VOLATILE;
  const [head, ...rest] = segs as [string, ...string[]];
  if (Array.isArray(v)) {
    return v.map((x, i) => (head === "*" || head === String(i) ? maskOne(x, rest) : x));
  }
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      out[k] = head === "*" || head === k ? maskOne(x, rest) : x;
    }
    return out;
  }
  return v;
}
