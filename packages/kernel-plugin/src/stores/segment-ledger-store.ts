/**
 * The kernel authority's durable {@link LedgerStore} on `siyuan.storage`: a log of records in
 * numbered segments (format: `segment-format.ts`). A put line is the entry's JSON (`{…}`); a
 * delete line is the request ID as a JSON string (`"…"`, a tombstone). At load, records are read
 * in (segment number, line) order and the last record per request ID wins.
 *
 * Every write is ONE `put` of ONE segment of at most `maxSegmentBytes`: the open (highest)
 * segment with the new lines appended, or the next segment when they do not fit or the open one is
 * sealed (it reached `sealSegmentBytes`, default 16 KiB). So the bytes a commit writes depend on how
 * full the open segment is, never on how many records the store holds.
 *
 * Compaction is incremental and rides on those same writes: when a sealed segment holds no useful
 * record, or the store holds more than twice its useful bytes (plus two segments of slack), the
 * sealed segment with the smallest useful fraction is the victim. Its still-needed records (the
 * latest put of an ID, and the latest tombstone of an ID that still has an older record on disk)
 * are copied into the segment being written, which is numbered higher than the victim; only once
 * that `put` resolved and every needed record of the victim is copied is the victim removed. A
 * crash between any two calls therefore leaves either both copies (the higher one wins, same
 * content) or only the new one: no live record is lost and no deleted one comes back.
 * Plain ES2022 only: bundled into the goja kernel script.
 */
import type { LedgerEntry, LedgerStore } from "@sisyphus/write-safety";
import type { PluginStorage } from "./plugin-storage.js";
import {
  asciiJson,
  loadSegments,
  recordError,
  SegmentStoreError,
  segmentBytes,
  segmentFileName,
  segmentText,
} from "./segment-format.js";
import {
  type SegmentStoreOptions,
  type SegmentStoreStats,
  segmentLimit,
  segmentSeal,
} from "./segment-reservation-store.js";

const KIND = "ledger";

interface Segment {
  no: number;
  /** Request ID of every record line, in order (tombstones included). */
  ids: string[];
  /** Size of the file. */
  bytes: number;
  /** Bytes of the records in it that a load still needs (see {@link recount}). */
  useful: number;
}

/** The latest record of a request ID. */
interface Latest {
  line: string;
  tomb: boolean;
  segment: Segment;
  /** What this record currently adds to `segment.useful`. */
  counted: number;
}

interface OpenSegment {
  segment: Segment;
  /** Record lines, each ending in `\n`. */
  body: string;
  count: number;
}

interface State {
  /** Ascending by number. */
  segments: Segment[];
  latest: Map<string, Latest>;
  /** Record lines per request ID over all segments present. */
  refs: Map<string, number>;
  open: OpenSegment | undefined;
}

interface NewLine {
  id: string;
  line: string;
  tomb: boolean;
}

/**
 * A record is useful while a load needs it: the latest put of an ID, or the latest tombstone of an
 * ID that still has another record on disk (which it must keep shadowing).
 */
function recount(st: State, id: string): void {
  const rec = st.latest.get(id);
  if (rec === undefined) return;
  const counted = !rec.tomb || (st.refs.get(id) ?? 0) > 1 ? rec.line.length + 1 : 0;
  rec.segment.useful += counted - rec.counted;
  rec.counted = counted;
}

function place(st: State, segment: Segment, r: NewLine): void {
  segment.ids.push(r.id);
  st.refs.set(r.id, (st.refs.get(r.id) ?? 0) + 1);
  const prev = st.latest.get(r.id);
  if (prev !== undefined) prev.segment.useful -= prev.counted;
  st.latest.set(r.id, { line: r.line, tomb: r.tomb, segment, counted: 0 });
  recount(st, r.id);
}

