/**
 * The hook contracts of the write coordinator: what a caller passes in (`WriteCall`, and `probe` /
 * `execute` / `readback` as `CommitHooks`) and what each hook must return. The coordinator checks
 * every hook's answer with the guards of this file before trusting it, and gives `execute` only
 * write ports its `WriteTracker` counts.
 */
import { isStateDigest, type StateDigest } from "@sisyphus/core-hash";
import type { WriteCancellation } from "./cancellation.js";
import { isNotDispatched } from "./errors.js";
import type { CreationProgress, ToolReceipt } from "./ledger.js";
import type { ActionPolicy } from "./policy.js";

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
  /**
   * Resuming only ({@link CommitHooks.resumable}): the creation progress an earlier attempt of this
   * request recorded durably (reserved IDs, confirmed stages, the receipt once complete), empty
   * when it recorded none. `undefined` on a first execution.
   */
  resumed?: CreationProgress;
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
  /**
   * Additive actions only: the executor records its progress with `recordCreation` (reserved IDs
   * before its first write, each stage once the kernel shows it) and, given that progress back as
   * `resumed`, finishes what an earlier attempt began without repeating a confirmed stage. A
   * commit of this request found `executing` (a crash) or `unknown` (a failure or lost response
   * between stages) then resumes instead of answering `outcome_unknown`.
   */
  resumable?: boolean;
  /**
   * Whether a replay may run `probe` to tell if the target still holds the stored result (D-344):
   * only when the probe hashes the same state as the readback. Absent or `false`: a replay reads
   * nothing and says so.
   */
  replayComparable?: boolean;
}

/** `result` if it is a well-formed {@link ProbeResult}; a programming error (`TypeError`) otherwise. */
export function checkProbe(result: ProbeResult, call: WriteCall): ProbeResult {
  if (typeof result !== "object" || result === null || !isStateDigest(result.digest)) {
    throw new TypeError(`${call.tool}.${call.action}: probe must return { digest: StateDigest }`);
  }
  return result;
}

/** `result` if it is a well-formed {@link ReadbackResult}; a programming error (`TypeError`) otherwise. */
export function checkReadback(result: ReadbackResult, call: WriteCall): ReadbackResult {
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

// The record of one execution's kernel writes. "Not dispatched" proves "nothing written" only
// while it holds for every write the execution started: once any write may have reached the
// kernel, a later failure can leave a partial state, and the answer must be `outcome_unknown`.
// The coordinator owns one tracker per execution and hands executors only tracked write ports.

/** A set of kernel writes: every member is an async function that makes (at most) one kernel write. */
export type WritePort<W> = { readonly [K in keyof W]: (...args: never[]) => Promise<unknown> };

/** Counts the writes of one execution and whether each provably never left the process. */
export class WriteTracker {
  #started = 0;
  #notDispatched = 0;
  #closed = false;

  /** Writes started so far. */
  get started(): number {
    return this.#started;
  }

  /** True while every write started so far failed provably before dispatch (or none started). */
  get nothingWritten(): boolean {
    return this.#started === this.#notDispatched;
  }

  /**
   * Runs one kernel write. A write started after the execution settled is a programming error
   * (`TypeError`): its effect would escape the ledger record.
   */
  async dispatch<T>(write: () => Promise<T>): Promise<T> {
    if (this.#closed) {
      throw new TypeError("a kernel write was started after its execution settled");
    }
    this.#started++;
    try {
      return await write();
    } catch (error) {
      if (isNotDispatched(error)) this.#notDispatched++;
      throw error;
    }
  }

  /** The same port with every method routed through {@link dispatch}. */
  track<W extends WritePort<W>>(port: W): W {
    const tracked: Record<string, (...args: never[]) => Promise<unknown>> = {};
    for (const name of Object.keys(port)) {
      const write = port[name as keyof W] as (...args: never[]) => Promise<unknown>;
      tracked[name] = (...args: never[]) => this.dispatch(() => write(...args));
    }
    return Object.freeze(tracked) as W;
  }

  /** Ends the execution: later writes are refused. */
  close(): void {
    this.#closed = true;
  }
}
