/**
 * The shapes of action handlers.
 *
 * A read or external handler runs once. A mutation handler is split the way the coordinator needs
 * it: `probe` reads live state (never the SQL index) and returns the canonical state to hash,
 * `execute` makes the kernel write(s), `readback` waits for the kernel's asynchronous apply and
 * reports what it sees.
 */
import type { KernelReads, KernelWrites } from "./kernel.js";
import type { Permission, PermissionMap } from "./permissions.js";
import type { SystemInfo } from "./tools/system.js";

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
  readonly signal?: AbortSignal | undefined;
}

/**
 * What an executor receives: the call's context plus the kernel writes, tracked by the write
 * coordinator's execution step (the only place a `WriteContext` is made), so a write that bypasses
 * the tracker does not type-check.
 */
export interface WriteContext extends ToolContext {
  readonly write: KernelWrites;
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
  /** Canonical JSON-able state; its `stateHash` is the precondition. */
  readonly state: unknown;
  /** Notebooks the write touches (permission is checked on each before any lease). */
  readonly notebooks: readonly string[];
  /** Small data the executor needs (e.g. attributes to keep). Never hashed, never stored. */
  readonly snapshot: S;
  /**
   * What the caller should know before committing (e.g. a side effect the commit will have), added
   * to the preflight answer only; the answer's safety fields win on a name clash. Never hashed.
   */
  readonly preflightNotes?: Record<string, unknown>;
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
}

/** A mutation action. */
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
}

/** Handlers of one tool, by action name. */
export type ToolHandlers = Readonly<
  Record<
    string,
    {
      readonly read?: RunHandler<never>;
      readonly external?: ExternalHandler<never>;
      readonly mutation?: MutationHandler<never>;
    }
  >
>;

const TOOL_ERROR_BRAND = Symbol.for("@sisyphus/mcp-tools/ToolError");

/**
 * A tool-level failure with a code and the caller's next step. Codes: `invalid_arguments`,
 * `unknown_action`, `not_found`, `permission_denied`, `confirmation_required`, `kernel_error`,
 * `kernel_unavailable`, plus the write-safety codes the coordinator raises.
 */
export class ToolError extends Error {
  readonly [TOOL_ERROR_BRAND] = true;
  /**
   * A tool error is raised by validation or a probe, which hold only the read port, so it never
   * follows a write of its own; the coordinator still answers `outcome_unknown` if a tracked write
   * of the same execution may have been dispatched before it.
   */
  readonly writeDispatched = false as const;
  readonly code: string;
  readonly hint: string;
  readonly details: Record<string, unknown>;
  constructor(code: string, message: string, hint: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = "ToolError";
    this.code = code;
    this.hint = hint;
    this.details = details;
  }
}

/** Brand check for {@link ToolError}. */
export function isToolError(e: unknown): e is ToolError {
  return (
    typeof e === "object" && e !== null && (e as Record<symbol, unknown>)[TOOL_ERROR_BRAND] === true
  );
}

/** An unknown target: reported before any lease or write. */
export function notFound(what: string, id: string): ToolError {
  return new ToolError(
    "not_found",
    `${what} ${id} does not exist`,
    "Check the ID with a read action, then retry.",
    { id },
  );
}
