/**
 * A crash-safe append-only text log: one record per line, each acknowledged only after `fdatasync`;
 * a torn last line (no newline: the append never completed, so it was never acknowledged) is
 * truncated on open; anything else unreadable fails closed. Compaction rewrites the live records
 * into a temporary file, fsyncs it, renames it over the log and fsyncs the directory. Every file
 * it creates or opens is made mode 0600 (owner read/write only), whatever the umask or the mode a
 * file had before: the records name requests and targets.
 *
 * Group commit: writes go to the file one at a time, in call order, but they share `fdatasync`s.
 * A sync starts when no write is queued and none is running, and covers every append written
 * before it started; appends written meanwhile wait for the next one. So N appends made at once
 * cost one sync. A waiter is acknowledged only by a sync that started after its bytes were
 * written, and a failed sync fails every waiter of its group.
 */
import { closeSync, fsyncSync, openSync, readSync } from "node:fs";
import { type FileHandle, open, readFile, rename, truncate } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { NodeServerError } from "../errors.js";

/** Mode of every data file: owner read/write only. */
export const DATA_FILE_MODE = 0o600;

/** Makes the bytes written to a handle durable. The default is `fdatasync`; tests inject a fake. */
export type SyncFn = (handle: FileHandle) => Promise<void>;

/** Writes one append's bytes at the end of the file. The default is `handle.write`; tests inject a fault. */
export type WriteFn = (handle: FileHandle, data: Buffer) => Promise<unknown>;

/** Options of {@link AppendLog.open}. */
export interface AppendLogOptions {
  /** Default: `handle.datasync()`. */
  sync?: SyncFn;
  /** Default: `handle.write(data)`. */
  write?: WriteFn;
}

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
  /** Runs synchronously once the group is durable, before any waiter is resolved. */
  onDurable: ((at: number) => void) | undefined;
  /** Offset of the waiter's first line in the file. */
  at: number;
}

const datasync: SyncFn = (handle) => handle.datasync();
const writeAll: WriteFn = (handle, data) => handle.write(data);

const NEWLINE = 0x0a;

/**
 * The complete lines of `bytes[0, end)`, decoded one by one: a log may be larger than the longest
 * string V8 can hold (512 MiB), as a week of ledger records at 100 writes a minute is.
 */
function splitLines(bytes: Buffer, end: number): string[] {
  const lines: string[] = [];
  for (let at = 0; at < end; ) {
    const nl = bytes.indexOf(NEWLINE, at);
    lines.push(bytes.toString("utf8", at, nl));
    at = nl + 1;
  }
  return lines;
}

function linesToBuffer(lines: readonly string[]): Buffer {
  return Buffer.from(lines.map((l) => `${l}\n`).join(""), "utf8");
}

/**
 * Writes the chunks to `h` one by one (a compacted log may exceed the longest string V8 can hold,
 * and the event loop runs between chunks); returns the bytes written.
 */
async function writeInChunks(h: FileHandle, chunks: Iterable<Buffer>): Promise<number> {
  let size = 0;
  for (const chunk of chunks) {
    await h.write(chunk);
    size += chunk.length;
  }
  return size;
}

/** Bytes read at a time by {@link AppendLog.openEach} (a longer line grows the buffer). */
const READ_CHUNK_BYTES = 8 * 2 ** 20;

function unreadable(file: string, cause: unknown): NodeServerError {
  return new NodeServerError(
    "store_corrupt",
    `Cannot read ${basename(file)}; refusing to start`,
    { file },
    { cause },
  );
}

/**
 * Reads `h` in chunks, calling `onLine` for each complete line; returns the bytes up to the end
 * of the last complete line (`valid`) and the file's size (`total`).
 */
async function eachLine(
  h: FileHandle,
  file: string,
  onLine: (bytes: Buffer, start: number, end: number, offset: number) => void,
): Promise<{ valid: number; total: number }> {
  let buf = Buffer.allocUnsafe(READ_CHUNK_BYTES);
  let have = 0; // bytes of an unfinished line at the start of `buf`
  let offset = 0; // file offset of buf[0]
  for (;;) {
    if (have === buf.length) {
      const bigger = Buffer.allocUnsafe(2 * buf.length);
      buf.copy(bigger, 0, 0, have);
      buf = bigger;
    }
    let n: number;
    try {
      ({ bytesRead: n } = await h.read(buf, have, buf.length - have, offset + have));
    } catch (e) {
      throw unreadable(file, e);
    }
    if (n === 0) return { valid: offset, total: offset + have };
    const end = have + n;
    let at = 0;
    for (
      let nl = buf.indexOf(NEWLINE, have);
      nl !== -1 && nl < end;
      nl = buf.indexOf(NEWLINE, at)
    ) {
      onLine(buf, at, nl, offset + at);
      at = nl + 1;
    }
    buf.copy(buf, 0, at, end);
    offset += at;
    have = end - at;
  }
}

