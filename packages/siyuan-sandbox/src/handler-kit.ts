/** Shared pieces of the HTTP handlers: context, argument readers, transaction replies. */
import type { IncomingHttpHeaders } from "node:http";
import { isValidNodeId } from "./clock.js";
import { kernelError } from "./errors.js";
import type { Kernel } from "./kernel.js";

/** What a handler gets. */
export interface HandlerContext {
  kernel: Kernel;
  /** URL path without query. */
  path: string;
  /** Parsed JSON body (an object), or {} for non-JSON routes. */
  body: Record<string, unknown>;
  rawBody: Buffer;
  headers: IncomingHttpHeaders;
  /** HTTP method (routes with `methods` look at it). */
  method?: string;
  /** The query string (routes that read a query parameter look at it). */
  query?: URLSearchParams;
  /** Silent-failure fault: answer as usual but apply nothing. */
  silent: boolean;
  /** Kernel-exact mode: block writes (except deleteBlock) wait for the queue before answering. */
  flushBeforeReply: boolean;
  /** The kernel-plugin host (plugin JSON-RPC, plugin MCP tools); absent in bare kernels. */
  plugins?: PluginServices | null;
  /** The API token (`getConf` answers it as `api.token`, as SiYuan does). */
  token?: string;
}

/** A loaded kernel plugin as `/api/plugin` and `listLoadedPlugins` list it. */
export interface LoadedPluginInfo {
  name: string;
  state: string;
  stateCode: number;
  methods: Array<{ name: string; descriptions: string[] }> | null;
}

/** The outcome of one plugin RPC call (contract §9). */
export type PluginRpcOutcome =
  | { ok: true; result: unknown }
  | { ok: false; code: number; message: string; data?: string };

/** What the handlers need from the kernel-plugin host (src/plugin-host). */
export interface PluginServices {
  /** State name of a loaded plugin (`running`, `loading`, `error`, …), or null when not loaded. */
  pluginState(name: string): string | null;
  loadedPlugins(): LoadedPluginInfo[];
  /** Calls a method bound with `siyuan.rpc.bind`; `params` undefined when absent. */
  callRpc(name: string, method: string, params: unknown): Promise<PluginRpcOutcome>;
  /** Tools registered with `siyuan.mcp.registerTool`, as `/mcp` lists them (unsorted). */
  mcpTools(): Record<string, unknown>[];
  /** Stops a plugin and starts it again when `petals.json` enables it (`setPetalEnabled`). */
  reload(name: string): Promise<void>;
  /** Calls a plugin tool by its full name (`plugin__<plugin>__<tool>`). */
  callMcpTool(
    fullName: string,
    args: Record<string, unknown>,
  ): Promise<{ text: string; isError: boolean }>;
}

/** A reply that is not the JSON envelope (getFile bytes, 202 errors). */
export class RawReply {
  constructor(
    readonly status: number,
    readonly headers: Record<string, string>,
    readonly body: Buffer | string,
  ) {}
}

/** A handler returns the envelope's `data` (or a RawReply); it throws kernelError for failures. */
export type Handler = (ctx: HandlerContext) => unknown;

/** Route table entry. */
export interface Route {
  handler: Handler;
  /** false for the three unauthenticated system routes. */
  auth: boolean;
  /** `json`: body must be a JSON object; `tolerant`: bad JSON becomes {}; `none`: not parsed; `raw`: multipart. */
  body: "json" | "tolerant" | "none" | "raw";
  /** A write the silent fault must skip entirely (handlers that build a transaction handle it themselves). */
  write: boolean;
  /** HTTP methods the route answers (default: POST only, GET too for the two public system routes). */
  methods?: readonly string[];
}

/** The kernel's answer to a missing/mistyped field in an old-style handler: a recovered panic, code 0, data null. */
export const panicReply = () => kernelError(0, "", null);

/** A required string field (old-style: a missing one answers code 0 / null). */
export function reqStr(ctx: HandlerContext, name: string): string {
  const v = ctx.body[name];
  if (typeof v !== "string") throw panicReply();
  return v;
}

/** An optional string field. */
export function optStr(ctx: HandlerContext, name: string): string | undefined {
  const v = ctx.body[name];
  return typeof v === "string" ? v : undefined;
}

/** A required node ID (missing → panic reply; malformed → -1 "invalid ID argument"). */
export function reqId(ctx: HandlerContext, name = "id"): string {
  const v = reqStr(ctx, name);
  if (!isValidNodeId(v)) throw kernelError(-1, "invalid ID argument");
  return v;
}

/** New-style required field check (`Field [x] is required` / type / empty). */
export function field(
  ctx: HandlerContext,
  name: string,
  type: "String" | "Array" | "Object",
): unknown {
  const v = ctx.body[name];
  if (v === undefined || v === null) throw kernelError(-1, `Field [${name}] is required`);
  const ok =
    type === "String"
      ? typeof v === "string"
      : type === "Array"
        ? Array.isArray(v)
        : typeof v === "object" && !Array.isArray(v);
  if (!ok) throw kernelError(-1, `Field [${name}] should be of type [${type}]`);
  if (
    (typeof v === "string" && v.trim() === "") ||
    (Array.isArray(v) && v.length === 0) ||
    (type === "Object" && Object.keys(v as object).length === 0)
  ) {
    throw kernelError(-1, `Field [${name}] must not be empty`);
  }
  return v;
}

/** A required array of strings (old-style). */
export function reqStrArray(ctx: HandlerContext, name: string): string[] {
  const v = ctx.body[name];
  if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) throw panicReply();
  return v as string[];
}

const OPERATION_KEYS = [
  "action",
  "data",
  "id",
  "rootID",
  "parentID",
  "previousID",
  "nextID",
  "retData",
  "blockIDs",
  "blockID",
  "deckID",
  "avID",
  "srcIDs",
  "srcs",
  "isDetached",
  "name",
  "type",
  "format",
  "keyID",
  "rowID",
  "isTwoWay",
  "backRelationKeyID",
  "removeDest",
  "layout",
  "groupID",
  "targetGroupID",
  "viewID",
  "ignoreDefaultFill",
  "context",
] as const;

const NULL_KEYS = new Set(["data", "retData", "blockIDs", "srcIDs", "srcs", "context"]);
const BOOL_KEYS = new Set(["isDetached", "isTwoWay", "removeDest", "ignoreDefaultFill"]);

/** An Operation object with all of the kernel's keys (Go zero values for the unset ones). */
export function operation(fields: Record<string, unknown>): Record<string, unknown> {
  const op: Record<string, unknown> = {};
  for (const k of OPERATION_KEYS) {
    op[k] = k in fields ? fields[k] : NULL_KEYS.has(k) ? null : BOOL_KEYS.has(k) ? false : "";
  }
  return op;
}

/**
 * The reply of a block-API write: one transaction. Its `timestamp` is 0 (the block endpoints build
 * the transaction without one; `/api/transactions` answers its `reqId` there), and the ops carry
 * neither `rootID` nor, for updates and deletes, `parentID` (kernel-probes `block.*`).
 */
export function transactionReply(ops: Record<string, unknown>[]): Array<Record<string, unknown>> {
  return [{ timestamp: 0, doOperations: ops, undoOperations: null }];
}
