/**
 * Compares two kernels' records probe by probe, field by field. Object keys compare as sets (Go
 * sorts map keys, the sandbox keeps insertion order: neither order is part of the contract);
 * arrays compare by index. A mismatch names its probe and a dot path into the probe's steps.
 */
import type { ProbeRecord } from "./probe.js";

/** The value shown for a field one side does not have. */
export const ABSENT = "<absent>";

/** One field that differs. */
export interface Mismatch {
  readonly probe: string;
  /** Dot path: `<step label>.<status|body|request|headers|note>.<keys and indexes>`, or `error`. */
  readonly path: string;
  readonly expected: unknown;
  readonly actual: unknown;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function diff(a: unknown, b: unknown, path: string, out: Array<[string, unknown, unknown]>): void {
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n; i++) {
      diff(
        i < a.length ? a[i] : ABSENT,
        i < b.length ? b[i] : ABSENT,
        path === "" ? String(i) : `${path}.${i}`,
        out,
      );
    }
    return;
  }
  if (isObject(a) && isObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      diff(k in a ? a[k] : ABSENT, k in b ? b[k] : ABSENT, path === "" ? k : `${path}.${k}`, out);
    }
    return;
  }
  if (a !== b) out.push([path, a, b]);
}

/**
 * Mismatches of `actual` against `expected`, for every probe of `expected` (a probe only one side
 * has is one mismatch at path `*`).
 */
export function compareRecords(
  expected: Record<string, ProbeRecord>,
  actual: Record<string, ProbeRecord>,
): Mismatch[] {
  const out: Mismatch[] = [];
  const ids = new Set([...Object.keys(expected), ...Object.keys(actual)]);
  for (const id of ids) {
    const e = expected[id];
    const a = actual[id];
    if (e === undefined || a === undefined) {
      out.push({
        probe: id,
        path: "*",
        expected: e ? "<recorded>" : ABSENT,
        actual: a ? "<ran>" : ABSENT,
      });
      continue;
    }
    const found: Array<[string, unknown, unknown]> = [];
    diff(e.steps, a.steps, "", found);
    if ((e.error ?? null) !== (a.error ?? null)) {
      found.push(["error", e.error ?? ABSENT, a.error ?? ABSENT]);
    }
    for (const [path, ex, ac] of found) out.push({ probe: id, path, expected: ex, actual: ac });
  }
  return out;
}

/** One accepted difference (a row of the table in `docs/fidelity.md`). */
export interface AcceptedDifference {
  /** Probe ID, or a glob with `*`. */
  readonly probe: string;
  /** Field path glob: `*` is one segment, `**` any number of segments (also none). */
  readonly path: string;
  readonly why: string;
  /**
   * The real kernel answers this either way from one recording to the next (its reason starts with
   * "Racy"): the row accepts the difference when it shows and is not stale when it does not.
   */
  readonly racy: boolean;
}

const escapeRe = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&");

/** A field-path glob as a RegExp: `*` is part of one segment, `**` any number of segments. */
function pathGlob(glob: string): RegExp {
  if (glob === "**") return /^[\s\S]*$/;
  let src = "";
  let needSep = false;
  for (const seg of glob.split(".")) {
    if (seg === "**") {
      src += needSep ? "(?:\\.[\\s\\S]*)?" : "(?:[\\s\\S]*\\.)?";
      continue;
    }
    if (needSep) src += "\\.";
    src += escapeRe(seg).replace(/\*/g, "[^.]*");
    needSep = true;
  }
  return new RegExp(`^${src}$`);
}

/** True when the row covers the mismatch. */
export function covers(row: AcceptedDifference, m: Mismatch): boolean {
  const probeOk = new RegExp(`^${escapeRe(row.probe).replace(/\*/g, "[\\s\\S]*")}$`).test(m.probe);
  return probeOk && pathGlob(row.path).test(m.path);
}

/** Start and end markers of the table the test reads in `docs/fidelity.md`. */
export const ACCEPTED_START = "<!-- kernel-probes:accepted:start -->";
export const ACCEPTED_END = "<!-- kernel-probes:accepted:end -->";

/**
 * Reads the accepted-differences table between the markers: a Markdown table whose first three
 * columns are probe ID, field path and why (backticks around the first two are optional).
 * Throws when the markers are missing or a row is malformed.
 */
export function parseAccepted(markdown: string): AcceptedDifference[] {
  const start = markdown.indexOf(ACCEPTED_START);
  const end = markdown.indexOf(ACCEPTED_END);
  if (start < 0 || end < start) {
    throw new Error(`docs/fidelity.md has no ${ACCEPTED_START} … ${ACCEPTED_END} section`);
  }
  const rows: AcceptedDifference[] = [];
  const lines = markdown.slice(start + ACCEPTED_START.length, end).split("\n");
  for (const line of lines) {
    const t = line.trim();
    if (!t.startsWith("|")) continue;
    const cells = t
      .slice(1, t.endsWith("|") ? -1 : undefined)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim().replace(/\\\|/g, "|"));
    if (cells.length < 3) throw new Error(`malformed accepted-difference row: ${t}`);
    const [probe, path, why] = cells as [string, string, string];
    if (/^-+$/.test(probe.replace(/:/g, "")) || probe.toLowerCase() === "probe") continue;
    const unquote = (s: string) => s.replace(/^`(.*)`$/, "$1");
    if (why === "") throw new Error(`accepted difference without a reason: ${t}`);
    rows.push({ probe: unquote(probe), path: unquote(path), why, racy: /^racy\b/i.test(why) });
  }
  return rows;
}
