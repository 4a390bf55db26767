import { seededRandomSource } from "@sisyphus/core-hash";
import {
  createWriteCoordinator,
  isWriteSafetyError,
  type LedgerEntry,
  RequestIdRegistry,
} from "@sisyphus/write-safety";
import { sampleLedgerEntry } from "@sisyphus/write-safety/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InjectedStorageFault, MemoryPluginStorage } from "./plugin-storage.js";
import {
  asciiJson,
  isSegmentStoreError,
  SEGMENT_MAX_BYTES,
  SEGMENT_SEAL_BYTES,
  SegmentStoreError,
  segmentFileName,
} from "./segment-format.js";
import { SegmentLedgerStore } from "./segment-ledger-store.js";
import { SegmentReservationStore } from "./segment-reservation-store.js";

const hex = (base: number, i: number): string => (base + i).toString(16);
const ledgerFile = (no: number): string => `ledger/${segmentFileName(no)}`;
const reservationFile = (no: number): string => `reservations/${segmentFileName(no)}`;
const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Bytes of every `put` made while `fn` runs. */
async function putsDuring(storage: MemoryPluginStorage, fn: () => Promise<unknown>) {
  const before = storage.puts.length;
  await fn();
  return storage.puts.slice(before);
}

/** Records in a segment file (lines minus header and trailer). */
function recordCount(text: string): number {
  return text.split("\n").length - 3;
}

const asMap = (entries: readonly LedgerEntry[]): Map<string, string> =>
  new Map(entries.map((e) => [e.requestId, JSON.stringify(e)]));