/**
 * Segment-backed ledger store (one writer: the kernel plugin). Operations run one at a time. The
 * first operation loads the directory; a store that cannot be read fails closed with
 * {@link SegmentStoreError} (and retries the load on the next call). A rejected `put` propagates
 * and leaves the in-memory view unchanged. Its lines may still have landed, so the store's next
 * write (or next delete, even one with nothing to delete) first makes that segment match memory
 * again (it rewrites it as its own target, or repairs it first): after any later successful call,
 * a reload sees exactly the acknowledged records; before one, it may also see the rejected write.
 */
export class SegmentLedgerStore implements LedgerStore {
  readonly storage: PluginStorage;
  readonly dir: string;
  readonly maxSegmentBytes: number;
  readonly sealSegmentBytes: number;
  #state: State | undefined;
  /**
   * A segment whose last `put` rejected: on disk it may hold lines memory does not know. The next
   * write either rewrites it (it is the target) or first repairs it from memory.
   */
  #dirty: number | undefined;
  #chain: Promise<unknown> = Promise.resolve();

  constructor(storage: PluginStorage, options: SegmentStoreOptions = {}) {
    this.storage = storage;
    this.dir = options.dir ?? "ledger";
    this.maxSegmentBytes = segmentLimit(options);
    this.sealSegmentBytes = segmentSeal(options, this.maxSegmentBytes);
  }

  /** Opens a store and loads it (throws {@link SegmentStoreError} when unreadable). */
  static async open(
    storage: PluginStorage,
    options: SegmentStoreOptions = {},
  ): Promise<SegmentLedgerStore> {
    const store = new SegmentLedgerStore(storage, options);
    await store.loadAll();
    return store;
  }

