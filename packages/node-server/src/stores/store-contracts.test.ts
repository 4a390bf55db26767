import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LedgerEntry } from "@sisyphus/write-safety";
import {
  describeCoordinatorStoreFailures,
  describeLedgerStoreContract,
  describeReservationStoreContract,
} from "@sisyphus/write-safety/testing";
import { afterEach } from "vitest";
import { FileLedgerStore, FileReservationStore } from "./file-stores.js";

const fresh = () => mkdtempSync(join(tmpdir(), "sisyphus-contract-"));

/**
 * Every store a contract opens (first opens and reopens alike), closed after each test: the
 * contracts drop their stores without closing them, and a file handle left to the garbage collector
 * is closed at an unknown time (a deprecation warning today, an error in a later Node).
 */
const opened: { close(): Promise<void> }[] = [];
const tracked =
  <S extends { close(): Promise<void> }>(open: () => Promise<S>) =>
  async (): Promise<S> => {
    const store = await open();
    opened.push(store);
    return store;
  };
afterEach(async () => {
  // A store a fault left failing may refuse its final sync; its handle is closed all the same.
  await Promise.allSettled(opened.splice(0).map((s) => s.close()));
});

describeLedgerStoreContract("FileLedgerStore", async () => {
  const file = join(fresh(), "ledger.wal");
  const open = tracked(() => FileLedgerStore.open<LedgerEntry>(file));
  return { store: await open(), reopen: open };
});

describeLedgerStoreContract("FileLedgerStore (compacting every write)", async () => {
  const file = join(fresh(), "ledger.wal");
  const open = tracked(() => FileLedgerStore.open<LedgerEntry>(file, { compactBytes: 1 }));
  return { store: await open(), reopen: open };
});

describeReservationStoreContract("FileReservationStore", async () => {
  const file = join(fresh(), "reservations.wal");
  const open = tracked(() => FileReservationStore.open(file));
  return { store: await open(), reopen: open };
});

describeCoordinatorStoreFailures("file stores", async () => {
  const dir = fresh();
  const ledgerFile = join(dir, "ledger.wal");
  const reservationFile = join(dir, "reservations.wal");
  const openLedger = tracked(() => FileLedgerStore.open<LedgerEntry>(ledgerFile));
  const openReservations = tracked(() => FileReservationStore.open(reservationFile));
  return {
    ledger: { store: await openLedger(), reopen: openLedger },
    reservations: { store: await openReservations(), reopen: openReservations },
  };
});
