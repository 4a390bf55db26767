/**
 * The steps of a commit, each a function named after the spec's step, run by the coordinator in
 * its lane in this order (spec "Strict Safe Writes", commit):
 *
 * 1. {@link gate}: ledger lookup (replay / conflict), epoch, first-execution deadline, credential,
 *    lease: everything checked before anything is read;
 * 2. {@link reprobe}: read the live state again;
 * 3. {@link compareDigests}: the complete digest must equal the leased one (`state_changed`);
 * 4. {@link passBarrier}: from here cancellation is refused;
 * 5. {@link recordExecuting}: the durable `executing` record, before any write can leave;
 * 6. {@link executeOnce}: the one kernel execution, its writes tracked;
 * 7. {@link readBack}: the tool's readback verdict (`applied`, `mismatch`, `unverifiable`);
 * 8. {@link recordOutcome}: the verdict (`committed` / `no_change`), the durable `committed`
 *    record, and the receipt with aliased hashes.
 *
 * A step that fails after step 5 records the outcome as `unknown` before it throws. External
 * actions and strict mode off take {@link executeUnguarded} instead.
 */
import {
  type AliasPool,
  canonicalJson,
  isStateDigest,
  parseCredential,
  type StateDigest,
} from "@sisyphus/core-hash";
import {
  CANCELLED,
  type CancelledAnswer,
  REPLAY_NOTES,
  type StrictCommitReceipt,
  type TargetNow,
  type UnguardedReceipt,
} from "./answers.js";
import type { Clock } from "./clock.js";
import { LEDGER_RECEIPT_MAX_CHARS } from "./constants.js";
import {
  isNotDispatched,
  type LeaseInvalidReason,
  WriteSafetyError,
  type WriteSafetyErrorDetails,
} from "./errors.js";
import {
  type CommitHooks,
  checkProbe,
  checkReadback,
  type ExecuteOutput,
  type ProbeResult,
  type ReadbackResult,
  type WriteCall,
  WriteTracker,
} from "./hooks.js";
import type { Lease, LeasePool, LeaseResolution } from "./lease-pool.js";
import {
  type CreationProgress,
  type Ledger,
  type LedgerEntry,
  RECEIPT_DIGESTS,
  type StoredResult,
  type ToolReceipt,
} from "./ledger.js";
import { type PreconditionKind, preconditionField } from "./policy.js";
import type { RequestIdRegistry } from "./reservations.js";
import type { LeaseScope } from "./scope.js";

/** The coordinator's state the steps read and record into. */
export interface CommitState {
  /** This process's epoch: request IDs of another epoch never execute here. */
  readonly epoch: string;
  readonly clock: Clock;
  readonly ledger: Ledger;
  readonly registry: RequestIdRegistry;
  readonly leases: LeasePool;
  readonly aliases: AliasPool;
}

/** One strict commit past its gate: what the later steps pass along. */
export interface StrictCommit {
  readonly call: WriteCall;
  readonly hooks: CommitHooks;
  readonly requestId: string;
  /** The lease the gate resolved; `undefined` for additive actions (precondition `none`). */
  readonly lease: Lease | undefined;
}

/** A readback that shows the requested end state. */
export type Applied = Extract<ReadbackResult, { outcome: "applied" }>;

/**
 * What the gate lets through: a committed record to replay, an unsettled resumable creation to
 * resume, or the record and lease to execute under.
 */
export type GateResult =
  | { replay: LedgerEntry }
  | { resume: LedgerEntry }
  | { entry: LedgerEntry; lease: Lease | undefined };

/** The call's request ID, or the error a commit answers when it has none usable. */
export function requestIdOf(call: WriteCall): string {
  const requestId = call.args["requestId"];
  if (requestId === undefined || requestId === null || requestId === "") {
    throw new WriteSafetyError("precondition_required", {
      message: "requestId is absent; run preflight (validateOnly: true) to obtain one.",
      details: { reason: "request_id_absent" },
    });
  }
  if (typeof requestId !== "string") {
    throw new WriteSafetyError("preflight_lease_invalid", {
      details: { reason: "unknown_request_id" satisfies LeaseInvalidReason },
    });
  }
  return requestId;
}

/**
 * Step 1. The checks a strict commit makes before it probes, in the spec's order: ledger record
 * (absent, other arguments, settled or unsettled), epoch, first-execution deadline, then the
 * credential and its lease. Consumes nothing. Answers `replay` for a committed record, `resume`
 * for an unsettled record of a `resumable` additive action, else the resolved lease (`undefined`
 * for additive actions).
 */
