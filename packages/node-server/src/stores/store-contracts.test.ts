import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LedgerEntry } from "@sisyphus/write-safety";
import {
  describeCoordinatorStoreFailures,
  describeLedgerStoreContract,
  describeReservationStoreContract,
} from "@sisyphus/write-safety/testing";
import { FileLedgerStore } from "./file-ledger-store.js";
import { FileReservationStore } from "./file-reservation-store.js";

const fresh = () => mkdtempSync(join(tmpdir(), "sisyphus-contract-"));

describeLedgerStoreContract("FileLedgerStore", async () => {
  const file = join(fresh(), "ledger.wal");
  return {
    store: await FileLedgerStore.open<LedgerEntry>(file),
    reopen: () => FileLedgerStore.open<LedgerEntry>(file),
  };
});

describeLedgerStoreContract("FileLedgerStore (compacting every write)", async () => {
  const file = join(fresh(), "ledger.wal");
  const open = () => FileLedgerStore.open<LedgerEntry>(file, { compactBytes: 1 });
  return { store: await open(), reopen: open };
});

describeReservationStoreContract("FileReservationStore", async () => {
  const file = join(fresh(), "reservations.wal");
  return {
    store: await FileReservationStore.open(file),
    reopen: () => FileReservationStore.open(file),
  };
});

describeCoordinatorStoreFailures("file stores", async () => {
  const dir = fresh();
  const ledgerFile = join(dir, "ledger.wal");
  const reservationFile = join(dir, "reservations.wal");
  return {
    ledger: {
      store: await FileLedgerStore.open<LedgerEntry>(ledgerFile),
      reopen: () => FileLedgerStore.open<LedgerEntry>(ledgerFile),
    },
    reservations: {
      store: await FileReservationStore.open(reservationFile),
      reopen: () => FileReservationStore.open(reservationFile),
    },
  };
});
