/**
 * The one error class of `@sisyphus/write-safety` and its codes. The codes are exactly the spec's
 * failure codes, a subset of the wire's (`wire-errors.ts`, where each code's hint lives); each
 * error carries whether a write was attempted, whether it executed, and its hint.
 */
import { WIRE_ERRORS, type WireErrorCode } from "./wire-errors.js";

/**
 * The failure codes of Strict Safe Writes (spec "Failure semantics" plus the coordinator's own): the
 * subset of {@link WIRE_ERRORS} this package raises. Their hints, exit classes and whether
 * `writeAttempted` can be true are that table's rows.
 */
export const WRITE_SAFETY_ERROR_CODES = [
  "precondition_required",
  "preflight_lease_invalid",
  "state_changed",
  "outcome_unknown",
  "readback_mismatch",
  "idempotency_conflict",
  "write_coordinator_unavailable",
  "write_coordinator_changed",
  "preflight_unavailable",
  "queue_full",
] as const satisfies readonly WireErrorCode[];

/** One of {@link WRITE_SAFETY_ERROR_CODES}. */
export type WriteSafetyErrorCode = (typeof WRITE_SAFETY_ERROR_CODES)[number];

/** Whether the kernel write executed: `true`, `false`, or `"unknown"` (it may have reached the kernel). */
export type WriteExecuted = boolean | "unknown";

/** Machine-readable details; every field is optional and small (aliases, states, reasons, never note content). */
export interface WriteSafetyErrorDetails {
  /** Why this code was chosen, e.g. `"expired"`, `"other_epoch"`, `"ledger_write_failed"`, `"no_policy"`. */
  reason?: string;
  /** The request ID the call carried. */
  requestId?: string;
  /** The credential field the action expects (`expectedStateHash`, ...). */
  preconditionField?: string;
  /** `state_changed`: alias of the digest the lease holds. */
  expectedHash?: string;
  /** `state_changed`: alias of the digest just probed. */
  currentHash?: string;
  /** `outcome_unknown` / `readback_mismatch`: the ledger state of the request ID after this call. */
  ledgerState?: string;
  /** `outcome_unknown` after a ledger failure: the verdict observed before the ledger write failed. */
  observedVerdict?: string;
  /** Alias of the digest read back, when one was read. */
  resultHash?: string;
  /** Alias of the before-state digest, when one was probed. */
  previousHash?: string;
  /** Multi-stage creations: reserved IDs and confirmed stages recorded before the failure. */
  creation?: { reservedIds: string[]; confirmedStages: string[] };
  /** A failed execution: kernel writes it had started (any of them may have reached the kernel). */
  writesStarted?: number;
  /** Admission: the cap that was hit. */
  limit?: number;
  /** Anything else a caller may show; small values only. */
  [key: string]: unknown;
}

/**
 * Why a commit answered `preflight_lease_invalid` (`details.reason`). Every one means nothing was
 * written and a fresh preflight is the way on; the hint says which call to make.
 * - `unknown_request_id`: no preflight of this coordinator issued the request ID (invented, mistyped, or pruned);
 * - `request_id_expired`: the request ID's first-execution window passed (an additive action, which
 *   has no lease), or its record is past retention;
 * - `other_epoch`: a previous process issued the request ID; its leases died with it;
 * - `expired`: the lease's TTL passed (issued with the request ID, it expires with its
 *   first-execution window);
 * - `evicted`: newer preflights pushed the lease out (capacity limits);
 * - `consumed`: the lease was used up (the state was found changed after preflight);
 * - `credential_mismatch`: the credential names no lease of this request's scope (copied from
 *   another call, or altered).
 */
export type LeaseInvalidReason =
  | "unknown_request_id"
  | "request_id_expired"
  | "other_epoch"
  | "expired"
  | "evicted"
  | "consumed"
  | "credential_mismatch";

/**
 * Per-reason refinements of the {@link WIRE_ERRORS} hints: when an error's `details.reason` has an
 * entry here, its hint is that entry, with `{credential}` replaced by " and <preconditionField>"
 * (e.g. " and expectedStateHash") or by nothing for additive actions. The one place these hints live.
 */
