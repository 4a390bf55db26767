/**
 * The MCP App (extension `io.modelcontextprotocol/ui`): one `ui://` HTML resource that shows a
 * strict write as a person checks it before confirming, linked from every tool with a strict write
 * (`_meta.ui.resourceUri`), and its app-only entry point `write_preview` (`_meta.ui.visibility:
 * ["app"]`), which reads the target's before-state for a preflight's arguments. The entry point
 * is admitted as a write (never in the read queue) and runs alone in the write coordinator's FIFO
 * lane, behind the preflights and commits queued before it (spec: "App session entry points use a
 * separate FIFO admission lane with concurrency 1"); a delegating process forwards it to its
 * authority's lane. It runs outside read budgets, under the read permission of the call's settings
 * snapshot.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  type McpServer,
  ResourceTemplate,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { isWriteSafetyError } from "@sisyphus/write-safety";
import { z } from "zod";
import { ACTIONS } from "../catalog.js";
import { isToolError } from "../errors.js";
import type { KernelReads } from "../kernel.js";
import { FULL_ACCESS, type PermissionMap } from "../permissions.js";
import type { WriteLanePort } from "../runtime.js";
import { type Admission, type AdmissionRefusal, isAdmissionRefusal } from "../shell/admission.js";
import type { SettingsSnapshot } from "../shell/gateway.js";
import { admissionRefusalResult, errorResult, type ToolResult } from "../tool-result.js";
import { APP_HTML } from "./html.js";
import { previewText, previewWrite } from "./preview.js";

/** The MCP Apps extension identifier. */
export const APP_EXTENSION_ID = "io.modelcontextprotocol/ui";
/** The App's resource. */
export const APP_RESOURCE_URI = "ui://sisyphus/strict-write.html";
/** The MIME type of an MCP App's HTML. */
export const APP_MIME_TYPE = "text/html;profile=mcp-app";
/** The App's entry point: hidden from the model by App hosts, callable by the App. */
export const APP_PREVIEW_TOOL = "write_preview";

const PREVIEW_DESCRIPTION =
  "Before/after of a strict write for the user's eyes: pass a preflight's arguments (and tool); reads only, writes nothing.";

/** The preview's advertised input schema (the App sends what the host passed it). */
const PREVIEW_INPUT_SCHEMA = {
  type: "object",
  properties: { tool: { type: "string" }, arguments: { type: "object" } },
  required: ["arguments"],
} as const;

const previewArgs = z.object({
  tool: z.string().optional(),
  arguments: z.record(z.string(), z.unknown()),
});

/** Tools with at least one strict write: their calls are shown in the App. */
const APP_TOOLS: ReadonlySet<string> = new Set(
  ACTIONS.filter((a) => a.policy.kind === "mutation").map((a) => a.tool),
);

/** One entry of `tools/list` as a shell lists it. */
export interface ListedTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: { type: "object"; [key: string]: unknown };
  readonly annotations?: Record<string, unknown>;
  readonly _meta?: Record<string, unknown>;
}

/**
 * `tools/list` for a client that declares MCP Apps: each tool that has a strict write links the
 * App's resource, and the entry point is listed app-only (the host keeps it from the model).
 */
export function withApp(tools: readonly ListedTool[]): ListedTool[] {
  return [
    ...tools.map((t) =>
      APP_TOOLS.has(t.name) ? { ...t, _meta: { ui: { resourceUri: APP_RESOURCE_URI } } } : t,
    ),
    {
      name: APP_PREVIEW_TOOL,
      description: PREVIEW_DESCRIPTION,
      inputSchema: PREVIEW_INPUT_SCHEMA,
      annotations: { readOnlyHint: true, destructiveHint: false },
      _meta: { ui: { resourceUri: APP_RESOURCE_URI, visibility: ["app"] } },
    },
  ];
}

/**
 * Whether the client of this request declares MCP Apps (`extensions["io.modelcontextprotocol/ui"]
 * .mimeTypes` naming the App's type): a modern request's own capabilities, else the legacy
 * session's from `initialize`.
 */
export function declaresApps(server: McpServer, ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const caps = (envelope?.[CLIENT_CAPABILITIES_META_KEY] ??
    server.server.getClientCapabilities()) as
    | { extensions?: Record<string, { mimeTypes?: unknown } | undefined> }
    | undefined;
  const types = caps?.extensions?.[APP_EXTENSION_ID]?.mimeTypes;
  return Array.isArray(types) && types.includes(APP_MIME_TYPE);
}

