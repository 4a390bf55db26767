/**
 * The kernel authority's durable {@link ReservationStore} on `siyuan.storage`: every request ID
 * ever issued, one per line, in numbered segments (format: `segment-format.ts`). An `append`
 * rewrites only the open (highest) segment with the ID added, or starts the next segment when the
 * open one would exceed `maxSegmentBytes`; IDs are never removed, so there is nothing to compact.
 * Plain ES2022 only: bundled into the goja kernel script.
 */
import { REQUEST_ID_MAX_HEX_DIGITS, REQUEST_ID_MIN_HEX_DIGITS } from "@sisyphus/core-hash";
import type { ReservationStore } from "@sisyphus/write-safety";
import type { PluginStorage } from "./plugin-storage.js";
import {
  loadSegments,
  recordError,
  SEGMENT_MAX_BYTES,
  SEGMENT_MIN_BYTES,
  SEGMENT_SEAL_BYTES,
  segmentBytes,
  segmentFileName,
  segmentText,
} from "./segment-format.js";

const KIND = "reservations";
const ID = new RegExp(`^[0-9a-f]{${REQUEST_ID_MIN_HEX_DIGITS},${REQUEST_ID_MAX_HEX_DIGITS}}$`);

/** Options of the segment stores. */
export interface SegmentStoreOptions {
  /** Directory under the plugin's storage root. */
  dir?: string;
  /** Largest segment file in bytes; default and maximum {@link SEGMENT_MAX_BYTES}. */
  maxSegmentBytes?: number;
  /**
   * Size at which a segment takes no more records (the next write starts a new one); default
   * {@link SEGMENT_SEAL_BYTES}, at most `maxSegmentBytes` (and that when it is smaller).
   */
  sealSegmentBytes?: number;
}

/** Figures of a segment store (for health output and tests). */
export interface SegmentStoreStats {
  segments: number;
  /** Bytes of every segment file. */
  storedBytes: number;
  /** Records a load returns. */
  records: number;
}

/** Validated `maxSegmentBytes`. */
export function segmentLimit(options: SegmentStoreOptions): number {
  const max = options.maxSegmentBytes ?? SEGMENT_MAX_BYTES;
  if (!Number.isInteger(max) || max < SEGMENT_MIN_BYTES || max > SEGMENT_MAX_BYTES) {
    throw new RangeError(
      `maxSegmentBytes must be an integer from ${SEGMENT_MIN_BYTES} to ${SEGMENT_MAX_BYTES}`,
    );
  }
  return max;
}

/** Validated `sealSegmentBytes` for a store whose segments hold at most `max` bytes. */
export function segmentSeal(options: SegmentStoreOptions, max: number): number {
  const seal = options.sealSegmentBytes ?? Math.min(SEGMENT_SEAL_BYTES, max);
  if (!Number.isInteger(seal) || seal < SEGMENT_MIN_BYTES || seal > max) {
    throw new RangeError(`sealSegmentBytes must be an integer from ${SEGMENT_MIN_BYTES} to ${max}`);
  }
  return seal;
}

interface OpenSegment {
  no: number;
  /** Record lines, each ending in `\n`. */
  body: string;
  count: number;
}

interface State {
  ids: string[];
  open: OpenSegment | undefined;
  segments: number;
  /** Bytes of the sealed segments. */
  sealedBytes: number;
}

/**
 * Segment-backed reservation store (one writer: the kernel plugin). Operations run one at a time.
 * The first operation loads the directory; a store that cannot be read fails closed with
 * `SegmentStoreError` (and retries the load on the next call). A rejected `put` propagates
 * and leaves the in-memory view unchanged; the next write then goes to a segment numbered no lower
 * than the one that failed, so a failed write that did land can never outrank a later one.
 */
export class SegmentReservationStore implements ReservationStore {
  readonly storage: PluginStorage;
  readonly dir: string;
  readonly maxSegmentBytes: number;
  readonly sealSegmentBytes: number;
  #state: State | undefined;
  /** The next write targets a segment numbered at least this. */
  #minNext = 1;
  #chain: Promise<unknown> = Promise.resolve();

