/**
 * @sisyphus/write-safety: Strict Safe Writes as a pure package. Action policy, lease scope, the
 * in-memory lease pool, durable request-ID reservations, the idempotency ledger and the serial
 * write coordinator (FIFO lane, admission cap, cancellation barrier, replay/conflict, readback
 * verdicts), with in-memory stores. No I/O: clock, randomness and stores are injected.
 * Store contract suites live in `@sisyphus/write-safety/testing`.
 */

export type {
  AdditivePreflightAnswer,
  CancelledAnswer,
  CommitAnswer,
  PreflightAnswer,
  StrictCommitReceipt,
  StrictPreflightAnswer,
  UnguardedReceipt,
} from "./answers.js";
export { REPLAY_NOTES, type TargetNow } from "./answers.js";
export { type CancellationState, WriteCancellation } from "./cancellation.js";
export { type Clock, systemClock } from "./clock.js";
export {
  LEASE_TOMBSTONES_MAX,
  LEASE_TTL_MS,
  LEASES_GLOBAL_MAX,
  LEASES_PER_SCOPE_MAX,
  LEDGER_RECEIPT_MAX_CHARS,
  LEDGER_RETENTION_MS,
  REQUEST_ID_FIRST_EXECUTION_TTL_MS,
  WRITE_ADMISSION_MAX_IN_FLIGHT,
} from "./constants.js";
export {
  createWriteCoordinator,
  WriteCoordinator,
  type WriteCoordinatorHealth,
  type WriteCoordinatorLimits,
  type WriteCoordinatorOptions,
} from "./coordinator.js";
export {
  isNotDispatched,
  isWriteSafetyError,
  type LeaseInvalidReason,
  type NotDispatchedMarker,
  WRITE_SAFETY_ERROR_CODES,
  WRITE_SAFETY_REASON_HINTS,
  type WriteExecuted,
  WriteSafetyError,
  type WriteSafetyErrorCode,
  type WriteSafetyErrorDetails,
  type WriteSafetyErrorOptions,
  writeSafetyHint,
} from "./errors.js";
export type {
  CommitHooks,
  Execute,
  ExecuteContext,
  ExecuteOutput,
  Probe,
  ProbeResult,
  Readback,
  ReadbackContext,
  ReadbackResult,
  WriteCall,
} from "./hooks.js";
export { type WritePort, WriteTracker } from "./hooks.js";
export {
  type Lease,
  type LeaseLimits,
  LeasePool,
  type LeasePoolOptions,
  type LeaseResolution,
} from "./lease-pool.js";
export {
  type CreationProgress,
  type IssuedRecord,
  Ledger,
  type LedgerEntry,
  type LedgerKey,
  type LedgerOptions,
  type LedgerState,
  type LedgerStore,
  type MemoryLedgerBacking,
  MemoryLedgerStore,
  RECEIPT_DIGESTS,
  type StoredResult,
  type ToolReceipt,
} from "./ledger.js";
export {
  type ActionPolicy,
  EXTERNAL_POLICY,
  isActionPolicy,
  mutationPolicy,
  type PreconditionField,
  type PreconditionKind,
  preconditionField,
  READ_POLICY,
} from "./policy.js";
export {
  decodeReservationLog,
  encodeReservationRecord,
  type MemoryReservationBacking,
  MemoryReservationStore,
  RequestIdRegistry,
  type RequestIdRegistryOptions,
  type ReservationStore,
} from "./reservations.js";
export {
  businessArguments,
  isSafetyArgumentField,
  type LeaseScope,
  type LeaseScopeInput,
  leaseScope,
  SAFETY_ARGUMENT_FIELDS,
} from "./scope.js";
export {
  isWireErrorCode,
  WIRE_ERRORS,
  type WireErrorCode,
  type WireErrorEntry,
  type WireExitClass,
} from "./wire-errors.js";
