/**
 * Group commit of the append log, driven by a fake fsync whose calls the test settles by hand:
 * what one sync covers, what a failed sync does to its group, and what an append made while a
 * sync runs waits for.
 */
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { describe, expect, it } from "vitest";
import { isNodeServerError } from "../errors.js";
import { AppendLog, type SyncFn } from "./append-log.js";
import { FileLedgerStore, FileReservationStore } from "./file-stores.js";

const dir = () => mkdtempSync(join(tmpdir(), "sisyphus-group-"));

/** A sync that does nothing until the test settles it; `calls` lists the syncs started. */
function fakeSync() {
  const calls: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  const sync: SyncFn = () =>
    new Promise<void>((resolve, reject) => {
      calls.push({ resolve, reject });
    });
  return { sync, calls };
}

/** Tracks when a promise settled, without awaiting it. */
function track(p: Promise<void>) {
  const t: { state: "pending" | "ok" | "failed"; error?: unknown } = { state: "pending" };
  p.then(
    () => {
      t.state = "ok";
    },
    (e: unknown) => {
      t.state = "failed";
      t.error = e;
    },
  );
  return t;
}

/** Lets the log's writes (real file I/O) and promise callbacks run until `done()` holds (10 s at most). */
async function until(done: () => boolean): Promise<void> {
  await waitFor(done, { intervalMs: 1 });
  expect(done()).toBe(true);
}

describe("AppendLog group commit", () => {
  it("N appends made at once are covered by one sync, and none is acknowledged before it ends", async () => {
    const fake = fakeSync();
    const file = join(dir(), "log");
    const { log } = await AppendLog.open(file, { sync: fake.sync });
    const n = 16;
    const appends = Array.from({ length: n }, (_, i) => track(log.append([`line ${i}`])));
    await until(() => fake.calls.length === 1);
    // Every line is written before the one sync started: it covers them all.
    expect(readFileSync(file, "utf8").split("\n").filter(Boolean)).toHaveLength(n);
    expect(appends.every((a) => a.state === "pending")).toBe(true);
    fake.calls[0]!.resolve();
    await until(() => appends.every((a) => a.state === "ok"));
    expect(fake.calls).toHaveLength(1);
    expect(log.syncCount).toBe(1);
    await log.close();
  });

  it("a failed sync fails every waiter of its group; none is acknowledged, and the next group syncs afresh", async () => {
    const fake = fakeSync();
    const { log } = await AppendLog.open(join(dir(), "log"), { sync: fake.sync });
    const durable: number[] = [];
    const group = [0, 1, 2, 3].map((i) => track(log.append([`g${i}`], () => durable.push(i))));
    await until(() => fake.calls.length === 1);
    fake.calls[0]!.reject(new Error("EIO"));
    await until(() => group.every((a) => a.state !== "pending"));
    expect(group.map((a) => a.state)).toEqual(["failed", "failed", "failed", "failed"]);
    expect(group.every((a) => isNodeServerError(a.error) && a.error.code === "store_io")).toBe(
      true,
    );
    expect(durable).toEqual([]);
    const later = track(log.append(["later"], () => durable.push(9)));
    await until(() => fake.calls.length === 2);
    fake.calls[1]!.resolve();
    await until(() => later.state === "ok");
    expect(durable).toEqual([9]);
    await log.close();
  });

  it("an append written while a sync runs waits for the next sync", async () => {
    const fake = fakeSync();
    const { log } = await AppendLog.open(join(dir(), "log"), { sync: fake.sync });
    const first = track(log.append(["first"]));
    await until(() => fake.calls.length === 1);
    const second = track(log.append(["second"]));
    const third = track(log.append(["third"]));
    await until(() => log.byteLength === "first\nsecond\nthird\n".length);
    // Written, but the running sync may have started before: no second sync yet, nobody acknowledged.
    expect(fake.calls).toHaveLength(1);
    fake.calls[0]!.resolve();
    await until(() => first.state === "ok" && fake.calls.length === 2);
    expect([second.state, third.state]).toEqual(["pending", "pending"]);
    fake.calls[1]!.resolve();
    await until(() => second.state === "ok" && third.state === "ok");
    expect(log.syncCount).toBe(2);
    await log.close();
  });

  it("a lazy append rides on the next group's sync, and close syncs one left alone", async () => {
    const fake = fakeSync();
    const { log } = await AppendLog.open(join(dir(), "log"), { sync: fake.sync });
    await log.appendLazy(["lazy"]);
    expect(fake.calls).toHaveLength(0);
    const closed = log.close();
    await until(() => fake.calls.length === 1);
    fake.calls[0]!.resolve();
    await closed;
    const again = await AppendLog.open(join(dir(), "log2"), { sync: fake.sync });
    await again.log.appendLazy(["lazy"]);
    const put = track(again.log.append(["durable"]));
    await until(() => fake.calls.length === 2);
    fake.calls[1]!.resolve();
    await until(() => put.state === "ok");
    // The group's sync covered the lazy line too: closing needs no further sync.
    await again.log.close();
    expect(fake.calls).toHaveLength(2);
  });
});

