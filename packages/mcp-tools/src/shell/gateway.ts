/**
 * The shell's route for every `tools/call`, shared by the Node server and the kernel plugin: the
 * call's one parse (`parseCall`; every step below takes that `ParsedCall`), the shutdown drain (new
 * writes refused while draining), the admission gate (cap 128 → `queue_full`; reads 4 at a time;
 * mutations and external effects are not serialised here but go on to the write coordinator's FIFO
 * lane, in this process or at the authority), the call's settings snapshot (read only once
 * admitted, so a refused call costs no kernel request; with `snapshotBesideReads`, read beside the
 * call's first kernel reads and met by the runtime before any write and any answer), a dangerous
 * action's confirmation (`confirmation.ts`; the commit's own checks first, here or at the
 * authority: nobody is asked to approve a commit that would be refused), then either the local
 * tool runtime or, in a delegating process, the authority. A precheck-only call
 * (`PRECHECK_META_KEY`) from a delegating process is answered by the checks alone.
 */
import type { CallToolResult, ServerContext } from "@modelcontextprotocol/server";
import { WriteCancellation } from "@sisyphus/write-safety";
import { type CallClass, commitOf, type ParsedCall, parseCall } from "../parsed-call.js";
import type { PermissionMap } from "../permissions.js";
import type { SettingsVerdict } from "../runtime.js";
import type { CallOptions, SisyphusSettings } from "../settings.js";
import { turnedOff } from "../tool-access.js";
import type { ToolResult } from "../tool-result.js";
import { admissionRefusalResult, shellError, unusableSettingsRefusal } from "../tool-result.js";
import type { DrainGate } from "./admission.js";
import { type Admission, isAdmissionRefusal } from "./admission.js";
import {
  type CommitPrecheck,
  type ConfirmationRequest,
  createConfirmation,
  type GatewayConnection,
  type PrecheckVerdict,
  withConfirmationMode,
} from "./confirmation.js";
import { type ConfirmationBook, stableJson } from "./confirmation-book.js";
import {
  AUTHORITY_EPOCH_META_KEY,
  PRECHECK_META_KEY,
  PRECHECK_SUBJECT_META_KEY,
} from "./constants.js";

/**
 * The part of `@sisyphus/mcp-tools`' `ToolRuntime` the shell uses. The gateway parses each call
 * once (`parseCall`) and hands that {@link ParsedCall} to the precheck and the run.
 */
export interface ShellRuntime {
  /**
   * `context.cancellation`, when given, is the call's handle at the coordinator's cancellation
   * barrier (the runtime makes its own otherwise); `signal` aborting cancels it too.
   */
  run(
    call: ParsedCall,
    context?: {
      signal?: AbortSignal;
      confirmed?: boolean;
      cancellation?: WriteCancellation;
      permissions?: PermissionMap;
      options?: CallOptions;
      /** The call's own settings, still being read (`GatewayOptions.snapshotBesideReads`). */
      settingsGate?: Promise<SettingsVerdict>;
    },
  ): Promise<CallToolResult>;
  /**
   * The commit's checks that need no kernel read (request ID, ledger, credential, lease), run
   * before confirmation: `undefined` when they pass, else the error result the commit would give.
   */
  precheck?(call: ParsedCall): CallToolResult | undefined;
  /**
   * What a dangerous call would remove or move, for the person asked to confirm it: bounded reads,
   * no write; `undefined` when there is nothing to say. Never throws.
   */
  describe?(call: ParsedCall, permissions?: PermissionMap): Promise<string | undefined>;
}

/**
 * The connection a delegating process keeps to its authority (the Node server's `AuthorityLink`):
 * it forwards calls and runs the authority's precheck. Neither method throws.
 */
