/**
 * The tool runtime: runs a call parsed once by `parseCall` (and classified there by the policy
 * table) — reads straight against the kernel, mutations and external effects through the write
 * coordinator. It opens no sockets and picks no authority: the shells pass in a client and (when they are the
 * authority) a coordinator.
 */
import { stateHash } from "@sisyphus/core-hash";
import type { SiyuanClient } from "@sisyphus/siyuan-api/kernel";
import { isSiyuanApiError } from "@sisyphus/siyuan-api/kernel";
import {
  type CommitAnswer,
  type ExecuteContext,
  isWriteSafetyError,
  type PreflightAnswer,
  type ProbeResult,
  type WriteCall,
  WriteCancellation,
  type WriteCoordinator,
  WriteSafetyError,
} from "@sisyphus/write-safety";
import type { AppliedMutation, BoundExternal, BoundRead } from "./dispatch.js";
import { isToolError, ToolError } from "./errors.js";
import type { CreationLog, Probed, SystemInfo, ToolContext } from "./handler.js";
import type { KernelWrites } from "./kernel.js";
import { kernelFromClient } from "./kernel-client.js";
import type { OutputSink } from "./output.js";
import { type CallSettings, changesReads, readsBeside } from "./own-settings.js";
import { type ParsedCall, parseCall, type ValidCall } from "./parsed-call.js";
import {
  FULL_ACCESS,
  grantsEverywhere,
  type Permission,
  type PermissionMap,
  requirePermission,
} from "./permissions.js";
import { READ_BUDGET_LIMITS, ReadBudget, type ReadBudgetLimits } from "./read-budget.js";
import { ReadCheckpoint } from "./read-checkpoint.js";
import { type CallOptions, DEFAULT_SETTINGS, OPTION_LIMITS } from "./settings.js";
import { readSource, type SourceReader } from "./source.js";
import { describeTargets } from "./subject.js";
import { describeTools, type ToolDescriptor } from "./surface.js";
import { turnedOff } from "./tool-access.js";
import { errorResult, type ToolResult } from "./tool-result.js";
import type { FeedbackSender } from "./tools/feedback.js";

/** Which process coordinates strict writes. */
export interface AuthorityInfo {
  readonly kind: "node-http" | "kernel" | "delegating";
  readonly epoch: string;
}

/** Runtime configuration. */
export interface ToolRuntimeConfig {
  /** Strict Safe Writes on (default true). Must match the coordinator's own setting. */
  readonly strict?: boolean;
  /** Loaded fresh for every call; default: full access (dangerous actions still need confirmation). */
  readonly loadPermissions?: () => PermissionMap | Promise<PermissionMap>;
  readonly authority?: AuthorityInfo;
  /** Aggregate counts the shell adds to `system.health` (queues, sessions). */
  readonly health?: () => Record<string, unknown>;
  /** The read budget of every read action (default: the spec's 128 calls and 8 MiB). */
  readonly readBudget?: ReadBudgetLimits;
}

/** Options of {@link createToolRuntime}. */
export interface ToolRuntimeOptions {
  readonly client: SiyuanClient;
  /** Absent in a delegating process: strict calls then fail with `write_coordinator_unavailable`. */
  readonly coordinator?: WriteCoordinator | undefined;
  readonly config?: ToolRuntimeConfig;
  /**
   * Reads upload sources (`file.upload_asset`): the Node server's reads absolute local paths, the
   * kernel plugin's resolves staging handles. Absent: every source is `source_unavailable`.
   */
  readonly sources?: SourceReader | undefined;
  /**
   * Saves exports (`file.export_resources`, `file.extract_doc`) on this host: the Node authority's
   * writes local files. Absent (the kernel): exports answer `delivery: "download"` manifests.
   */
  readonly outputs?: OutputSink | undefined;
  /** Sends `feedback.submit` (the Node server's posts over HTTP). Absent: `feedback_unavailable`. */
  readonly feedback?: FeedbackSender | undefined;
}

