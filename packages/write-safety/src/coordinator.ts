/**
 * The serial write coordinator: the one place where a strict mutation is preflighted, committed,
 * read back and recorded. One FIFO lane (`write-lane.ts`) runs every mutation and external call
 * (preflights too) and the App session entry points (`exclusive`), behind an admission cap; the lease pool, request-ID reservations and ledger are
 * its only state. A commit runs the named steps of `commit-steps.ts`; the hook contracts it calls
 * are in `hooks.ts`, the answers it gives in `answers.ts` (the package entry exports both).
 */
import { AliasPool, type RandomSource } from "@sisyphus/core-hash";
import type {
  CancelledAnswer,
  CommitAnswer,
  PreflightAnswer,
  StrictCommitReceipt,
  StrictPreflightAnswer,
  UnguardedReceipt,
} from "./answers.js";
import { CANCELLED } from "./answers.js";
import type { WriteCancellation } from "./cancellation.js";
import type { Clock } from "./clock.js";
import {
  type CommitState,
  commitReceipt,
  compareDigests,
  executeOnce,
  executeUnguarded,
  gate,
  passBarrier,
  readBack,
  recordExecuting,
  recordOutcome,
  recordResuming,
  reprobe,
  reprobeForResume,
  requestIdOf,
  type StrictCommit,
  targetNow,
} from "./commit-steps.js";
import { REQUEST_ID_FIRST_EXECUTION_TTL_MS, WRITE_ADMISSION_MAX_IN_FLIGHT } from "./constants.js";
import { WriteSafetyError } from "./errors.js";
import { type CommitHooks, checkProbe, type Probe, type WriteCall } from "./hooks.js";
import { LeasePool } from "./lease-pool.js";
import { Ledger, type LedgerEntry, type LedgerStore } from "./ledger.js";
import {
  type ActionPolicy,
  isActionPolicy,
  type PreconditionKind,
  preconditionField,
} from "./policy.js";
import { RequestIdRegistry, type ReservationStore } from "./reservations.js";
import { type LeaseScope, leaseScope } from "./scope.js";
import { drainingError, isCancelled, WriteLane } from "./write-lane.js";

/** Limits of a coordinator; defaults come from `constants.ts`. */
export interface WriteCoordinatorLimits {
  /** Calls in flight (running + queued + preparing); default {@link WRITE_ADMISSION_MAX_IN_FLIGHT}. */
  admission?: number;
  leasesPerScope?: number;
  leasesGlobal?: number;
}

/** Options of {@link createWriteCoordinator}. */
export interface WriteCoordinatorOptions {
  clock: Clock;
  /**
   * Monotonic clock for lease expiry (a wall-clock step must neither extend nor cut a lease);
   * default `clock`. Request-ID deadlines and ledger retention stay on the wall clock: they must
   * hold across restarts.
   */
  monotonic?: Clock;
  random: RandomSource;
  /** This process's epoch: any string unique per process start (e.g. start time + random). */
  epoch: string;
  ledgerStore: LedgerStore;
  reservationStore: ReservationStore;
  /** The runtime's shared alias pool; a new one by default. */
  aliases?: AliasPool;
  limits?: WriteCoordinatorLimits;
  /** Strict Safe Writes on (default `true`). Off: no preflight fields, single attempt, `writeSafetyGuaranteed: false`. */
  strict?: boolean;
}

/** Aggregate counts for `/health`. No IDs, no content. */
export interface WriteCoordinatorHealth {
  strict: boolean;
  /** `drain()` was called: new calls are refused. */
  draining: boolean;
  /** Admitted calls not yet settled (running + queued + preparing). */
  inFlight: number;
  /** Calls waiting for the lane. */
  queued: number;
  /** 1 while a call holds the lane. */
  running: number;
  admissionCap: number;
  leases: number;
  ledgerEntries: number;
  reservations: number;
}

/**
 * Build a coordinator: loads the ledger and the reservations. Fails with
 * `write_coordinator_unavailable` when a store cannot be read (fail closed).
 */
export async function createWriteCoordinator(
  options: WriteCoordinatorOptions,
): Promise<WriteCoordinator> {
  let ledger: Ledger;
  try {
    ledger = await Ledger.open({ store: options.ledgerStore, clock: options.clock });
  } catch (cause) {
    throw new WriteSafetyError("write_coordinator_unavailable", {
      cause,
      details: { reason: "ledger_store_unreadable" },
    });
  }
  const registry = await RequestIdRegistry.open({
    store: options.reservationStore,
    random: options.random,
    ledgerIds: ledger.requestIds(),
  });
  return new WriteCoordinator(options, ledger, registry);
}