  /** Every live record (fresh objects), any order. */
  loadAll(): Promise<readonly LedgerEntry[]> {
    return this.#run(async () => {
      const out: LedgerEntry[] = [];
      for (const rec of (await this.#load()).latest.values()) {
        if (!rec.tomb) out.push(JSON.parse(rec.line) as LedgerEntry);
      }
      return out;
    });
  }

  /**
   * Upserts a record: one `put` of one segment.
   * @throws TypeError without a string `requestId`; `SegmentStoreError` `record_too_large`; the
   *   storage's error when the `put` rejects.
   */
  put(entry: LedgerEntry): Promise<void> {
    if (typeof entry?.requestId !== "string" || entry.requestId === "") {
      return Promise.reject(new TypeError("a ledger record needs a requestId"));
    }
    const line = asciiJson(entry);
    return this.#run(async () => {
      const st = await this.#load();
      await this.#write(st, [{ id: entry.requestId, line, tomb: false }]);
    });
  }

  /**
   * Deletes records (tombstones for the IDs that have a live record; unknown IDs are ignored).
   * Usually one `put`; a batch too large for one segment takes one `put` per segment, each
   * durable on its own (a failure part-way leaves the earlier part deleted).
   */
  delete(requestIds: readonly string[]): Promise<void> {
    return this.#run(async () => {
      const st = await this.#load();
      const seen = new Set<string>();
      let lines: NewLine[] = [];
      for (const id of requestIds) {
        const rec = st.latest.get(id);
        if (seen.has(id) || rec === undefined || rec.tomb) continue;
        seen.add(id);
        lines.push({ id, line: asciiJson(id), tomb: true });
      }
      if (lines.length === 0 && this.#dirty !== undefined) await this.#repair(st);
      while (lines.length > 0) {
        const n = this.#fitting(st, lines);
        await this.#write(st, lines.slice(0, n));
        lines = lines.slice(n);
      }
    });
  }

  /** Current figures (loads the store first). */
  stats(): Promise<SegmentStoreStats & { usefulBytes: number }> {
    return this.#run(async () => {
      const st = await this.#load();
      let storedBytes = 0;
      let usefulBytes = 0;
      for (const s of st.segments) {
        storedBytes += s.bytes;
        usefulBytes += s.useful;
      }
      let records = 0;
      for (const rec of st.latest.values()) if (!rec.tomb) records++;
      return { segments: st.segments.length, storedBytes, records, usefulBytes };
    });
  }

  #run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.#chain.then(fn);
    this.#chain = result.catch(() => undefined);
    return result;
  }

  #path(no: number): string {
    return `${this.dir}/${segmentFileName(no)}`;
  }

  async #load(): Promise<State> {
    if (this.#state !== undefined) return this.#state;
    const loaded = await loadSegments(this.storage, this.dir, KIND);
    const st: State = { segments: [], latest: new Map(), refs: new Map(), open: undefined };
    for (const seg of loaded) {
      const segment: Segment = { no: seg.no, ids: [], bytes: seg.bytes, useful: 0 };
      st.segments.push(segment);
      seg.lines.forEach((line, i) => {
        let value: unknown;
        try {
          value = JSON.parse(line);
        } catch {
          throw recordError(this.dir, seg, i, "unparseable record");
        }
        if (typeof value === "string" && value !== "") {
          place(st, segment, { id: value, line, tomb: true });
        } else if (
          typeof value === "object" &&
          value !== null &&
          !Array.isArray(value) &&
          typeof (value as { requestId?: unknown }).requestId === "string" &&
          (value as { requestId: string }).requestId !== ""
        ) {
          place(st, segment, { id: (value as { requestId: string }).requestId, line, tomb: false });
        } else {
          throw recordError(this.dir, seg, i, "not a ledger record or tombstone");
        }
      });
    }
    const last = loaded[loaded.length - 1];
    if (last !== undefined) {
      st.open = {
        segment: st.segments[st.segments.length - 1]!,
        body: last.lines.map((l) => `${l}\n`).join(""),
        count: last.lines.length,
      };
    }
    this.#state = st;
    return st;
  }

  /**
   * The segment the next write goes to, and whether it appends to the open one (not when that one
   * is sealed: it reached `sealSegmentBytes`).
   */
  #target(st: State, fits: (no: number, bodyBytes: number, count: number) => boolean) {
    const open = st.open;
    if (
      open !== undefined &&
      segmentBytes(KIND, open.segment.no, open.body.length, open.count) < this.sealSegmentBytes &&
      fits(open.segment.no, open.body.length, open.count)
    ) {
      return { no: open.segment.no, body: open.body, count: open.count, append: true };
    }
    return { no: open === undefined ? 1 : open.segment.no + 1, body: "", count: 0, append: false };
  }

  /** How many of `lines` (at least one) the next write can take. */
  #fitting(st: State, lines: readonly NewLine[]): number {
    const count = (no: number, bodyBytes: number, n0: number): number => {
      let n = 0;
      let bytes = bodyBytes;
      while (n < lines.length) {
        const next = bytes + lines[n]!.line.length + 1;
        if (segmentBytes(KIND, no, next, n0 + n + 1) > this.maxSegmentBytes) break;
        bytes = next;
        n++;
      }
      return n;
    };
    const t = this.#target(st, (no, bodyBytes, n0) => count(no, bodyBytes, n0) > 0);
    const n = count(t.no, t.body.length, t.count);
    if (n === 0) throw this.#tooLarge(lines[0]!);
    return n;
  }

  #tooLarge(r: NewLine): SegmentStoreError {
    return new SegmentStoreError(
      "record_too_large",
      `the record of ${r.id} (${r.line.length} bytes) does not fit in a ${this.maxSegmentBytes}-byte segment`,
      { dir: this.dir },
    );
  }

  /** Writes `lines` (which fit) plus what compaction carries, as one segment `put`. */
  async #write(st: State, lines: readonly NewLine[]): Promise<void> {
    const added = lines.map((r) => `${r.line}\n`).join("");
    const t = this.#target(
      st,
      (no, bodyBytes, n0) =>
        segmentBytes(KIND, no, bodyBytes + added.length, n0 + lines.length) <= this.maxSegmentBytes,
    );
    let body = t.body + added;
    let count = t.count + lines.length;
    if (segmentBytes(KIND, t.no, body.length, count) > this.maxSegmentBytes) {
      throw this.#tooLarge(lines[0]!);
    }
    if (this.#dirty !== undefined && this.#dirty !== t.no) await this.#repair(st);
    const victim = this.#victim(st);
    const carried: NewLine[] = [];
    let complete = true;
    if (victim !== undefined) {
      const written = new Set(lines.map((r) => r.id));
      const inVictim = new Map<string, number>();
      for (const id of victim.ids) inVictim.set(id, (inVictim.get(id) ?? 0) + 1);
      for (const [id, n] of inVictim) {
        const rec = st.latest.get(id);
        if (rec === undefined || rec.segment !== victim || written.has(id)) continue;
        // A tombstone whose every other record is in the victim too dies with it.
        if (rec.tomb && (st.refs.get(id) ?? 0) <= n) continue;
        const next = body.length + rec.line.length + 1;
        if (segmentBytes(KIND, t.no, next, count + 1) > this.maxSegmentBytes) {
          complete = false;
          break;
        }
        body += `${rec.line}\n`;
        count++;
        carried.push({ id, line: rec.line, tomb: rec.tomb });
      }
    }
    const text = segmentText(KIND, t.no, body, count);
    try {
      await this.storage.put(this.#path(t.no), text);
    } catch (e) {
      this.#dirty = t.no;
      throw e;
    }
    this.#dirty = undefined;
    let segment: Segment;
    if (t.append && st.open !== undefined) segment = st.open.segment;
    else {
      segment = { no: t.no, ids: [], bytes: 0, useful: 0 };
      st.segments.push(segment);
    }
    segment.bytes = text.length;
    for (const r of lines) place(st, segment, r);
    for (const r of carried) place(st, segment, r);
    st.open = { segment, body, count };
    if (victim !== undefined && complete) await this.#remove(st, victim);
  }

  /**
   * Makes the dirty segment match memory again: rewrite it (the open segment) or remove it (a new
   * segment whose first write failed). Without this, lines of a rejected write that did land could
   * outlive later deletes or compaction.
   */
  async #repair(st: State): Promise<void> {
    const no = this.#dirty!;
    const open = st.open;
    if (open !== undefined && open.segment.no === no) {
      await this.storage.put(this.#path(no), segmentText(KIND, no, open.body, open.count));
    } else {
      await this.storage.remove(this.#path(no));
    }
    this.#dirty = undefined;
  }

  /**
   * The sealed segment to compact now, if any: one without useful records, or, when the store
   * holds more than twice its useful bytes plus two segments, the one with the smallest useful
   * fraction (below one half).
   */
  #victim(st: State): Segment | undefined {
    let stored = 0;
    let useful = 0;
    let best: Segment | undefined;
    let bestRatio = Number.POSITIVE_INFINITY;
    for (const s of st.segments) {
      stored += s.bytes;
      useful += s.useful;
      if (s === st.open?.segment) continue;
      const ratio = s.useful / Math.max(1, s.bytes);
      if (ratio < bestRatio) {
        best = s;
        bestRatio = ratio;
      }
    }
    if (best === undefined) return undefined;
    if (best.useful <= 0) return best;
    return bestRatio < 0.5 && stored > 2 * useful + 2 * this.maxSegmentBytes ? best : undefined;
  }

  /**
   * Removes a compacted segment. A failed remove is not the commit's failure (its records are
   * durable elsewhere): the segment stays known, useless, and is removed by a later write.
   */
  async #remove(st: State, victim: Segment): Promise<void> {
    try {
      await this.storage.remove(this.#path(victim.no));
    } catch {
      return;
    }
    st.segments.splice(st.segments.indexOf(victim), 1);
    const touched = new Set<string>();
    for (const id of victim.ids) {
      const left = (st.refs.get(id) ?? 0) - 1;
      if (left > 0) {
        st.refs.set(id, left);
        touched.add(id);
        continue;
      }
      st.refs.delete(id);
      touched.delete(id);
      if (st.latest.get(id)?.segment === victim) st.latest.delete(id);
    }
    for (const id of touched) recount(st, id);
  }
}
