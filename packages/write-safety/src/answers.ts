/**
 * What the write coordinator answers: preflight answers (strict and additive), commit receipts
 * (strict, unguarded) and the cancelled answer. Failures are not answers: they reject with
 * `WriteSafetyError` (see `errors.ts`).
 */
import type { ToolReceipt } from "./ledger.js";
import type { PreconditionField } from "./policy.js";

/** Preflight answer of a mutation with a precondition. The credential sits under the field `preconditionField` names. */
export type StrictPreflightAnswer = {
  validateOnly: true;
  writeAttempted: false;
  requestId: string;
  preconditionField: PreconditionField;
  /** Length of the credential in hex digits. */
  hashPrefixLength: number;
  /** Epoch ms; the lease resolves while `now < leaseExpiresAt`. */
  leaseExpiresAt: number;
  /** Epoch ms; the first execution must start before this. */
  requestIdExpiresAt: number;
} & { [F in PreconditionField]?: string };

/** Preflight answer of an additive action: a request ID only, no hash. */
export interface AdditivePreflightAnswer {
  validateOnly: true;
  writeAttempted: false;
  requestId: string;
  preconditionField: null;
  requestIdExpiresAt: number;
}

/** Any preflight answer. */
export type PreflightAnswer = StrictPreflightAnswer | AdditivePreflightAnswer;

/**
 * A strict commit's answer (live or replayed). Tool receipt fields are spread first, so the safety
 * fields below always win. `previousHash` / `resultHash` are aliases from the shared pool (the
 * ledger keeps the complete digests); `previousHash` is absent when the action checked no state before writing.
 */
export type StrictCommitReceipt = ToolReceipt & {
  status: "committed" | "no_change";
  requestId: string;
  writeAttempted: true;
  writeExecuted: true;
  writeSafetyGuaranteed: true;
  previousHash?: string;
  resultHash: string;
  /**
   * Whether this call executed the write: `true` on the live commit, `false` on a replay. The
   * other fields (`writeAttempted`, `writeExecuted`, hashes, tool receipt) describe the original
   * write either way.
   */
  executedNow: boolean;
  /** Present on replays (with `executedNow: false`): this call executed nothing and returned the stored receipt. */
  replayed?: true;
  /** Present on replays: says in words that this call wrote nothing (`REPLAY_NOTES`). */
  replayNote?: string;
  /** Replays only: whether the target, read by this call, still holds the stored result ({@link TargetNow}). */
  targetNow?: TargetNow;
  /**
   * Present when this call finished a creation an earlier attempt of the same request began (a
   * crash or lost response between its stages): the receipt describes the whole creation, and
   * `executedNow` says whether this call itself wrote (false when every stage was already done).
   */
  resumed?: true;
  /** The tool receipt exceeded `LEDGER_RECEIPT_MAX_CHARS` and was dropped (live and replay alike). */
  receiptOmitted?: true;
};

/** Answer of an external action or of any mutation with strict mode off: executed once, no guarantee. */
export type UnguardedReceipt = ToolReceipt & {
  status: "executed";
  writeAttempted: true;
  writeExecuted: true;
  writeSafetyGuaranteed: false;
  reason: "external_side_effect" | "strict_mode_disabled";
};

/** The call was cancelled before its barrier: nothing was written. */
export interface CancelledAnswer {
  status: "cancelled";
  writeAttempted: false;
  writeExecuted: false;
}

/** Any commit answer. Failures reject with `WriteSafetyError` (or the executor's own not-dispatched error). */
export type CommitAnswer = StrictCommitReceipt | UnguardedReceipt | CancelledAnswer;

/** The one (frozen) cancelled answer. */
export const CANCELLED: CancelledAnswer = Object.freeze({
  status: "cancelled",
  writeAttempted: false,
  writeExecuted: false,
}) as CancelledAnswer;

/**
 * What a replay found when it read the target just now (D-344): `holds_result` when its probe's
 * digest equals the stored result's, `changed_since` when it answers another one. Absent when the
 * action has no state to compare (additions, sources) or the read failed or was refused.
 */
export type TargetNow = "holds_result" | "changed_since";

/**
 * Said with every replay, by what the replay found (D-015's fields stay as they are: they describe
 * the original write). `unchecked`: the target could not be read, or the action has no state a
 * read could compare.
 */
export const REPLAY_NOTES: Readonly<Record<TargetNow | "unchecked", string>> = Object.freeze({
  holds_result:
    "This call wrote nothing: this requestId's write was committed earlier (the fields describe it), and the target, read just now, still holds its result.",
  changed_since:
    "This call wrote nothing: this requestId's write was committed earlier (the fields describe it), but the target, read just now, has changed since; read it before writing again.",
  unchecked:
    "This call wrote nothing: this requestId's write was committed earlier (the fields describe it). The target was not read now; read it for its current state.",
});