/**
 * Preflight and commit. Use {@link createWriteCoordinator}. Every call is admitted (or refused with
 * `queue_full`) synchronously, then runs alone in the FIFO lane.
 */
export class WriteCoordinator {
  readonly epoch: string;
  readonly strict: boolean;
  /** The shared alias pool: use it for every other hash a tool answers with (AV pre/post images ...). */
  readonly aliases: AliasPool;
  readonly admissionCap: number;
  readonly #state: CommitState;
  readonly #lane: WriteLane;

  /** Prefer {@link createWriteCoordinator}, which loads the stores. */
  constructor(options: WriteCoordinatorOptions, ledger: Ledger, registry: RequestIdRegistry) {
    this.epoch = options.epoch;
    this.strict = options.strict ?? true;
    this.aliases = options.aliases ?? new AliasPool();
    this.admissionCap = options.limits?.admission ?? WRITE_ADMISSION_MAX_IN_FLIGHT;
    const limits: { perScope?: number; global?: number } = {};
    if (options.limits?.leasesPerScope !== undefined)
      limits.perScope = options.limits.leasesPerScope;
    if (options.limits?.leasesGlobal !== undefined) limits.global = options.limits.leasesGlobal;
    const leases = new LeasePool({
      clock: options.clock,
      ...(options.monotonic === undefined ? {} : { monotonic: options.monotonic }),
      epoch: options.epoch,
      aliases: this.aliases,
      limits,
    });
    this.#state = {
      epoch: this.epoch,
      clock: options.clock,
      ledger,
      registry,
      leases,
      aliases: this.aliases,
    };
    this.#lane = new WriteLane(this.admissionCap);
  }

  /**
   * Stop admitting calls and wait for every admitted call (running or queued) to settle, for an
   * authority change or shutdown (spec: drain, restart, preflight again). Calls made after `drain()`
   * fail at once with `write_coordinator_unavailable` (`reason: "draining"`). Idempotent.
   */
  drain(): Promise<void> {
    return this.#lane.drain();
  }

  /** Aggregate counts (no IDs, no content). */
  health(): WriteCoordinatorHealth {
    return {
      strict: this.strict,
      draining: this.#lane.draining,
      inFlight: this.#lane.inFlight,
      queued: this.#lane.queued,
      running: this.#lane.running ? 1 : 0,
      admissionCap: this.admissionCap,
      leases: this.#state.leases.size,
      ledgerEntries: this.#state.ledger.size,
      reservations: this.#state.registry.size,
    };
  }

  /**
   * Preflight (`validateOnly: true`): probe, lease the complete digest, issue and reserve a request
   * ID, record it `issued`. Nothing is written to the notes.
   *
   * Errors: `preflight_unavailable` (external action, strict mode off, no policy), `queue_full`,
   * `write_coordinator_unavailable` (reservation or ledger store failed); a probe's own error
   * propagates unchanged. A read policy is a programming error (`TypeError`).
   */
  preflight(call: WriteCall, probe?: Probe): Promise<PreflightAnswer | CancelledAnswer> {
    try {
      const policy = this.#mutationOrExternal(call);
      if (policy.kind === "external") {
        throw new WriteSafetyError("preflight_unavailable", {
          details: { reason: "external_side_effect" },
        });
      }
      if (!this.strict) {
        throw new WriteSafetyError("preflight_unavailable", {
          message: "Strict Safe Writes is disabled: there is no preflight; nothing was executed.",
          details: { reason: "strict_mode_disabled" },
        });
      }
      const precondition = policy.precondition;
      if (precondition !== "none" && probe === undefined) {
        throw new TypeError(
          `${call.tool}.${call.action}: a ${precondition} precondition needs a probe`,
        );
      }
      const scope = leaseScope(call);
      return this.#lane.admit(call.cancellation, () =>
        this.#preflight(call, scope, precondition, probe),
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Commit. Strict mutation: ledger replay/conflict check → lease → re-probe and compare complete
   * digests → durable `executing` → one `execute` → `readback` → verdict → durable `committed`.
   * External action or strict mode off: one `execute`, answer `writeSafetyGuaranteed: false`.
   * A resumable creation (`hooks.resumable`, additive) whose record an earlier attempt left
   * `executing` or `unknown` resumes from its recorded progress (answer `resumed: true`).
   *
   * Errors (`WriteSafetyError`): `precondition_required`, `preflight_lease_invalid`,
   * `idempotency_conflict`, `state_changed`, `outcome_unknown`, `readback_mismatch`,
   * `write_coordinator_unavailable`, `preflight_unavailable` (no policy), `queue_full`. An error
   * from `execute` with `writeDispatched === false` propagates unchanged after the ledger records
   * `failed_before_execute` (nothing was written; the same requestId may be retried while
   * `requestIdExpiresAt` has not passed). Probe errors propagate unchanged (nothing written).
   */
  commit(call: WriteCall, hooks: CommitHooks): Promise<CommitAnswer> {
    try {
      const policy = this.#mutationOrExternal(call);
      if (policy.kind === "external" || !this.strict) {
        const reason: UnguardedReceipt["reason"] =
          policy.kind === "external" ? "external_side_effect" : "strict_mode_disabled";
        return this.#lane.admit(call.cancellation, () => executeUnguarded(call, hooks, reason));
      }
      const precondition = policy.precondition;
      if (precondition !== "none" && hooks.probe === undefined) {
        throw new TypeError(
          `${call.tool}.${call.action}: a ${precondition} precondition needs a probe`,
        );
      }
      if (hooks.readback === undefined) {
        throw new TypeError(`${call.tool}.${call.action}: a strict mutation needs a readback`);
      }
      const requestId = requestIdOf(call);
      const scope = leaseScope(call);
      return this.#lane.admit(call.cancellation, () =>
        this.#strictCommit(call, hooks, scope, precondition, requestId),
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Runs `body` alone in the FIFO write lane, as a preflight or commit runs: for calls that are
   * neither but share the lane by the spec (App session entry points, such as the App's
   * `write_preview`). It leases, reserves and records nothing. Answers {@link CANCELLED} when
   * `cancellation` is cancelled before `body` starts; settles it however the call ends.
   *
   * Errors: `queue_full`, `write_coordinator_unavailable` (`draining`); `body`'s own propagate.
   */
  exclusive<T>(
    cancellation: WriteCancellation | undefined,
    body: () => Promise<T>,
  ): Promise<T | CancelledAnswer> {
    return this.#lane.admit(cancellation, body);
  }

  /**
   * The checks a commit makes before it reads anything, run without consuming, recording or
   * executing: draining, the policy, and for a strict mutation the request ID (absent, unknown or
   * expired, reused with other arguments, unsettled, issued by another process), the credential
   * (absent, malformed) and its lease (missing, expired, evicted) in this call's scope. A committed
   * request passes: its replay still needs the caller's fresh confirmation, then the ledger
   * deduplicates it. External actions and strict mode off pass. A shell runs this before asking a
   * user to confirm, so nobody approves a commit that would be refused anyway; passing promises
   * nothing, since `commit` repeats every check (and the state may change meanwhile).
   * @throws WriteSafetyError with the code `commit` would answer: `write_coordinator_unavailable`
   *   (`draining`), `preflight_unavailable` (`no_policy`), `precondition_required`,
   *   `preflight_lease_invalid`, `idempotency_conflict`, `outcome_unknown`.
   */
  precheck(call: WriteCall): void {
    if (this.#lane.draining) throw drainingError();
    const policy = this.#mutationOrExternal(call);
    if (policy.kind === "external" || !this.strict) return;
    gate(this.#state, call, leaseScope(call), policy.precondition, requestIdOf(call));
  }

  #mutationOrExternal(call: WriteCall): Exclude<ActionPolicy, { kind: "read" }> {
    const policy = call.policy;
    if (policy === undefined || !isActionPolicy(policy)) {
      throw new WriteSafetyError("preflight_unavailable", {
        message: `${call.tool}.${call.action} has no write-safety policy, so it is refused; nothing was executed.`,
        details: { reason: "no_policy" },
      });
    }
    if (policy.kind === "read") {
      throw new TypeError(
        `${call.tool}.${call.action} is a read; reads do not use the write coordinator`,
      );
    }
    return policy;
  }

  async #preflight(
    call: WriteCall,
    scope: LeaseScope,
    precondition: PreconditionKind,
    probe: Probe | undefined,
  ): Promise<PreflightAnswer | CancelledAnswer> {
    const { ledger, leases } = this.#state;
    await ledger.prune();
    // A refused preflight reserves nothing, so the ID is issued only after the probe has read.
    const before = precondition === "none" ? undefined : checkProbe(await probe!(), call);
    if (isCancelled(call.cancellation)) return CANCELLED;
    const { requestId, requestIdExpiresAt } = await this.#issueId(scope, precondition);
    if (before === undefined) {
      return {
        validateOnly: true,
        writeAttempted: false,
        requestId,
        preconditionField: null,
        requestIdExpiresAt,
      };
    }
    const field = preconditionField(precondition as Exclude<PreconditionKind, "none">);
    const lease = leases.issue(scope.key, before.digest);
    return {
      validateOnly: true,
      writeAttempted: false,
      requestId,
      preconditionField: field,
      [field]: lease.credential,
      hashPrefixLength: lease.credential.length,
      leaseExpiresAt: lease.expiresAt,
      requestIdExpiresAt,
    } as StrictPreflightAnswer;
  }

  /**
   * Reserves a request ID and records it `issued`. The two durable writes run at once (a crash
   * between them is repaired when the registry opens); both complete before the ID is returned.
   */
  async #issueId(
    scope: LeaseScope,
    precondition: PreconditionKind,
  ): Promise<{ requestId: string; requestIdExpiresAt: number }> {
    const { ledger, registry, clock } = this.#state;
    const requestId = registry.reserve();
    const issuedAt = clock.now();
    const requestIdExpiresAt = issuedAt + REQUEST_ID_FIRST_EXECUTION_TTL_MS;
    const [reserved, recorded] = await Promise.allSettled([
      registry.persist(requestId),
      ledger.recordIssued({
        requestId,
        scope,
        precondition,
        epoch: this.epoch,
        issuedAt,
        requestIdExpiresAt,
      }),
    ]);
    if (reserved.status === "rejected") throw reserved.reason;
    if (recorded.status === "rejected") {
      throw new WriteSafetyError("write_coordinator_unavailable", {
        cause: recorded.reason,
        details: { reason: "ledger_write_failed" },
      });
    }
    return { requestId, requestIdExpiresAt };
  }

  /** A strict commit, step by step (see `commit-steps.ts`). */
  async #strictCommit(
    call: WriteCall,
    hooks: CommitHooks,
    scope: LeaseScope,
    precondition: PreconditionKind,
    requestId: string,
  ): Promise<StrictCommitReceipt | CancelledAnswer> {
    const state = this.#state;
    await state.ledger.prune();
    const gated = gate(state, call, scope, precondition, requestId, hooks.resumable === true);
    if ("replay" in gated) {
      const now = await targetNow(call, hooks, precondition, gated.replay);
      return commitReceipt(state.aliases, gated.replay, true, now);
    }
    if ("resume" in gated)
      return this.#resume({ call, hooks, requestId, lease: undefined }, gated.resume);
    const commit = { call, hooks, requestId, lease: gated.lease };
    const before = await reprobe(commit);
    compareDigests(state, commit, before);
    if (!passBarrier(call)) return CANCELLED;
    await recordExecuting(state, commit, before);
    const { output: executed } = await executeOnce(state, commit, before);
    const applied = await readBack(state, commit, before, executed);
    return recordOutcome(state, commit, before, executed, applied);
  }

  /**
   * A resumable creation left unsettled by an earlier attempt (see `CommitHooks.resumable`): the
   * same steps as a first execution, with the recorded progress handed to the executor, and a
   * failure always recorded `unknown` (the earlier attempt may have written).
   */
  async #resume(
    commit: StrictCommit,
    entry: LedgerEntry,
  ): Promise<StrictCommitReceipt | CancelledAnswer> {
    const state = this.#state;
    const before = await reprobeForResume(commit, entry);
    if (!passBarrier(commit.call)) return CANCELLED;
    await recordResuming(state, commit);
    const progress = entry.creation ?? { reservedIds: [], confirmedStages: [] };
    const { output, writesStarted } = await executeOnce(state, commit, before, progress);
    const applied = await readBack(state, commit, before, output);
    return recordOutcome(state, commit, before, output, applied, { writesStarted });
  }
}
