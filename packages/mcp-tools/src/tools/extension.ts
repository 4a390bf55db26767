/**
 * extension.list and extension.call: a bridge to SiYuan's own MCP endpoint `/mcp` (contract
 * §4.11): its 32 native tools, the tools kernel plugins register and the external MCP servers
 * configured in SiYuan. Spoken statelessly (MCP 2026-07-28: one POST per message, no session),
 * with the same kernel credential as every other kernel call.
 *
 * `call` is an external side effect even when the downstream tool only reads or edits notes: the
 * kernel runs it outside Sisyphus's coordinator, so there is no preflight, no readback and no
 * strict guarantee, and it is sent once. What the downstream tool answers is a third-party result,
 * returned as given (never rewritten, hashes included). What is typed here is only what the bridge
 * knows for sure: the endpoint refused the message before any tool ran, or it has no such tool.
 */
import { isSiyuanApiError } from "@sisyphus/siyuan-api/kernel";
import { ToolError } from "../errors.js";
import { externalAction, readAction, type ToolHandlers } from "../handler.js";
import type { McpHttpAnswer } from "../kernel.js";
import { grantsEverywhere } from "../permissions.js";

/** One row of `extension.list`: enough to call the tool. */
interface ToolRow {
  readonly name: string;
  readonly source?: string;
  readonly actions?: readonly string[];
  /** Arguments besides `action`; optional ones end in `?`. */
  readonly args: readonly string[];
  readonly readOnly?: boolean;
  readonly summary: string;
}

/** How long a summary may be: the first line of the downstream description, cut here. */
const SUMMARY_MAX = 160;

/** The kernel's answer to an unknown tool: a result, not a JSON-RPC error. */
const NOT_FOUND_PREFIX = "tool not found: ";

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The bridge could not use the endpoint; nothing ran. */
function unavailable(reason: string, message: string, extra: Record<string, unknown> = {}) {
  return new ToolError("extension_unavailable", message, { reason, ...extra });
}

/**
 * An HTTP refusal from `/mcp` (4xx: no session support, wrong credential, not admin) is answered
 * before the message is handled: nothing ran. Other errors pass unchanged.
 */
function refusedBeforeHandling(e: unknown): never {
  if (isSiyuanApiError(e) && (e.code === "kernel_rejected" || e.code === "unauthorized")) {
    const httpStatus = e.details.httpStatus;
    throw unavailable(
      e.code === "unauthorized" ? "unauthorized" : "http_status",
      httpStatus === 400
        ? "SiYuan's /mcp refused the stateless request (HTTP 400): this SiYuan does not serve MCP 2026-07-28 without a session; nothing ran"
        : `SiYuan's /mcp refused the request${httpStatus === undefined ? "" : ` (HTTP ${httpStatus})`}; nothing ran`,
      httpStatus === undefined ? {} : { httpStatus },
    );
  }
  throw e;
}

/**
 * The JSON-RPC message of an answer, or `undefined` for an empty body (the kernel's recovered
 * panic in a tool handler). The read-only guard answers the kernel envelope instead: typed here.
 */
function rpcMessage(answer: McpHttpAnswer): Record<string, unknown> | undefined {
  if (answer.text.trim() === "") return undefined;
  let m: unknown;
  try {
    m = JSON.parse(answer.text);
  } catch {
    throw unavailable("not_json", "SiYuan's /mcp answered something that is not JSON; nothing ran");
  }
  if (!isObject(m)) throw unavailable("not_json_rpc", "SiYuan's /mcp answered no JSON-RPC message");
  if (m["jsonrpc"] !== "2.0" && typeof m["code"] === "number") {
    throw unavailable(
      "kernel_refused",
      `SiYuan refused the call: ${String(m["msg"] ?? "")}; nothing ran`.replace(": ;", ";"),
    );
  }
  const error = m["error"];
  if (isObject(error)) {
    throw new ToolError(
      "extension_error",
      `SiYuan's /mcp refused the request: ${String(error["message"] ?? "")}; nothing ran`,
      { rpcCode: error["code"] },
    );
  }
  return m;
}