export const WRITE_SAFETY_REASON_HINTS: {
  readonly preflight_lease_invalid: Readonly<Record<LeaseInvalidReason, string>>;
} = {
  preflight_lease_invalid: {
    unknown_request_id:
      "No preflight issued this requestId: check it is copied exactly from a validateOnly answer of these arguments (this refusal used up none of your requestIds); else run the same call with validateOnly: true and commit with the new requestId{credential}.",
    request_id_expired:
      "This requestId is past its first-execution window. Run the same call with validateOnly: true again, then commit at once with the new requestId{credential}.",
    other_epoch:
      "A previous server process issued this requestId; its leases are gone. Run the same call with validateOnly: true again, then commit with the new requestId{credential}.",
    expired:
      "The lease expired. Run the same call with validateOnly: true again, then commit with the new requestId{credential} before leaseExpiresAt.",
    evicted:
      "Newer preflights pushed this lease out. Run the same call with validateOnly: true again, then commit with the new requestId{credential} before preflighting other calls.",
    consumed:
      "This lease was used up when the target was found changed. Reread the target; if the write is still wanted, run the same call with validateOnly: true again and commit with the new requestId{credential}.",
    credential_mismatch:
      "The requestId is still good: commit again with it and the credential its own validateOnly answer returned (copied exactly), or run the same call with validateOnly: true again and commit with the new requestId{credential}.",
  },
};

/**
 * What happened, per `details.reason`: the message of a `preflight_lease_invalid` built without
 * one of its own, so the message and the hint tell the same story.
 */
const LEASE_INVALID_MESSAGES: Readonly<Record<LeaseInvalidReason, string>> = {
  unknown_request_id: "No preflight of this server issued this requestId; nothing was written.",
  request_id_expired: "This requestId's first-execution window has passed; nothing was written.",
  other_epoch: "A previous server process issued this requestId; nothing was written.",
  expired: "The preflight's lease expired; nothing was written.",
  evicted: "Newer preflights pushed this preflight's lease out; nothing was written.",
  consumed:
    "This preflight's lease was used up when the target was found changed; nothing was written.",
  credential_mismatch:
    "The credential is not the one this requestId's preflight returned; nothing was written.",
};

/**
 * The hint of a code: its {@link WIRE_ERRORS} row's, refined by `details.reason` when
 * {@link WRITE_SAFETY_REASON_HINTS} has one.
 */
export function writeSafetyHint(
  code: WriteSafetyErrorCode,
  details: WriteSafetyErrorDetails = {},
): string {
  const table = (WRITE_SAFETY_REASON_HINTS as Partial<Record<string, Record<string, string>>>)[
    code
  ];
  const refined =
    table !== undefined && typeof details.reason === "string" ? table[details.reason] : undefined;
  if (refined === undefined) return WIRE_ERRORS[code].hint;
  const field = details.preconditionField;
  return refined.replace("{credential}", typeof field === "string" ? ` and ${field}` : "");
}

/** Default message per code. */
const MESSAGES: Readonly<Record<WriteSafetyErrorCode, string>> = {
  precondition_required: "A request ID or the required hash credential is absent.",
  preflight_lease_invalid:
    "The preflight lease or request ID is missing, expired, evicted, or belonged to a previous process.",
  state_changed: "The target changed after preflight; nothing was written.",
  outcome_unknown:
    "The write may have reached the kernel, but its outcome could not be established.",
  readback_mismatch: "The write was sent but the readback does not show the requested result.",
  idempotency_conflict: "The request ID was already used with different arguments.",
  write_coordinator_unavailable: "The write coordinator or its durable stores cannot be reached.",
  write_coordinator_changed:
    "The write coordinator authority changed while this process was running.",
  preflight_unavailable: "This action cannot be preflighted; nothing was executed.",
  queue_full: "The write lane is at its admission cap; nothing ran.",
};