export function gate(
  state: CommitState,
  call: WriteCall,
  scope: LeaseScope,
  precondition: PreconditionKind,
  requestId: string,
  resumable = false,
): GateResult {
  const field = precondition === "none" ? undefined : preconditionField(precondition);
  const leaseInvalid = (reason: LeaseInvalidReason): WriteSafetyError =>
    new WriteSafetyError("preflight_lease_invalid", {
      details:
        field === undefined
          ? { requestId, reason }
          : { requestId, preconditionField: field, reason },
    });
  // A request ID past its deadline: `expired` when the credential names a lease that expired (it
  // was issued with the ID, with the same TTL), else `request_id_expired` (additive, or past retention).
  const expiredReason = (): LeaseInvalidReason => {
    if (field === undefined) return "request_id_expired";
    const parsed = parseCredential(call.args[field]);
    return parsed.ok && state.leases.resolve(scope.key, parsed.hex).status === "expired"
      ? "expired"
      : "request_id_expired";
  };
  const entry = state.ledger.get(requestId);
  if (entry === undefined) {
    throw leaseInvalid(
      state.registry.isReserved(requestId) ? expiredReason() : "unknown_request_id",
    );
  }
  if (entry.scopeKey !== scope.key) {
    throw new WriteSafetyError("idempotency_conflict", {
      details: { requestId, reason: "arguments_differ" },
    });
  }
  if (entry.state === "committed") return { replay: entry };
  if (entry.state === "executing" || entry.state === "unknown") {
    // A resumption ignores epoch and first-execution deadline: the request already executed.
    if (resumable && precondition === "none") return { resume: entry };
    throw new WriteSafetyError("outcome_unknown", {
      writeAttempted: false,
      details: unknownDetails(entry, "replay_of_unsettled_request"),
    });
  }
  if (entry.epoch !== state.epoch) throw leaseInvalid("other_epoch");
  if (state.clock.now() >= entry.requestIdExpiresAt) throw leaseInvalid(expiredReason());
  if (field === undefined) return { entry, lease: undefined };
  const raw = call.args[field];
  if (raw === undefined || raw === null || raw === "") {
    throw new WriteSafetyError("precondition_required", {
      message: `${field} is absent; copy it from the preflight answer.`,
      details: { requestId, preconditionField: field, reason: "credential_absent" },
    });
  }
  const parsed = parseCredential(raw);
  if (!parsed.ok) {
    throw new WriteSafetyError("precondition_required", {
      message: `${field} is not a hash credential; copy it from the preflight answer.`,
      details: { requestId, preconditionField: field, reason: "credential_malformed" },
    });
  }
  const resolved = state.leases.resolve(scope.key, parsed.hex, entry.epoch);
  if (resolved.status !== "found") throw leaseInvalid(LEASE_REASON[resolved.status]);
  return { entry, lease: resolved.lease };
}

/** The `preflight_lease_invalid` reason of each lease pool resolution other than `found`. */
const LEASE_REASON: Readonly<
  Record<Exclude<LeaseResolution["status"], "found">, LeaseInvalidReason>
> = {
  // No lease of this scope holds the digest the credential names: the credential is not this call's.
  missing: "credential_mismatch",
  expired: "expired",
  evicted: "evicted",
  consumed: "consumed",
  "other-epoch": "other_epoch",
};

/**
 * Step 2. Reads the live state again: always under a lease, and for an additive action when it
 * has a probe. Probe errors propagate unchanged (nothing was written).
 */
export async function reprobe({
  call,
  hooks,
  lease,
}: StrictCommit): Promise<ProbeResult | undefined> {
  if (lease !== undefined) return checkProbe(await hooks.probe!(), call);
  if (hooks.probe !== undefined) return checkProbe(await hooks.probe(), call);
  return undefined;
}

/**
 * Step 3. Under a lease, the complete digest just probed must equal the leased one; otherwise the
 * lease is consumed and the commit fails with `state_changed` (both hashes as aliases), unwritten.
 */
export function compareDigests(
  state: CommitState,
  { requestId, lease }: StrictCommit,
  before: ProbeResult | undefined,
): void {
  if (lease === undefined || before === undefined || before.digest === lease.digest) return;
  state.leases.consume(lease);
  throw new WriteSafetyError("state_changed", {
    details: {
      requestId,
      expectedHash: state.aliases.aliasFor(lease.digest),
      currentHash: state.aliases.aliasFor(before.digest),
    },
  });
}

/**
 * Step 4. The cancellation barrier, synchronous with writing the `executing` record: `false` when
 * the call was cancelled (answer {@link CANCELLED}); from `true` on, cancellation is refused.
 */
