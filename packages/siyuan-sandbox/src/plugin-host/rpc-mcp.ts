/**
 * What callers outside a plugin reach of `siyuan.rpc.bind` and `siyuan.mcp.registerTool`
 * (contract §6, §9): method calls for the JSON-RPC endpoints and the plugin tools of `/mcp`.
 */
import type { PluginRpcOutcome } from "../handler-kit.js";
import { goJson } from "./http.js";
import type { PluginRuntime } from "./runtime.js";

/** The kernel's `util.SanitizeName`: every character but ASCII letters and digits becomes `_`. */
export function sanitizeName(name: string): string {
  return name.replace(/[^A-Za-z0-9]/g, "_");
}

/** `plugin__<plugin>__<tool>` (contract §4.11). */
export function pluginToolName(plugin: string, tool: string): string {
  return `plugin__${sanitizeName(plugin)}__${sanitizeName(tool)}`;
}

/** The schema members that survive the kernel's Go structs (contract §6). */
const SCHEMA_KEYS = [
  "type",
  "description",
  "properties",
  "required",
  "items",
  "enum",
  "oneOf",
  "anyOf",
  "allOf",
  "$ref",
  "$defs",
] as const;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A schema as it comes back out of the kernel's Go structs: only the members of SCHEMA_KEYS,
 * recursively (`properties`, `items`, `oneOf`/`anyOf`/`allOf`, `$defs`); empty ones are left out
 * (omitempty), everything else (`additionalProperties`, `default`, `minimum`, `format`, `$schema`…)
 * is dropped.
 */
export function stripSchema(schema: unknown): Record<string, unknown> {
  if (!isObject(schema)) return {};
  const out: Record<string, unknown> = {};
  for (const k of SCHEMA_KEYS) {
    const v = schema[k];
    if (v === undefined || v === null) continue;
    switch (k) {
      case "type":
      case "description":
      case "$ref":
        if (typeof v === "string" && v !== "") out[k] = v;
        break;
      case "required":
        if (Array.isArray(v) && v.length > 0) out[k] = v.map(String);
        break;
      case "enum":
        if (Array.isArray(v) && v.length > 0) out[k] = v;
        break;
      case "items":
        if (isObject(v)) out[k] = stripSchema(v);
        break;
      case "properties":
      case "$defs":
        if (isObject(v) && Object.keys(v).length > 0) {
          out[k] = Object.fromEntries(Object.entries(v).map(([n, s]) => [n, stripSchema(s)]));
        }
        break;
      default:
        // oneOf / anyOf / allOf
        if (Array.isArray(v) && v.length > 0) out[k] = v.map(stripSchema);
    }
  }
  return out;
}

interface ToolSpec {
  title?: unknown;
  description?: unknown;
  inputSchema?: unknown;
  outputSchema?: unknown;
  readOnly?: unknown;
}

/** A plugin tool's `tools/list` entry (contract §4.11 `Tool` JSON). */
export function pluginToolJson(
  plugin: string,
  tool: string,
  spec: ToolSpec,
): Record<string, unknown> {
  const out: Record<string, unknown> = { name: pluginToolName(plugin, tool) };
  if (typeof spec.title === "string" && spec.title !== "") out.title = spec.title;
  out.description = typeof spec.description === "string" ? spec.description : "";
  out.inputSchema = stripSchema(spec.inputSchema);
  if (isObject(spec.outputSchema)) out.outputSchema = stripSchema(spec.outputSchema);
  out.source = "plugin";
  if (spec.readOnly === true) out.readOnlyHint = true;
  // SiYuan 3.7.3 lists every plugin tool with tools.EffectScopeUnknown
  out.effectScope = "unknown";
  return out;
}

/** Object keys in Go's order: goja exports an object as a map, which encoding/json sorts. */
function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!isObject(v)) return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, sortKeys(v[k])]),
  );
}

/** The JSON value of a realm value as the kernel encodes it (undefined → null, keys sorted). */
function exported(json: string | undefined): unknown {
  return json === undefined ? null : sortKeys(JSON.parse(json));
}

/**
 * One RPC call into a running plugin (`callRpcMethod`): array params are spread, any other
 * params value is the single argument, absent params give no argument; a throw or rejection is
 * -32603 with `error invoking method "<m>": <message>`.
 */
export async function callRpcMethod(
  rt: PluginRuntime,
  method: string,
  params: unknown,
): Promise<PluginRpcOutcome> {
  if (rt.state !== "running") {
    return {
      ok: false,
      code: -32603,
      message: "Internal error",
      data: `plugin [${rt.name}] not running (state: [${rt.state}])`,
    };
  }
  const notFound = {
    ok: false as const,
    code: -32601,
    message: "Method not found",
    data: `method [${method}] not found in plugin [${rt.name}]`,
  };
  if (!rt.rpcMethods.some((m) => m.name === method)) return notFound;
  const r = await rt.callRpc(method, params);
  if (r.missing) return notFound;
  if (r.ok) return { ok: true, result: exported(r.json) };
  return {
    ok: false,
    code: -32603,
    message: "Internal error",
    data: `error invoking method ${JSON.stringify(method)}: ${r.error}`,
  };
}

/**
 * One `tools/call` of a plugin tool: the handler gets the arguments object; its awaited value is
 * JSON-encoded (Go's encoder: `<`, `>`, `&` escaped) into the text; a throw or rejection, or a
 * plugin that is not running, is an `isError` result. No timeout.
 */
export async function callMcpTool(
  rt: PluginRuntime,
  tool: string,
  args: Record<string, unknown>,
): Promise<{ text: string; isError: boolean }> {
  if (rt.state !== "running") {
    return {
      text: `plugin [${rt.name}] not running (state: [${rt.state}])`,
      isError: true,
    };
  }
  const r = rt.tools.some((t) => t.name === tool) ? await rt.callTool(tool, args) : null;
  if (r === null || r.missing) {
    return { text: `tool not found: ${pluginToolName(rt.name, tool)}`, isError: true };
  }
  if (r.ok) return { text: goJson(exported(r.json)), isError: false };
  return { text: `error invoking MCP tool handler: ${r.error}`, isError: true };
}
