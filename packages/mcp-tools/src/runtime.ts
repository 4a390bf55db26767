/**
 * The tool runtime: validates a call, classifies it by the policy table, and runs it — reads
 * straight against the kernel, mutations and external effects through the write coordinator.
 * It opens no sockets and picks no authority: the shells pass in a client and (when they are the
 * authority) a coordinator.
 */
import { stateHash } from "@sisyphus/core-hash";
import type { SiyuanClient } from "@sisyphus/siyuan-api/kernel";
import { isSiyuanApiError } from "@sisyphus/siyuan-api/kernel";
import {
  type CommitAnswer,
  isWriteSafetyError,
  type PreflightAnswer,
  type ProbeResult,
  type WriteCall,
  WriteCancellation,
  type WriteCoordinator,
  WriteSafetyError,
} from "@sisyphus/write-safety";
import type { z } from "zod";
import { safetyFields, splitArguments } from "./args.js";
import {
  ACTIONS,
  type ActionSurface,
  findAction,
  policyOf,
  TOOL_NAMES,
  type ToolName,
} from "./catalog.js";
import type {
  ExternalHandler,
  MutationHandler,
  Probed,
  RunHandler,
  ToolContext,
  ToolHandlers,
} from "./handler.js";
import { isToolError, ToolError } from "./handler.js";
import { kernelFromClient } from "./kernel-client.js";
import {
  FULL_ACCESS,
  grantsEverywhere,
  type Permission,
  type PermissionMap,
  requirePermission,
} from "./permissions.js";
import { describeTools, type ToolDescriptor } from "./surface.js";
import { blockHandlers } from "./tools/block.js";
import { documentHandlers } from "./tools/document.js";
import { fsHandlers } from "./tools/fs.js";
import { notebookHandlers } from "./tools/notebook.js";
import { searchHandlers } from "./tools/search.js";
import { type SystemInfo, systemHandlers } from "./tools/system.js";
import { tagHandlers } from "./tools/tag.js";

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
}

/** Options of {@link createToolRuntime}. */
export interface ToolRuntimeOptions {
  readonly client: SiyuanClient;
  /** Absent in a delegating process: strict calls then fail with `write_coordinator_unavailable`. */
  readonly coordinator?: WriteCoordinator | undefined;
  readonly config?: ToolRuntimeConfig;
}

/** Per-call context from the shell. */
export interface CallContext {
  readonly signal?: AbortSignal | undefined;
  /** The shell obtained the user's confirmation for a dangerous action. */
  readonly confirmed?: boolean | undefined;
}

/** The MCP tool result shape. */
export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: "text"; text: string }>;
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

/** How a call is classified before it runs. */
export interface CallClass {
  readonly kind: "read" | "mutation" | "external" | "invalid";
  readonly dangerous: boolean;
  readonly validateOnly: boolean;
}

/** The runtime's surface. */
export interface ToolRuntime {
  listTools(): ToolDescriptor[];
  classify(tool: string, args: Record<string, unknown>): CallClass;
  callTool(tool: string, args: Record<string, unknown>, context?: CallContext): Promise<ToolResult>;
  /**
   * The checks a commit makes before it reads anything (request ID, ledger record, arguments,
   * credential, lease; see `WriteCoordinator.precheck`), without consuming or executing:
   * `undefined` when they pass or there is nothing to check here (reads, preflights, a process
   * without a coordinator), else the error result the commit would answer. Shells run it before
   * asking the user to confirm a dangerous action.
   */
  precheck(tool: string, args: Record<string, unknown>): ToolResult | undefined;
}

const HANDLERS: Record<ToolName, ToolHandlers> = {
  block: blockHandlers,
  document: documentHandlers,
  fs: fsHandlers,
  notebook: notebookHandlers,
  search: searchHandlers,
  tag: tagHandlers,
  system: systemHandlers,
};

/** The handler entry of an action; a test checks every catalog action has exactly the right kind. */
export function handlerOf(surface: ActionSurface) {
  return HANDLERS[surface.tool][surface.action];
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

/** An error result: `structuredContent.error` carries `code` and `hint` (the caller's next step). */
export function errorResult(error: {
  code: string;
  message: string;
  hint: string;
  [k: string]: unknown;
}): ToolResult {
  const structuredContent = { error };
  return {
    content: [{ type: "text", text: JSON.stringify(structuredContent) }],
    structuredContent,
    isError: true,
  };
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
    const unavailable = e.code === "not_dispatched" || e.code === "outcome_unknown";
    return errorResult({
      code: unavailable ? "kernel_unavailable" : "kernel_error",
      message: e.message,
      hint: unavailable
        ? "The SiYuan kernel did not answer: check that SiYuan runs and the URL/token are right, then retry the read."
        : "The kernel refused the request: check the arguments against a fresh read.",
      kernelCode: e.code,
      writeAttempted: false,
    });
  }
  return errorResult({
    code: "internal_error",
    message: e instanceof Error ? e.message : String(e),
    hint: "This is a Sisyphus bug; report it with the arguments you sent.",
    writeAttempted: false,
  });
}

