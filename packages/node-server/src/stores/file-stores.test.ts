import {
  appendFileSync,
  chmodSync,
  mkdtempSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import { isNodeServerError } from "../errors.js";
import { FileLedgerStore, FileReservationStore, type StoreKey } from "./file-stores.js";

const dir = () => mkdtempSync(join(tmpdir(), "sisyphus-store-"));
type E = { requestId: string; state: string };

describe("FileLedgerStore", () => {
  it("replays puts and deletes after reopening", async () => {
    const file = join(dir(), "ledger.wal");
    const a = await FileLedgerStore.open<E>(file);
    await a.put({ requestId: "aaaa", state: "issued" });
    await a.put({ requestId: "bbbb", state: "issued" });
    await a.put({ requestId: "aaaa", state: "executing" });
    await a.delete(["bbbb"]);
    await a.close();
    const b = await FileLedgerStore.open<E>(file);
    expect(await b.loadAll()).toEqual([{ requestId: "aaaa", state: "executing" }]);
    await b.close();
  });

  it("drops a torn last line (an append that never completed) and keeps appending", async () => {
    const file = join(dir(), "ledger.wal");
    const a = await FileLedgerStore.open<E>(file);
    await a.put({ requestId: "aaaa", state: "executing" });
    await a.close();
    appendFileSync(file, '1234abcd {"op":"put","entry":{"requestId":"cc');
    const b = await FileLedgerStore.open<E>(file);
    expect((await b.loadAll()).map((e) => e.requestId)).toEqual(["aaaa"]);
    await b.put({ requestId: "dddd", state: "issued" });
    await b.close();
    const c = await FileLedgerStore.open<E>(file);
    expect((await c.loadAll()).map((e) => e.requestId).sort()).toEqual(["aaaa", "dddd"]);
    await c.close();
  });

  it("fails closed on a corrupt record", async () => {
    const file = join(dir(), "ledger.wal");
    const a = await FileLedgerStore.open<E>(file);
    await a.put({ requestId: "aaaa", state: "executing" });
    await a.put({ requestId: "bbbb", state: "executing" });
    await a.close();
    writeFileSync(file, readFileSync(file, "utf8").replace('"aaaa"', '"aaab"'));
    const err = await FileLedgerStore.open<E>(file).catch((e: unknown) => e);
    expect(isNodeServerError(err) && err.code).toBe("store_corrupt");
    expect(isNodeServerError(err) && err.details.line).toBe(1);
  });

  it("fails closed when the file is unreadable", async () => {
    const d = dir();
    const err = await FileLedgerStore.open<E>(d).catch((e: unknown) => e); // a directory, not a file
    expect(isNodeServerError(err) && err.code).toBe("store_corrupt");
  });

  it("compacts atomically to the live records once the log is large", async () => {
    const file = join(dir(), "ledger.wal");
    const a = await FileLedgerStore.open<E>(file, { compactBytes: 2000 });
    for (let i = 0; i < 60; i++) await a.put({ requestId: "abcd", state: `s${i}` });
    expect(a.byteLength).toBeLessThan(2000);
    await a.put({ requestId: "ef01", state: "issued" });
    await a.close();
    const lines = readFileSync(file, "utf8").trim().split("\n");
    expect(lines.length).toBeLessThan(30);
    const b = await FileLedgerStore.open<E>(file);
    expect((await b.loadAll()).find((e) => e.requestId === "abcd")?.state).toBe("s59");
    await b.close();
  });
});

describe("FileLedgerStore index (line format 2)", () => {
  type K = { requestId: string; state: string; requestIdExpiresAt: number; executingAt?: number };
  const rec = (requestId: string, state: string, executingAt?: number): K =>
    executingAt === undefined
      ? { requestId, state, requestIdExpiresAt: 600_000 }
      : { requestId, state, requestIdExpiresAt: 600_000, executingAt };
  const keyOf = ({ requestId, requestIdExpiresAt, executingAt }: StoreKey<K>) => ({
    requestId,
    requestIdExpiresAt,
    executingAt,
  });
  const v1Line = (entry: object) => {
    const json = JSON.stringify({ op: "put", entry });
    return `${crc32(json).toString(16).padStart(8, "0")} ${json}\n`;
  };

  it("opens from the line headers and reads each record from the file on lookup", async () => {
    const file = join(dir(), "ledger.wal");
    const a = await FileLedgerStore.open<K>(file);
    await a.put(rec("aaaa", "issued"));
    await a.put(rec("bbbb", "issued"));
    await a.put(rec("bbbb", "executing", 1234));
    await a.put(rec("cccc", "issued"));
    await a.delete(["cccc"]);
    await a.close();
    const b = await FileLedgerStore.open<K>(file);
    const keys = (await b.loadKeys()).map(keyOf);
    expect(keys).toEqual([
      { requestId: "aaaa", requestIdExpiresAt: 600_000, executingAt: undefined },
      { requestId: "bbbb", requestIdExpiresAt: 600_000, executingAt: 1234 },
    ]);
    expect(keys).toEqual((await b.loadAll()).map(keyOf));
    expect(b.read("bbbb")).toEqual(rec("bbbb", "executing", 1234));
    expect(b.read("aaaa")).toEqual(rec("aaaa", "issued"));
    expect(b.read("cccc")).toBeUndefined();
    await b.close();
  });

  it("fails closed when a record changed on disk after open: on lookup, and at the next open", async () => {
    const file = join(dir(), "ledger.wal");
    const a = await FileLedgerStore.open<K>(file);
    await a.put(rec("aaaa", "committed", 7));
    await a.put(rec("bbbb", "committed", 8));
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.replace('"state":"committed"', '"state":"committex"'));
    const err = (() => {
      try {
        return a.read("aaaa");
      } catch (e) {
        return e;
      }
    })();
    expect(isNodeServerError(err) && err.code).toBe("store_corrupt");
    expect(a.read("bbbb")?.state).toBe("committed");
    await a.close();
    const reopened = await FileLedgerStore.open<K>(file).catch((e: unknown) => e);
    expect(isNodeServerError(reopened) && reopened.code).toBe("store_corrupt");
  });

  it("reads line format 1 (before the header) and rewrites it in format 2 at compaction", async () => {
    const file = join(dir(), "ledger.wal");
    writeFileSync(
      file,
      v1Line(rec("aaaa", "issued")) +
        v1Line(rec("bbbb", "committed", 99)) +
        v1Line(rec("aaaa", "executing", 42)),
    );
    const a = await FileLedgerStore.open<K>(file);
    expect((await a.loadKeys()).map(keyOf)).toEqual([
      { requestId: "aaaa", requestIdExpiresAt: 600_000, executingAt: 42 },
      { requestId: "bbbb", requestIdExpiresAt: 600_000, executingAt: 99 },
    ]);
    expect(a.read("aaaa")).toEqual(rec("aaaa", "executing", 42));
    await a.compact();
    expect(a.read("bbbb")).toEqual(rec("bbbb", "committed", 99));
    await a.close();
    const lines = readFileSync(file, "utf8").trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines.every((l) => l.slice(9).startsWith('{"op":"put","id":"'))).toBe(true);
    const b = await FileLedgerStore.open<K>(file);
    expect(b.read("aaaa")).toEqual(rec("aaaa", "executing", 42));
    expect(b.read("bbbb")).toEqual(rec("bbbb", "committed", 99));
    await b.close();
  });

  it("reads the right records after compactions move them, also records taken by the slow path", async () => {
    const file = join(dir(), "ledger.wal");
    // A request ID the fast path does not take (not hex) and a fractional deadline: kept in memory.
    writeFileSync(file, v1Line({ requestId: "not-hex", state: "issued", requestIdExpiresAt: 1.5 }));
    const a = await FileLedgerStore.open<K>(file, { compactBytes: 2000 });
    const ids = Array.from({ length: 12 }, (_, i) => (0xa000 + i).toString(16));
    for (let round = 0; round < 6; round++) {
      for (const id of ids) await a.put(rec(id, `s${round}`, round));
    }
    expect(a.byteLength).toBeLessThan(2 * 2000);
    for (const id of ids) expect(a.read(id)).toEqual(rec(id, "s5", 5));
    expect(a.read("not-hex")).toEqual({
      requestId: "not-hex",
      state: "issued",
      requestIdExpiresAt: 1.5,
    });
    await a.close();
    const b = await FileLedgerStore.open<K>(file);
    expect(b.size).toBe(13);
    for (const id of ids) expect(b.read(id)).toEqual(rec(id, "s5", 5));
    expect((await b.loadKeys()).find((k) => k.requestId === "not-hex")?.requestIdExpiresAt).toBe(
      1.5,
    );
    await b.close();
  });
});