/** A log opened for appending, with the complete lines it held at open time. */
export class AppendLog {
  readonly file: string;
  readonly #sync: SyncFn;
  readonly #writeFn: WriteFn;
  #handle: FileHandle;
  #bytes: number;
  /** Serialises writes and compaction, in call order. */
  #chain: Promise<unknown> = Promise.resolve();
  /** Written, waiting for a sync that has not started yet. */
  #pending: Waiter[] = [];
  #syncing = false;
  /** Writes called and not finished: while any is queued, the last one starts the sync. */
  #queuedWrites = 0;
  /** Bytes written that no started sync covers (a lazy append). */
  #dirty = false;
  #idle: Array<() => void> = [];
  #syncs = 0;
  #closed = false;

  private constructor(file: string, handle: FileHandle, bytes: number, options: AppendLogOptions) {
    this.file = file;
    this.#handle = handle;
    this.#bytes = bytes;
    this.#sync = options.sync ?? datasync;
    this.#writeFn = options.write ?? writeAll;
  }

  /** Current size of the log file, in bytes. */
  get byteLength(): number {
    return this.#bytes;
  }

  /** Syncs started since open (each may cover many appends). */
  get syncCount(): number {
    return this.#syncs;
  }

  /**
   * Opens (or creates) the log and returns it with its complete lines.
   * @throws NodeServerError `store_corrupt` when the file cannot be read (fail closed), `store_io`
   *   when it cannot be opened for appending.
   */
  static async open(
    file: string,
    options: AppendLogOptions = {},
  ): Promise<{ log: AppendLog; lines: string[] }> {
    let bytes: Buffer = Buffer.alloc(0);
    try {
      bytes = await readFile(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw unreadable(file, e);
    }
    const validBytes = bytes.lastIndexOf(NEWLINE) + 1;
    try {
      if (validBytes < bytes.length) await truncate(file, validBytes);
      const handle = await open(file, "a+", DATA_FILE_MODE);
      await handle.chmod(DATA_FILE_MODE);
      return {
        log: new AppendLog(file, handle, validBytes, options),
        lines: splitLines(bytes, validBytes),
      };
    } catch (e) {
      throw openFailed(file, e);
    }
  }

  /**
   * {@link AppendLog.open}, handing each complete line to `onLine` as bytes instead of returning
   * the lines: the file is read in chunks, never whole (a week's ledger is about 1 GB), and the
   * caller decodes only what it needs. The line is `bytes[start, end)` (without its newline; the
   * buffer is reused after the call) and starts at byte `offset` of the file. What `onLine`
   * throws is rethrown, and the log is not opened.
   */
  static async openEach(
    file: string,
    options: AppendLogOptions,
    onLine: (bytes: Buffer, start: number, end: number, offset: number) => void,
  ): Promise<AppendLog> {
    let reader: FileHandle | undefined;
    let read = { valid: 0, total: 0 };
    try {
      reader = await open(file, "r");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw unreadable(file, e);
    }
    if (reader !== undefined) {
      try {
        read = await eachLine(reader, file, onLine);
      } finally {
        await reader.close();
      }
    }
    try {
      if (read.valid < read.total) await truncate(file, read.valid);
      const handle = await open(file, "a+", DATA_FILE_MODE);
      await handle.chmod(DATA_FILE_MODE);
      return new AppendLog(file, handle, read.valid, options);
    } catch (e) {
      throw openFailed(file, e);
    }
  }

  /**
   * Appends lines (each without newline) and resolves once they are on disk: after a sync that
   * started once they were written (group commit). `onDurable` runs synchronously at that moment,
   * before this or any other waiter of the group resumes.
   * @throws NodeServerError `store_io`: the lines may be partly written; the caller must not treat them as durable.
   */
  append(lines: readonly string[], onDurable?: (at: number) => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#write(linesToBuffer(lines), (at) => {
        this.#pending.push({ resolve, reject, onDurable, at });
        this.#kick();
      }).catch(reject);
    });
  }

  /**
   * Appends lines without waiting for a sync of its own: resolves once they are written. The next
   * group's sync (or `close`) makes them durable; a crash before may lose them. For records whose
   * loss is harmless (a deletion that the next load repeats). `written` runs right after the
   * write, before any later compaction takes its snapshot.
   * @throws NodeServerError `store_io` when the write fails.
   */
  appendLazy(lines: readonly string[], written?: () => void): Promise<void> {
    return this.#write(linesToBuffer(lines), () => {
      this.#dirty = true;
      written?.();
    });
  }

  /**
   * Reads `length` bytes at `position` of the log, synchronously (a record looked up by its
   * offset; the bytes come from the page cache as a rule). Reads see every write made so far.
   * @throws NodeServerError `store_io` when the read fails or comes back short.
   */
  readAt(position: number, length: number): Buffer {
    const buffer = Buffer.allocUnsafe(length);
    let got = 0;
    try {
      while (got < length) {
        const n = readSync(this.#handle.fd, buffer, got, length - got, position + got);
        if (n === 0) break;
        got += n;
      }
    } catch (e) {
      throw new NodeServerError(
        "store_io",
        `Cannot read ${basename(this.file)}`,
        {
          file: this.file,
        },
        { cause: e },
      );
    }
    if (got < length) {
      throw new NodeServerError("store_io", `Short read of ${basename(this.file)}`, {
        file: this.file,
      });
    }
    return buffer;
  }

  /**
   * Atomically replaces the log with the chunks `snapshot()` yields (write temp + fsync + rename +
   * directory fsync). It runs after every earlier append was written and its group settled, so
   * the snapshot sees every acknowledged record; later appends wait for it. Until `replaced` runs
   * (synchronously, at the moment the new file takes over) {@link AppendLog.readAt} reads the old
   * file, so offsets taken before stay valid until then.
   * @throws NodeServerError `store_io`; on failure the old log stays in force.
   */
  compact(snapshot: () => Iterable<Buffer>, replaced?: () => void): Promise<void> {
    const run = this.#chain.then(async () => {
      await this.#settled();
      const tmp = `${this.file}.tmp`;
      const chunks = snapshot();
      try {
        const h = await open(tmp, "w", DATA_FILE_MODE);
        let size = 0;
        try {
          await h.chmod(DATA_FILE_MODE);
          size = await writeInChunks(h, chunks);
          await h.sync();
        } finally {
          await h.close();
        }
        await rename(tmp, this.file);
        syncDirectory(dirname(this.file));
        const old = this.#handle;
        this.#handle = await open(this.file, "a+", DATA_FILE_MODE);
        this.#bytes = size;
        this.#dirty = false;
        replaced?.();
        await old.close();
      } catch (e) {
        throw new NodeServerError(
          "store_io",
          `Cannot compact ${basename(this.file)}`,
          { file: this.file },
          { cause: e },
        );
      }
    });
    this.#chain = run.catch(() => undefined);
    return run;
  }

  /** Waits for pending appends and their syncs, syncs lazy appends, then closes the file. */
  async close(): Promise<void> {
    await this.#chain;
    await this.#settled();
    if (this.#closed) return;
    this.#closed = true;
    try {
      if (this.#dirty) await this.#sync(this.#handle);
    } finally {
      await this.#handle.close();
    }
  }

  /**
   * Writes `data` after every earlier write, then runs `written` with its offset in the same step
   * (so a later compaction or sync sees it).
   */
  #write(data: Buffer, written: (at: number) => void): Promise<void> {
    this.#queuedWrites++;
    const run = this.#chain.then(async () => {
      try {
        if (this.#closed) throw new NodeServerError("store_io", "log closed", { file: this.file });
        const at = this.#bytes;
        await this.#writeNow(data);
        written(at);
      } finally {
        this.#queuedWrites--;
        this.#kick();
      }
    });
    this.#chain = run.catch(() => undefined);
    return run;
  }

  /** One write at the end of the file; on failure cuts the file back to its previous end. */
  async #writeNow(data: Buffer): Promise<void> {
    try {
      await this.#writeFn(this.#handle, data);
      this.#bytes += data.length;
    } catch (e) {
      // Best effort: a partial line left in the middle would make the next open fail closed.
      await this.#handle.truncate(this.#bytes).catch(() => undefined);
      throw new NodeServerError(
        "store_io",
        `Cannot write ${basename(this.file)}`,
        { file: this.file },
        { cause: e },
      );
    }
  }

  /**
   * Starts a sync for every waiter written so far, unless one is running (this runs again when it
   * ends) or more writes are queued (the last one calls this), except when someone waits for idle.
   */
  #kick(): void {
    if (this.#syncing) return;
    if (this.#pending.length === 0) {
      for (const resume of this.#idle.splice(0)) resume();
      return;
    }
    if (this.#queuedWrites > 0 && this.#idle.length === 0) return;
    const group = this.#pending;
    this.#pending = [];
    this.#syncing = true;
    this.#dirty = false;
    this.#syncs++;
    this.#sync(this.#handle).then(
      () => {
        for (const w of group) w.onDurable?.(w.at);
        for (const w of group) w.resolve();
        this.#syncing = false;
        this.#kick();
      },
      (e: unknown) => {
        const error = new NodeServerError(
          "store_io",
          `Cannot sync ${basename(this.file)}`,
          { file: this.file },
          { cause: e },
        );
        for (const w of group) w.reject(error);
        this.#syncing = false;
        this.#kick();
      },
    );
  }

  /** Resolves once no sync is running and no written waiter is left. */
  #settled(): Promise<void> {
    if (!this.#syncing && this.#pending.length === 0) return Promise.resolve();
    const idle = new Promise<void>((resolve) => this.#idle.push(resolve));
    this.#kick();
    return idle;
  }
}

/** fsyncs a directory so a rename in it is durable (best effort where directories cannot be opened). */
export function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // Some platforms cannot fsync directories; the rename is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The typed error of a log that cannot be opened for appending. */
function openFailed(file: string, cause: unknown): NodeServerError {
  return new NodeServerError(
    "store_io",
    `Cannot open ${basename(file)} for appending`,
    { file },
    { cause },
  );
}
