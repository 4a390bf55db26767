/**
 * The Node authority's durable `LedgerStore`: an append-only write-ahead log of JSON records in
 * the data directory. Each record line is `<crc32 hex> <json>`; `put` resolves only after the line
 * is fsynced (so `executing` is durable before dispatch). A bad line fails closed.
 */
import { crc32 } from "node:zlib";
import { WAL_COMPACT_BYTES } from "../constants.js";
import { NodeServerError } from "../errors.js";
import { AppendLog } from "./append-log.js";

/** What the store needs of a ledger record: its request ID (the rest is stored verbatim as JSON). */
export interface KeyedRecord {
  requestId: string;
}

type Op<E> = { op: "put"; entry: E } | { op: "del"; ids: string[] };

function encode<E>(op: Op<E>): string {
  const json = JSON.stringify(op);
  return `${crc32(json).toString(16).padStart(8, "0")} ${json}`;
}

function decode<E>(line: string, file: string, lineNo: number): Op<E> {
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

/**
 * File-backed ledger store (one writer: the data-directory lock guarantees it). Compacts when the
 * log exceeds `WAL_COMPACT_BYTES` and holds more than twice the live data.
 */
export class FileLedgerStore<E extends KeyedRecord = KeyedRecord> {
  readonly #log: AppendLog;
  readonly #live = new Map<string, string>();
  readonly #compactBytes: number;

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
    options: { compactBytes?: number } = {},
  ): Promise<FileLedgerStore<E>> {
    const { log, lines } = await AppendLog.open(file);
    const store = new FileLedgerStore<E>(log, options.compactBytes ?? WAL_COMPACT_BYTES);
    try {
      lines.forEach((line, i) => {
        const op = decode<E>(line, file, i + 1);
        if (op.op === "put" && typeof op.entry?.requestId === "string") {
          store.#live.set(op.entry.requestId, JSON.stringify(op.entry));
        } else if (op.op === "del" && Array.isArray(op.ids)) {
          for (const id of op.ids) store.#live.delete(id);
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
    return [...this.#live.values()].map((t) => JSON.parse(t) as E);
  }

  /** Upserts a record; resolves once it is fsynced. */
  async put(entry: E): Promise<void> {
    const text = JSON.stringify(entry);
    await this.#log.append([encode<E>({ op: "put", entry })]);
    this.#live.set(entry.requestId, text);
    await this.#maybeCompact();
  }

  /** Removes records; resolves once the deletion is fsynced. */
  async delete(requestIds: readonly string[]): Promise<void> {
    if (requestIds.length === 0) return;
    await this.#log.append([encode<E>({ op: "del", ids: [...requestIds] })]);
    for (const id of requestIds) this.#live.delete(id);
    await this.#maybeCompact();
  }

  /** Rewrites the log with only the live records (atomic). */
  async compact(): Promise<void> {
    const lines = [...this.#live.values()].map((t) =>
      encode<E>({ op: "put", entry: JSON.parse(t) as E }),
    );
    await this.#log.compact(lines);
  }

  /** Size of the log file in bytes. */
  get byteLength(): number {
    return this.#log.byteLength;
  }

  async close(): Promise<void> {
    await this.#log.close();
  }

  async #maybeCompact(): Promise<void> {
    if (this.#log.byteLength < this.#compactBytes) return;
    let liveBytes = 0;
    for (const t of this.#live.values()) liveBytes += t.length + 30;
    if (this.#log.byteLength > 2 * liveBytes) await this.compact();
  }
}