describe("FileReservationStore", () => {
  it("keeps every appended ID across reopen, dropping only a torn tail", async () => {
    const file = join(dir(), "reservations.wal");
    const a = await FileReservationStore.open(file);
    await a.append("abcd");
    await a.append("abcd1");
    await a.close();
    appendFileSync(file, "ef");
    const b = await FileReservationStore.open(file);
    expect(await b.loadAll()).toEqual(["abcd", "abcd1"]);
    await b.close();
  });

  it("fails closed on a malformed line", async () => {
    const file = join(dir(), "reservations.wal");
    writeFileSync(file, "abcd\nXYZ!\nbeef\n");
    const err = await FileReservationStore.open(file).catch((e: unknown) => e);
    expect(isNodeServerError(err) && err.code).toBe("store_corrupt");
  });
});

describe.skipIf(process.platform === "win32")("store file modes", () => {
  const modeOf = (path: string) => statSync(path).mode & 0o777;

  it("creates both logs 0600 whatever the umask, keeps it through compaction, and tightens wider files", async () => {
    const d = dir();
    const previous = process.umask(0o000);
    try {
      const ledger = await FileLedgerStore.open<E>(join(d, "ledger.wal"), { compactBytes: 600 });
      const reservations = await FileReservationStore.open(join(d, "reservations.wal"));
      await reservations.append("abcd");
      expect(modeOf(join(d, "ledger.wal"))).toBe(0o600);
      expect(modeOf(join(d, "reservations.wal"))).toBe(0o600);
      // A leftover temporary file from a crashed compaction, wider than it should be.
      writeFileSync(join(d, "ledger.wal.tmp"), "", { mode: 0o666 });
      for (let i = 0; i < 30; i++) await ledger.put({ requestId: "abcd", state: `s${i}` });
      expect(ledger.byteLength).toBeLessThan(600);
      expect(modeOf(join(d, "ledger.wal"))).toBe(0o600);
      await ledger.close();
      await reservations.close();
      chmodSync(join(d, "reservations.wal"), 0o644);
      const again = await FileReservationStore.open(join(d, "reservations.wal"));
      expect(modeOf(join(d, "reservations.wal"))).toBe(0o600);
      await again.close();
    } finally {
      process.umask(previous);
    }
  });
});