/**
 * Where the entry point runs once admitted: `local`, alone in this process's write lane (the
 * coordinator's, `ToolRuntime.writeLane`); `delegate`, forwarded as a `write_preview` call to the
 * authority, whose own lane runs it.
 */
export type AppLane =
  | { readonly kind: "local"; readonly run: WriteLanePort }
  | {
      readonly kind: "delegate";
      readonly forward: (
        args: Record<string, unknown>,
        signal: AbortSignal | undefined,
      ) => Promise<ToolResult>;
    };

/** What the App's entry point needs from its shell. */
export interface AppOptions {
  /** The kernel's read port (the preview reads only). */
  readonly kernel: KernelReads;
  /** The shell's admission gate: the entry point is admitted (and counted) as a write. */
  readonly admission: Pick<Admission, "admit" | "cap">;
  /** The FIFO write lane the entry point runs in (see {@link AppLane}). */
  readonly lane: AppLane;
  /** The call's settings snapshot (read permissions); absent: full access. */
  readonly snapshot?: (writeClass: boolean) => Promise<SettingsSnapshot>;
}

function fromError(e: unknown): ToolResult {
  if (isToolError(e))
    return errorResult({ code: e.code, message: e.message, hint: e.hint, ...e.details });
  // The lane refused it (`queue_full`, `write_coordinator_unavailable` while draining).
  if (isWriteSafetyError(e)) return errorResult({ ...e.toJSON() });
  return errorResult({
    code: "kernel_unavailable",
    message: e instanceof Error ? e.message : String(e),
  });
}

/** The preview's answer, read under `permissions`. */
async function previewResult(
  options: AppOptions,
  input: z.output<typeof previewArgs>,
  permissions: PermissionMap,
): Promise<ToolResult> {
  const p = await previewWrite(options.kernel, permissions, input.tool, input.arguments);
  return {
    content: [{ type: "text", text: previewText(p) }],
    structuredContent: p as unknown as Record<string, unknown>,
  };
}

/** Runs one preview in the write lane, under the permissions of this call's settings. */
async function preview(
  options: AppOptions,
  input: z.output<typeof previewArgs>,
  ctx: ServerContext,
): Promise<ToolResult> {
  const signal = ctx.mcpReq.signal;
  const lane = options.lane;
  const answer = await options.admission.admit<PermissionMap, ToolResult | AdmissionRefusal>(
    "write",
    signal,
    async () => {
      if (options.snapshot === undefined) return { go: FULL_ACCESS };
      const snap = await options.snapshot(false);
      return "refusal" in snap
        ? { stop: snap.refusal as ToolResult }
        : { go: snap.settings.permissions };
    },
    async (permissions) => {
      try {
        if (lane.kind === "delegate") return await lane.forward(input, signal);
        const ran = await lane.run(signal, () => previewResult(options, input, permissions));
        return ran.ran ? ran.value : { refused: "cancelled" };
      } catch (e) {
        return fromError(e);
      }
    },
  );
  if (isAdmissionRefusal(answer)) {
    return admissionRefusalResult(answer, options.admission.cap) as ToolResult;
  }
  return answer;
}

/**
 * Registers the App's resource and its entry point on `server`. The resource is a template without
 * variables (it matches its one URI) so that `resources/list` names it only to a client that
 * declares MCP Apps, as `tools/list` does; `resources/read` serves it to anyone.
 */
export function registerApp(server: McpServer, options: AppOptions): void {
  const description =
    "Sisyphus MCP App: a strict write's target, before/after, precondition and receipt.";
  server.registerResource(
    "strict-write",
    new ResourceTemplate(APP_RESOURCE_URI, {
      list: async (ctx) => ({
        resources: declaresApps(server, ctx)
          ? [{ uri: APP_RESOURCE_URI, name: "strict-write", description, mimeType: APP_MIME_TYPE }]
          : [],
      }),
    }),
    { description, mimeType: APP_MIME_TYPE },
    async () => ({
      contents: [
        {
          uri: APP_RESOURCE_URI,
          mimeType: APP_MIME_TYPE,
          text: APP_HTML,
          _meta: { ui: { prefersBorder: true } },
        },
      ],
    }),
  );
  server.registerTool(
    APP_PREVIEW_TOOL,
    {
      description: PREVIEW_DESCRIPTION,
      inputSchema: previewArgs,
      annotations: { readOnlyHint: true, destructiveHint: false },
      _meta: { ui: { resourceUri: APP_RESOURCE_URI, visibility: ["app"] } },
    },
    async (input, ctx) => preview(options, input, ctx),
  );
}
