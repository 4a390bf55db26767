/**
 * Durable stores of the kernel authority on `siyuan.storage` (issue 15): the idempotency ledger
 * and the request-ID reservations, each in numbered segment files of at most 64 KiB.
 */
export {
  InjectedStorageFault,
  MemoryPluginStorage,
  type PluginStorage,
  type PluginStorageData,
  type PluginStorageEntry,
  type PutRecord,
  type StorageCall,
  type StorageFault,
  type StorageFaultAction,
} from "./plugin-storage.js";
export {
  asciiJson,
  isSegmentStoreError,
  SEGMENT_MAX_BYTES,
  SEGMENT_MIN_BYTES,
  SEGMENT_SEAL_BYTES,
  SegmentStoreError,
  type SegmentStoreErrorCode,
  type SegmentStoreErrorDetails,
  STORE_MARKER_FILE,
  segmentFileName,
} from "./segment-format.js";
export { SegmentLedgerStore } from "./segment-ledger-store.js";
export {
  SegmentReservationStore,
  type SegmentStoreOptions,
  type SegmentStoreStats,
} from "./segment-reservation-store.js";
