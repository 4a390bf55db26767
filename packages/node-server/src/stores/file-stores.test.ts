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
import { describe, expect, it } from "vitest";
import { isNodeServerError } from "../errors.js";
import { FileLedgerStore } from "./file-ledger-store.js";
import { FileReservationStore } from "./file-reservation-store.js";

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
