/**
 * A crash-safe append-only text log: one record per line, each acknowledged only after `fdatasync`;
 * a torn last line (no newline: the append never completed, so it was never acknowledged) is
 * truncated on open; anything else unreadable fails closed. Compaction rewrites the live records
 * into a temporary file, fsyncs it, renames it over the log and fsyncs the directory. Every file
 * it creates or opens is made mode 0600 (owner read/write only), whatever the umask or the mode a
 * file had before: the records name requests and targets.
 */
import { closeSync, fsyncSync, openSync } from "node:fs";
import { type FileHandle, open, readFile, rename, truncate } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { NodeServerError } from "../errors.js";

/** Mode of every data file: owner read/write only. */
export const DATA_FILE_MODE = 0o600;

/** A log opened for appending, with the complete lines it held at open time. */
export class AppendLog {
  readonly file: string;
  #handle: FileHandle;
  #bytes: number;
  #chain: Promise<unknown> = Promise.resolve();
  #closed = false;

  private constructor(file: string, handle: FileHandle, bytes: number) {
    this.file = file;
    this.#handle = handle;
    this.#bytes = bytes;
  }

  /** Current size of the log file, in bytes. */
  get byteLength(): number {
    return this.#bytes;
  }

  /**
   * Opens (or creates) the log and returns it with its complete lines.
   * @throws NodeServerError `store_corrupt` when the file cannot be read (fail closed), `store_io`
   *   when it cannot be opened for appending.
   */
  static async open(file: string): Promise<{ log: AppendLog; lines: string[] }> {
    let text = "";
    try {
      text = await readFile(file, "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") {
        throw new NodeServerError(
          "store_corrupt",
          `Cannot read ${basename(file)}; refusing to start`,
          { file },
          { cause: e },
        );
      }
    }
    const end = text.lastIndexOf("\n") + 1;
    const complete = text.slice(0, end);
    const validBytes = Buffer.byteLength(complete, "utf8");
    try {
      if (validBytes < Buffer.byteLength(text, "utf8")) await truncate(file, validBytes);
      const handle = await open(file, "a", DATA_FILE_MODE);
      await handle.chmod(DATA_FILE_MODE);
      const lines = complete === "" ? [] : complete.slice(0, -1).split("\n");
      return { log: new AppendLog(file, handle, validBytes), lines };
    } catch (e) {
      throw new NodeServerError(
        "store_io",
        `Cannot open ${basename(file)} for appending`,
        { file },
        { cause: e },
      );
    }
  }

  /**
   * Appends lines (each without newline) and resolves once they are on disk (`fdatasync`).
   * Appends are serialised in call order.
   * @throws NodeServerError `store_io`: the lines may be partly written; the caller must not treat them as durable.
   */
  append(lines: readonly string[]): Promise<void> {
    const run = this.#chain.then(async () => {
      if (this.#closed) throw new NodeServerError("store_io", "log closed", { file: this.file });
      const data = Buffer.from(lines.map((l) => `${l}\n`).join(""), "utf8");
      try {
        await this.#handle.write(data);
        await this.#handle.datasync();
        this.#bytes += data.length;
      } catch (e) {
        throw new NodeServerError(
          "store_io",
          `Cannot write ${basename(this.file)}`,
          { file: this.file },
          { cause: e },
        );
      }
    });
    this.#chain = run.catch(() => undefined);
    return run;
  }

  /**
   * Atomically replaces the log with `lines` (write temp + fsync + rename + directory fsync),
   * serialised with appends.
   * @throws NodeServerError `store_io`; on failure the old log stays in force.
   */
  compact(lines: readonly string[]): Promise<void> {
    const run = this.#chain.then(async () => {
      const tmp = `${this.file}.tmp`;
      const data = Buffer.from(lines.map((l) => `${l}\n`).join(""), "utf8");
      try {
        const h = await open(tmp, "w", DATA_FILE_MODE);
        try {
          await h.chmod(DATA_FILE_MODE);
          await h.write(data);
          await h.sync();
        } finally {
          await h.close();
        }
        await rename(tmp, this.file);
        syncDirectory(dirname(this.file));
        await this.#handle.close();
        this.#handle = await open(this.file, "a", DATA_FILE_MODE);
        this.#bytes = data.length;
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

  /** Waits for pending appends, then closes the file. */
  async close(): Promise<void> {
    await this.#chain;
    if (this.#closed) return;
    this.#closed = true;
    await this.#handle.close();
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
