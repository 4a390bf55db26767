/**
 * The segment file format shared by the kernel plugin's durable stores on `siyuan.storage`.
 *
 * A store is a directory of numbered segment files `seg-<10 digits>.log`. Every file is written
 * whole by one `put` (the kernel has no append) and is at most {@link SEGMENT_MAX_BYTES} bytes:
 *
 * ```text
 * #sisyphus-<kind> v1 seg <n>      header: kind and the file's own number
 * <record line>                    one record per line, ASCII only (non-ASCII is \u-escaped)
 * #end <record count>              trailer: a file cut short anywhere lacks it
 * ```
 *
 * Records never start with `#`. Any file named `seg-…` that does not parse exactly is corruption
 * (whole-file puts cannot leave a torn tail), so loading fails closed with {@link SegmentStoreError}.
 * Plain ES2022 string code only: this file is bundled into the goja kernel script.
 */
import type { PluginStorage, PluginStorageEntry } from "./plugin-storage.js";

/** Largest segment file, in bytes (every segment is ASCII, so bytes = string length). */
export const SEGMENT_MAX_BYTES = 64 * 1024;

/** Smallest `maxSegmentBytes` a store accepts (room for header, trailer and a record). */
export const SEGMENT_MIN_BYTES = 256;

/**
 * Default size at which the open segment is sealed: once it holds this many bytes, the next write
 * starts the next segment. A write rewrites the whole open segment, so this bounds the bytes of a
 * typical write (a quarter of {@link SEGMENT_MAX_BYTES}: 4× fewer bytes per put for 4× the files),
 * while a record of up to {@link SEGMENT_MAX_BYTES} still fits, alone in a segment if need be.
 */
export const SEGMENT_SEAL_BYTES = 16 * 1024;

/** Written into a store directory only when it could not be listed (first start): creates it. */
export const STORE_MARKER_FILE = "store.txt";

/** Codes of {@link SegmentStoreError}. */
export type SegmentStoreErrorCode =
  /** A segment exists but does not parse (bad header, trailer, record or name): fail closed. */
  | "store_corrupt"
  /** The directory or a segment cannot be read at all: fail closed. */
  | "store_unreadable"
  /** One record is larger than a segment can hold. */
  | "record_too_large";

/** Where a {@link SegmentStoreError} happened. */
export interface SegmentStoreErrorDetails {
  dir: string;
  file?: string;
  /** 1-based line of the segment file. */
  line?: number;
}

/**
 * A store that cannot be trusted or cannot take a record. Loading throws it rather than return a
 * partial set of records; callers map it to `write_coordinator_unavailable`.
 */
export class SegmentStoreError extends Error {
  readonly code: SegmentStoreErrorCode;
  readonly details: SegmentStoreErrorDetails;
  override readonly cause: unknown;
  constructor(
    code: SegmentStoreErrorCode,
    message: string,
    details: SegmentStoreErrorDetails,
    cause?: unknown,
  ) {
    super(`${code}: ${message}`);
    this.name = "SegmentStoreError";
    this.code = code;
    this.details = details;
    this.cause = cause;
  }
}

/** True for a {@link SegmentStoreError} (also across bundles). */
export function isSegmentStoreError(value: unknown): value is SegmentStoreError {
  return (
    value instanceof SegmentStoreError ||
    (typeof value === "object" &&
      value !== null &&
      (value as { name?: unknown }).name === "SegmentStoreError")
  );
}

const NAME = /^seg-([0-9]{10})\.log$/;

/** File name of segment `no`. */
export function segmentFileName(no: number): string {
  return `seg-${String(no).padStart(10, "0")}.log`;
}

function header(kind: string, no: number): string {
  return `#sisyphus-${kind} v1 seg ${no}\n`;
}

function trailer(count: number): string {
  return `#end ${count}\n`;
}

/** Bytes of a segment whose record lines (each ending in `\n`) total `bodyBytes`. */
export function segmentBytes(kind: string, no: number, bodyBytes: number, count: number): number {
  return header(kind, no).length + bodyBytes + trailer(count).length;
}

/** The text of a segment; `body` is its record lines, each ending in `\n`. */
export function segmentText(kind: string, no: number, body: string, count: number): string {
  return header(kind, no) + body + trailer(count);
}

