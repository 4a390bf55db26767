/**
 * The Node authority's durable `LedgerStore`: an append-only write-ahead log of JSON records in
 * the data directory. Each record line is `<crc32 hex> <json>`; `put` resolves only after the line
 * is fsynced (so `executing` is durable before dispatch), concurrent puts sharing one fsync (group
 * commit, see `AppendLog`). `delete` only drops records already past their deadline, so it does
 * not wait for a sync of its own: a deletion lost in a crash is repeated at the next load. A bad
 * line fails closed.
 */
import { crc32 } from "node:zlib";
import { WAL_COMPACT_BYTES } from "../constants.js";
import { NodeServerError } from "../errors.js";
import { AppendLog, type SyncFn } from "./append-log.js";

/** What the store needs of a ledger record: its request ID (the rest is stored verbatim as JSON). */
export interface KeyedRecord {
  requestId: string;
}

type Op<E> = { op: "put"; entry: E } | { op: "del"; ids: string[] };

function line(json: string): string {
  return `${crc32(json).toString(16).padStart(8, "0")} ${json}`;
}

/** The line of a put, from the entry's JSON text (the same text `JSON.stringify` gives the op). */
function putLine(entryJson: string): string {
  return line(`{"op":"put","entry":${entryJson}}`);
}

/** Where the entry's JSON starts in a put line: after the checksum, a space and the op wrapper. */
const ENTRY_AT = 9 + '{"op":"put","entry":'.length;

/** The entry's JSON text of a put line. */
function entryText(putLine: string): string {
  return putLine.slice(ENTRY_AT, -1);
}

/** The JSON of a line whose checksum holds. */
function checked(line: string, file: string, lineNo: number): string {
  const space = line.indexOf(" ");
  const json = line.slice(space + 1);
  const sum = Number.parseInt(line.slice(0, space), 16);
  if (space !== 8 || sum !== crc32(json)) {
    throw new NodeServerError(
      "store_corrupt",
      `Corrupt record at line ${lineNo} of the ledger; refusing to start`,
      { file, line: lineNo },
    );
  }
  return json;
}

function parse<E>(json: string, file: string, lineNo: number): Op<E> {
  try {
    return JSON.parse(json) as Op<E>;
  } catch (e) {
    throw new NodeServerError(
      "store_corrupt",
      `Unparseable record at line ${lineNo} of the ledger`,
      { file, line: lineNo },
      { cause: e },
    );
  }
}

/** A put as `putLine` writes it: the request ID (hex) first in the entry. */
const FAST_PUT = /^\{"op":"put","entry":\{"requestId":"([0-9a-f]{4,64})"/;

/**
 * The request ID of a put this store wrote, without parsing the entry: its JSON came from
 * `JSON.stringify` and its checksum holds (the ledger parses each entry once, above the store).
 * Anything else is parsed in full.
 */
function fastPutId(json: string): string | undefined {
  const m = FAST_PUT.exec(json);
  return m === null || !json.endsWith("}}") ? undefined : (m[1] as string);
}

/**
 * File-backed ledger store (one writer: the data-directory lock guarantees it). Compacts when the
 * log exceeds `WAL_COMPACT_BYTES` and holds more than twice the live data.
 */
export class FileLedgerStore<E extends KeyedRecord = KeyedRecord> {
  readonly #log: AppendLog;
  /** Request ID → its latest put line, exactly as written (compaction rewrites these lines). */
  readonly #live = new Map<string, string>();
  /** Size of the live records in a compacted log, in characters (≈ bytes: the lines are JSON). */
  #liveBytes = 0;
  readonly #compactBytes: number;
  #compacting = false;

  private constructor(log: AppendLog, compactBytes: number) {
    this.#log = log;
    this.#compactBytes = compactBytes;
  }

  /**
   * Opens the ledger file, replaying its log.
   * @throws NodeServerError `store_corrupt` on any unreadable record (fail closed), `store_io`.
   */
  static async open<E extends KeyedRecord>(
    file: string,
    options: { compactBytes?: number; sync?: SyncFn } = {},
  ): Promise<FileLedgerStore<E>> {
    const { log, lines } = await AppendLog.open(
      file,
      options.sync === undefined ? {} : { sync: options.sync },
    );
    const store = new FileLedgerStore<E>(log, options.compactBytes ?? WAL_COMPACT_BYTES);
    try {
      lines.forEach((line, i) => {
        const json = checked(line, file, i + 1);
        const id = fastPutId(json);
        if (id !== undefined) {
          store.#set(id, line);
          return;
        }
        const op = parse<E>(json, file, i + 1);
        if (op.op === "put" && typeof op.entry?.requestId === "string") {
          store.#set(op.entry.requestId, putLine(JSON.stringify(op.entry)));
        } else if (op.op === "del" && Array.isArray(op.ids)) {
          store.#remove(op.ids);
        } else {
          throw new NodeServerError(
            "store_corrupt",
            `Unknown record at line ${i + 1} of the ledger`,
            { file, line: i + 1 },
          );
        }
      });
    } catch (e) {
      await log.close();
      throw e;
    }
    return store;
  }

  /** Live records. */
  get size(): number {
    return this.#live.size;
  }

  /** Every live record. */
  async loadAll(): Promise<readonly E[]> {
    return Array.from(this.#live.values(), (l) => JSON.parse(entryText(l)) as E);
  }

  /** Upserts a record; resolves once it is fsynced (it becomes live for compaction at that moment). */
  async put(entry: E): Promise<void> {
    const l = putLine(JSON.stringify(entry));
    await this.#log.append([l], () => this.#set(entry.requestId, l));
    await this.#maybeCompact();
  }

  /**
   * Removes records; resolves once the deletion is written, without a sync of its own (the next
   * put's sync or `close` covers it). Only for records past their deadline: a deletion lost in a
   * crash leaves them to be deleted again after the next load.
   */
  async delete(requestIds: readonly string[]): Promise<void> {
    if (requestIds.length === 0) return;
    const ids = [...requestIds];
    await this.#log.appendLazy([line(JSON.stringify({ op: "del", ids }))], () => this.#remove(ids));
    await this.#maybeCompact();
  }

  /**
   * Rewrites the log with only the live records (atomic). The records are taken once every earlier
   * put settled, so none acknowledged before or during the compaction is dropped.
   */
  async compact(): Promise<void> {
    await this.#log.compact(() => [...this.#live.values()]);
  }

  /** fsyncs started since open (group commit: one may cover many records). */
  get syncCount(): number {
    return this.#log.syncCount;
  }

  /** Size of the log file in bytes. */
  get byteLength(): number {
    return this.#log.byteLength;
  }

  async close(): Promise<void> {
    await this.#log.close();
  }

  #set(requestId: string, line: string): void {
    const before = this.#live.get(requestId);
    if (before !== undefined) this.#liveBytes -= before.length + 1;
    this.#live.set(requestId, line);
    this.#liveBytes += line.length + 1;
  }

  #remove(requestIds: readonly string[]): void {
    for (const id of requestIds) {
      const before = this.#live.get(id);
      if (before === undefined) continue;
      this.#live.delete(id);
      this.#liveBytes -= before.length + 1;
    }
  }

  /** Compacts once the log is large and more than half dead; one compaction at a time. */
  async #maybeCompact(): Promise<void> {
    if (this.#compacting || this.#log.byteLength < this.#compactBytes) return;
    if (this.#log.byteLength <= 2 * this.#liveBytes) return;
    this.#compacting = true;
    try {
      await this.compact();
    } finally {
      this.#compacting = false;
    }
  }
}