describe("bytes per commit", () => {
  it("ledger: every put writes one segment of at most the 16 KiB seal plus its record, the same bytes at 10,000 entries as at 100", async () => {
    const storage = new MemoryPluginStorage();
    // Loading creates the directory (one marker put); measure the commits after it.
    const store = await SegmentLedgerStore.open(storage);
    const bytes: number[] = [];
    const paths: string[] = [];
    let extraPuts = 0;
    const put = async (i: number) => {
      const puts = await putsDuring(storage, () => store.put(sampleLedgerEntry(hex(0x100000, i))));
      if (puts.length !== 1) extraPuts++;
      bytes.push(puts[0]!.bytes);
      paths.push(puts[0]!.path);
    };
    for (let i = 0; i < 10_000; i++) await put(i);
    // Records are all the same size, so bytes per put repeat with the period of one segment.
    const perSegment = recordCount(storage.read(ledgerFile(1))!);
    expect(perSegment).toBeGreaterThan(8);
    const window = 3 * perSegment;
    for (let i = 10_000; i < 10_000 + window; i++) await put(i);

    expect(extraPuts).toBe(0);
    const record = asciiJson(sampleLedgerEntry(hex(0x100000, 0))).length + 1;
    expect(Math.max(...bytes)).toBeLessThan(SEGMENT_SEAL_BYTES + record);
    const at100 = mean(bytes.slice(100, 100 + window));
    const at10k = mean(bytes.slice(10_000, 10_000 + window));
    expect(Math.abs(at10k / at100 - 1)).toBeLessThan(0.01);
    // The put recording entry 10,001 wrote only the open segment, while the store holds ~10 MB.
    const segments = [...storage.files().keys()].filter((p) => p.startsWith("ledger/seg-"));
    expect(paths[10_000]).toBe(segments.sort()[Math.floor(10_000 / perSegment)]);
    const stats = await store.stats();
    expect(stats.records).toBe(10_000 + window);
    expect(stats.storedBytes).toBeGreaterThan(100 * SEGMENT_MAX_BYTES);
    console.info(
      `[ledger] put #101: ${bytes[100]} B, put #10,001: ${bytes[10_000]} B; ` +
        `mean over ${window} puts from 100: ${at100.toFixed(0)} B, from 10,000: ${at10k.toFixed(0)} B; ` +
        `${perSegment} records per segment, ${stats.segments} segments, ${stats.storedBytes} B stored`,
    );
  });

  it("reservations: every append writes one segment of at most the 16 KiB seal plus its ID, the same bytes at 10,000 IDs as at 100", async () => {
    const storage = new MemoryPluginStorage();
    const store = await SegmentReservationStore.open(storage);
    const bytes: number[] = [];
    let extraPuts = 0;
    const append = async (i: number) => {
      const puts = await putsDuring(storage, () => store.append(hex(0x10000, i)));
      if (puts.length !== 1) extraPuts++;
      bytes.push(puts[0]!.bytes);
    };
    for (let i = 0; i < 10_000; i++) await append(i);
    // IDs are all 5 digits: one segment holds a fixed number of them; fill it and measure a
    // full segment's worth of appends from 100 and from 10,000.
    let i = 10_000;
    while (storage.read(reservationFile(2)) === undefined) await append(i++);
    const perSegment = recordCount(storage.read(reservationFile(1))!);
    while (i < 10_000 + perSegment) await append(i++);

    expect(extraPuts).toBe(0);
    expect(perSegment).toBeGreaterThan(2_000);
    expect(Math.max(...bytes)).toBeLessThan(SEGMENT_SEAL_BYTES + 6);
    const at100 = mean(bytes.slice(100, 100 + perSegment));
    const at10k = mean(bytes.slice(10_000, 10_000 + perSegment));
    expect(Math.abs(at10k / at100 - 1)).toBeLessThan(0.01);
    expect((await (await SegmentReservationStore.open(storage)).loadAll()).length).toBe(i);
    console.info(
      `[reservations] append #101: ${bytes[100]} B, append #10,001: ${bytes[10_000]} B; ` +
        `mean over one segment (${perSegment} IDs) from 100: ${at100.toFixed(0)} B, from 10,000: ${at10k.toFixed(0)} B`,
    );
  });

  it("a record that cannot fit in a segment is refused before anything is written", async () => {
    const storage = new MemoryPluginStorage();
    const store = await SegmentLedgerStore.open(storage, { maxSegmentBytes: 1024 });
    const big = sampleLedgerEntry("abcd", { reason: "x".repeat(2000) });
    const error = await store.put(big).catch((e: unknown) => e);
    expect(isSegmentStoreError(error) && error.code).toBe("record_too_large");
    expect(storage.puts.map((p) => p.path)).toEqual(["ledger/store.txt"]);
    expect(await store.loadAll()).toEqual([]);
  });

  it("rejects a segment limit above 64 KiB", () => {
    const storage = new MemoryPluginStorage();
    expect(() => new SegmentLedgerStore(storage, { maxSegmentBytes: 65_537 })).toThrow(RangeError);
    expect(() => new SegmentReservationStore(storage, { maxSegmentBytes: 100 })).toThrow(
      RangeError,
    );
  });

  it("seals at 16 KiB by default, at the segment limit when that is lower, and rejects a seal outside 256 B to the limit", () => {
    const storage = new MemoryPluginStorage();
    expect(new SegmentLedgerStore(storage).sealSegmentBytes).toBe(SEGMENT_SEAL_BYTES);
    expect(new SegmentReservationStore(storage).sealSegmentBytes).toBe(SEGMENT_SEAL_BYTES);
    expect(new SegmentLedgerStore(storage, { maxSegmentBytes: 1024 }).sealSegmentBytes).toBe(1024);
    for (const sealSegmentBytes of [255, 1025, 1.5]) {
      const options = { maxSegmentBytes: 1024, sealSegmentBytes };
      expect(() => new SegmentLedgerStore(storage, options)).toThrow(RangeError);
      expect(() => new SegmentReservationStore(storage, options)).toThrow(RangeError);
    }
  });

  it("ledger: a sealed segment takes no more records, and a record larger than the seal still fits, alone", async () => {
    const storage = new MemoryPluginStorage();
    const store = await SegmentLedgerStore.open(storage, { sealSegmentBytes: 1024 });
    const small = (i: number) => sampleLedgerEntry(hex(0x1000, i));
    let i = 0;
    while (storage.read(ledgerFile(2)) === undefined) await store.put(small(i++));
    // segment 1 stopped taking records at the first put after it reached 1 KiB
    const first = storage.read(ledgerFile(1))!;
    expect(first.length).toBeGreaterThanOrEqual(1024);
    expect(first.length - (asciiJson(small(0)).length + 1)).toBeLessThan(1024);
    expect(recordCount(storage.read(ledgerFile(2))!)).toBe(1);
    // 2 KiB over the seal: refused before, now written into the next segment on its own
    while (storage.read(ledgerFile(3)) === undefined) await store.put(small(i++));
    const big = sampleLedgerEntry("b16", { reason: "x".repeat(3000) });
    const puts = await putsDuring(storage, () => store.put(big));
    expect(puts.map((p) => p.path)).toEqual([ledgerFile(4)]);
    expect(recordCount(storage.read(ledgerFile(4))!)).toBe(1);
    const reopened = asMap(await (await SegmentLedgerStore.open(storage)).loadAll());
    expect(reopened.size).toBe(i + 1);
    expect(reopened.get("b16")).toBe(JSON.stringify(big));
  });

  it("reservations: a sealed segment takes no more IDs", async () => {
    const storage = new MemoryPluginStorage();
    const store = await SegmentReservationStore.open(storage, { sealSegmentBytes: 256 });
    let i = 0;
    while (storage.read(reservationFile(2)) === undefined) await store.append(hex(0x10000, i++));
    const first = storage.read(reservationFile(1))!;
    expect(first.length).toBeGreaterThanOrEqual(256);
    expect(first.length - 6).toBeLessThan(256);
    expect(recordCount(storage.read(reservationFile(2))!)).toBe(1);
    expect(await (await SegmentReservationStore.open(storage)).loadAll()).toEqual(
      Array.from({ length: i }, (_, k) => hex(0x10000, k)),
    );
  });
});