function argsOf(schema: unknown): string[] {
  if (!isObject(schema) || !isObject(schema["properties"])) return [];
  const required = Array.isArray(schema["required"]) ? (schema["required"] as unknown[]) : [];
  return Object.keys(schema["properties"])
    .filter((k) => k !== "action")
    .map((k) => (required.includes(k) ? k : `${k}?`));
}

function actionsOf(schema: unknown): string[] | undefined {
  const action =
    isObject(schema) && isObject(schema["properties"]) && schema["properties"]["action"];
  const values = isObject(action) ? action["enum"] : undefined;
  return Array.isArray(values) ? values.map(String) : undefined;
}

/** One downstream tool as a compact row. */
export function toolRow(t: Record<string, unknown>): ToolRow {
  const description = typeof t["description"] === "string" ? t["description"] : "";
  const firstLine = description.split("\n")[0] ?? "";
  const actions = actionsOf(t["inputSchema"]);
  return {
    name: String(t["name"]),
    ...(typeof t["source"] === "string" ? { source: t["source"] } : {}),
    ...(actions === undefined ? {} : { actions }),
    args: argsOf(t["inputSchema"]),
    ...(typeof t["readOnlyHint"] === "boolean" ? { readOnly: t["readOnlyHint"] } : {}),
    summary: firstLine.length > SUMMARY_MAX ? `${firstLine.slice(0, SUMMARY_MAX - 1)}…` : firstLine,
  };
}

/** The extension tool's handlers. */
export const extensionHandlers = {
  list: readAction({
    run: async (ctx, a) => {
      const answer = await ctx.kernel.mcpListTools().catch(refusedBeforeHandling);
      const result = rpcMessage(answer)?.["result"];
      const tools =
        isObject(result) && Array.isArray(result["tools"]) ? result["tools"] : undefined;
      if (tools === undefined) {
        throw unavailable("no_tool_list", "SiYuan's /mcp answered tools/list without a tool list");
      }
      const rows = tools.filter(isObject).map(toolRow);
      const start = (a.page - 1) * a.pageSize;
      return {
        total: rows.length,
        page: a.page,
        pageSize: a.pageSize,
        tools: rows.slice(start, start + a.pageSize),
        note: "Call one with extension.call(name,arguments): the user confirms each call; SiYuan runs it outside Sisyphus's safe-write guarantee.",
      };
    },
  }),
  call: externalAction({
    run: async (ctx, a) => {
      // The downstream tool may touch any notebook: it needs the permission everywhere.
      if (!grantsEverywhere(ctx.permissions, ctx.needs)) {
        throw new ToolError(
          "permission_denied",
          `extension.call runs SiYuan tools that can reach every notebook; it needs ${ctx.needs} on all of them`,
          { notebook: "(all notebooks)", needed: ctx.needs },
        );
      }
      const answer = await ctx.write.mcpCallTool(a.name, a.arguments).catch(refusedBeforeHandling);
      const m = rpcMessage(answer);
      // An empty 200 is the kernel's recovered panic inside the tool: it may have done anything.
      if (m === undefined) {
        throw new Error(
          `SiYuan's /mcp answered ${a.name} with an empty body (the tool failed inside the kernel)`,
        );
      }
      const result = m["result"];
      if (!isObject(result) || !Array.isArray(result["content"])) {
        throw new Error(`SiYuan's /mcp answered ${a.name} without a tool result`);
      }
      const content = result["content"] as unknown[];
      const isError = result["isError"] === true;
      const only = content.length === 1 && isObject(content[0]) ? content[0]["text"] : undefined;
      if (isError && only === `${NOT_FOUND_PREFIX}${a.name}`) {
        throw new ToolError("extension_tool_not_found", `SiYuan has no MCP tool ${a.name}`, {
          name: a.name,
        });
      }
      return { tool: a.name, isError, content };
    },
  }),
} satisfies ToolHandlers<"extension">;
