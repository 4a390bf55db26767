import {
  describeCoordinatorStoreFailures,
  describeLedgerStoreContract,
  describeReservationStoreContract,
} from "@sisyphus/write-safety/testing";
import { MemoryPluginStorage } from "./plugin-storage.js";
import { SegmentLedgerStore } from "./segment-ledger-store.js";
import { SegmentReservationStore } from "./segment-reservation-store.js";

// Every suite runs over a fresh in-memory `siyuan.storage`; `reopen` is a new store object over the
// same files (a plugin reload). The small-segment variants seal a segment every few records, so
// sealing, the segment chain and compaction are exercised by the same contract.
for (const small of [false, true]) {
  describeLedgerStoreContract(`SegmentLedgerStore (${small ? "2 KiB" : "64 KiB"} segments)`, () => {
    const storage = new MemoryPluginStorage();
    // A sample record is about 1 KB: 2 KiB segments seal after every other record.
    const options = small ? { maxSegmentBytes: 2048 } : {};
    return {
      store: new SegmentLedgerStore(storage, options),
      reopen: () => SegmentLedgerStore.open(storage, options),
    };
  });

  describeReservationStoreContract(
    `SegmentReservationStore (${small ? "256 B" : "64 KiB"} segments)`,
    () => {
      const storage = new MemoryPluginStorage();
      const options = small ? { maxSegmentBytes: 256 } : {};
      return {
        store: new SegmentReservationStore(storage, options),
        reopen: () => SegmentReservationStore.open(storage, options),
      };
    },
  );
}

describeCoordinatorStoreFailures("segment stores on siyuan.storage", () => {
  const storage = new MemoryPluginStorage();
  return {
    ledger: {
      store: new SegmentLedgerStore(storage),
      reopen: () => SegmentLedgerStore.open(storage),
    },
    reservations: {
      store: new SegmentReservationStore(storage),
      reopen: () => SegmentReservationStore.open(storage),
    },
  };
});
