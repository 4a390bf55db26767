/**
 * The Node authority's durable stores, both over `AppendLog`.
 *
 * `FileLedgerStore`, the `LedgerStore`: an append-only write-ahead log of JSON records in
 * the data directory. Each record line is `<crc32 hex> <json>`; `put` resolves only after the line
 * is fsynced (so `executing` is durable before dispatch), concurrent puts sharing one fsync (group
 * commit, see `AppendLog`). `delete` only drops records already past their deadline, so it does
 * not wait for a sync of its own: a deletion lost in a crash is repeated at the next load. A bad
 * line fails closed, at open and when a record is read on lookup. A put line (format 2) carries a
 * header with the request ID and deadlines, so open indexes the log without parsing the records.
 *
 * `FileReservationStore`, the `ReservationStore`: every request ID ever issued, one per line (4–64
 * lowercase hex digits), each fsynced before `append` resolves; concurrent appends share one fsync.
 * IDs are never removed. A torn last line is dropped (it was never acknowledged); any other bad
 * line fails closed.
 */
import { crc32 } from "node:zlib";
import { WAL_COMPACT_BYTES } from "../constants.js";
import { NodeServerError } from "../errors.js";
import { AppendLog, type SyncFn } from "./append-log.js";

/**
 * What the store needs of a ledger record: its request ID, and the fields a ledger needs of every
 * record at open (its deadlines), which each put line repeats in its header so that open reads
 * them without parsing the record. The rest is stored verbatim as JSON.
 */
export interface KeyedRecord {
  requestId: string;
  requestIdExpiresAt?: number;
  executingAt?: number;
}

/** The key fields of a record: what {@link FileLedgerStore.loadKeys} hands out. */
export type StoreKey<E extends KeyedRecord> = Pick<
  E,
  "requestId" | "requestIdExpiresAt" | "executingAt"
>;

/**
 * A live record: its key fields, and where its latest put line is: at byte `at` of the log
 * (`bytes` long, newline included), or, until the next compaction writes it, in `line` (a record
 * read from an older line format, or with a request ID the fast path does not take).
 */
interface Rec {
  readonly requestId: string;
  readonly requestIdExpiresAt: number | undefined;
  readonly executingAt: number | undefined;
  at: number;
  bytes: number;
  line: string | undefined;
}

type Op<E> = { op: "put"; entry: E } | { op: "del"; ids: string[] };

function line(json: string): string {
  return `${crc32(json).toString(16).padStart(8, "0")} ${json}`;
}

/**
 * The line of a put (format 2): a header with the request ID and the deadline fields, then the
 * entry's JSON text. Format 1 (`{"op":"put","entry":…}`) is still read.
 */
export function putLine(entry: KeyedRecord, entryJson = JSON.stringify(entry)): string {
  const exp =
    typeof entry.requestIdExpiresAt === "number" ? `,"exp":${entry.requestIdExpiresAt}` : "";
  const run = typeof entry.executingAt === "number" ? `,"run":${entry.executingAt}` : "";
  return line(
    `{"op":"put","id":${JSON.stringify(entry.requestId)}${exp}${run},"entry":${entryJson}}`,
  );
}