/**
 * `JSON.stringify` with every non-ASCII UTF-16 unit written as `\uXXXX`: the line is pure ASCII
 * (its byte length is its string length, and lone surrogates survive the kernel's UTF-8
 * conversion) and `JSON.parse` gives the same value back. A plain char-code loop (no regex), so
 * the result does not depend on how the engine's regex treats surrogates.
 */
export function asciiJson(value: unknown): string {
  const json = JSON.stringify(value);
  let out = "";
  let from = 0;
  for (let i = 0; i < json.length; i++) {
    const code = json.charCodeAt(i);
    if (code < 0x80) continue;
    out += `${json.slice(from, i)}\\u${code.toString(16).padStart(4, "0")}`;
    from = i + 1;
  }
  return from === 0 ? json : out + json.slice(from);
}

/** One segment as read back. */
export interface LoadedSegment {
  no: number;
  file: string;
  /** Record lines, without newlines. */
  lines: string[];
  /** Size of the file. */
  bytes: number;
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Reads and validates every segment of `dir`, in ascending number. A directory that cannot be
 * listed is created (with {@link STORE_MARKER_FILE}) and listed again, so a first start sees an
 * empty store while a directory that stays unlistable fails closed. The caller validates the
 * records themselves (see {@link recordError}).
 * @throws SegmentStoreError `store_unreadable` / `store_corrupt`.
 */
export async function loadSegments(
  storage: PluginStorage,
  dir: string,
  kind: string,
): Promise<LoadedSegment[]> {
  let entries: readonly PluginStorageEntry[];
  try {
    entries = await storage.list(dir);
  } catch {
    try {
      await storage.put(`${dir}/${STORE_MARKER_FILE}`, `sisyphus-${kind} segments v1\n`);
      entries = await storage.list(dir);
    } catch (e) {
      throw new SegmentStoreError(
        "store_unreadable",
        `cannot list ${dir}: ${errorText(e)}`,
        { dir },
        e,
      );
    }
  }
  const found: Array<{ no: number; file: string }> = [];
  for (const entry of entries) {
    if (!entry.name.startsWith("seg-")) continue;
    const m = NAME.exec(entry.name);
    if (m === null || entry.isDir) {
      throw new SegmentStoreError("store_corrupt", `unexpected entry ${entry.name} in ${dir}`, {
        dir,
        file: entry.name,
      });
    }
    found.push({ no: Number(m[1]), file: entry.name });
  }
  found.sort((a, b) => a.no - b.no);
  const segments: LoadedSegment[] = [];
  for (const { no, file } of found) {
    let text: string;
    try {
      text = String(await (await storage.get(`${dir}/${file}`)).text());
    } catch (e) {
      throw new SegmentStoreError(
        "store_unreadable",
        `cannot read ${dir}/${file}: ${errorText(e)}`,
        { dir, file },
        e,
      );
    }
    segments.push({ no, file, lines: parseSegment(text, kind, no, dir, file), bytes: text.length });
  }
  return segments;
}

function parseSegment(text: string, kind: string, no: number, dir: string, file: string): string[] {
  const corrupt = (message: string, line?: number): SegmentStoreError =>
    new SegmentStoreError(
      "store_corrupt",
      `${dir}/${file}: ${message}`,
      line === undefined ? { dir, file } : { dir, file, line },
    );
  const lines = text.split("\n");
  if (lines.length < 3 || lines[lines.length - 1] !== "") {
    throw corrupt("truncated segment (no final trailer line)");
  }
  if (`${lines[0]}\n` !== header(kind, no)) throw corrupt("bad header", 1);
  const count = lines.length - 3;
  if (`${lines[lines.length - 2]}\n` !== trailer(count)) {
    throw corrupt("missing or wrong trailer (segment cut short?)", lines.length - 1);
  }
  const records = lines.slice(1, lines.length - 2);
  for (let i = 0; i < records.length; i++) {
    if (records[i]!.startsWith("#")) throw corrupt("unexpected directive", i + 2);
  }
  return records;
}

/** The `store_corrupt` error for record `index` (0-based) of a loaded segment. */
export function recordError(dir: string, segment: LoadedSegment, index: number, message: string) {
  return new SegmentStoreError("store_corrupt", `${dir}/${segment.file}: ${message}`, {
    dir,
    file: segment.file,
    line: index + 2,
  });
}