export interface DelegateLink {
  /**
   * Forwards one tool call. `mayExecute`: the call can execute a write, so a response lost after
   * sending is `outcome_unknown` rather than `write_coordinator_unavailable`.
   */
  call(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    mayExecute: boolean,
    extraMeta?: Record<string, unknown>,
  ): Promise<CallToolResult>;
  /**
   * The authority's checks of a commit before confirmation: its refusal, or passed with the call's
   * subject there when `withSubject` (see `PrecheckVerdict`).
   */
  precheck(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    withSubject?: boolean,
  ): Promise<PrecheckVerdict>;
}

/** Who executes mutations: this process (the authority) or the authority it delegates to. */
export type AuthorityRole =
  | { kind: "local"; epoch: string }
  | { kind: "delegate"; link: DelegateLink };

/** Options of `createGateway`. */
export interface GatewayOptions {
  runtime: ShellRuntime;
  admission: Admission;
  confirmations: ConfirmationBook;
  role: AuthorityRole;
  /** The process's shutdown drain (the HTTP authority); absent: calls are never cut off. */
  drain?: DrainGate;
  /**
   * The call's settings snapshot, read once per call right after admission and before
   * confirmation (reads included; a call refused with `queue_full` never reads it): a refusal
   * stops the call (e.g. `write_coordinator_changed` for a strict call when the
   * settings select another authority than the one this process started with); otherwise the
   * settings of this call: a turned-off tool or action answers `action_disabled` here, and the
   * runtime applies their permissions and kernel options. Absent: the runtime's own
   * `loadPermissions`, every tool on.
   */
  snapshot?: (writeClass: boolean) => Promise<SettingsSnapshot>;
  /**
   * Read the call's snapshot beside its first kernel reads instead of before them (the Node
   * server, whose snapshot is a kernel round trip). The call starts under the previous call's
   * settings; the runtime awaits its own snapshot before any write can leave and before any result
   * is returned, and decides permissions from it (`CallContext.settingsGate`): each call still
   * loads its own snapshot at execution time, and a refusal is the same as when read first.
   * Not for a call forwarded to the authority (it could write there), a dangerous commit (the
   * user is asked only after its settings allowed it), nor a process's first call (no previous
   * snapshot); those read first. Default off.
   */
  snapshotBesideReads?: boolean;
}

/**
 * A call's task control (the kernel's `/tasks`): its barrier handle, which the gateway uses (and
 * replaces when it runs a commit again after a late confirmation), so `cancel()` on
 * `barrier.cancellation` tells whether the call could still be stopped; and a signal that stops
 * it while it waits.
 */
export interface CallControl {
  readonly barrier: { cancellation: WriteCancellation };
  readonly signal: AbortSignal;
  /** Told the settings the call runs under (its snapshot), before anything else happens. */
  readonly settingsSeen?: (settings: SisyphusSettings) => void;
}

/** What a call's settings read gave: a refusal, or the settings to apply. */
export type SettingsSnapshot =
  | { readonly refusal: CallToolResult }
  | { readonly settings: SisyphusSettings };

/** What a call's settings give its run: the permissions and the kernel options. */
interface Applied {
  readonly permissions: PermissionMap;
  readonly options: CallOptions;
}

/**
 * What a call's settings snapshot gave: its refusal, or what it runs under (`undefined`: the
 * runtime's own `loadPermissions`) with the snapshot's key.
 */
type SettingsOutcome =
  | { readonly refusal: CallToolResult }
  | { readonly applied: Applied | undefined; readonly key?: string };

/** A snapshot's permissions; `null` when it refused (then nothing is read for the call). */
function permissionsOf(snap: SettingsSnapshot): PermissionMap | null {
  return "refusal" in snap ? null : snap.settings.permissions;
}

/** The permissions and kernel options a call runs under, from its settings. */
function appliedOf(settings: SisyphusSettings): Applied {
  return { permissions: settings.permissions, options: settings.options };
}

/**
 * The call's refusal by its settings, if any: a `disabled` entry naming nothing in the catalog
 * makes them unusable; a turned-off tool or action answers `action_disabled` (nothing ran).
 */