  constructor(storage: PluginStorage, options: SegmentStoreOptions = {}) {
    this.storage = storage;
    this.dir = options.dir ?? "reservations";
    this.maxSegmentBytes = segmentLimit(options);
    this.sealSegmentBytes = segmentSeal(options, this.maxSegmentBytes);
  }

  /** Opens a store and loads it (throws `SegmentStoreError` when unreadable). */
  static async open(
    storage: PluginStorage,
    options: SegmentStoreOptions = {},
  ): Promise<SegmentReservationStore> {
    const store = new SegmentReservationStore(storage, options);
    await store.loadAll();
    return store;
  }

  /** Every ID ever appended, in append order. */
  loadAll(): Promise<readonly string[]> {
    return this.#run(async () => [...(await this.#load()).ids]);
  }

  /**
   * Durably records one ID: one `put` of the open segment (at most `maxSegmentBytes`).
   * @throws TypeError for a malformed ID; the storage's error when the `put` rejects.
   */
  append(id: string): Promise<void> {
    if (typeof id !== "string" || !ID.test(id)) {
      return Promise.reject(
        new TypeError(
          `a request ID is ${REQUEST_ID_MIN_HEX_DIGITS} to ${REQUEST_ID_MAX_HEX_DIGITS} lowercase hex digits`,
        ),
      );
    }
    return this.#run(async () => {
      const st = await this.#load();
      const line = `${id}\n`;
      const open = st.open;
      let target: OpenSegment;
      if (
        open !== undefined &&
        open.no >= this.#minNext &&
        segmentBytes(KIND, open.no, open.body.length, open.count) < this.sealSegmentBytes &&
        segmentBytes(KIND, open.no, open.body.length + line.length, open.count + 1) <=
          this.maxSegmentBytes
      ) {
        target = { no: open.no, body: open.body + line, count: open.count + 1 };
      } else {
        const no = Math.max(open === undefined ? 1 : open.no + 1, this.#minNext);
        target = { no, body: line, count: 1 };
      }
      const text = segmentText(KIND, target.no, target.body, target.count);
      try {
        await this.storage.put(`${this.dir}/${segmentFileName(target.no)}`, text);
      } catch (e) {
        this.#minNext = Math.max(this.#minNext, target.no);
        throw e;
      }
      if (open !== undefined && target.no !== open.no) {
        st.sealedBytes += segmentBytes(KIND, open.no, open.body.length, open.count);
      }
      if (open === undefined || target.no !== open.no) st.segments++;
      st.open = target;
      st.ids.push(id);
    });
  }

  /** Current figures (loads the store first). */
  stats(): Promise<SegmentStoreStats> {
    return this.#run(async () => {
      const st = await this.#load();
      const open = st.open;
      return {
        segments: st.segments,
        storedBytes:
          st.sealedBytes +
          (open === undefined ? 0 : segmentBytes(KIND, open.no, open.body.length, open.count)),
        records: st.ids.length,
      };
    });
  }

  #run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.#chain.then(fn);
    this.#chain = result.catch(() => undefined);
    return result;
  }

  async #load(): Promise<State> {
    if (this.#state !== undefined) return this.#state;
    const segments = await loadSegments(this.storage, this.dir, KIND);
    const st: State = { ids: [], open: undefined, segments: segments.length, sealedBytes: 0 };
    for (const segment of segments) {
      segment.lines.forEach((line, i) => {
        if (!ID.test(line)) throw recordError(this.dir, segment, i, "malformed request ID");
        st.ids.push(line);
      });
    }
    const last = segments[segments.length - 1];
    if (last !== undefined) {
      for (const s of segments) if (s !== last) st.sealedBytes += s.bytes;
      st.open = {
        no: last.no,
        body: last.lines.map((l) => `${l}\n`).join(""),
        count: last.lines.length,
      };
      this.#minNext = Math.max(this.#minNext, last.no);
    }
    this.#state = st;
    return st;
  }
}