export function passBarrier(call: WriteCall): boolean {
  return call.cancellation === undefined || call.cancellation.enterCommit();
}

/**
 * Step 5. The durable `executing` record (with the before-state digest when there is one). Fails
 * closed: if the ledger cannot record it, nothing is written (`write_coordinator_unavailable`).
 */
export async function recordExecuting(
  state: CommitState,
  { requestId }: StrictCommit,
  before: ProbeResult | undefined,
): Promise<void> {
  try {
    if (before === undefined) await state.ledger.recordExecuting(requestId);
    else await state.ledger.recordExecuting(requestId, { beforeDigest: before.digest });
  } catch (cause) {
    throw new WriteSafetyError("write_coordinator_unavailable", {
      cause,
      message: "The ledger could not record the write as executing; nothing was written.",
      details: { requestId, reason: "ledger_write_failed" },
    });
  }
}

/**
 * Step 6. Runs `execute` once, its writes tracked. Provably nothing written: the ledger records
 * `failed_before_execute`, the lease is kept, and the executor's error propagates unchanged.
 * Otherwise the lease is consumed; a failure is recorded and thrown as `outcome_unknown` (with
 * `writesStarted`).
 */
export async function executeOnce(
  state: CommitState,
  { hooks, requestId, lease }: StrictCommit,
  before: ProbeResult | undefined,
  resumed?: CreationProgress,
): Promise<{ output: ExecuteOutput; writesStarted: number }> {
  let executed: ExecuteOutput;
  const tracker = new WriteTracker();
  try {
    executed =
      (await hooks.execute({
        requestId,
        before,
        ...(resumed === undefined ? {} : { resumed }),
        writes: (port) => tracker.track(port),
        recordCreation: async (progress) => {
          try {
            await state.ledger.recordCreationProgress(requestId, progress);
          } catch (cause) {
            throw new WriteSafetyError("write_coordinator_unavailable", {
              cause,
              details: { requestId, reason: "ledger_write_failed" },
            });
          }
        },
      })) ?? {};
  } catch (error) {
    tracker.close();
    // A resumption proves nothing about the earlier attempt's writes: never failed_before_execute.
    if (resumed === undefined && nothingWritten(tracker, error)) {
      try {
        await state.ledger.recordFailedBeforeExecute(requestId, "not_dispatched");
      } catch {
        // The record stays `executing`: replays answer outcome_unknown, which is safe.
      }
      throw error;
    }
    if (lease !== undefined) state.leases.consume(lease);
    const unknown = await recordUnknown(
      state,
      requestId,
      "outcome_unknown",
      "execute_failed",
      error,
      before,
    );
    unknown.details.writesStarted = tracker.started;
    throw unknown;
  }
  tracker.close();
  if (lease !== undefined) state.leases.consume(lease);
  return { output: executed, writesStarted: tracker.started };
}

/**
 * Step 7. The tool's readback. `applied` is returned; a failed or `unverifiable` readback is
 * recorded and thrown as `outcome_unknown`, a `mismatch` as `readback_mismatch`.
 */
export async function readBack(
  state: CommitState,
  { call, hooks, requestId }: StrictCommit,
  before: ProbeResult | undefined,
  executed: ExecuteOutput,
): Promise<Applied> {
  let readback: ReadbackResult;
  try {
    readback = checkReadback(await hooks.readback!({ requestId, before, executed }), call);
  } catch (error) {
    throw await recordUnknown(
      state,
      requestId,
      "outcome_unknown",
      "readback_failed",
      error,
      before,
    );
  }
  if (readback.outcome === "unverifiable") {
    throw await recordUnknown(
      state,
      requestId,
      "outcome_unknown",
      readback.reason,
      undefined,
      before,
    );
  }
  if (readback.outcome === "mismatch") {
    throw await recordUnknown(
      state,
      requestId,
      "readback_mismatch",
      readback.reason,
      undefined,
      before,
      readback.digest,
    );
  }
  return readback;
}

/**
 * Step 8. The verdict (`no_change` when the applied state equals the before state, else
 * `committed`), recorded durably as `committed` with the tool receipt if it fits
 * {@link LEDGER_RECEIPT_MAX_CHARS}, and the receipt. If the ledger cannot record it, the answer is
 * `outcome_unknown` (`ledger_commit_failed`, `writeExecuted: true`), and so is every replay.
 */
