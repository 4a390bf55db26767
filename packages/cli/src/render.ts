/**
 * How a tool result is shown. `--json`: one document on stdout, `{exitCode, result, next?,
 * taskId?}`, where `result` is the tool's structured answer exactly as the authority gave it and
 * `taskId` the kernel task of the call (for `sisyphus task`). On a terminal: the
 * answer as indented `key: value` lines, lists of records as tables, errors on stderr with their
 * code, message and the next step.
 */
import { err, type Io, out, paint, table } from "./io.js";

type Json = Record<string, unknown>;

function isRecordList(v: unknown): v is Json[] {
  return (
    Array.isArray(v) &&
    v.length > 0 &&
    v.every(
      (x) =>
        x !== null &&
        typeof x === "object" &&
        !Array.isArray(x) &&
        Object.values(x).every((y) => y === null || typeof y !== "object"),
    )
  );
}

function scalarText(v: unknown): string {
  if (typeof v === "string") return v;
  return JSON.stringify(v);
}

/**
 * A field's value as a person reads it: a `…At` field holding epoch milliseconds (lease and request
 * expiries, ledger times, database cell times) as an ISO 8601 UTC time to the second; everything
 * else as {@link scalarText}. Only the terminal text: `--json` keeps the number.
 */
function fieldText(key: string, v: unknown): string {
  if (key.endsWith("At") && Number.isInteger(v) && (v as number) >= 1e12 && (v as number) < 1e14) {
    return new Date(v as number).toISOString().replace(/\.\d{3}Z$/, "Z");
  }
  return scalarText(v);
}

/** Indented `key: value` lines of a JSON value. */
export function humanLines(value: unknown, indent = ""): string[] {
  if (value === null || typeof value !== "object") return [`${indent}${scalarText(value)}`];
  if (isRecordList(value)) {
    const keys = [...new Set(value.flatMap((r) => Object.keys(r)))];
    return table([
      keys,
      ...value.map((r) => keys.map((k) => (r[k] === undefined ? "" : fieldText(k, r[k])))),
    ]).map((l) => `${indent}${l}`);
  }
  if (Array.isArray(value)) {
    return value.flatMap((item) => {
      const lines = humanLines(item, `${indent}  `);
      return [`${indent}- ${(lines[0] ?? "").trimStart()}`, ...lines.slice(1)];
    });
  }
  const lines: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    if (v !== null && typeof v === "object" && Object.keys(v).length > 0) {
      lines.push(`${indent}${k}:`, ...humanLines(v, `${indent}  `));
    } else {
      lines.push(`${indent}${k}: ${fieldText(k, v)}`);
    }
  }
  return lines;
}

/** Prints one tool answer. `next`: the command to run next (a preflight's commit). */
export function renderResult(
  io: Io,
  structured: Json,
  isError: boolean,
  exitCode: number,
  next?: string,
  extra: Record<string, unknown> = {},
): void {
  if (io.json) {
    out(io, JSON.stringify({ exitCode, result: structured, ...(next ? { next } : {}), ...extra }));
    return;
  }
  if (isError) {
    const e = (structured["error"] ?? {}) as Json;
    const { code, message, hint, ...details } = e;
    err(io, `${paint(io, "red", `error ${String(code)}`)}: ${String(message ?? "")}`);
    if (Object.keys(details).length > 0) for (const l of humanLines(details, "  ")) err(io, l);
    if (hint !== undefined) err(io, `${paint(io, "dim", "next step:")} ${String(hint)}`);
    return;
  }
  for (const line of humanLines(structured)) out(io, line);
  if (next !== undefined) {
    out(io, "");
    out(io, `${paint(io, "bold", "Next:")} ${next}`);
  }
}

/** Prints a local failure (usage, unreachable kernel…) the same way as a tool error. */
export function renderFailure(io: Io, code: string, message: string, exitCode: number): void {
  if (io.json) {
    out(io, JSON.stringify({ exitCode, error: { code, message } }));
    return;
  }
  err(io, `${paint(io, "red", `sisyphus: ${code}`)}: ${message}`);
}
