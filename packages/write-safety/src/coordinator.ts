/**
 * The serial write coordinator: the one place where a strict mutation is preflighted, committed,
 * read back and recorded. One FIFO lane runs every mutation and external call (preflights too),
 * behind an admission cap; the lease pool, request-ID reservations and ledger are its only state.
 */
import {
  AliasPool,
  canonicalJson,
  isStateDigest,
  parseCredential,
  type RandomSource,
  type StateDigest,
} from "@sisyphus/core-hash";
import type { WriteCancellation } from "./cancellation.js";
import type { Clock } from "./clock.js";
import {
  LEDGER_RECEIPT_MAX_CHARS,
  REQUEST_ID_FIRST_EXECUTION_TTL_MS,
  WRITE_ADMISSION_MAX_IN_FLIGHT,
} from "./constants.js";
import { isNotDispatched, WriteSafetyError, type WriteSafetyErrorDetails } from "./errors.js";
import { type Lease, LeasePool } from "./lease-pool.js";
import {
  Ledger,
  type LedgerEntry,
  type LedgerStore,
  type StoredResult,
  type ToolReceipt,
} from "./ledger.js";
import {
  type ActionPolicy,
  isActionPolicy,
  type PreconditionField,
  type PreconditionKind,
  preconditionField,
} from "./policy.js";
import { RequestIdRegistry, type ReservationStore } from "./reservations.js";
import { type LeaseScope, leaseScope } from "./scope.js";
import { type WritePort, WriteTracker } from "./write-tracker.js";

/** What a probe returns: the complete digest of the live state, plus small data the executor may need. */
export interface ProbeResult {
  /** `stateHash` of the tool's canonical state (computed by the tool). */
  digest: StateDigest;
  /** Small, tool-defined data (e.g. attributes to preserve). Never stored. */
  snapshot?: unknown;
}

/** Reads live state without mutating. Thrown errors propagate unchanged and nothing is written. */
export type Probe = () => Promise<ProbeResult>;

/** Given to `execute`. */
export interface ExecuteContext {
  /** The request ID (strict calls) or `undefined` (external calls, strict mode off). */
  requestId: string | undefined;
  /** The probe taken right before execution (precondition actions; additive actions if a probe was given). */
  before: ProbeResult | undefined;
  /**
   * The only way an executor should write: returns `port` with every method tracked, so the
   * coordinator knows whether any write of this execution may have reached the kernel. A failure
   * proves "nothing written" only while every tracked write failed before dispatch; after that,
   * any failure is `outcome_unknown`. Writes started after `execute` settled are refused.
   */
  writes<W extends WritePort<W>>(port: W): W;
  /**
   * Multi-stage creations: durably record reserved IDs, a confirmed stage, or the complete creation
   * receipt before continuing. Rejects with `write_coordinator_unavailable` if the ledger cannot
   * record it. Strict calls only (a no-op otherwise).
   */
  recordCreation(progress: {
    reservedIds?: readonly string[];
    confirmedStage?: string;
    receipt?: ToolReceipt;
  }): Promise<void>;
}

/** What `execute` returns: an optional small receipt (merged into the answer and kept in the ledger) and data for readback. */
export interface ExecuteOutput {
  receipt?: ToolReceipt;
  /** Anything readback needs (e.g. the ID the kernel assigned). Never stored. */
  data?: unknown;
}

/**
 * Performs the kernel write(s) through `context.writes`. It is called at most once per call and
 * never retried. A thrown error is "nothing written" (ledger `failed_before_execute`, lease kept)
 * only when every tracked write failed with `writeDispatched === false` (see `isNotDispatched`),
 * or, if no write was tracked, when the error itself carries `writeDispatched === false`; anything
 * else is `outcome_unknown` with `writeAttempted: true`.
 */
export type Execute = (context: ExecuteContext) => Promise<ExecuteOutput | undefined>;

/** Given to `readback`. */
export interface ReadbackContext {
  requestId: string;
  before: ProbeResult | undefined;
  executed: ExecuteOutput;
}

/**
 * The readback verdict, stated by the tool:
 * - `applied`: the live state shows the requested end state. The coordinator answers `committed`,
 *   or `no_change` when `digest` equals the before-state digest. A tool must not answer `applied`
 *   unless it checked the requested result (e.g. the content it wrote), not merely "no error".
 * - `mismatch`: the live state was read and does not show the requested result (silent no-op,
 *   corrupted content) → `readback_mismatch`.
 * - `unverifiable`: the state could not be established (the read failed, a network error never
 *   proves a deletion) → `outcome_unknown`. A thrown error means the same.
 */