describe("file stores under concurrent writers", () => {
  /** A real fdatasync that counts its calls. */
  function countingSync() {
    const counter = { syncs: 0 };
    const sync: SyncFn = async (h) => {
      counter.syncs++;
      await h.datasync();
    };
    return { sync, counter };
  }

  it("16 concurrent ledger puts share one fsync and all survive a reopen", async () => {
    const file = join(dir(), "ledger.wal");
    const { sync, counter } = countingSync();
    const store = await FileLedgerStore.open<{ requestId: string; state: string }>(file, { sync });
    const ids = Array.from({ length: 16 }, (_, i) => (0xa000 + i).toString(16));
    await Promise.all(ids.map((requestId) => store.put({ requestId, state: "executing" })));
    expect(counter.syncs).toBe(1);
    await store.close();
    const again = await FileLedgerStore.open<{ requestId: string; state: string }>(file);
    expect((await again.loadAll()).map((e) => e.requestId).sort()).toEqual(ids);
    await again.close();
  });

  it("16 concurrent reservations share one fsync and all survive a reopen", async () => {
    const file = join(dir(), "reservations.wal");
    const { sync, counter } = countingSync();
    const store = await FileReservationStore.open(file, { sync });
    const ids = Array.from({ length: 16 }, (_, i) => (0xb000 + i).toString(16));
    await Promise.all(ids.map((id) => store.append(id)));
    expect(counter.syncs).toBe(1);
    expect(store.syncCount).toBe(1);
    await store.close();
    const again = await FileReservationStore.open(file);
    expect([...(await again.loadAll())].sort()).toEqual(ids);
    await again.close();
  });

  it("compaction amid concurrent puts drops no acknowledged record", async () => {
    const file = join(dir(), "ledger.wal");
    const store = await FileLedgerStore.open<{ requestId: string; state: string }>(file, {
      compactBytes: 1500,
    });
    const acknowledged = new Map<string, string>();
    for (let round = 0; round < 12; round++) {
      const batch = Array.from({ length: 8 }, (_, i) => ({
        requestId: (0xc000 + ((round * 8 + i) % 20)).toString(16),
        state: `r${round}`,
      }));
      await Promise.all(
        batch.map((e) => store.put(e).then(() => acknowledged.set(e.requestId, e.state))),
      );
    }
    const bytes = store.byteLength;
    await store.close();
    // It did compact: 96 puts of ~60 bytes each would be ~5.8 KB uncompacted.
    expect(bytes).toBeLessThan(3000);
    const again = await FileLedgerStore.open<{ requestId: string; state: string }>(file);
    const live = new Map((await again.loadAll()).map((e) => [e.requestId, e.state]));
    expect(live).toEqual(acknowledged);
    await again.close();
  });

  it("a ledger deletion is written without an fsync of its own and rides on the next put's", async () => {
    const file = join(dir(), "ledger.wal");
    const { sync, counter } = countingSync();
    const store = await FileLedgerStore.open<{ requestId: string; state: string }>(file, { sync });
    await store.put({ requestId: "aaaa", state: "issued" });
    await store.delete(["aaaa"]);
    expect(counter.syncs).toBe(1);
    await store.put({ requestId: "bbbb", state: "issued" });
    expect(counter.syncs).toBe(2);
    await store.close();
    expect(counter.syncs).toBe(2);
    const again = await FileLedgerStore.open<{ requestId: string; state: string }>(file);
    expect((await again.loadAll()).map((e) => e.requestId)).toEqual(["bbbb"]);
    await again.close();
  });
});

describe("AppendLog.openEach", () => {
  it("hands over every complete line with its offset across chunk boundaries, a line longer than a chunk too, and drops a torn tail", async () => {
    const file = join(dir(), "log");
    // Lines of 1..1,000 bytes up to ~17 MiB (several 8 MiB chunks), one of 9 MiB, then a torn tail.
    const lines: string[] = [];
    for (let i = 0, size = 0; size < 17 * 2 ** 20; i++) {
      const l = `${i}:${"x".repeat((i * 7919) % 1000)}`;
      lines.push(l);
      size += l.length + 1;
    }
    lines.push("y".repeat(9 * 2 ** 20), "last");
    writeFileSync(file, `${lines.join("\n")}\ntorn`);
    const got: Array<[number, string]> = [];
    const log = await AppendLog.openEach(file, {}, (bytes, start, end, offset) => {
      got.push([offset, bytes.toString("latin1", start, end)]);
    });
    let offset = 0;
    const expected = lines.map((l): [number, string] => {
      const at = offset;
      offset += l.length + 1;
      return [at, l];
    });
    expect(got.length).toBe(expected.length);
    expect(got.every(([at, l], i) => at === expected[i]?.[0] && l === expected[i]?.[1])).toBe(true);
    expect(log.byteLength).toBe(offset);
    expect(statSync(file).size).toBe(offset);
    await log.close();
  });

  it("rethrows what the line handler throws and leaves the file as it was", async () => {
    const file = join(dir(), "log");
    writeFileSync(file, "a\nb\nc");
    const err = await AppendLog.openEach(file, {}, (bytes, start) => {
      if (bytes[start] === 0x62) throw new Error("bad line b");
    }).catch((e: unknown) => e);
    expect((err as Error).message).toBe("bad line b");
    expect(readFileSync(file, "utf8")).toBe("a\nb\nc");
  });
});

describe("AppendLog.append", () => {
  it("a write the file refuses fails the append with store_io, and nothing of it is acknowledged", async () => {
    const file = join(dir(), "log");
    // The second write puts half its bytes in the file, then fails as a full disk would.
    let writes = 0;
    const { log } = await AppendLog.open(file, {
      write: async (handle, data) => {
        writes++;
        if (writes === 1) return handle.write(data);
        await handle.write(data.subarray(0, data.length >> 1));
        throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
      },
    });
    await log.append(["kept"]);
    const durable: string[] = [];
    const err = await log.append(["lost"], () => durable.push("lost")).catch((e: unknown) => e);
    expect(isNodeServerError(err) && err.code === "store_io").toBe(true);
    expect((err as Error).message).toBe("Cannot write log");
    expect(durable).toEqual([]);
    expect(writes).toBe(2);
    // The half-written line is cut back off: the next open finds only what was acknowledged.
    expect(readFileSync(file, "utf8")).toBe("kept\n");
    await log.close();
  });
});