function refusedBySettings(
  settings: SisyphusSettings,
  { parsed: { tool, action }, writeClass }: GatewayCall,
): CallToolResult | undefined {
  if (settings.disabled.length === 0) return undefined;
  const off = turnedOff(settings.disabled);
  if (off.unknown.length > 0) {
    return unusableSettingsRefusal(
      `disabled names ${off.unknown.map((n) => JSON.stringify(n)).join(", ")}, which no tool or action has`,
      writeClass,
    );
  }
  if (!off.has(tool, action)) return undefined;
  const name = off.has(tool) || action === undefined ? tool : `${tool}.${action}`;
  return shellError(
    "action_disabled",
    `${name} is turned off in the Sisyphus settings; nothing ran.`,
    { tool, ...(action === undefined ? {} : { action }) },
    { writeAttempted: false },
  );
}

/**
 * One call on its way through the gateway, from its admission to its answer: what every step
 * (its settings, confirmation, the commit's checks, the run) takes.
 */
interface GatewayCall extends ConfirmationRequest {
  /** A mutation or an external effect: admitted as a write, drained, forwarded when delegating. */
  readonly writeClass: boolean;
  /** The request's signal, joined with the task control's and, under the drain, its ticket's. */
  readonly signal: AbortSignal;
  readonly control: CallControl | undefined;
  /** The call's handle at the coordinator's barrier (the drain's, else the task control's). */
  readonly barrier: { cancellation: WriteCancellation } | undefined;
}

/** Whether a call needs the user's confirmation before it runs: a dangerous commit. */
function confirmsFirst(call: CallClass): boolean {
  return call.dangerous && !call.validateOnly && call.kind !== "invalid";
}

/** The refusal of a new write-class call while the process drains for shutdown. */
function drainingRefusal(): CallToolResult {
  return shellError(
    "write_coordinator_unavailable",
    "The server is shutting down and admits no new writes; nothing was executed.",
    { reason: "draining" },
    { writeAttempted: false },
  );
}

/** The refusal of a call a delegating process sent for another authority (another epoch). */
function otherEpochRefusal(): CallToolResult {
  return shellError(
    "write_coordinator_changed",
    "This authority is not the one the delegating process first used.",
    { reason: "other_epoch" },
  );
}

/**
 * The answer of a write-class call still pending when the shutdown grace ended: `waiting` when
 * its cancellation was accepted (it never passed the commit barrier, so nothing was written),
 * `running` when it had passed it (it may have written).
 */
function cutOffAnswer(phase: "waiting" | "running", parsed: ParsedCall): CallToolResult {
  if (phase === "running" && !parsed.validateOnly) {
    const requestId = parsed.args["requestId"];
    return shellError(
      "outcome_unknown",
      "The server shut down while this call was committing; it may or may not have written.",
      {
        reason: "shutdown_grace_expired",
        ...(typeof requestId === "string" ? { requestId } : {}),
      },
      { writeAttempted: true },
    );
  }
  return shellError(
    "write_coordinator_unavailable",
    phase === "running"
      ? "The server shut down during this preflight; nothing was written to the notes."
      : "The server shut down before this call could write; it was stopped and nothing was executed.",
    { reason: "shutdown" },
    { writeAttempted: false },
  );
}

function errorCodeOf(result: CallToolResult): unknown {
  const error = (result.structuredContent as Record<string, unknown> | undefined)?.["error"];
  return (error as Record<string, unknown> | undefined)?.["code"];
}

/**
 * Builds the `callTool` route handed to `runtime.registerTools`. Never throws for tool-level
 * outcomes. Returns an `input_required` result (typed as `CallToolResult` for the registration
 * seam) when a modern form-capable client must confirm.
 */