/** Per-call context from the shell. */
export interface CallContext {
  readonly signal?: AbortSignal | undefined;
  /** The shell obtained the user's confirmation for a dangerous action. */
  readonly confirmed?: boolean | undefined;
  /**
   * The call's handle at the coordinator's cancellation barrier, when the shell needs to know
   * whether a cancellation was accepted (its shutdown cut-off); a new one otherwise. `signal`
   * aborting cancels it either way.
   */
  readonly cancellation?: WriteCancellation | undefined;
  /**
   * The permission snapshot the shell already read for this call (with the rest of the settings,
   * in one read); without it the runtime's `loadPermissions` runs.
   */
  readonly permissions?: PermissionMap | undefined;
  /**
   * The kernel options of this call's settings snapshot: the attempts of each idempotent kernel
   * read (`readRetries`), the default `pageSize` of paged reads and the template body budget.
   * Absent: the client's retry policy and the defaults.
   */
  readonly options?: CallOptions | undefined;
  /**
   * This call's own settings snapshot, still being read when the call starts (the shell reads it
   * beside the call's first kernel reads instead of before them): `permissions` and `options`
   * above are then the shell's previous snapshot, which the call's first kernel reads run under.
   * The call's own verdict is met before any write can leave and before any result is returned:
   * a mutation meets it in its probe, beside the probe's reads and before the permission check
   * (so before a request ID is issued, an `executing` record written or a write sent); a road
   * without a probe in front of its writes (an external effect, strict mode off, a resumable
   * creation) meets it before the coordinator; a read meets it before it answers. Until then its
   * kernel reads are sent once each, and one that fails in a way a retry could cure is retried as
   * the call's own snapshot says (`readsBeside`). `same`: the call ran under its own settings.
   * `refused`: that result is the answer, and nothing was written. `other`: a write-class call
   * adopts them where it meets them (probing again under them if they could change what it read);
   * any other call whose reads they could change runs again under them (a read wrote nothing).
   * A rejection is the call's.
   */
  readonly settingsGate?: Promise<SettingsVerdict> | undefined;
}

/** What a call's own settings snapshot says of the settings it started under (see `settingsGate`). */
export type SettingsVerdict =
  | { readonly verdict: "same" }
  | { readonly verdict: "refused"; readonly result: ToolResult }
  | {
      readonly verdict: "other";
      readonly permissions: PermissionMap;
      readonly options: CallOptions;
    };

/** Stops a call its own settings refuse, at its gate; the runtime answers their refusal instead. */
class RefusedBySettings extends Error {}

/**
 * A write-class call's meeting with its own settings (`CallContext.settingsGate`): `meet()`
 * resolves, the first time, to the context of its own settings and whether what the call read so
 * far must be read again under them (they differ from those it started under in more than the
 * read attempts); afterwards to `undefined` (the call runs under them). It throws
 * `RefusedBySettings` when they refuse the call.
 */
interface SettingsGate {
  meet(): Promise<{ readonly ctx: ToolContext; readonly readAgain: boolean } | undefined>;
}

/** How a call that starts before it knows its own settings meets them (see `callTool`). */
interface Beside {
  /** The settings the call started under (the shell's previous snapshot). */
  readonly startedUnder: CallSettings;
  /** The read attempts of the call's own snapshot, once known. */
  readonly ownAttempts: () => Promise<number>;
  /** The gate of a write-class call, given the context its own settings make. */
  readonly gateFor: (contextFor: (own: CallSettings) => ToolContext) => SettingsGate;
  /** Told by the run that its paged read took the settings' page size. */
  readonly pageSizeDefaulted: () => void;
}

