import { MemoryLedgerStore } from "./ledger.js";
import { MemoryReservationStore } from "./reservations.js";
import {
  describeCoordinatorStoreFailures,
  describeLedgerStoreContract,
  describeReservationStoreContract,
} from "./testing.js";

describeLedgerStoreContract("MemoryLedgerStore", () => {
  const store = new MemoryLedgerStore();
  return { store, reopen: () => store.reopen() };
});

describeReservationStoreContract("MemoryReservationStore", () => {
  const store = new MemoryReservationStore();
  return { store, reopen: () => store.reopen() };
});

describeCoordinatorStoreFailures("in-memory stores", () => {
  const ledger = new MemoryLedgerStore();
  const reservations = new MemoryReservationStore();
  return {
    ledger: { store: ledger, reopen: () => ledger.reopen() },
    reservations: { store: reservations, reopen: () => reservations.reopen() },
  };
});