describe("format", () => {
  it("escapes non-ASCII text so every segment is ASCII, and round-trips it", async () => {
    const storage = new MemoryPluginStorage();
    const store = new SegmentLedgerStore(storage);
    const entry = sampleLedgerEntry("a1b2", { reason: "中文 – emoji 😀 lone \ud800 end" });
    await store.put(entry);
    const text = storage.read(ledgerFile(1))!;
    expect(/[\u0080-\uffff]/.test(text)).toBe(false);
    expect(text.startsWith("#sisyphus-ledger v1 seg 1\n")).toBe(true);
    expect(text.endsWith("\n#end 1\n")).toBe(true);
    expect(await (await SegmentLedgerStore.open(storage)).loadAll()).toEqual([entry]);
  });

  it("asciiJson gives ASCII that parses back to any UTF-16 string, lone surrogates included", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 40 }), (codes) => {
        const value = { s: String.fromCharCode(...codes) };
        const line = asciiJson(value);
        expect(/[\u0080-\uffff]/.test(line)).toBe(false);
        expect(JSON.parse(line)).toEqual(value);
      }),
      { numRuns: 300 },
    );
  });

  it("writes a tombstone line per deleted ID and ignores unknown IDs without writing", async () => {
    const storage = new MemoryPluginStorage();
    const store = new SegmentLedgerStore(storage);
    await store.put(sampleLedgerEntry("aaaa"));
    const none = await putsDuring(storage, () => store.delete(["ffff", "eeee"]));
    expect(none).toHaveLength(0);
    await store.delete(["aaaa", "aaaa", "ffff"]);
    const lines = storage.read(ledgerFile(1))!.split("\n");
    expect(lines.slice(-3)).toEqual(['"aaaa"', "#end 2", ""]);
  });

  it("a large delete batch spans several segments, each within the limit", async () => {
    const storage = new MemoryPluginStorage();
    const store = new SegmentLedgerStore(storage, { maxSegmentBytes: 2048 });
    const ids = Array.from({ length: 400 }, (_, i) => hex(0x10000, i));
    for (const id of ids) await store.put({ requestId: id } as LedgerEntry);
    const puts = await putsDuring(storage, () => store.delete(ids.slice(0, 300)));
    expect(puts.length).toBeGreaterThan(1);
    expect(Math.max(...puts.map((p) => p.bytes))).toBeLessThanOrEqual(2048);
    const again = await SegmentLedgerStore.open(storage, { maxSegmentBytes: 2048 });
    expect((await again.loadAll()).map((e) => e.requestId).sort()).toEqual(ids.slice(300));
  });
});