/** The runtime's surface. */
export interface ToolRuntime {
  /**
   * The advertised tools, without those `disabled` turns off (settings' `"tool"`/`"tool.action"`
   * entries); a list naming something the catalog lacks is unusable and lists every tool (each
   * call then answers the settings refusal).
   */
  listTools(disabled?: readonly string[]): ToolDescriptor[];
  /**
   * Runs one call parsed by `parseCall` (a shell parses each call once and hands the same
   * {@link ParsedCall} to every step): an invalid call answers its parse error, nothing ran.
   */
  run(call: ParsedCall, context?: CallContext): Promise<ToolResult>;
  /** Parses the call and runs it: `run(parseCall(tool, args), context)`. */
  callTool(tool: string, args: Record<string, unknown>, context?: CallContext): Promise<ToolResult>;
  /**
   * The checks a commit makes before it reads anything (request ID, ledger record, arguments,
   * credential, lease; see `WriteCoordinator.precheck`), without consuming or executing:
   * `undefined` when they pass or there is nothing to check here (reads, preflights, a process
   * without a coordinator), else the error result the commit would answer (an invalid call: its
   * parse error). Shells run it before asking the user to confirm a dangerous action.
   */
  precheck(call: ParsedCall): ToolResult | undefined;
  /**
   * What a dangerous call would remove or move, for the person asked to confirm it (`subject.ts`):
   * bounded reads, no write, never inside the write lane; `undefined` when there is nothing to say
   * (not a mutation, no readable block target, a read failed). Never throws. `permissions`: the
   * call's own (absent: the runtime's `loadPermissions`).
   */
  describe(call: ParsedCall, permissions?: PermissionMap): Promise<string | undefined>;
  /** Aggregate read-budget counters for a shell's `/health` (no IDs, no content). */
  readBudgetCounts(): ReadBudgetCounts;
  /**
   * This process's FIFO write lane, the coordinator's, for calls that are not preflights or
   * commits but share its lane (spec: "App session entry points use a separate FIFO admission
   * lane with concurrency 1"); `undefined` without a coordinator (a delegating process forwards
   * such calls to its authority).
   */
  readonly writeLane: WriteLanePort | undefined;
}

/**
 * Runs `body` alone in the write lane, first come first served, behind the mutations queued
 * before it: `{ ran: true, value }`, or `{ ran: false }` when `signal` aborted before `body`
 * started (it left the lane without running).
 * @throws WriteSafetyError `queue_full` (the lane's cap), `write_coordinator_unavailable`
 *   (`draining`); `body`'s own errors propagate.
 */
export type WriteLanePort = <T>(
  signal: AbortSignal | undefined,
  body: () => Promise<T>,
) => Promise<{ readonly ran: true; readonly value: T } | { readonly ran: false }>;

/** How many read actions ran under a read budget, and how many exceeded it (by limit). */
export interface ReadBudgetCounts {
  readonly reads: number;
  readonly exceededCalls: number;
  readonly exceededBytes: number;
}

/** The lease-scope targets of a mutation: its handler's, without empty IDs. */
function targetsOf<S, E>(m: AppliedMutation<S, E>): string[] {
  return m.targets().filter((t) => t !== "");
}

function ok(data: unknown): ToolResult {
  const structuredContent = (
    typeof data === "object" && data !== null && !Array.isArray(data) ? data : { result: data }
  ) as Record<string, unknown>;
  return {
    content: [{ type: "text", text: JSON.stringify(structuredContent) }],
    structuredContent,
  };
}

/** The ledger's record of one execution's creation progress, as handlers see it. */
function creationLog(exec: ExecuteContext): CreationLog {
  return { resumed: exec.resumed, record: (step) => exec.recordCreation(step) };
}

/** The most characters of Kramdown a `state_changed` answer carries as `details.current`. */
const STATE_CHANGED_CURRENT_MAX_CHARS = 16_000;

/** How many characters of Kramdown a block ID → Kramdown map holds. */
function charsOf(kramdowns: Readonly<Record<string, string>>): number {
  return Object.values(kramdowns).reduce((n, k) => n + k.length, 0);
}

/**
 * A commit refused with `state_changed` carries what its re-probe read of the targets
 * (`Probed.current`) as `details.current`, when it is small enough: the agent decides on the target
 * as it is now without another read. Every other outcome passes through unchanged.
 */
async function withCurrent<T>(
  commit: () => Promise<T>,
  current: () => Readonly<Record<string, string>> | undefined,
): Promise<T> {
  try {
    return await commit();
  } catch (e) {
    const now = current();
    if (!isWriteSafetyError(e) || e.code !== "state_changed" || now === undefined) throw e;
    if (charsOf(now) > STATE_CHANGED_CURRENT_MAX_CHARS) throw e;
    throw new WriteSafetyError("state_changed", {
      message: e.message,
      details: { ...e.details, current: now },
      writeAttempted: e.writeAttempted,
      writeExecuted: e.writeExecuted,
      cause: e,
    });
  }
}

