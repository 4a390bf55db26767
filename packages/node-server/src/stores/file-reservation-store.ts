/**
 * The Node authority's durable `ReservationStore`: every request ID ever issued, one per line
 * (4–64 lowercase hex digits), each fsynced before `append` resolves; concurrent appends share one
 * fsync (group commit, see `AppendLog`). IDs are never removed.
 * A torn last line is dropped (it was never acknowledged); any other bad line fails closed.
 */
import { NodeServerError } from "../errors.js";
import { AppendLog, type SyncFn } from "./append-log.js";

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