export async function recordOutcome(
  state: CommitState,
  { requestId }: StrictCommit,
  before: ProbeResult | undefined,
  executed: ExecuteOutput,
  applied: Applied,
  resumed?: { writesStarted: number },
): Promise<StrictCommitReceipt> {
  const status =
    before !== undefined && applied.digest === before.digest ? "no_change" : "committed";
  const result: StoredResult = { status, resultDigest: applied.digest };
  if (before !== undefined) result.previousDigest = before.digest;
  const toolReceipt: ToolReceipt = { ...executed.receipt, ...applied.receipt };
  if (Object.keys(toolReceipt).length > 0) {
    if (canonicalJson(toolReceipt).length <= LEDGER_RECEIPT_MAX_CHARS)
      result.toolReceipt = toolReceipt;
    else result.receiptOmitted = true;
  }
  let committed: LedgerEntry;
  try {
    committed = await state.ledger.recordCommitted(requestId, result);
  } catch (cause) {
    let ledgerState = "executing";
    try {
      ledgerState = (
        await state.ledger.recordUnknown(requestId, {
          verdict: "outcome_unknown",
          reason: "ledger_commit_failed",
          resultDigest: applied.digest,
        })
      ).state;
    } catch {
      // Still `executing` durably: a replay answers outcome_unknown, consistent with this answer.
    }
    const details: WriteSafetyErrorDetails = {
      requestId,
      reason: "ledger_commit_failed",
      ledgerState,
      observedVerdict: status,
      resultHash: state.aliases.aliasFor(applied.digest),
    };
    if (before !== undefined) details.previousHash = state.aliases.aliasFor(before.digest);
    throw new WriteSafetyError("outcome_unknown", {
      cause,
      writeExecuted: true,
      message:
        "The write was read back, but the ledger could not record it; its replay will answer outcome_unknown.",
      details,
    });
  }
  const receipt = commitReceipt(state.aliases, committed, false);
  if (resumed === undefined) return receipt;
  // A resumption that found every stage done wrote nothing itself.
  return { ...receipt, resumed: true, executedNow: resumed.writesStarted > 0 };
}

/**
 * Resumption, step 2: the live state read again, as for a first execution. A probe that fails
 * cannot tell what the earlier attempt left, so the answer is `outcome_unknown` with the recorded
 * progress (this call wrote nothing; the record stays as it was).
 */
export async function reprobeForResume(
  commit: StrictCommit,
  entry: LedgerEntry,
): Promise<ProbeResult | undefined> {
  try {
    return await reprobe(commit);
  } catch (cause) {
    throw new WriteSafetyError("outcome_unknown", {
      cause,
      writeAttempted: false,
      details: { ...unknownDetails(entry, ""), reason: "resume_probe_failed" },
    });
  }
}

/**
 * Resumption, step 5: the record back to `executing`, durably, before the executor continues from
 * the recorded progress. Fails closed (`write_coordinator_unavailable`: this call wrote nothing).
 */
export async function recordResuming(
  state: CommitState,
  { requestId }: StrictCommit,
): Promise<void> {
  try {
    await state.ledger.recordResuming(requestId);
  } catch (cause) {
    throw new WriteSafetyError("write_coordinator_unavailable", {
      cause,
      message: "The ledger could not record the creation as resuming; nothing was written.",
      details: { requestId, reason: "ledger_write_failed" },
    });
  }
}

/**
 * The receipt of a `committed` ledger record, live (`executedNow: true`) or from the ledger
 * (`replayed: true`, `executedNow: false`: this call executed nothing; the rest describes the original write).
 */
export function commitReceipt(
  aliases: AliasPool,
  entry: LedgerEntry,
  replayed: boolean,
  targetNow?: TargetNow,
): StrictCommitReceipt {
  const result = entry.result!;
  const { [RECEIPT_DIGESTS]: digests, ...toolReceipt } = result.toolReceipt ?? {};
  const receipt: StrictCommitReceipt = {
    ...toolReceipt,
    ...aliasDigests(aliases, digests),
    status: result.status,
    requestId: entry.requestId,
    writeAttempted: true,
    writeExecuted: true,
    writeSafetyGuaranteed: true,
    resultHash: aliases.aliasFor(result.resultDigest),
    executedNow: !replayed,
  };
  if (result.previousDigest !== undefined) {
    receipt.previousHash = aliases.aliasFor(result.previousDigest);
  }
  if (result.receiptOmitted) receipt.receiptOmitted = true;
  if (replayed) {
    receipt.replayed = true;
    receipt.replayNote = REPLAY_NOTES[targetNow ?? "unchecked"];
    if (targetNow !== undefined) receipt.targetNow = targetNow;
  }
  return receipt;
}