/** At most this many characters of written blocks' Kramdown in a commit's answer (`current`). */
export const COMMIT_CURRENT_MAX_CHARS = 4_000;

/**
 * A commit that wrote now answers the written blocks as its readback read them (`current`: block
 * ID → Kramdown, D-357), when small enough, so the agent sees the result without another read. A
 * replay (this call wrote nothing; the ledger holds no note content) answers the target as its
 * probe read it just now, only when that read found the stored result (`targetNow: holds_result`,
 * D-360). Every other answer passes through unchanged.
 */
function withShown<T>(
  answer: T,
  shown: Readonly<Record<string, string>> | undefined,
  readNow: Readonly<Record<string, string>> | undefined,
): T {
  if (typeof answer !== "object" || answer === null) return answer;
  const a = answer as Record<string, unknown>;
  const current =
    a["executedNow"] === true
      ? shown
      : a["replayed"] === true && a["targetNow"] === "holds_result"
        ? readNow
        : undefined;
  if (current === undefined || charsOf(current) > COMMIT_CURRENT_MAX_CHARS) return answer;
  return { ...answer, current };
}

function fromError(e: unknown): ToolResult {
  if (isWriteSafetyError(e)) {
    const j = (e as WriteSafetyError).toJSON();
    return errorResult({ ...j });
  }
  if (isToolError(e))
    return errorResult({
      code: e.code,
      message: e.message,
      hint: e.hint,
      ...e.details,
      writeAttempted: false,
    });
  if (isSiyuanApiError(e)) {
    const code =
      e.code === "not_dispatched" || e.code === "outcome_unknown"
        ? "kernel_unavailable"
        : "kernel_error";
    return errorResult({
      code,
      message: e.message,
      kernelCode: e.code,
      writeAttempted: false,
    });
  }
  return errorResult({
    code: "internal_error",
    message: e instanceof Error ? e.message : String(e),
    writeAttempted: false,
  });
}

/**
 * Creates the runtime. Every call loads permissions fresh, validates before any kernel call, and
 * sends mutations through the coordinator (preflight with `validateOnly`, otherwise commit).
 */
