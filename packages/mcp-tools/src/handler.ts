/**
 * The shapes of action handlers, and the handler table type derived from the catalog.
 *
 * A read or external handler runs once. A mutation handler is split the way the coordinator needs
 * it: `probe` reads live state (never the SQL index) and returns the canonical state to hash,
 * `execute` makes the kernel write(s), `readback` waits for the kernel's asynchronous apply and
 * reports what it sees.
 *
 * A handler's argument type is never written by hand: {@link ToolHandlers} maps every action of
 * the catalog to the handler kind its policy names, taking the arguments as the action's zod schema
 * outputs them. A missing handler, a handler for an action the catalog does not have, a handler of
 * the wrong kind, or one whose arguments disagree with the schema does not compile.
 */
import type { StateDigest } from "@sisyphus/core-hash";
import type { CreationProgress } from "@sisyphus/write-safety";
import type { z } from "zod";
import type { ActionSpec, Catalog, ToolName } from "./catalog.js";
import type { KernelReads, KernelWrites } from "./kernel.js";
import type { OutputSink } from "./output.js";
import type { Permission, PermissionMap } from "./permissions.js";
import type { SourceBytes, SourceRef } from "./source.js";
import type { FeedbackSender } from "./tools/feedback.js";

/** What the runtime tells the system tool. */
export interface SystemInfo {
  readonly strict: boolean;
  readonly authority: { readonly kind: string; readonly epoch: string };
  /** Aggregate counts only (queues, leases, ledger size); never IDs or content. */
  readonly health: () => Record<string, unknown>;
}

/** What every handler receives. Its kernel port has reads only: probes and readbacks cannot write. */
export interface ToolContext {
  readonly kernel: KernelReads;
  /** Loaded fresh for this call. */
  readonly permissions: PermissionMap;
  /** The permission this call needs on every notebook it touches. */
  readonly needs: Permission;
  /**
   * `preflight` or `commit`. A commit's re-probe only reports state: checks of the arguments against
   * the state (e.g. "the order lists every child") ran at preflight, and if the state moved since,
   * the digest comparison answers `state_changed`.
   */
  readonly phase: "preflight" | "commit" | "read";
  /** What the system tool reports about this runtime. */
  readonly system: SystemInfo;
  /**
   * The bytes of an upload source, through the shell's reader (a typed error when this runtime
   * cannot read that kind of source, or the source is missing, invalid or too large).
   */
  readonly readSource: (ref: SourceRef) => Promise<SourceBytes>;
  /** The largest template body a template write sends, in UTF-8 bytes (settings' option). */
  readonly templateBudgetBytes: number;
  /**
   * Saves exports on this process's host; absent where nothing can be saved (the kernel), and an
   * export then answers a download manifest.
   */
  readonly output?: OutputSink | undefined;
  /** Where `feedback.submit` posts (settings' `options.feedbackUrl`); `null` when unset. */
  readonly feedbackUrl: string | null;
  /** Sends feedback from this process; absent where nothing may leave it (the kernel plugin). */
  readonly feedback?: FeedbackSender | undefined;
  readonly signal?: AbortSignal | undefined;
}

/**
 * What an executor receives: the call's context plus the kernel writes, tracked by the write
 * coordinator's execution step (the only place a `WriteContext` is made), so a write that bypasses
 * the tracker does not type-check.
 */
export interface WriteContext extends ToolContext {
  readonly write: KernelWrites;
  /** The durable progress of a staged creation (see {@link MutationHandler.resumable}). */
  readonly creation: CreationLog;
}

/** What a staged creation records in the ledger; no note bodies. */
export interface CreationStep {
  /** IDs the creation will use, recorded before the first write that uses them. */
  readonly reservedIds?: readonly string[];
  /** A stage the kernel shows done. */
  readonly confirmedStage?: string;
  /** The complete small creation receipt, once every stage is confirmed. */
  readonly receipt?: Record<string, unknown>;
}

/**
 * The ledger's record of a staged creation: `record` writes a step durably before it resolves;
 * `resumed` is what an earlier attempt of the same request recorded, when this call resumes it.
 */
export interface CreationLog {
  readonly resumed?: CreationProgress | undefined;
  record(step: CreationStep): Promise<void>;
}

/** A read action. */
export interface RunHandler<A> {
  readonly run: (ctx: ToolContext, args: A) => Promise<unknown>;
  /** Notebooks whose read permission the call needs (resolved only when permissions restrict). */
  readonly notebooks?: (ctx: ToolContext, args: A) => Promise<readonly string[]>;
}

/** An external action (a side effect outside the notes): runs once with tracked writes. */
export interface ExternalHandler<A> {
  readonly run: (ctx: WriteContext, args: A) => Promise<unknown>;
}

/** What a probe saw. */
export interface Probed<S> {
  /** Canonical JSON-able state; its `stateHash` is the precondition unless `digest` is given. */
  readonly state: unknown;
  /**
   * The precondition digest when it is not `stateHash(state)`: a source's is the SHA-256 of its
   * bytes (`sha256:v1:` + 64 hex digits), so `expectedSourceHash` names the file's own digest.
   */
  readonly digest?: StateDigest;
  /** Notebooks the write touches (permission is checked on each before any lease). */
  readonly notebooks: readonly string[];
  /** Small data the executor needs (e.g. attributes to keep). Never hashed, never stored. */
  readonly snapshot: S;
  /**
   * What the caller should know before committing (e.g. a side effect the commit will have), added
   * to the preflight answer only; the answer's safety fields win on a name clash. Never hashed.
   */
  readonly preflightNotes?: Record<string, unknown>;
  /**
   * The targets as they are now, by ID, in the form the agent reads them (a block's Kramdown, as
   * `block.get_kramdown` answers): a commit refused with `state_changed` carries it as
   * `details.current`, so the agent can decide without another read. Never hashed.
   */
  readonly current?: Readonly<Record<string, string>>;
  /**
   * For an action whose danger depends on the state (catalog `dangerous: "cross_document"`):
   * whether this call needs the user's confirmation. Decided from what the digest covers, so the
   * commit's re-probe gives the same answer whenever the digests match.
   */
  readonly dangerous?: boolean;
}