export function createGateway(options: GatewayOptions) {
  const { runtime, admission, confirmations, role, drain, snapshot } = options;
  /** The last usable snapshot a call read: what the next call starts under, beside its own read. */
  let lastSeen: { readonly settings: SisyphusSettings; readonly key: string } | undefined;

  /**
   * Whether the call was sent by a delegating process for an authority other than this one: its
   * `AUTHORITY_EPOCH_META_KEY` names another epoch (only an authority checks).
   */
  function forOtherEpoch(ctx: ServerContext): boolean {
    if (role.kind !== "local") return false;
    const expected = ctx.mcpReq._meta?.[AUTHORITY_EPOCH_META_KEY];
    return expected !== undefined && expected !== role.epoch;
  }

  /** A commit's checks where the ledger and leases live and, when they pass and it is wanted, its subject. */
  const precheckWhereLeasesLive: CommitPrecheck = (parsed, signal, permissions, withSubject) =>
    role.kind === "local"
      ? localPrecheck(parsed, permissions, withSubject)
      : role.link.precheck(parsed.tool, parsed.args, signal, withSubject);

  /** A dangerous call's confirmation, after the commit's checks where the ledger and leases live. */
  const confirm = createConfirmation(confirmations, precheckWhereLeasesLive);

  /**
   * A preflight's answer with how its commit is confirmed; when the agent must ask the user
   * (`confirm_true`), also what the commit would remove or move (`subject`), read as the commit's
   * own checks would (the answer's requestId and credential, prechecked where the leases live), so
   * the agent can ask the user without looking it up. No subject when that check refuses or reads
   * nothing; the answer is otherwise unchanged.
   */
  async function preflightAnswer(
    result: CallToolResult,
    call: GatewayCall,
    permissions: PermissionMap | undefined,
  ): Promise<CallToolResult> {
    const { parsed, ctx, conn, signal } = call;
    const answered = withConfirmationMode(result, ctx, conn);
    const sc = answered.structuredContent as Record<string, unknown> | undefined;
    // Not asked by the agent, or said already (by the authority this process delegates to).
    if (sc?.["confirmation"] !== "confirm_true" || typeof sc["subject"] === "string") {
      return answered;
    }
    const field = sc["preconditionField"];
    const requestId = sc["requestId"];
    const credential = typeof field === "string" ? sc[field] : undefined;
    if (parsed.kind === "invalid" || typeof requestId !== "string") return answered;
    const commit = commitOf(parsed, {
      requestId,
      ...(typeof field === "string" && typeof credential === "string"
        ? { [field]: credential }
        : {}),
    });
    const checked: PrecheckVerdict = await precheckWhereLeasesLive(
      commit,
      signal,
      permissions,
      true,
    ).catch(() => ({}));
    if (checked.refused !== undefined || checked.subject === undefined) return answered;
    return withConfirmationMode(result, ctx, conn, checked.subject);
  }

  /** This process's checks of a commit and, when they pass and it is wanted, its subject. */
  async function localPrecheck(
    parsed: ParsedCall,
    permissions: PermissionMap | undefined,
    withSubject: boolean,
  ): Promise<PrecheckVerdict> {
    const refused = runtime.precheck?.(parsed);
    if (refused !== undefined) return { refused };
    if (!withSubject || runtime.describe === undefined) return {};
    return { subject: await runtime.describe(parsed, permissions) };
  }

  /** The call's subject under this process's own settings snapshot (none when it refuses). */
  async function subjectHere(parsed: ParsedCall): Promise<string | undefined> {
    if (runtime.describe === undefined) return undefined;
    try {
      const permissions = snapshot === undefined ? undefined : permissionsOf(await snapshot(true));
      return permissions === null ? undefined : await runtime.describe(parsed, permissions);
    } catch {
      return undefined;
    }
  }

  /**
   * A precheck-only call from a delegating process (`PRECHECK_META_KEY`): checks, never runs. With
   * `PRECHECK_SUBJECT_META_KEY`, a passed answer carries the call's `subject`, read under this
   * process's settings snapshot (a refused snapshot: no subject).
   */
  async function precheckOnly(parsed: ParsedCall, withSubject: boolean): Promise<CallToolResult> {
    const refused = runtime.precheck?.(parsed);
    if (refused !== undefined) return refused;
    const subject = withSubject ? await subjectHere(parsed) : undefined;
    const structuredContent = {
      precheck: "passed",
      writeAttempted: false,
      ...(subject === undefined ? {} : { subject }),
    };
    return {
      content: [{ type: "text", text: JSON.stringify(structuredContent) }],
      structuredContent,
    };
  }

  return async function callTool(
    tool: string,
    rawArgs: Record<string, unknown>,
    ctx: ServerContext,
    conn: GatewayConnection,
    control?: CallControl,
  ): Promise<CallToolResult> {
    const { confirm: confirmArg, ...args } = rawArgs;
    // The call's one parse: every step below takes this `ParsedCall`.
    const parsed = parseCall(tool, args);
    const writeClass = parsed.kind === "mutation" || parsed.kind === "external";
    const call: GatewayCall = {
      parsed,
      confirmArg,
      writeClass,
      ctx,
      conn,
      signal:
        control === undefined
          ? ctx.mcpReq.signal
          : AbortSignal.any([ctx.mcpReq.signal, control.signal]),
      control,
      barrier: control?.barrier,
    };
    if (role.kind === "local" && ctx.mcpReq._meta?.[PRECHECK_META_KEY] === true) {
      if (forOtherEpoch(ctx)) return otherEpochRefusal();
      if (writeClass && drain?.draining) return drainingRefusal();
      return precheckOnly(parsed, ctx.mcpReq._meta?.[PRECHECK_SUBJECT_META_KEY] === true);
    }
    if (!writeClass || drain === undefined) return admitted(call);
    if (drain.draining) return drainingRefusal();
    // The call's handle at the coordinator's barrier: when the grace ends, cancelling it tells
    // whether the call could still be stopped before its write (accepted) or not (committing).
    // A commit run again after a late confirmation gets a fresh handle here.
    const barrier = call.barrier ?? { cancellation: new WriteCancellation() };
    return drain.track(
      (ticket) =>
        admitted({ ...call, signal: AbortSignal.any([call.signal, ticket.signal]), barrier }),
      () => cutOffAnswer(barrier.cancellation.cancel() ? "waiting" : "running", parsed),
    );
  };

  /**
   * The call's one settings snapshot, read once it is admitted: its refusal (unusable settings,
   * another authority, a turned-off tool or action), or the permissions and options it runs under.
   * Absent a snapshot: the runtime's own `loadPermissions`, every tool on.
   */
  async function settingsOf(call: GatewayCall): Promise<SettingsOutcome> {
    if (snapshot === undefined) return { applied: undefined };
    const snap = await snapshot(call.writeClass);
    if ("refusal" in snap) return snap;
    const key = stableJson(snap.settings);
    lastSeen = { settings: snap.settings, key };
    call.control?.settingsSeen?.(snap.settings);
    const refused = refusedBySettings(snap.settings, call);
    if (refused !== undefined) return { refusal: refused };
    return { applied: appliedOf(snap.settings), key };
  }

  /**
   * The call's snapshot started beside its first kernel reads (`snapshotBesideReads`): the settings
   * it starts under (the last snapshot read) and the verdict of its own snapshot on them, which the
   * runtime awaits at its gate. `undefined` when the call must read its snapshot first.
   */
  function besideReads(
    call: GatewayCall,
  ): { applied: Applied; gate: Promise<SettingsVerdict>; own: Promise<Applied> } | undefined {
    const { parsed, writeClass } = call;
    const previous = lastSeen;
    if (options.snapshotBesideReads !== true || previous === undefined) return undefined;
    if (role.kind === "delegate" && writeClass) return undefined;
    if (confirmsFirst(parsed) || forOtherEpoch(call.ctx)) return undefined;
    if (refusedBySettings(previous.settings, call) !== undefined) return undefined;
    const applied = appliedOf(previous.settings);
    const settled = settingsOf(call);
    const gate = settled.then((s): SettingsVerdict => {
      // The runtime hands the refusal back untouched; it is a tool result of the shell's making.
      if ("refusal" in s) return { verdict: "refused", result: s.refusal as ToolResult };
      if (s.applied === undefined || s.key === previous.key) return { verdict: "same" };
      return { verdict: "other", ...s.applied };
    });
    const own = settled.then((s) =>
      "applied" in s && s.applied !== undefined ? s.applied : applied,
    );
    // Awaited later (the runtime's gate; a confirmation's second run), maybe only after they
    // settle: a rejection is the call's, as when the snapshot is read first, never the process's.
    gate.catch(() => undefined);
    own.catch(() => undefined);
    return { applied, gate, own };
  }

  /** An admitted call (or its refusal by the admission gate): settings, confirmation, the run. */
  async function admitted(call: GatewayCall): Promise<CallToolResult> {
    const { parsed, writeClass, ctx, signal, barrier } = call;
    const outcome = await admission.admit<
      {
        confirmed: boolean;
        applied: Applied | undefined;
        beside?: { gate: Promise<SettingsVerdict>; own: Promise<Applied> };
      },
      CallToolResult
    >(
      writeClass ? "write" : "read",
      signal,
      async () => {
        // Admitted first, then the settings: a call refused with `queue_full` costs no kernel read.
        const beside = besideReads(call);
        if (beside !== undefined) {
          const { applied, ...pending } = beside;
          return { go: { confirmed: false, applied, beside: pending } };
        }
        const settled = await settingsOf(call);
        if ("refusal" in settled) return { stop: settled.refusal };
        const { applied } = settled;
        if (forOtherEpoch(ctx)) return { stop: otherEpochRefusal() };
        if (confirmsFirst(parsed)) {
          const verdict = await confirm({ ...call, permissions: applied?.permissions });
          if (!verdict.ok) return { stop: verdict.result };
          return { go: { confirmed: true, applied } };
        }
        return { go: { confirmed: false, applied } };
      },
      async ({ confirmed, applied, beside }) => {
        const run = (
          withConfirmation: boolean,
          under: Applied | undefined,
          settingsGate?: Promise<SettingsVerdict>,
        ) => {
          if (role.kind === "delegate" && writeClass) {
            const forwarded = withConfirmation ? { ...parsed.args, confirm: true } : parsed.args;
            return role.link.call(parsed.tool, forwarded, signal, !parsed.validateOnly);
          }
          return runtime.run(parsed, {
            signal,
            confirmed: withConfirmation,
            ...(barrier === undefined ? {} : { cancellation: barrier.cancellation }),
            ...(under === undefined ? {} : under),
            ...(settingsGate === undefined ? {} : { settingsGate }),
          });
        };
        const result = await run(confirmed, applied, beside?.gate);
        if (parsed.validateOnly) return preflightAnswer(result, call, applied?.permissions);
        // An action whose danger depends on the state (block.move to another document): its
        // commit answered `confirmation_required` from the probe, before any write and with its
        // lease kept. Confirm as for any dangerous action, then run it again, confirmed.
        if (!writeClass || confirmed || errorCodeOf(result) !== "confirmation_required") {
          return result;
        }
        // The first run settled its barrier handle; the second one passes the barrier on its own.
        if (barrier !== undefined) barrier.cancellation = new WriteCancellation();
        // Its first run answered under the call's own settings: so does the confirmed one.
        const own = beside === undefined ? applied : await beside.own;
        const verdict = await confirm({ ...call, permissions: own?.permissions });
        return verdict.ok ? run(true, own) : verdict.result;
      },
    );
    if (isAdmissionRefusal(outcome)) return admissionRefusalResult(outcome, admission.cap);
    return outcome;
  }
}