/** A format-2 put header as `putLine` writes it for a hex request ID and integral deadlines. */
const FAST_PUT =
  /^\{"op":"put","id":"([0-9a-f]{4,64})"(?:,"exp":(\d{1,16}))?(?:,"run":(\d{1,16}))?,"entry":\{/;

/** Bytes of a line the fast path decodes: checksum, space and the longest format-2 header. */
const HEADER_BYTES = 9 + '{"op":"put","id":"","exp":,"run":,"entry":{'.length + 64 + 2 * 16;

const SPACE = 0x20;
const NEWLINE = 0x0a;

function corrupt(file: string, lineNo: number, what = "Corrupt record"): NodeServerError {
  return new NodeServerError(
    "store_corrupt",
    `${what} at line ${lineNo} of the ledger; refusing to start`,
    { file, line: lineNo },
  );
}

/** Checks the checksum of the line `bytes[at, nl)` (`<crc32 hex> <json>`), on its bytes. */
function checksumHolds(bytes: Buffer, at: number, nl: number): boolean {
  if (nl - at < 10 || bytes[at + 8] !== SPACE) return false;
  const hex = bytes.toString("latin1", at, at + 8);
  return (
    /^[0-9a-f]{8}$/.test(hex) && Number.parseInt(hex, 16) === crc32(bytes.subarray(at + 9, nl))
  );
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

/** A deadline field of a parsed entry, as the store keeps it. */
const num = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);

/**
 * File-backed ledger store (one writer: the data-directory lock guarantees it). Compacts when the
 * log exceeds `WAL_COMPACT_BYTES` and holds more than twice the live data.
 *
 * Memory holds only an index (request ID → key fields and the offset of the latest put line), not
 * the records: {@link FileLedgerStore.loadKeys} gives a ledger what it needs at open, and
 * {@link FileLedgerStore.read} reads one record from the file when it is looked up, checking its
 * checksum again (fail closed). Open checks every line's checksum on its bytes and decodes only
 * the header of a put line this store wrote; other lines are parsed in full.
 */
export class FileLedgerStore<E extends KeyedRecord = KeyedRecord> {
  #log!: AppendLog;
  readonly #file: string;
  /** Request ID → its live record (insertion order: compaction keeps it). */
  readonly #live = new Map<string, Rec>();
  /** Size of the live records in a compacted log, in bytes. */
  #liveBytes = 0;
  readonly #compactBytes: number;
  #compacting = false;

  private constructor(file: string, compactBytes: number) {
    this.#file = file;
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
    const store = new FileLedgerStore<E>(file, options.compactBytes ?? WAL_COMPACT_BYTES);
    let lineNo = 0;
    store.#log = await AppendLog.openEach(
      file,
      options.sync === undefined ? {} : { sync: options.sync },
      (bytes, start, end, offset) => store.#replay(bytes, start, end, offset, ++lineNo),
    );
    return store;
  }

  /** Live records. */
  get size(): number {
    return this.#live.size;
  }

  /** Every live record (reads and parses them all; a ledger uses `loadKeys` and `read`). */
  async loadAll(): Promise<readonly E[]> {
    return Array.from(this.#live.values(), (rec) => this.#entry(rec));
  }

  /**
   * The key fields of every live record, without reading the records. The objects are the
   * store's own index entries: read-only for the caller.
   */
  async loadKeys(): Promise<readonly StoreKey<E>[]> {
    return [...this.#live.values()] as unknown as StoreKey<E>[];
  }

  /**
   * The live record of `requestId`, read from the file (synchronously: one positioned read) and
   * checked against its checksum; `undefined` when there is none.
   * @throws NodeServerError `store_corrupt` when the line no longer matches its checksum, `store_io`.
   */
  read(requestId: string): E | undefined {
    const rec = this.#live.get(requestId);
    return rec === undefined ? undefined : this.#entry(rec);
  }

  /** Upserts a record; resolves once it is fsynced (it becomes live for compaction at that moment). */
  async put(entry: E): Promise<void> {
    const l = putLine(entry, JSON.stringify(entry));
    const bytes = Buffer.byteLength(l) + 1;
    const { requestId } = entry;
    const requestIdExpiresAt = num(entry.requestIdExpiresAt);
    const executingAt = num(entry.executingAt);
    await this.#log.append([l], (at) =>
      this.#set({ requestId, requestIdExpiresAt, executingAt, at, bytes, line: undefined }),
    );
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
   * Rewrites the log with only the live records (atomic), in format 2. The records are taken once
   * every earlier put settled, so none acknowledged before or during the compaction is dropped;
   * their new offsets take effect when the new file does.
   */
  async compact(): Promise<void> {
    let moved: Array<[Rec, number]> = [];
    await this.#log.compact(
      () => {
        const recs = [...this.#live.values()];
        moved = [];
        return this.#chunks(recs, moved);
      },
      () => {
        for (const [rec, at] of moved) {
          rec.at = at;
          rec.line = undefined;
        }
      },
    );
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

  /** Replays the line `bytes[at, nl)`, at byte `offset` of the file (line number `lineNo`). */
  #replay(bytes: Buffer, at: number, nl: number, offset: number, lineNo: number): void {
    if (!checksumHolds(bytes, at, nl)) throw corrupt(this.#file, lineNo);
    const head = FAST_PUT.exec(bytes.toString("latin1", at + 9, Math.min(nl, at + HEADER_BYTES)));
    if (head !== null && bytes[nl - 1] === 0x7d && bytes[nl - 2] === 0x7d) {
      this.#set({
        requestId: head[1] as string,
        requestIdExpiresAt: head[2] === undefined ? undefined : Number(head[2]),
        executingAt: head[3] === undefined ? undefined : Number(head[3]),
        at: offset,
        bytes: nl + 1 - at,
        line: undefined,
      });
      return;
    }
    const op = parse<E>(bytes.toString("utf8", at + 9, nl), this.#file, lineNo);
    if (op.op === "put" && typeof op.entry?.requestId === "string") {
      const l = putLine(op.entry, JSON.stringify(op.entry));
      this.#set({
        requestId: op.entry.requestId,
        requestIdExpiresAt: num(op.entry.requestIdExpiresAt),
        executingAt: num(op.entry.executingAt),
        at: -1,
        bytes: Buffer.byteLength(l) + 1,
        line: l,
      });
    } else if (op.op === "del" && Array.isArray(op.ids)) {
      this.#remove(op.ids);
    } else {
      throw corrupt(this.#file, lineNo, "Unknown record");
    }
  }

  /** The entry of a live record, from memory or from the file (checksum checked again). */
  #entry(rec: Rec): E {
    let text = rec.line;
    if (text === undefined) {
      const bytes = this.#log.readAt(rec.at, rec.bytes);
      if (bytes[rec.bytes - 1] !== NEWLINE || !checksumHolds(bytes, 0, rec.bytes - 1)) {
        throw new NodeServerError(
          "store_corrupt",
          `Corrupt record of ${rec.requestId} at byte ${rec.at} of the ledger`,
          { file: this.#file, byte: rec.at },
        );
      }
      text = bytes.toString("utf8", 0, rec.bytes - 1);
    }
    let op: { entry?: E } | undefined;
    try {
      op = JSON.parse(text.slice(9)) as { entry?: E };
    } catch {
      // reported below: a record that does not parse names no request
    }
    if (op?.entry?.requestId !== rec.requestId) {
      throw new NodeServerError(
        "store_corrupt",
        `Unreadable record of ${rec.requestId} in the ledger`,
        { file: this.#file, byte: rec.at },
      );
    }
    return op.entry as E;
  }

  /**
   * The live records as compaction chunks of about {@link COMPACT_CHUNK_BYTES}, read lazily from the
   * current file; records each one's new offset in `moved`.
   */
  *#chunks(recs: readonly Rec[], moved: Array<[Rec, number]>): Generator<Buffer> {
    let offset = 0;
    for (let i = 0; i < recs.length; ) {
      const parts: Buffer[] = [];
      let size = 0;
      for (; i < recs.length && size < COMPACT_CHUNK_BYTES; i++) {
        const rec = recs[i] as Rec;
        const part =
          rec.line === undefined
            ? this.#log.readAt(rec.at, rec.bytes)
            : Buffer.from(`${rec.line}\n`, "utf8");
        parts.push(part);
        moved.push([rec, offset + size]);
        size += part.length;
      }
      offset += size;
      yield Buffer.concat(parts, size);
    }
  }

  #set(rec: Rec): void {
    const before = this.#live.get(rec.requestId);
    if (before !== undefined) this.#liveBytes -= before.bytes;
    this.#live.set(rec.requestId, rec);
    this.#liveBytes += rec.bytes;
  }

  #remove(requestIds: readonly string[]): void {
    for (const id of requestIds) {
      const before = this.#live.get(id);
      if (before === undefined) continue;
      this.#live.delete(id);
      this.#liveBytes -= before.bytes;
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

/** Bytes per write of a compaction (the event loop runs between writes). */
const COMPACT_CHUNK_BYTES = 4 * 2 ** 20;

const ID = /^[0-9a-f]{4,64}$/;

/** File-backed reservation store (one writer, guaranteed by the data-directory lock). */
export class FileReservationStore {
  readonly #log: AppendLog;
  readonly #ids: string[];

  private constructor(log: AppendLog, ids: string[]) {
    this.#log = log;
    this.#ids = ids;
  }

  /**
   * Opens (or creates) the reservation file.
   * @throws NodeServerError `store_corrupt` on an unreadable file or a malformed line, `store_io`.
   */
  static async open(file: string, options: { sync?: SyncFn } = {}): Promise<FileReservationStore> {
    const { log, lines } = await AppendLog.open(
      file,
      options.sync === undefined ? {} : { sync: options.sync },
    );
    const bad = lines.findIndex((l) => !ID.test(l));
    if (bad >= 0) {
      await log.close();
      throw new NodeServerError(
        "store_corrupt",
        `Malformed reservation at line ${bad + 1}; refusing to start`,
        { file, line: bad + 1 },
      );
    }
    return new FileReservationStore(log, lines);
  }

  /** Every ID ever appended, in order. */
  async loadAll(): Promise<readonly string[]> {
    return [...this.#ids];
  }

  /**
   * Durably records one ID; resolves after fsync.
   * @throws TypeError for a malformed ID; NodeServerError `store_io` when the write fails.
   */
  async append(id: string): Promise<void> {
    if (!ID.test(id)) throw new TypeError("a request ID is 4 to 64 lowercase hex digits");
    await this.#log.append([id], () => this.#ids.push(id));
  }

  /** fsyncs started since open (group commit: one may cover many IDs). */
  get syncCount(): number {
    return this.#log.syncCount;
  }

  async close(): Promise<void> {
    await this.#log.close();
  }
}