function invalid(message: string, hint: string, details: Record<string, unknown> = {}): ToolError {
  return new ToolError("invalid_arguments", message, hint, details);
}

function issuesText(error: z.ZodError): string {
  return error.issues
    .map((i) => `${i.path.length > 0 ? i.path.join(".") : "(arguments)"}: ${i.message}`)
    .join("; ");
}

interface Parsed {
  readonly surface: ActionSurface;
  readonly business: Record<string, unknown>;
  readonly safety: z.infer<typeof safetyFields>;
}

function parseCall(tool: string, args: Record<string, unknown>): Parsed {
  if (!(TOOL_NAMES as readonly string[]).includes(tool)) {
    throw new ToolError(
      "unknown_tool",
      `no tool named ${tool}`,
      `Use one of: ${TOOL_NAMES.join(", ")}.`,
    );
  }
  const { action, business, safety } = splitArguments(args);
  const surface = findAction(tool, action);
  if (!surface) {
    throw new ToolError(
      "unknown_action",
      `${tool} has no action ${JSON.stringify(action)}`,
      "Use one of the actions listed in details.actions.",
      { actions: ACTIONS.filter((a) => a.tool === tool).map((a) => a.action) },
    );
  }
  const b = surface.args.safeParse(business);
  if (!b.success)
    throw invalid(
      `${tool}.${surface.action}: ${issuesText(b.error)}`,
      `Fix the arguments; signature: ${surface.signature}.`,
    );
  const s = safetyFields.safeParse(safety);
  if (!s.success)
    throw invalid(
      `${tool}.${surface.action}: ${issuesText(s.error)}`,
      "Copy requestId and the credential exactly as preflight returned them.",
    );
  return { surface, business: b.data as Record<string, unknown>, safety: s.data };
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

  function classify(tool: string, args: Record<string, unknown>): CallClass {
    try {
      const p = parseCall(tool, args);
      const policy = policyOf(p.surface, p.business);
      return {
        kind: policy.kind,
        dangerous: p.surface.dangerous,
        validateOnly: p.safety.validateOnly === true,
      };
    } catch {
      return { kind: "invalid", dangerous: false, validateOnly: false };
    }
  }

  async function runRead(
    ctx: ToolContext,
    handler: RunHandler<never>,
    args: Record<string, unknown>,
  ) {
    if (handler.notebooks && !grantsEverywhere(ctx.permissions, "read")) {
      requirePermission(ctx.permissions, await handler.notebooks(ctx, args as never), "read");
    }
    return handler.run(ctx, args as never);
  }

  async function runMutation(
    ctx: ToolContext,
    p: Parsed,
    handler: MutationHandler<never>,
    call: WriteCall,
  ): Promise<PreflightAnswer | CommitAnswer | { status: "cancelled" }> {
    const c = coordinator as WriteCoordinator;
    const args = p.business as never;
    const probe = async (): Promise<ProbeResult> => {
      const probed = await handler.probe(ctx, args);
      requirePermission(ctx.permissions, probed.notebooks, ctx.needs);
      if (probed.notebooks.length === 0 && !grantsEverywhere(ctx.permissions, ctx.needs)) {
        requirePermission(ctx.permissions, ["(workspace)"], ctx.needs);
      }
      return { digest: stateHash(probed.state), snapshot: probed };
    };
    if (p.safety.validateOnly === true) {
      // The preflight answer also says what the commit will report without readback (`summary`,
      // e.g. targetCount) and what the probe noted (`preflightNotes`, e.g. a sort-mode switch);
      // the coordinator's safety fields win on a name clash.
      let seen: Probed<unknown> | undefined;
      const preflightProbe = async (): Promise<ProbeResult> => {
        const result = await probe();
        seen = result.snapshot as Probed<unknown>;
        return result;
      };
      // Additive actions lease no digest, but their preflight still proves the anchor exists and
      // the permission holds before a request ID is issued.
      if (call.policy?.kind === "mutation" && call.policy.precondition === "none")
        await preflightProbe();
      const answer = await c.preflight(call, preflightProbe);
      if (!("validateOnly" in answer)) return answer;
      const extra = { ...handler.summary?.(args), ...seen?.preflightNotes };
      return Object.keys(extra).length === 0 ? answer : { ...extra, ...answer };
    }
    let probed: Probed<unknown> | undefined;
    return c.commit(call, {
      probe,
      execute: async (exec) => {
        const { before } = exec;
        // Strict mode off runs no coordinator probe; the executor still needs what the probe knows
        // (e.g. the attributes an update must keep).
        probed =
          (before?.snapshot as Probed<unknown> | undefined) ?? (await handler.probe(ctx, args));
        const data = await handler.execute(
          { ...ctx, write: exec.writes(kernelWrites) },
          args,
          probed as Probed<never>,
        );
        const receipt = handler.summary?.(args);
        return receipt ? { data, receipt: receipt as never } : { data };
      },
      readback: async ({ before, executed }) => {
        const r = await handler.readback(
          ctx,
          args,
          (before?.snapshot as Probed<never> | undefined) ?? (probed as Probed<never>),
          executed.data as never,
        );
        const digest = stateHash(r.state);
        if (r.verdict === "mismatch")
          return { outcome: "mismatch", reason: r.reason ?? "readback mismatch", digest };
        // `no_change` may only mean "the live state already was what you asked", which the handler
        // decides from the request and the before-state (`unchanged`). A handler whose request
        // changes something must show a state that differs from before: the same state after a
        // write that said yes is a silently dropped write, never "nothing to do".
        const priorDigest =
          before?.digest ?? (probed === undefined ? undefined : stateHash(probed.state));
        if (r.verdict === "applied" && digest === priorDigest)
          return {
            outcome: "mismatch",
            reason:
              "the kernel answered success but the state is unchanged although the request changes it",
            digest,
          };
        return r.receipt
          ? { outcome: "applied", digest, receipt: r.receipt as never }
          : { outcome: "applied", digest };
      },
    });
  }

  async function callTool(
    tool: string,
    args: Record<string, unknown>,
    context: CallContext = {},
  ): Promise<ToolResult> {
    try {
      const p = parseCall(tool, args);
      const policy = policyOf(p.surface, p.business);
      const entry = handlerOf(p.surface);
      const validateOnly = p.safety.validateOnly === true;
      const needs: Permission =
        policy.kind === "read" ? "read" : p.surface.dangerous ? "delete" : "write";
      const ctx: ToolContext = {
        kernel,
        permissions: await loadPermissions(),
        needs,
        phase: policy.kind === "read" ? "read" : validateOnly ? "preflight" : "commit",
        system: info,
        ...(context.signal ? { signal: context.signal } : {}),
      };
      if (policy.kind === "read") {
        if (!entry?.read)
          throw new ToolError(
            "internal_error",
            `${tool}.${p.surface.action} has no read handler`,
            "Report this bug.",
          );
        return ok(await runRead(ctx, entry.read, p.business));
      }
      if (p.surface.dangerous && !validateOnly && context.confirmed !== true) {
        throw new ToolError(
          "confirmation_required",
          `${tool}.${p.surface.action} is dangerous and needs the user's confirmation`,
          "Ask the user to confirm, then resend with confirm: true (clients with form elicitation are asked by the server).",
          { writeAttempted: false },
        );
      }
      if (!coordinator)
        throw new WriteSafetyError("write_coordinator_unavailable", {
          details: { reason: "no_local_authority" },
        });
      const cancellation = new WriteCancellation();
      context.signal?.addEventListener("abort", () => cancellation.cancel(), { once: true });
      const call: WriteCall = {
        tool,
        action: p.surface.action,
        policy,
        args: { ...p.business, ...p.safety },
        targetIds: [],
        cancellation,
      };
      if (policy.kind === "external") {
        const ext = entry?.external as ExternalHandler<never>;
        if (validateOnly) return ok(await coordinator.preflight(call));
        return ok(
          await coordinator.commit(call, {
            execute: async (exec) => ({
              receipt: {
                result: (await ext.run(
                  { ...ctx, write: exec.writes(kernelWrites) },
                  p.business as never,
                )) as never,
              },
            }),
          }),
        );
      }
      const handler = entry?.mutation as MutationHandler<never>;
      const targetIds = handler.targets(p.business as never).filter((t) => t !== "");
      return ok(await runMutation(ctx, p, handler, { ...call, targetIds }));
    } catch (e) {
      return fromError(e);
    }
  }

  function precheck(tool: string, args: Record<string, unknown>): ToolResult | undefined {
    try {
      const p = parseCall(tool, args);
      const policy = policyOf(p.surface, p.business);
      if (policy.kind === "read" || p.safety.validateOnly === true || !coordinator)
        return undefined;
      const handler = handlerOf(p.surface)?.mutation as MutationHandler<never> | undefined;
      const targetIds =
        policy.kind === "mutation" && handler
          ? handler.targets(p.business as never).filter((t) => t !== "")
          : [];
      coordinator.precheck({
        tool,
        action: p.surface.action,
        policy,
        args: { ...p.business, ...p.safety },
        targetIds,
      });
      return undefined;
    } catch (e) {
      return fromError(e);
    }
  }

  return { listTools: () => descriptors, classify, callTool, precheck };
}

export type { PermissionMap };