/** A realistic ledger life cycle: issued → executing → committed, pruned in batches. */
describe("compaction", () => {
  it("keeps storage within twice the useful bytes (plus slack) while records churn, one put per commit", async () => {
    const max = 8192;
    const storage = new MemoryPluginStorage();
    let removes = 0;
    storage.fault = (call) => {
      if (call.op === "remove") removes++;
      return undefined;
    };
    const store = await SegmentLedgerStore.open(storage, { maxSegmentBytes: max });
    const model = new Map<string, string>();
    let worstBeforePrune = 0;
    let peakStored = 0;
    let peakUseful = 0;
    let multiPutCommits = 0;
    const put = async (entry: LedgerEntry) => {
      const puts = await putsDuring(storage, () => store.put(entry));
      if (puts.length !== 1) multiPutCommits++;
      model.set(entry.requestId, JSON.stringify(entry));
    };
    for (let i = 0; i < 1500; i++) {
      const id = hex(0x10000, i);
      await put(sampleLedgerEntry(id, { state: "issued", updatedAt: i }));
      await put(sampleLedgerEntry(id, { state: "executing", updatedAt: i + 1 }));
      await put(sampleLedgerEntry(id, { state: "committed", updatedAt: i + 2 }));
      if (i % 50 === 49 && i >= 300) {
        const before = await store.stats();
        worstBeforePrune = Math.max(worstBeforePrune, before.storedBytes - 2 * before.usefulBytes);
        const old = [...model.keys()].filter((k) => Number.parseInt(k, 16) < 0x10000 + i - 300);
        await store.delete(old);
        for (const k of old) model.delete(k);
      }
      const stats = await store.stats();
      peakStored = Math.max(peakStored, stats.storedBytes);
      peakUseful = Math.max(peakUseful, stats.usefulBytes);
    }
    expect(multiPutCommits).toBe(0);
    expect(removes).toBeGreaterThan(100);
    expect(Math.max(...storage.puts.map((p) => p.bytes))).toBeLessThanOrEqual(max);
    // Once the cleaner caught up (one victim per commit), at most twice the useful bytes plus two
    // segments of slack and the open segment; a prune batch makes a transient that is cleaned
    // within a few dozen commits, so the peak stays within twice the peak useful bytes.
    expect(worstBeforePrune).toBeLessThanOrEqual(3 * max);
    expect(peakStored).toBeLessThanOrEqual(2 * peakUseful + 3 * max);
    const stats = await store.stats();
    expect(stats.records).toBe(model.size);
    const files = [...storage.files().keys()].filter((p) => p.startsWith("ledger/seg-"));
    expect(files.length).toBe(stats.segments);
    expect(
      asMap(await (await SegmentLedgerStore.open(storage, { maxSegmentBytes: max })).loadAll()),
    ).toEqual(model);
  });
});

type Op = { kind: "put"; entry: LedgerEntry } | { kind: "delete"; ids: string[] };

/** A deterministic workload over 16 IDs: updates of varied size and deletes, enough to compact. */
function workload(length: number, seed: number): Op[] {
  let x = seed;
  const next = (n: number): number => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return (x >>> 8) % n;
  };
  const ops: Op[] = [];
  for (let i = 0; i < length; i++) {
    if (next(5) === 0) {
      ops.push({
        kind: "delete",
        ids: Array.from({ length: 1 + next(3) }, () => hex(0x1000, next(16))),
      });
    } else {
      const entry = {
        requestId: hex(0x1000, next(16)),
        state: "executing",
        updatedAt: i,
        reason: "r".repeat(20 + next(200)),
      } as unknown as LedgerEntry;
      ops.push({ kind: "put", entry });
    }
  }
  return ops;
}

function applyToModel(model: Map<string, string>, op: Op): void {
  if (op.kind === "put") model.set(op.entry.requestId, JSON.stringify(op.entry));
  else for (const id of op.ids) model.delete(id);
}

function modelOf(ops: readonly Op[]): Map<string, string> {
  const model = new Map<string, string>();
  for (const op of ops) applyToModel(model, op);
  return model;
}

async function applyOp(store: SegmentLedgerStore, op: Op): Promise<void> {
  if (op.kind === "put") await store.put(op.entry);
  else await store.delete(op.ids);
}