export function createToolRuntime(options: ToolRuntimeOptions): ToolRuntime {
  // The write port stays here: handlers get it only tracked, inside the coordinator's execute.
  const { reads: kernel, writes: kernelWrites } = kernelFromClient(options.client);
  const coordinator = options.coordinator;
  const config = options.config ?? {};
  const strict = config.strict ?? coordinator?.strict ?? true;
  const loadPermissions = config.loadPermissions ?? (() => FULL_ACCESS);
  const descriptors = describeTools(strict);
  /** The last list with turned-off entries, by its `disabled` key: settings rarely change. */
  let lastListed: { key: string; tools: ToolDescriptor[] } | undefined;
  /** The kernel ports, per number of read attempts a call's settings ask for. */
  const portsByRetries = new Map<
    number,
    { client: SiyuanClient } & ReturnType<typeof kernelFromClient>
  >();

  function listTools(disabled: readonly string[] = []): ToolDescriptor[] {
    if (disabled.length === 0) return descriptors;
    const key = disabled.join("\n");
    if (lastListed?.key !== key) {
      const off = turnedOff(disabled);
      lastListed = {
        key,
        tools: off.unknown.length > 0 ? descriptors : describeTools(strict, off),
      };
    }
    return lastListed.tools;
  }

  /** The client and kernel ports of a call: the runtime's own, or a view with its read attempts. */
  function portsFor(readRetries: number | undefined) {
    if (readRetries === undefined)
      return { client: options.client, reads: kernel, writes: kernelWrites };
    let ports = portsByRetries.get(readRetries);
    if (ports === undefined) {
      const client = options.client.withReadRetry({ maxAttempts: readRetries });
      ports = { client, ...kernelFromClient(client) };
      portsByRetries.set(readRetries, ports);
    }
    return ports;
  }
  const readBudget = { reads: 0, exceededCalls: 0, exceededBytes: 0 };

  const info: SystemInfo = {
    strict,
    authority: config.authority ?? {
      kind: coordinator ? "node-http" : "delegating",
      epoch: coordinator?.epoch ?? "",
    },
    health: () => ({
      ...(coordinator ? { coordinator: coordinator.health() } : {}),
      ...(config.health?.() ?? {}),
    }),
  };

  /**
   * A read action under its own read budget and checkpoint: its kernel port is a view of the
   * client charged to both. A read cancelled while it runs answers `cancelled` at its next kernel
   * call (`read-checkpoint.ts`), an exceeded budget `read_budget_exceeded`, whatever the handler
   * did with the client's error.
   */
  async function runBudgetedRead(
    ctx: ToolContext,
    read: BoundRead,
    client: SiyuanClient,
    beside: Beside | undefined,
  ) {
    const budget = new ReadBudget(config.readBudget);
    readBudget.reads++;
    // The checkpoint first: a call it stops is not charged to the budget.
    const checkpoint = new ReadCheckpoint(ctx.signal);
    const budgeted = client.withBudget(checkpoint).withBudget(budget);
    const reads =
      beside === undefined
        ? kernelFromClient(budgeted).reads
        : readsBeside(budgeted, beside.ownAttempts);
    let result: unknown;
    try {
      result = await runRead({ ...ctx, kernel: reads }, read);
    } catch (e) {
      if (budget.exceeded === undefined && checkpoint.stopped === undefined) throw e;
    }
    if (checkpoint.stopped !== undefined) throw checkpoint.stopped;
    if (budget.exceeded !== undefined) {
      if (budget.exceeded === "calls") readBudget.exceededCalls++;
      else readBudget.exceededBytes++;
      const limits = config.readBudget ?? READ_BUDGET_LIMITS;
      throw new ToolError(
        "read_budget_exceeded",
        budget.exceeded === "calls"
          ? `this read needed more than ${limits.maxCalls} kernel calls`
          : `this read received more than ${limits.maxDecodedBytes} bytes from the kernel`,
        { limit: budget.exceeded, ...budget.usage() },
      );
    }
    return result;
  }

  async function runRead(ctx: ToolContext, read: BoundRead) {
    if (read.notebooks && !grantsEverywhere(ctx.permissions, "read")) {
      requirePermission(ctx.permissions, await read.notebooks(ctx), "read");
    }
    return read.run(ctx);
  }

  async function runExternal(
    ctx: ToolContext,
    external: BoundExternal,
    call: WriteCall,
    validateOnly: boolean,
    kernelWrites: KernelWrites,
  ) {
    const c = coordinator as WriteCoordinator;
    if (validateOnly) return c.preflight(call);
    // A tool error from an external handler means its effect did not happen (an export whose
    // destination exists, or whose partial output it removed): answered as that typed error, not
    // as the unknown outcome of the kernel calls it made on the way.
    let refused: unknown;
    const answer = await c.commit(call, {
      execute: async (exec) => {
        try {
          return {
            receipt: {
              result: await external.run({
                ...ctx,
                write: exec.writes(kernelWrites),
                creation: creationLog(exec),
              }),
            },
          };
        } catch (e) {
          if (!isToolError(e)) throw e;
          refused = e;
          return {};
        }
      },
    });
    if (refused !== undefined) throw refused;
    return answer;
  }

  /**
   * A mutation through the coordinator. What the handler's probe saw and what its executor
   * returned stay here, typed as the handler's own: the coordinator's `before` is always the
   * probe it just ran (the last one), and its `executed` the one execution.
   */
  async function runMutation<S, E>(
    startedUnder: ToolContext,
    p: ValidCall,
    m: AppliedMutation<S, E>,
    call: WriteCall,
    confirmed: boolean,
    kernelWrites: KernelWrites,
    gate: SettingsGate | undefined,
  ): Promise<PreflightAnswer | CommitAnswer | { status: "cancelled" }> {
    const c = coordinator as WriteCoordinator;
    /** The call's context: the one it started under until it meets its own settings. */
    let ctx = startedUnder;
    let probed: Probed<S> | undefined;
    /** The handler's probe, beside the call's own settings when they are still being read. */
    const probeUnderOwnSettings = async (): Promise<Probed<S>> => {
      if (gate === undefined) return m.probe(ctx);
      const [seen, own] = await Promise.allSettled([m.probe(ctx), gate.meet()]);
      if (own.status === "rejected") throw own.reason;
      if (own.value !== undefined) {
        ctx = own.value.ctx;
        // Read under other settings: what it saw (or how it failed) may not hold under its own.
        if (own.value.readAgain) return m.probe(ctx);
      }
      if (seen.status === "rejected") throw seen.reason;
      return seen.value;
    };
    const probe = async (): Promise<ProbeResult> => {
      const seen = await probeUnderOwnSettings();
      requirePermission(ctx.permissions, seen.notebooks, ctx.needs);
      if (seen.notebooks.length === 0 && !grantsEverywhere(ctx.permissions, ctx.needs)) {
        requirePermission(ctx.permissions, ["(workspace)"], ctx.needs);
      }
      // A state-dependent danger (block.move to another document) is decided by this probe, at
      // commit as at preflight; refused here, the commit has written nothing and keeps its lease.
      if (ctx.phase === "commit" && seen.dangerous === true && !confirmed) {
        throw new ToolError(
          "confirmation_required",
          `${p.surface.tool}.${p.surface.action} crosses documents and needs the user's confirmation`,
          { writeAttempted: false },
        );
      }
      probed = seen;
      return { digest: seen.digest ?? stateHash(seen.state) };
    };
    if (p.safety.validateOnly === true) {
      // The preflight answer also says what the commit will report without readback (`summary`,
      // e.g. targetCount) and what the probe noted (`preflightNotes`, e.g. a sort-mode switch);
      // the coordinator's safety fields win on a name clash.
      // Additive actions lease no digest, but their preflight still proves the anchor exists and
      // the permission holds before a request ID is issued.
      if (call.policy?.kind === "mutation" && call.policy.precondition === "none") await probe();
      const answer = await c.preflight(call, probe);
      if (!("validateOnly" in answer)) return answer;
      const extra: Record<string, unknown> = { ...m.summary(), ...probed?.preflightNotes };
      if (p.surface.dangerous !== false) {
        // The shell adds how it will ask (`confirmation`), since only it knows the client.
        extra["confirmationRequired"] = p.surface.dangerous === true || probed?.dangerous === true;
      }
      return Object.keys(extra).length === 0 ? answer : { ...extra, ...answer };
    }
    let executed: { readonly value: E; readonly before: Probed<S> } | undefined;
    let shown: Readonly<Record<string, string>> | undefined;
    // A strict commit probes before its `executing` record and its writes. Strict mode off runs no
    // probe first, and a resumed creation answers a failed probe with outcome_unknown: both meet
    // their own settings before the coordinator starts.
    if (gate !== undefined && (!c.strict || m.resumable === true)) {
      ctx = (await gate.meet())?.ctx ?? ctx;
    }
    const answer = await withCurrent(
      () =>
        c.commit(call, {
          resumable: m.resumable,
          replayComparable: m.replayComparable,
          probe,
          execute: async (exec) => {
            // Strict mode off runs no coordinator probe; the executor still needs what the probe knows
            // (e.g. the attributes an update must keep).
            const before = (exec.before === undefined ? undefined : probed) ?? (await m.probe(ctx));
            const value = await m.execute(
              { ...ctx, write: exec.writes(kernelWrites), creation: creationLog(exec) },
              before,
            );
            executed = { value, before };
            const receipt = m.summary();
            return receipt ? { receipt } : {};
          },
          readback: async ({ before }) => {
            if (executed === undefined) throw new Error("readback before execute");
            const r = await m.readback(ctx, executed.before, executed.value);
            shown = r.verdict === "mismatch" ? undefined : r.shown;
            const digest = stateHash(r.state);
            if (r.verdict === "mismatch")
              return { outcome: "mismatch", reason: r.reason ?? "readback mismatch", digest };
            // `no_change` may only mean "the live state already was what you asked", which the handler
            // decides from the request and the before-state (`unchanged`). A handler whose request
            // changes something must show a state that differs from before: the same state after a
            // write that said yes is a silently dropped write, never "nothing to do".
            const priorDigest =
              before?.digest ?? executed.before.digest ?? stateHash(executed.before.state);
            if (r.verdict === "applied" && digest === priorDigest)
              return {
                outcome: "mismatch",
                reason:
                  "the kernel answered success but the state is unchanged although the request changes it",
                digest,
              };
            return r.receipt
              ? { outcome: "applied", digest, receipt: r.receipt }
              : { outcome: "applied", digest };
          },
        }),
      () => probed?.current,
    );
    return withShown(answer, shown, m.showsWritten ? probed?.current : undefined);
  }

  /**
   * A call whose own settings are still being read (`context.settingsGate`) runs under the
   * previous snapshot until it meets them, and answers only under its own: their refusal, its
   * result, or — a call that did not adopt them where it met them (a read, an invalid call) — the
   * call run again under them. A write-class call is never run again: it adopts them at its gate,
   * before anything it does depends on them, or never consulted them (refused earlier by the
   * coordinator's own checks, which no setting changes).
   */
  async function run(call: ParsedCall, context: CallContext = {}): Promise<ToolResult> {
    const pending = context.settingsGate;
    if (pending === undefined) return runCall(call, context, undefined);
    const startedUnder: CallSettings = {
      permissions: context.permissions ?? (await loadPermissions()),
      options: context.options ?? DEFAULT_SETTINGS.options,
    };
    let writeClass = false;
    let paged = false;
    let met = false;
    const beside: Beside = {
      startedUnder,
      pageSizeDefaulted() {
        paged = true;
      },
      async ownAttempts() {
        const own = await pending;
        if (own.verdict === "refused") return 1;
        return (own.verdict === "other" ? own : startedUnder).options.readRetries;
      },
      gateFor(contextFor) {
        writeClass = true;
        return {
          async meet() {
            const own = await pending;
            if (own.verdict === "refused") throw new RefusedBySettings();
            if (met) return undefined;
            met = true;
            if (own.verdict === "same") return { ctx: contextFor(startedUnder), readAgain: false };
            return { ctx: contextFor(own), readAgain: changesReads(startedUnder, own, false) };
          },
        };
      },
    };
    const first = await runCall(call, { ...context, ...startedUnder }, beside);
    const own = await pending;
    if (own.verdict === "refused") return own.result;
    if (own.verdict === "same" || writeClass || !changesReads(startedUnder, own, paged)) {
      return first;
    }
    const { settingsGate: _met, ...rest } = context;
    return runCall(
      call,
      { ...rest, permissions: own.permissions, options: own.options },
      undefined,
    );
  }

  async function runCall(
    p: ParsedCall,
    context: CallContext,
    beside: Beside | undefined,
  ): Promise<ToolResult> {
    if (p.kind === "invalid") return fromError(p.error);
    try {
      const { tool, policy, validateOnly } = p;
      if (p.pageSizeDefaulted) beside?.pageSizeDefaulted();
      const bound = p.boundUnder(context.options?.pageSize);
      const { handler } = bound;
      const needs: Permission =
        policy.kind === "read" ? "read" : p.surface.dangerous ? "delete" : "write";
      const ports = portsFor(context.options?.readRetries);
      const contextFor = (under: CallContext, permissions: PermissionMap): ToolContext => ({
        kernel: portsFor(under.options?.readRetries).reads,
        permissions,
        needs,
        phase: policy.kind === "read" ? "read" : validateOnly ? "preflight" : "commit",
        system: info,
        readSource: (ref) => readSource(options.sources, ref),
        templateBudgetBytes:
          under.options?.templateBudgetBytes ?? OPTION_LIMITS.templateBudgetBytes.default,
        ...(options.outputs ? { output: options.outputs } : {}),
        feedbackUrl: under.options?.feedbackUrl ?? null,
        ...(options.feedback ? { feedback: options.feedback } : {}),
        ...(context.signal ? { signal: context.signal } : {}),
      });
      const ctx = contextFor(context, context.permissions ?? (await loadPermissions()));
      if (handler.kind !== policy.kind)
        throw new ToolError(
          "internal_error",
          `${tool}.${p.surface.action} is a ${policy.kind} action with a ${handler.kind} handler`,
        );
      if (handler.kind === "read")
        return ok(await runBudgetedRead(ctx, handler, ports.client, beside));
      // A write-class call meets its own settings where they decide, and adopts them there; until
      // then its reads make the attempts its own settings allow.
      const gate = beside?.gateFor((own) => contextFor(own, own.permissions));
      const beforeGate =
        beside === undefined
          ? ctx
          : { ...ctx, kernel: readsBeside(ports.client, beside.ownAttempts) };
      if (p.surface.dangerous === true && !validateOnly && context.confirmed !== true) {
        throw new ToolError(
          "confirmation_required",
          `${tool}.${p.surface.action} is dangerous and needs the user's confirmation`,
          { writeAttempted: false },
        );
      }
      if (!coordinator)
        throw new WriteSafetyError("write_coordinator_unavailable", {
          details: { reason: "no_local_authority" },
        });
      const cancellation = context.cancellation ?? new WriteCancellation();
      // A signal aborted before the call came in never fires its event: cancel now.
      if (context.signal?.aborted === true) cancellation.cancel();
      else context.signal?.addEventListener("abort", () => cancellation.cancel(), { once: true });
      const call: WriteCall = {
        tool,
        action: p.surface.action,
        policy,
        args: { ...bound.args, ...p.safety },
        targetIds: [],
        cancellation,
      };
      if (handler.kind === "external") {
        // An external effect has no probe in front of its writes: its settings first.
        const own = gate === undefined ? undefined : await gate.meet();
        return ok(await runExternal(own?.ctx ?? ctx, handler, call, validateOnly, ports.writes));
      }
      return ok(
        await handler.open((m) =>
          runMutation(
            beforeGate,
            p,
            m,
            { ...call, targetIds: targetsOf(m) },
            context.confirmed === true,
            ports.writes,
            gate,
          ),
        ),
      );
    } catch (e) {
      return fromError(e);
    }
  }

  function precheck(p: ParsedCall): ToolResult | undefined {
    if (p.kind === "invalid") return fromError(p.error);
    try {
      const { policy } = p;
      if (policy.kind === "read" || p.validateOnly || !coordinator) return undefined;
      const { handler, args } = p.boundUnder(undefined);
      coordinator.precheck({
        tool: p.tool,
        action: p.action,
        policy,
        args: { ...args, ...p.safety },
        targetIds: handler.kind === "mutation" ? handler.open(targetsOf) : [],
      });
      return undefined;
    } catch (e) {
      return fromError(e);
    }
  }

  async function describe(p: ParsedCall, permissions?: PermissionMap): Promise<string | undefined> {
    if (p.kind !== "mutation") return undefined;
    try {
      const { handler } = p.boundUnder(undefined);
      if (handler.kind !== "mutation") return undefined;
      return await describeTargets(
        kernel,
        handler.open(targetsOf),
        permissions ?? (await loadPermissions()),
      );
    } catch {
      return undefined;
    }
  }

  return {
    listTools,
    run,
    callTool: (tool, args, context) => run(parseCall(tool, args), context),
    precheck,
    describe,
    readBudgetCounts: () => ({ ...readBudget }),
    writeLane: coordinator === undefined ? undefined : laneOf(coordinator),
  };
}

/** The coordinator's lane as a {@link WriteLanePort}: `signal` cancels the call while it waits. */
function laneOf(coordinator: WriteCoordinator): WriteLanePort {
  return async <T>(signal: AbortSignal | undefined, body: () => Promise<T>) => {
    const cancellation = new WriteCancellation();
    if (signal?.aborted === true) cancellation.cancel();
    else signal?.addEventListener("abort", () => cancellation.cancel(), { once: true });
    const outcome = await coordinator.exclusive(cancellation, async () => ({
      ran: true as const,
      value: await body(),
    }));
    return "ran" in outcome ? outcome : { ran: false as const };
  };
}

export type { PermissionMap };