/** A code's default message, told by `details.reason` where that says more. */
function defaultMessage(code: WriteSafetyErrorCode, details: WriteSafetyErrorDetails = {}): string {
  const reason = details.reason;
  if (
    code === "preflight_lease_invalid" &&
    typeof reason === "string" &&
    reason in LEASE_INVALID_MESSAGES
  ) {
    return LEASE_INVALID_MESSAGES[reason as LeaseInvalidReason];
  }
  return MESSAGES[code];
}

/**
 * Default `writeAttempted` / `writeExecuted` of a code, from its {@link WIRE_ERRORS} row: a code
 * that may follow a dispatched write (`outcome_unknown`, `readback_mismatch`) defaults to attempted
 * with the execution unknown, every other one to nothing attempted. The constructor can narrow them.
 */
function defaultExecution(code: WriteSafetyErrorCode): {
  attempted: boolean;
  executed: WriteExecuted;
} {
  return WIRE_ERRORS[code].writeAttempted === "possible"
    ? { attempted: true, executed: "unknown" }
    : { attempted: false, executed: false };
}

const BRAND = Symbol.for("@sisyphus/write-safety/WriteSafetyError");

/** Options of {@link WriteSafetyError}. */
export interface WriteSafetyErrorOptions {
  message?: string;
  details?: WriteSafetyErrorDetails;
  cause?: unknown;
  /** Overrides the code's default (`outcome_unknown` after a verified write sets `true`). */
  writeExecuted?: WriteExecuted;
  /** Overrides the code's default. */
  writeAttempted?: boolean;
}

/**
 * A Strict Safe Writes failure. `code` is one of {@link WriteSafetyErrorCode}; `hint` is the
 * caller's next step; `writeAttempted` says whether a kernel write was started in this call;
 * `writeExecuted` whether it executed (`"unknown"` when it may have). Use
 * {@link isWriteSafetyError} rather than `instanceof` (the kernel bundle and Node may each carry a copy).
 */
export class WriteSafetyError extends Error {
  override readonly name = "WriteSafetyError";
  readonly code: WriteSafetyErrorCode;
  readonly hint: string;
  readonly writeAttempted: boolean;
  readonly writeExecuted: WriteExecuted;
  readonly details: WriteSafetyErrorDetails;
  readonly [BRAND] = true;

  constructor(code: WriteSafetyErrorCode, options: WriteSafetyErrorOptions = {}) {
    super(
      options.message ?? defaultMessage(code, options.details),
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.code = code;
    const defaults = defaultExecution(code);
    this.writeAttempted = options.writeAttempted ?? defaults.attempted;
    this.writeExecuted = options.writeExecuted ?? defaults.executed;
    this.details = options.details ?? {};
    this.hint = writeSafetyHint(code, this.details);
  }

  /** A plain JSON view for tool answers: `{code, message, hint, writeAttempted, writeExecuted, details}`. */
  toJSON(): {
    code: WriteSafetyErrorCode;
    message: string;
    hint: string;
    writeAttempted: boolean;
    writeExecuted: WriteExecuted;
    details: WriteSafetyErrorDetails;
  } {
    return {
      code: this.code,
      message: this.message,
      hint: this.hint,
      writeAttempted: this.writeAttempted,
      writeExecuted: this.writeExecuted,
      details: this.details,
    };
  }
}

/** Brand check for {@link WriteSafetyError} that works across bundle copies. */
export function isWriteSafetyError(e: unknown): e is WriteSafetyError {
  return typeof e === "object" && e !== null && (e as Record<symbol, unknown>)[BRAND] === true;
}

/**
 * The structural contract for "this failure provably happened before the write was dispatched".
 * An error thrown by `execute` whose `writeDispatched` property is exactly `false` means the kernel
 * never received the write (e.g. connection refused, request not serialisable); anything else thrown
 * after dispatch began is treated as `outcome_unknown`.
 */
export interface NotDispatchedMarker {
  readonly writeDispatched: false;
}

/** True when `e` carries `writeDispatched === false` (see {@link NotDispatchedMarker}). */
export function isNotDispatched(e: unknown): boolean {
  return (
    typeof e === "object" &&
    e !== null &&
    (e as { writeDispatched?: unknown }).writeDispatched === false
  );
}