export type ReadbackResult =
  | { outcome: "applied"; digest: StateDigest; receipt?: ToolReceipt }
  | { outcome: "mismatch"; reason: string; digest?: StateDigest }
  | { outcome: "unverifiable"; reason: string };

/** Reads the state back after `execute` resolved. */
export type Readback = (context: ReadbackContext) => Promise<ReadbackResult>;

/** One call into the coordinator. */
export interface WriteCall {
  tool: string;
  action: string;
  /** The action's policy; `undefined` (no policy) is refused with `preflight_unavailable` (reason `no_policy`). */
  policy: ActionPolicy | undefined;
  /** The arguments exactly as received, safety fields included (`requestId`, `expected*Hash`, `validateOnly`). */
  args: Readonly<Record<string, unknown>>;
  /** IDs of the objects the call targets (any order, repeats allowed). */
  targetIds: readonly string[];
  /** Optional cancellation barrier handle. */
  cancellation?: WriteCancellation;
}

/** The hooks of a commit. `probe` is required for precondition kinds other than `none`; `readback` for strict mutations. */
export interface CommitHooks {
  probe?: Probe;
  execute: Execute;
  readback?: Readback;
}

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
 * ledger keeps the complete digests); `previousHash` is absent for additive actions.
 */
export type StrictCommitReceipt = ToolReceipt & {
  status: "committed" | "no_change";
  requestId: string;
  writeAttempted: true;
  writeExecuted: true;
  writeSafetyGuaranteed: true;
  previousHash?: string;
  resultHash: string;
  /** Present on replays: this call executed nothing and returned the stored receipt. */
  replayed?: true;
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

const CANCELLED: CancelledAnswer = Object.freeze({
  status: "cancelled",
  writeAttempted: false,
  writeExecuted: false,
}) as CancelledAnswer;

interface Waiter {
  resume: () => void;
  done: boolean;
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
  readonly #clock: Clock;
  readonly #ledger: Ledger;
  readonly #registry: RequestIdRegistry;
  readonly #leases: LeasePool;
  #inFlight = 0;
  #draining = false;
  #drained: Array<() => void> = [];
  #running = false;
  #waiters: Waiter[] = [];

  /** Prefer {@link createWriteCoordinator}, which loads the stores. */
  constructor(options: WriteCoordinatorOptions, ledger: Ledger, registry: RequestIdRegistry) {
    this.epoch = options.epoch;
    this.strict = options.strict ?? true;
    this.aliases = options.aliases ?? new AliasPool();
    this.admissionCap = options.limits?.admission ?? WRITE_ADMISSION_MAX_IN_FLIGHT;
    this.#clock = options.clock;
    this.#ledger = ledger;
    this.#registry = registry;
    const limits: { perScope?: number; global?: number } = {};
    if (options.limits?.leasesPerScope !== undefined)
      limits.perScope = options.limits.leasesPerScope;
    if (options.limits?.leasesGlobal !== undefined) limits.global = options.limits.leasesGlobal;
    this.#leases = new LeasePool({
      clock: options.clock,
      epoch: options.epoch,
      aliases: this.aliases,
      limits,
    });
  }

  /**
   * Stop admitting calls and wait for every admitted call (running or queued) to settle, for an
   * authority change or shutdown (spec: drain, restart, preflight again). Calls made after `drain()`
   * fail at once with `write_coordinator_unavailable` (`reason: "draining"`). Idempotent.
   */
  drain(): Promise<void> {
    this.#draining = true;
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drained.push(resolve));
  }

  /** Aggregate counts (no IDs, no content). */
  health(): WriteCoordinatorHealth {
    return {
      strict: this.strict,
      draining: this.#draining,
      inFlight: this.#inFlight,
      queued: this.#waiters.length,
      running: this.#running ? 1 : 0,
      admissionCap: this.admissionCap,
      leases: this.#leases.size,
      ledgerEntries: this.#ledger.size,
      reservations: this.#registry.size,
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
      return this.#admitted(call.cancellation, () =>
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
        const reason = policy.kind === "external" ? "external_side_effect" : "strict_mode_disabled";
        return this.#admitted(call.cancellation, () => this.#unguarded(call, hooks, reason));
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
      return this.#admitted(call.cancellation, () =>
        this.#strictCommit(call, hooks, scope, precondition, requestId),
      );
    } catch (error) {
      return Promise.reject(error);
    }
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
    if (this.#draining) {
      throw new WriteSafetyError("write_coordinator_unavailable", {
        message: "The write coordinator is draining for a restart; nothing was executed.",
        details: { reason: "draining" },
      });
    }
    const policy = this.#mutationOrExternal(call);
    if (policy.kind === "external" || !this.strict) return;
    this.#gate(call, leaseScope(call), policy.precondition, requestIdOf(call));
  }

  /**
   * The checks a strict commit makes before it probes, in the spec's order: ledger record (absent,
   * other arguments, settled or unsettled), epoch, first-execution deadline, then the credential and
   * its lease. Consumes nothing. Answers `replay` for a committed record, else the resolved lease
   * (`undefined` for additive actions).
   */
  #gate(
    call: WriteCall,
    scope: LeaseScope,
    precondition: PreconditionKind,
    requestId: string,
  ): { replay: LedgerEntry } | { entry: LedgerEntry; lease: Lease | undefined } {
    const entry = this.#ledger.get(requestId);
    if (entry === undefined) {
      throw new WriteSafetyError("preflight_lease_invalid", {
        details: {
          requestId,
          reason: this.#registry.isReserved(requestId)
            ? "request_id_expired"
            : "unknown_request_id",
        },
      });
    }
    if (entry.scopeKey !== scope.key) {
      throw new WriteSafetyError("idempotency_conflict", {
        details: { requestId, reason: "arguments_differ" },
      });
    }
    if (entry.state === "committed") return { replay: entry };
    if (entry.state === "executing" || entry.state === "unknown") {
      throw new WriteSafetyError("outcome_unknown", {
        writeAttempted: false,
        details: unknownDetails(entry, "replay_of_unsettled_request"),
      });
    }
    if (entry.epoch !== this.epoch) {
      throw new WriteSafetyError("preflight_lease_invalid", {
        details: { requestId, reason: "other_epoch" },
      });
    }
    if (this.#clock.now() >= entry.requestIdExpiresAt) {
      throw new WriteSafetyError("preflight_lease_invalid", {
        details: { requestId, reason: "request_id_expired" },
      });
    }
    if (precondition === "none") return { entry, lease: undefined };
    const field = preconditionField(precondition);
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
    const resolved = this.#leases.resolve(scope.key, parsed.hex, entry.epoch);
    if (resolved.status !== "found") {
      throw new WriteSafetyError("preflight_lease_invalid", {
        details: { requestId, preconditionField: field, reason: resolved.status },
      });
    }
    return { entry, lease: resolved.lease };
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

  /** Admission, lane, cancellation bookkeeping around one call. */
  #admitted<T>(
    cancellation: WriteCancellation | undefined,
    body: () => Promise<T>,
  ): Promise<T | CancelledAnswer> {
    if (this.#draining) {
      return Promise.reject(
        new WriteSafetyError("write_coordinator_unavailable", {
          message: "The write coordinator is draining for a restart; nothing was executed.",
          details: { reason: "draining" },
        }),
      );
    }
    if (this.#inFlight >= this.admissionCap) {
      return Promise.reject(
        new WriteSafetyError("queue_full", { details: { limit: this.admissionCap } }),
      );
    }
    this.#inFlight++;
    const run = async (): Promise<T | CancelledAnswer> => {
      try {
        if (isCancelled(cancellation)) return CANCELLED;
        const acquired = await this.#acquire(cancellation);
        if (!acquired) return CANCELLED;
        try {
          if (isCancelled(cancellation)) return CANCELLED;
          return await body();
        } finally {
          this.#release();
        }
      } finally {
        this.#inFlight--;
        cancellation?.settle();
        if (this.#inFlight === 0 && this.#drained.length > 0) {
          for (const resolve of this.#drained.splice(0)) resolve();
        }
      }
    };
    return run();
  }

  #acquire(cancellation: WriteCancellation | undefined): Promise<boolean> {
    if (!this.#running) {
      this.#running = true;
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        done: false,
        resume: () => {
          waiter.done = true;
          resolve(true);
        },
      };
      this.#waiters.push(waiter);
      cancellation?.onCancel(() => {
        if (waiter.done) return;
        waiter.done = true;
        const i = this.#waiters.indexOf(waiter);
        if (i >= 0) this.#waiters.splice(i, 1);
        resolve(false);
      });
    });
  }

  #release(): void {
    const next = this.#waiters.shift();
    if (next === undefined) this.#running = false;
    else next.resume();
  }

  async #preflight(
    call: WriteCall,
    scope: LeaseScope,
    precondition: PreconditionKind,
    probe: Probe | undefined,
  ): Promise<PreflightAnswer | CancelledAnswer> {
    await this.#ledger.prune();
    const before = precondition === "none" ? undefined : checkProbe(await probe!(), call);
    if (isCancelled(call.cancellation)) return CANCELLED;
    const requestId = await this.#registry.issue();
    const issuedAt = this.#clock.now();
    const requestIdExpiresAt = issuedAt + REQUEST_ID_FIRST_EXECUTION_TTL_MS;
    try {
      await this.#ledger.recordIssued({
        requestId,
        scope,
        precondition,
        epoch: this.epoch,
        issuedAt,
        requestIdExpiresAt,
      });
    } catch (cause) {
      throw new WriteSafetyError("write_coordinator_unavailable", {
        cause,
        details: { reason: "ledger_write_failed" },
      });
    }
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
    const lease = this.#leases.issue(scope.key, before.digest);
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

  async #unguarded(
    call: WriteCall,
    hooks: CommitHooks,
    reason: UnguardedReceipt["reason"],
  ): Promise<UnguardedReceipt | CancelledAnswer> {
    if (call.cancellation !== undefined && !call.cancellation.enterCommit()) return CANCELLED;
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

  async #strictCommit(
    call: WriteCall,
    hooks: CommitHooks,
    scope: LeaseScope,
    precondition: PreconditionKind,
    requestId: string,
  ): Promise<StrictCommitReceipt | CancelledAnswer> {
    await this.#ledger.prune();
    const gate = this.#gate(call, scope, precondition, requestId);
    if ("replay" in gate) return this.#replay(gate.replay);
    const lease = gate.lease;
    let before: ProbeResult | undefined;
    if (lease !== undefined) {
      before = checkProbe(await hooks.probe!(), call);
      if (before.digest !== lease.digest) {
        this.#leases.consume(lease);
        throw new WriteSafetyError("state_changed", {
          details: {
            requestId,
            expectedHash: this.aliases.aliasFor(lease.digest),
            currentHash: this.aliases.aliasFor(before.digest),
          },
        });
      }
    } else if (hooks.probe !== undefined) {
      before = checkProbe(await hooks.probe(), call);
    }

    // The barrier: synchronous with writing the `executing` record.
    if (call.cancellation !== undefined && !call.cancellation.enterCommit()) return CANCELLED;
    try {
      if (before === undefined) await this.#ledger.recordExecuting(requestId);
      else await this.#ledger.recordExecuting(requestId, { beforeDigest: before.digest });
    } catch (cause) {
      throw new WriteSafetyError("write_coordinator_unavailable", {
        cause,
        message: "The ledger could not record the write as executing; nothing was written.",
        details: { requestId, reason: "ledger_write_failed" },
      });
    }

    let executed: ExecuteOutput;
    const tracker = new WriteTracker();
    try {
      executed =
        (await hooks.execute({
          requestId,
          before,
          writes: (port) => tracker.track(port),
          recordCreation: async (progress) => {
            try {
              await this.#ledger.recordCreationProgress(requestId, progress);
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
      if (nothingWritten(tracker, error)) {
        try {
          await this.#ledger.recordFailedBeforeExecute(requestId, "not_dispatched");
        } catch {
          // The record stays `executing`: replays answer outcome_unknown, which is safe.
        }
        throw error;
      }
      if (lease !== undefined) this.#leases.consume(lease);
      const unknown = await this.#unknown(
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
    if (lease !== undefined) this.#leases.consume(lease);

    let readback: ReadbackResult;
    try {
      readback = checkReadback(await hooks.readback!({ requestId, before, executed }), call);
    } catch (error) {
      throw await this.#unknown(requestId, "outcome_unknown", "readback_failed", error, before);
    }
    if (readback.outcome === "unverifiable") {
      throw await this.#unknown(requestId, "outcome_unknown", readback.reason, undefined, before);
    }
    if (readback.outcome === "mismatch") {
      throw await this.#unknown(
        requestId,
        "readback_mismatch",
        readback.reason,
        undefined,
        before,
        readback.digest,
      );
    }

    const status =
      before !== undefined && readback.digest === before.digest ? "no_change" : "committed";
    const result: StoredResult = { status, resultDigest: readback.digest };
    if (before !== undefined) result.previousDigest = before.digest;
    const toolReceipt: ToolReceipt = { ...executed.receipt, ...readback.receipt };
    if (Object.keys(toolReceipt).length > 0) {
      if (canonicalJson(toolReceipt).length <= LEDGER_RECEIPT_MAX_CHARS)
        result.toolReceipt = toolReceipt;
      else result.receiptOmitted = true;
    }
    let committed: LedgerEntry;
    try {
      committed = await this.#ledger.recordCommitted(requestId, result);
    } catch (cause) {
      let ledgerState = "executing";
      try {
        ledgerState = (
          await this.#ledger.recordUnknown(requestId, {
            verdict: "outcome_unknown",
            reason: "ledger_commit_failed",
            resultDigest: readback.digest,
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
        resultHash: this.aliases.aliasFor(readback.digest),
      };
      if (before !== undefined) details.previousHash = this.aliases.aliasFor(before.digest);
      throw new WriteSafetyError("outcome_unknown", {
        cause,
        writeExecuted: true,
        message:
          "The write was read back, but the ledger could not record it; its replay will answer outcome_unknown.",
        details,
      });
    }
    return this.#receipt(committed, false);
  }

  async #unknown(
    requestId: string,
    code: "outcome_unknown" | "readback_mismatch",
    reason: string,
    cause: unknown,
    before: ProbeResult | undefined,
    resultDigest?: StateDigest,
  ): Promise<WriteSafetyError> {
    let entry: LedgerEntry | undefined;
    try {
      entry = await this.#ledger.recordUnknown(
        requestId,
        resultDigest === undefined
          ? { verdict: code, reason }
          : { verdict: code, reason, resultDigest },
      );
    } catch {
      entry = this.#ledger.get(requestId);
    }
    const details: WriteSafetyErrorDetails =
      entry === undefined ? { requestId, reason } : unknownDetails(entry, reason);
    if (before !== undefined) details.previousHash = this.aliases.aliasFor(before.digest);
    if (resultDigest !== undefined) details.resultHash = this.aliases.aliasFor(resultDigest);
    return new WriteSafetyError(code, { cause, details });
  }

  #replay(entry: LedgerEntry): StrictCommitReceipt {
    return this.#receipt(entry, true);
  }

  #receipt(entry: LedgerEntry, replayed: boolean): StrictCommitReceipt {
    const result = entry.result!;
    const receipt: StrictCommitReceipt = {
      ...result.toolReceipt,
      status: result.status,
      requestId: entry.requestId,
      writeAttempted: true,
      writeExecuted: true,
      writeSafetyGuaranteed: true,
      resultHash: this.aliases.aliasFor(result.resultDigest),
    };
    if (result.previousDigest !== undefined) {
      receipt.previousHash = this.aliases.aliasFor(result.previousDigest);
    }
    if (result.receiptOmitted) receipt.receiptOmitted = true;
    if (replayed) receipt.replayed = true;
    return receipt;
  }
}

/** The call's request ID, or the error a commit answers when it has none usable. */
function requestIdOf(call: WriteCall): string {
  const requestId = call.args["requestId"];
  if (requestId === undefined || requestId === null || requestId === "") {
    throw new WriteSafetyError("precondition_required", {
      message: "requestId is absent; run preflight (validateOnly: true) to obtain one.",
      details: { reason: "request_id_absent" },
    });
  }
  if (typeof requestId !== "string") {
    throw new WriteSafetyError("preflight_lease_invalid", {
      details: { reason: "unknown_request_id" },
    });
  }
  return requestId;
}

/**
 * Whether a failed execution provably wrote nothing: every tracked write failed before dispatch,
 * or — for an executor that tracked no write — the error itself says it was never dispatched.
 */
function nothingWritten(tracker: WriteTracker, error: unknown): boolean {
  if (!tracker.nothingWritten) return false;
  return tracker.started > 0 || isNotDispatched(error);
}

/** A function, not an inline comparison, so narrowing does not survive an `await`. */
function isCancelled(cancellation: WriteCancellation | undefined): boolean {
  return cancellation !== undefined && cancellation.state === "cancelled";
}

function unknownDetails(entry: LedgerEntry, reason: string): WriteSafetyErrorDetails {
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

function checkProbe(result: ProbeResult, call: WriteCall): ProbeResult {
  if (typeof result !== "object" || result === null || !isStateDigest(result.digest)) {
    throw new TypeError(`${call.tool}.${call.action}: probe must return { digest: StateDigest }`);
  }
  return result;
}

function checkReadback(result: ReadbackResult, call: WriteCall): ReadbackResult {
  const ok =
    typeof result === "object" &&
    result !== null &&
    ((result.outcome === "applied" && isStateDigest(result.digest)) ||
      (result.outcome === "mismatch" &&
        (result.digest === undefined || isStateDigest(result.digest))) ||
      result.outcome === "unverifiable");
  if (!ok) {
    throw new TypeError(`${call.tool}.${call.action}: readback returned a malformed result`);
  }
  return result;
}