// Segments sealed at their limit, and sealed below it (a write may then fill one up to the limit).
for (const [options, reservationOptions] of [
  [{ maxSegmentBytes: 1024 }, { maxSegmentBytes: 256 }],
  [
    { maxSegmentBytes: 2048, sealSegmentBytes: 512 },
    { maxSegmentBytes: 512, sealSegmentBytes: 256 },
  ],
] as const)
  describe(`crash safety (${JSON.stringify(options)})`, () => {
    const ops = workload(160, 7);

    it("the workload compacts (so crashes below hit compaction steps)", async () => {
      const storage = new MemoryPluginStorage();
      let removes = 0;
      storage.fault = (call) => {
        if (call.op === "remove") removes++;
        return undefined;
      };
      const store = new SegmentLedgerStore(storage, options);
      for (const op of ops) await applyOp(store, op);
      expect(removes).toBeGreaterThan(20);
      expect(asMap(await (await SegmentLedgerStore.open(storage, options)).loadAll())).toEqual(
        modelOf(ops),
      );
    });

    for (const mode of ["fail", "fail-after"] as const) {
      it(`ledger: a crash at every storage mutation (${mode}) loses no acknowledged record and resurrects no deleted one`, async () => {
        const total = await (async () => {
          const storage = new MemoryPluginStorage();
          const store = await SegmentLedgerStore.open(storage, options);
          const first = storage.mutations;
          for (const op of ops) await applyOp(store, op);
          return storage.mutations - first;
        })();
        expect(total).toBeGreaterThan(150);
        let crashes = 0;
        for (let n = 0; n < total; n++) {
          const storage = new MemoryPluginStorage();
          const store = await SegmentLedgerStore.open(storage, options);
          storage.crashAfterMutations(n, mode);
          let acked = 0;
          let error: unknown;
          for (const op of ops) {
            try {
              await applyOp(store, op);
              acked++;
            } catch (e) {
              error = e;
              break;
            }
          }
          // A crash at a compaction `remove` is swallowed; the next op's put then fails.
          if (acked === ops.length) continue;
          crashes++;
          expect(error).toBeInstanceOf(InjectedStorageFault);
          storage.heal();
          const before = modelOf(ops.slice(0, acked));
          const after = modelOf(ops.slice(0, acked + 1));
          const reopened = await SegmentLedgerStore.open(storage, options);
          const loaded = asMap(await reopened.loadAll());
          for (const id of new Set([...before.keys(), ...after.keys(), ...loaded.keys()])) {
            const got = loaded.get(id);
            if (got !== before.get(id) && got !== after.get(id)) {
              expect.fail(
                `crash at mutation ${n}: ${id} is ${got}, expected ${before.get(id)} or ${after.get(id)}`,
              );
            }
          }
          // The reopened store carries on: the rest of the workload lands exactly.
          for (const op of ops.slice(acked + 1)) await applyOp(reopened, op);
          const expected = new Map(loaded);
          for (const op of ops.slice(acked + 1)) applyToModel(expected, op);
          expect(asMap(await (await SegmentLedgerStore.open(storage, options)).loadAll())).toEqual(
            expected,
          );
        }
        expect(crashes).toBeGreaterThan(100);
      });
    }

    it("reservations: a crash at every append keeps exactly the acknowledged IDs (plus a landed one)", async () => {
      const ids = Array.from({ length: 200 }, (_, i) => hex(0x10000, i * 13));
      for (const mode of ["fail", "fail-after"] as const) {
        for (let n = 0; n < ids.length; n++) {
          const storage = new MemoryPluginStorage();
          const store = await SegmentReservationStore.open(storage, reservationOptions);
          storage.crashAfterMutations(n, mode);
          let acked = 0;
          for (const id of ids) {
            const ok = await store.append(id).then(
              () => true,
              () => false,
            );
            if (!ok) break;
            acked++;
          }
          storage.heal();
          const loaded = [
            ...(await (await SegmentReservationStore.open(storage, reservationOptions)).loadAll()),
          ];
          expect(loaded).toEqual(ids.slice(0, mode === "fail" ? acked : acked + 1));
        }
      }
    });
  });