/**
 * A replay's read of its target (D-344): the probe again, read-only, its digest against the stored
 * result's. Only where the probe and the readback hash the same state: the caller says so
 * (`replayComparable`), and only under a state, structure or manifest precondition (an addition's
 * probe reads where it goes, not what it made). A probe that
 * fails or refuses (the block is gone, a permission was withdrawn, the kernel is unreachable) says
 * nothing: `undefined`, and the note says the target was not read.
 */
export async function targetNow(
  call: WriteCall,
  hooks: CommitHooks,
  precondition: PreconditionKind,
  entry: LedgerEntry,
): Promise<TargetNow | undefined> {
  const comparable =
    precondition === "state" || precondition === "structure" || precondition === "manifest";
  if (!comparable || hooks.replayComparable !== true || hooks.probe === undefined) return undefined;
  if (entry.result === undefined) return undefined;
  let now: ProbeResult;
  try {
    now = await hooks.probe();
  } catch {
    return undefined;
  }
  return checkProbe(now, call).digest === entry.result.resultDigest
    ? "holds_result"
    : "changed_since";
}

function aliasDigests(aliases: AliasPool, digests: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof digests !== "object" || digests === null) return out;
  for (const [name, digest] of Object.entries(digests)) {
    if (isStateDigest(digest)) out[name] = aliases.aliasFor(digest);
  }
  return out;
}

/**
 * An external action, or any mutation with strict mode off: the barrier, then one tracked
 * `execute`, answered `writeSafetyGuaranteed: false`. Provably nothing written: the executor's
 * error propagates unchanged; any other failure is `outcome_unknown`. Nothing is recorded.
 */
export async function executeUnguarded(
  call: WriteCall,
  hooks: CommitHooks,
  reason: UnguardedReceipt["reason"],
): Promise<UnguardedReceipt | CancelledAnswer> {
  if (!passBarrier(call)) return CANCELLED;
  const tracker = new WriteTracker();
  let output: ExecuteOutput;
  try {
    output =
      (await hooks.execute({
        requestId: undefined,
        before: undefined,
        writes: (port) => tracker.track(port),
        recordCreation: async () => {},
      })) ?? {};
  } catch (error) {
    if (nothingWritten(tracker, error)) throw error;
    throw new WriteSafetyError("outcome_unknown", {
      cause: error,
      details: { reason: "execute_failed", writesStarted: tracker.started },
    });
  } finally {
    tracker.close();
  }
  return {
    ...output.receipt,
    status: "executed",
    writeAttempted: true,
    writeExecuted: true,
    writeSafetyGuaranteed: false,
    reason,
  };
}

/** Details of an error about an unsettled (`executing` / `unknown`) or otherwise recorded request. */
export function unknownDetails(entry: LedgerEntry, reason: string): WriteSafetyErrorDetails {
  const details: WriteSafetyErrorDetails = {
    requestId: entry.requestId,
    ledgerState: entry.state,
    reason: entry.reason ?? reason,
  };
  if (entry.verdict !== undefined) details["verdict"] = entry.verdict;
  if (entry.creation !== undefined) {
    details.creation = {
      reservedIds: [...entry.creation.reservedIds],
      confirmedStages: [...entry.creation.confirmedStages],
    };
  }
  return details;
}

/**
 * Records the request as `unknown` (best effort: a ledger failure leaves it `executing`, which
 * replays as unknown too) and returns the error to throw, with the hashes as aliases.
 */
async function recordUnknown(
  state: CommitState,
  requestId: string,
  code: "outcome_unknown" | "readback_mismatch",
  reason: string,
  cause: unknown,
  before: ProbeResult | undefined,
  resultDigest?: StateDigest,
): Promise<WriteSafetyError> {
  let entry: LedgerEntry | undefined;
  try {
    entry = await state.ledger.recordUnknown(
      requestId,
      resultDigest === undefined
        ? { verdict: code, reason }
        : { verdict: code, reason, resultDigest },
    );
  } catch {
    entry = state.ledger.get(requestId);
  }
  const details: WriteSafetyErrorDetails =
    entry === undefined ? { requestId, reason } : unknownDetails(entry, reason);
  if (before !== undefined) details.previousHash = state.aliases.aliasFor(before.digest);
  if (resultDigest !== undefined) details.resultHash = state.aliases.aliasFor(resultDigest);
  return new WriteSafetyError(code, { cause, details });
}

/**
 * Whether a failed execution provably wrote nothing: every tracked write failed before dispatch,
 * or — for an executor that tracked no write — the error itself says it was never dispatched.
 */
function nothingWritten(tracker: WriteTracker, error: unknown): boolean {
  if (!tracker.nothingWritten) return false;
  return tracker.started > 0 || isNotDispatched(error);
}