/** What a readback saw. */
export interface ReadbackResult {
  /** Canonical state after the write, hashed for the receipt. */
  readonly state: unknown;
  /**
   * `applied`: the requested change is visible. `unchanged`: the state equals the before-state and
   * the request asked for no change. `mismatch`: the kernel said yes but the state does not show it.
   */
  readonly verdict: "applied" | "unchanged" | "mismatch";
  /** Small facts for the caller (new IDs, counts). */
  readonly receipt?: Record<string, unknown>;
  /** Why a mismatch was declared. */
  readonly reason?: string;
  /**
   * The written blocks as read back (block ID → Kramdown), for this call's answer only (`current`,
   * when small): never hashed, never stored in the ledger, so a replay answers without it.
   */
  readonly shown?: Readonly<Record<string, string>>;
}

/**
 * A mutation action. `S` (what the probe keeps for the executor) and `E` (what the executor hands
 * the readback) are the handler's own: the runtime threads them from one step to the next.
 */
export interface MutationHandler<A, S = unknown, E = unknown> {
  /** Target IDs for the lease scope (sorted and de-duplicated by the coordinator). */
  readonly targets: (args: A) => readonly string[];
  readonly probe: (ctx: ToolContext, args: A) => Promise<Probed<S>>;
  readonly execute: (ctx: WriteContext, args: A, before: Probed<S>) => Promise<E>;
  readonly readback: (
    ctx: ToolContext,
    args: A,
    before: Probed<S>,
    executed: E,
  ) => Promise<ReadbackResult>;
  /** Receipt fields known without readback (e.g. `targetCount`). */
  readonly summary?: (args: A) => Record<string, unknown>;
  /**
   * A staged creation (additive): `execute` records its reserved IDs before its first write and
   * each stage once the kernel shows it (`ctx.creation.record`), and given `ctx.creation.resumed`
   * finishes what an earlier attempt began without repeating a stage. A replay of a request left
   * unsettled (a crash, a lost response) then resumes instead of answering `outcome_unknown`.
   */
  readonly resumable?: true;
  /**
   * Its probe hashes another state than its readback (a move's probe reads where the block was, a
   * tag rename's the blocks holding the old name): a replay then cannot tell whether the target
   * still holds the result, and does not read it (D-344). The fault matrix's clean replays check
   * every other mutation.
   */
  readonly probeUnlikeResult?: true;
  /**
   * Its commit answers the written blocks (`current`, D-357) and its probe reads those same
   * blocks: a replay whose probe finds the stored result in place (`targetNow: holds_result`)
   * answers them as read now (D-360).
   */
  readonly showsWritten?: true;
}

/** A handler table entry for a read action (made by {@link readAction}). */
export interface ReadAction<A> {
  readonly kind: "read";
  readonly handler: RunHandler<A>;
}

/** A handler table entry for an external action (made by {@link externalAction}). */
export interface ExternalAction<A> {
  readonly kind: "external";
  readonly handler: ExternalHandler<A>;
}

/**
 * A handler table entry for a mutation (made by {@link mutationAction}). The table fixes only the
 * arguments; `open` hands the handler to `use` with its own snapshot and execution types, so the
 * runtime can thread them without knowing them.
 */
export interface MutationAction<A> {
  readonly kind: "mutation";
  readonly open: <R>(use: <S, E>(handler: MutationHandler<A, S, E>) => R) => R;
}

/** The handler entry of each policy kind, for arguments `A`. */
export interface ActionByKind<A> {
  readonly read: ReadAction<A>;
  readonly external: ExternalAction<A>;
  readonly mutation: MutationAction<A>;
}

/** Any handler entry for arguments `A`. */
export type ActionHandler<A> = ActionByKind<A>[keyof ActionByKind<A>];

/** A read action's entry. */
export function readAction<A>(handler: RunHandler<A>): ReadAction<A> {
  return { kind: "read", handler };
}

/** An external action's entry. */
export function externalAction<A>(handler: ExternalHandler<A>): ExternalAction<A> {
  return { kind: "external", handler };
}

/** A mutation's entry. */
export function mutationAction<A, S, E>(handler: MutationHandler<A, S, E>): MutationAction<A> {
  return { kind: "mutation", open: (use) => use(handler) };
}

/** The arguments an action's schema outputs (defaults filled in, unknown keys refused). */
export type SpecArgs<S extends ActionSpec> = z.output<S["args"]>;

/** The handler entry an action spec calls for: its policy's kind, over its schema's output. */
export type HandlerFor<S extends ActionSpec> = ActionByKind<SpecArgs<S>>[S["policy"]["kind"]];

/** The arguments of `tool.action`, as its catalog schema outputs them. */
export type ArgsOf<
  T extends ToolName,
  A extends keyof Catalog[T],
> = Catalog[T][A] extends ActionSpec ? SpecArgs<Catalog[T][A]> : never;

/**
 * The handlers of one table of action specs: exactly one entry per action (no more, no fewer), of
 * the kind its policy names, over the arguments its schema outputs.
 */
export type TableHandlers<C> = {
  readonly [A in keyof C]: C[A] extends ActionSpec ? HandlerFor<C[A]> : never;
};

/** The handlers of one tool: {@link TableHandlers} of its catalog table. */
export type ToolHandlers<T extends ToolName> = TableHandlers<Catalog[T]>;