describe("failed writes", () => {
  it("a rejected put propagates, leaves the store unchanged, and a later put succeeds", async () => {
    const storage = new MemoryPluginStorage();
    const store = new SegmentLedgerStore(storage);
    await store.put(sampleLedgerEntry("aaaa", { state: "issued" }));
    storage.fault = (call) => (call.op === "put" ? "fail-after" : undefined);
    const error = await store
      .put(sampleLedgerEntry("aaaa", { state: "executing" }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InjectedStorageFault);
    expect((await store.loadAll()).map((e) => e.state)).toEqual(["issued"]);
    storage.heal();
    await store.put(sampleLedgerEntry("bbbb"));
    // The landed-but-rejected record was overwritten by the next write.
    const reopened = asMap(await (await SegmentLedgerStore.open(storage)).loadAll());
    expect(JSON.parse(reopened.get("aaaa")!).state).toBe("issued");
    expect(reopened.has("bbbb")).toBe(true);
  });

  it("a rejected write that landed in a new segment can never outrank later writes", async () => {
    const options = { maxSegmentBytes: 1024 };
    const storage = new MemoryPluginStorage();
    const store = new SegmentLedgerStore(storage, options);
    const small = (v: number) => ({ requestId: "aaaa", updatedAt: v }) as unknown as LedgerEntry;
    await store.put(small(1));
    // Does not fit in segment 1: goes to segment 2, lands, but is reported failed.
    storage.crashAfterMutations(0, "fail-after");
    const big = {
      requestId: "aaaa",
      updatedAt: 2,
      reason: "x".repeat(930),
    } as unknown as LedgerEntry;
    await expect(store.put(big)).rejects.toBeInstanceOf(InjectedStorageFault);
    expect(storage.read(ledgerFile(2))).toContain('"updatedAt":2');
    storage.heal();
    // Fits in segment 1, but must not go there: segment 2 would shadow it.
    await store.put(small(3));
    const loaded = await (await SegmentLedgerStore.open(storage, options)).loadAll();
    expect(loaded.map((e) => e.updatedAt)).toEqual([3]);
  });

  it("reservations: after a rejected append that landed in a new segment, later appends overwrite it", async () => {
    const options = { maxSegmentBytes: 256 };
    const storage = new MemoryPluginStorage();
    const store = await SegmentReservationStore.open(storage, options);
    const acked: string[] = [];
    // Fill segment 1 until a 64-digit ID no longer fits but a 4-digit one does.
    for (let i = 0; ; i++) {
      const id = hex(0x1000, i);
      await store.append(id);
      acked.push(id);
      if (storage.read(reservationFile(1))!.length > 256 - 60) break;
    }
    storage.crashAfterMutations(0, "fail-after");
    await expect(store.append("f".repeat(64))).rejects.toBeInstanceOf(InjectedStorageFault);
    expect(storage.read(reservationFile(2))).toContain("f".repeat(64));
    storage.heal();
    await store.append("abcd");
    acked.push("abcd");
    const loaded = await (await SegmentReservationStore.open(storage, options)).loadAll();
    expect([...loaded]).toEqual(acked);
  });

  it("a delete after a rejected put that landed shadows it, even when memory never had the record", async () => {
    const options = { maxSegmentBytes: 1024 };
    const storage = new MemoryPluginStorage();
    const store = new SegmentLedgerStore(storage, options);
    await store.put({ requestId: "bbbb" } as LedgerEntry);
    storage.crashAfterMutations(0, "fail-after");
    await expect(store.put({ requestId: "aaaa" } as LedgerEntry)).rejects.toThrow();
    storage.heal();
    await store.delete(["aaaa"]);
    const loaded = await (await SegmentLedgerStore.open(storage, options)).loadAll();
    expect(loaded.map((e) => e.requestId)).toEqual(["bbbb"]);
  });

  it("a failed compaction remove does not fail the commit and is retried later", async () => {
    const options = { maxSegmentBytes: 1024 };
    const storage = new MemoryPluginStorage();
    const store = new SegmentLedgerStore(storage, options);
    let failRemoves = true;
    let attempts = 0;
    storage.fault = (call) => {
      if (call.op !== "remove") return undefined;
      attempts++;
      return failRemoves ? "fail" : undefined;
    };
    const entry = (v: number) =>
      ({ requestId: "aaaa", updatedAt: v, reason: "y".repeat(300) }) as unknown as LedgerEntry;
    for (let v = 0; v < 20; v++) await store.put(entry(v));
    expect(attempts).toBeGreaterThan(0);
    const segmentsWhileFailing = (await store.stats()).segments;
    failRemoves = false;
    for (let v = 20; v < 60; v++) await store.put(entry(v));
    const stats = await store.stats();
    expect(stats.segments).toBeLessThan(segmentsWhileFailing);
    expect(stats.segments).toBeLessThanOrEqual(3);
    const loaded = await (await SegmentLedgerStore.open(storage, options)).loadAll();
    expect(loaded.map((e) => e.updatedAt)).toEqual([59]);
  });
});

describe("fail closed", () => {
  const seeded = async () => {
    const storage = new MemoryPluginStorage();
    const ledger = new SegmentLedgerStore(storage, { maxSegmentBytes: 2048 });
    for (const id of ["aaaa", "bbbb", "cccc"]) await ledger.put(sampleLedgerEntry(id));
    const reservations = new SegmentReservationStore(storage);
    for (const id of ["aaaa", "bbbb"]) await reservations.append(id);
    return storage;
  };
  const openLedger = (storage: MemoryPluginStorage) =>
    SegmentLedgerStore.open(storage, { maxSegmentBytes: 2048 });
  const codeOf = async (p: Promise<unknown>) => {
    const error = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SegmentStoreError);
    return error as SegmentStoreError;
  };

  it("an unparseable record fails the load with store_corrupt naming the file and line", async () => {
    const storage = await seeded();
    storage.corrupt(ledgerFile(1), (t) => t.replace('"requestId":"aaaa"', '"requestId":"aaaa'));
    const error = await codeOf(openLedger(storage));
    expect(error.code).toBe("store_corrupt");
    expect(error.details).toMatchObject({ dir: "ledger", file: segmentFileName(1), line: 2 });
    // Still closed on the next attempt: nothing was dropped silently.
    const store = new SegmentLedgerStore(storage, { maxSegmentBytes: 2048 });
    expect((await codeOf(store.loadAll())).code).toBe("store_corrupt");
    expect((await codeOf(store.put(sampleLedgerEntry("dddd")))).code).toBe("store_corrupt");
  });

  it("a segment cut short (no trailer) is corruption, not a torn tail", async () => {
    const storage = await seeded();
    storage.corrupt(ledgerFile(2), (t) => t.slice(0, t.indexOf("\n#end")));
    expect((await codeOf(openLedger(storage))).code).toBe("store_corrupt");
    storage.corrupt(reservationFile(1), (t) => t.slice(0, -8));
    expect((await codeOf(SegmentReservationStore.open(storage))).code).toBe("store_corrupt");
  });

  it("a wrong trailer count, header, record kind or reservation line is corruption", async () => {
    const cases: Array<[string, (t: string) => string]> = [
      [ledgerFile(1), (t) => t.replace("#end 1", "#end 2")],
      [ledgerFile(1), (t) => t.replace("seg 1", "seg 7")],
      [ledgerFile(1), (t) => t.replace(/\n\{.*\n/, "\n42\n")],
      [ledgerFile(1), (t) => t.replace(/\n\{.*\n/, '\n{"noRequestId":1}\n')],
      [ledgerFile(1), (t) => t.replace(/\n\{.*\n/, "\n#comment\n")],
      [reservationFile(1), (t) => t.replace("\naaaa\n", "\nAAAA\n")],
    ];
    for (const [file, edit] of cases) {
      const storage = await seeded();
      storage.corrupt(file, edit);
      const open = file.startsWith("ledger")
        ? openLedger(storage)
        : SegmentReservationStore.open(storage);
      expect((await codeOf(open)).code).toBe("store_corrupt");
    }
  });

  it("a stray seg- entry (a directory or a bad name) is corruption; other files are ignored", async () => {
    const storage = await seeded();
    await storage.put("ledger/notes.txt", "not ours");
    expect((await (await openLedger(storage)).loadAll()).length).toBe(3);
    await storage.put("ledger/seg-1.log", "x");
    expect((await codeOf(openLedger(storage))).code).toBe("store_corrupt");
    const other = await seeded();
    await other.put(`ledger/${segmentFileName(9)}/inner`, "x");
    expect((await codeOf(openLedger(other))).code).toBe("store_corrupt");
  });

  it("an unreadable segment or directory fails with store_unreadable", async () => {
    const storage = await seeded();
    storage.fault = (call) =>
      call.op === "get" && call.path.endsWith("2.log") ? "fail" : undefined;
    expect((await codeOf(openLedger(storage))).code).toBe("store_unreadable");
    storage.fault = (call) => (call.op === "list" || call.op === "put" ? "fail" : undefined);
    expect((await codeOf(SegmentReservationStore.open(storage))).code).toBe("store_unreadable");
    storage.heal();
    expect((await (await openLedger(storage)).loadAll()).length).toBe(3);
  });

  it("a missing directory is an empty store (created with a marker); a transient list failure is retried", async () => {
    const storage = new MemoryPluginStorage();
    const store = await SegmentLedgerStore.open(storage);
    expect(await store.loadAll()).toEqual([]);
    expect(storage.read("ledger/store.txt")).toContain("sisyphus-ledger");
    await store.put(sampleLedgerEntry("aaaa"));
    let failures = 1;
    storage.fault = (call) => (call.op === "list" && failures-- > 0 ? "fail" : undefined);
    expect((await (await SegmentLedgerStore.open(storage)).loadAll()).length).toBe(1);
  });

  it("the write-safety layers refuse to start over a corrupt store", async () => {
    const storage = await seeded();
    storage.corrupt(reservationFile(1), (t) => t.replace("\nbbbb\n", "\nzz\n"));
    const error = await RequestIdRegistry.open({
      store: new SegmentReservationStore(storage),
      random: seededRandomSource(1),
    }).catch((e: unknown) => e);
    expect(isWriteSafetyError(error) && error.code).toBe("write_coordinator_unavailable");
    storage.corrupt(ledgerFile(1), (t) => t.replace("#end", "#END"));
    const coordinator = createWriteCoordinator({
      clock: { now: () => 1_786_543_200_000 },
      random: seededRandomSource(1),
      epoch: "e",
      ledgerStore: new SegmentLedgerStore(storage, { maxSegmentBytes: 2048 }),
      reservationStore: new SegmentReservationStore(storage, { dir: "other" }),
    });
    await expect(coordinator).rejects.toSatisfy(
      (e: unknown) => isSegmentStoreError(e) || isWriteSafetyError(e),
    );
  });
});

describe("property: the segment ledger behaves like a map across failures and restarts", () => {
  type PropOp =
    | { kind: "put"; id: number; size: number }
    | { kind: "delete"; ids: number[] }
    | { kind: "reopen" };
  const opArb: fc.Arbitrary<PropOp> = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({ kind: fc.constant("put" as const), id: fc.nat(9), size: fc.nat(500) }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant("delete" as const),
        ids: fc.array(fc.nat(9), { maxLength: 4 }),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("reopen" as const) }) },
  );

  it("matches a model; a rejected write is either absent or present until the next success, then absent", async () => {
    const options = { maxSegmentBytes: 1024 };
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 1, maxLength: 70 }),
        fc.nat(120),
        fc.constantFrom("fail" as const, "fail-after" as const),
        async (ops, failAt, mode) => {
          const storage = new MemoryPluginStorage();
          let store = await SegmentLedgerStore.open(storage, options);
          const first = storage.mutations;
          storage.fault = (call) =>
            (call.op === "put" || call.op === "remove") && call.index === first + failAt
              ? mode
              : undefined;
          const model = new Map<string, string>();
          /** IDs a rejected write touched: [value without it, value with it]. */
          let uncertain = new Map<string, [string | undefined, string | undefined]>();
          const check = async (s: SegmentLedgerStore, resolve: boolean) => {
            const got = asMap(await s.loadAll());
            for (const id of new Set([...model.keys(), ...got.keys(), ...uncertain.keys()])) {
              const pair = uncertain.get(id);
              const value = got.get(id);
              if (pair === undefined) expect(value).toBe(model.get(id));
              else {
                expect(pair).toContain(value);
                if (resolve) {
                  if (value === undefined) model.delete(id);
                  else model.set(id, value);
                }
              }
            }
            if (resolve) uncertain = new Map();
          };
          for (const [i, op] of ops.entries()) {
            if (op.kind === "reopen") {
              store = await SegmentLedgerStore.open(storage, options);
              await check(store, true);
              continue;
            }
            const ids = op.kind === "put" ? [op.id] : op.ids;
            const entry = {
              requestId: hex(0x1000, op.kind === "put" ? op.id : 0),
              step: i,
              pad: "p".repeat(op.kind === "put" ? op.size : 0),
            } as unknown as LedgerEntry;
            const before = new Map(ids.map((k) => [hex(0x1000, k), model.get(hex(0x1000, k))]));
            const ok = await (op.kind === "put"
              ? store.put(entry)
              : store.delete(op.ids.map((k) => hex(0x1000, k)))
            ).then(
              () => true,
              () => false,
            );
            if (!ok) {
              for (const [id, was] of before) {
                const now: string | undefined =
                  op.kind === "put" ? JSON.stringify(entry) : undefined;
                // Stays uncertain until the next success or reload.
                const prev = uncertain.get(id);
                uncertain.set(id, prev === undefined ? [was, now] : [prev[0], now]);
              }
              continue;
            }
            if (op.kind === "put") model.set(entry.requestId, JSON.stringify(entry));
            else for (const id of before.keys()) model.delete(id);
            for (const id of before.keys()) uncertain.delete(id);
            // A success repairs whatever a rejected write left behind: from here on the store
            // (and a reload, checked at the next reopen) agrees with its memory.
            await check(store, true);
          }
          await check(await SegmentLedgerStore.open(storage, options), true);
        },
      ),
      { numRuns: 150 },
    );
  });
});
