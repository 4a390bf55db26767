/** The kernel's own MCP endpoint `/mcp` (contract §4.11): sessions, tools/list, tools/call. */
import type { ProbeAnswer } from "../http.js";
import { probe } from "./kit.js";
import { ensurePlugin } from "./plugin.js";
import { PROBE_PLUGIN } from "./plugin-source.js";

const ACCEPT = { accept: "application/json, text/event-stream" };
const STATELESS = "2026-07-28";

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** One tool as the product reads it (extension.list): name, source, actions, args, hints. */
function toolShape(t: Record<string, unknown>): Record<string, unknown> {
  const schema = isObject(t["inputSchema"]) ? t["inputSchema"] : {};
  const props = isObject(schema["properties"]) ? schema["properties"] : {};
  const action = isObject(props["action"]) ? props["action"] : {};
  return {
    name: t["name"],
    keys: Object.keys(t).sort(),
    source: t["source"],
    readOnlyHint: t["readOnlyHint"],
    schemaType: schema["type"],
    properties: Object.keys(props).sort(),
    required: Array.isArray(schema["required"])
      ? [...(schema["required"] as string[])].sort()
      : null,
    actions: Array.isArray(action["enum"]) ? action["enum"] : null,
  };
}

/** tools/list kept to each tool's shape; the probe plugin's tool kept whole. */
const toolList = (j: unknown) => {
  if (!isObject(j) || !isObject(j["result"])) return j;
  const r = j["result"];
  const tools = Array.isArray(r["tools"]) ? (r["tools"] as Array<Record<string, unknown>>) : [];
  // the kernel writes the plugin's name with `_` for `-` in the tool name; find it by source
  const pluginTool = tools.find((t) => t["source"] === "plugin");
  return {
    ...j,
    result: {
      ...r,
      tools: tools
        .filter((t) => !String(t["name"]).startsWith("mcp_"))
        .map((t) => (t === pluginTool ? t : toolShape(t))),
    },
  };
};

const session = (a: ProbeAnswer) => a.headers["mcp-session-id"] ?? "";

export const mcpProbes = [
  probe(
    "mcp.kernel",
    "/mcp: initialize (stateful), tools/list, tools/call, stateless mode, session and method errors",
    ["/mcp"],
    async (ctx) => {
      await ensurePlugin(ctx);
      const init = await ctx.call(
        "initialize",
        {
          path: "/mcp",
          headers: ACCEPT,
          json: {
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: {
              protocolVersion: "2025-06-18",
              capabilities: {},
              clientInfo: { name: "kernel-probes", version: "0.1.0" },
            },
          },
        },
        { headers: ["content-type"] },
      );
      const sid = session(init);
      ctx.alias(sid, "<session>");
      ctx.note("session id length", sid.length);
      const withSession = { ...ACCEPT, "mcp-session-id": sid };
      await ctx.call("initialized", {
        path: "/mcp",
        headers: withSession,
        json: { jsonrpc: "2.0", method: "notifications/initialized" },
      });
      await ctx.call(
        "tools/list",
        {
          path: "/mcp",
          headers: withSession,
          json: { jsonrpc: "2.0", id: 2, method: "tools/list" },
        },
        { keep: toolList },
      );
      await ctx.call("call system version", {
        path: "/mcp",
        headers: withSession,
        json: {
          jsonrpc: "2.0",
          id: 3,
          method: "tools/call",
          params: { name: "system", arguments: { action: "version" } },
        },
      });
      await ctx.call("call plugin tool", {
        path: "/mcp",
        headers: withSession,
        json: {
          jsonrpc: "2.0",
          id: 4,
          method: "tools/call",
          params: {
            name: `plugin__${PROBE_PLUGIN.replace(/-/g, "_")}__probe_echo`,
            arguments: { text: "hi" },
          },
        },
      });
      await ctx.call("call unknown tool", {
        path: "/mcp",
        headers: withSession,
        json: {
          jsonrpc: "2.0",
          id: 5,
          method: "tools/call",
          params: { name: "no_such_tool", arguments: {} },
        },
      });
      await ctx.call("ping", {
        path: "/mcp",
        headers: withSession,
        json: { jsonrpc: "2.0", id: 6, method: "ping" },
      });
      await ctx.call("unknown method", {
        path: "/mcp",
        headers: withSession,
        json: { jsonrpc: "2.0", id: 7, method: "no/such" },
      });
      await ctx.call("no session", {
        path: "/mcp",
        headers: ACCEPT,
        json: { jsonrpc: "2.0", id: 8, method: "tools/list" },
      });
      await ctx.call("unknown session", {
        path: "/mcp",
        headers: { ...ACCEPT, "mcp-session-id": "nosuchsession000" },
        json: { jsonrpc: "2.0", id: 9, method: "tools/list" },
      });
      const headers = { ...ACCEPT, "mcp-protocol-version": STATELESS };
      await ctx.call(
        "stateless tools/list",
        {
          path: "/mcp",
          headers: { ...headers, "mcp-method": "tools/list" },
          json: { jsonrpc: "2.0", id: 10, method: "tools/list" },
        },
        {
          keep: (j) => {
            const r = isObject(j) && isObject(j["result"]) ? j["result"] : {};
            const { tools, ...rest } = r as { tools?: unknown[] };
            return { ...(j as object), result: { ...rest, toolCount: tools?.length } };
          },
        },
      );
      await ctx.call("stateless initialize", {
        path: "/mcp",
        headers: { ...headers, "mcp-method": "initialize" },
        json: { jsonrpc: "2.0", id: 11, method: "initialize", params: {} },
      });
      await ctx.call("stateless discover", {
        path: "/mcp",
        headers: { ...headers, "mcp-method": "server/discover" },
        json: { jsonrpc: "2.0", id: 12, method: "server/discover" },
      });
      await ctx.call("method header mismatch", {
        path: "/mcp",
        headers: { ...headers, "mcp-method": "ping" },
        json: { jsonrpc: "2.0", id: 13, method: "tools/list" },
      });
      await ctx.call("parse error", { path: "/mcp", headers: ACCEPT, raw: "{" });
      await ctx.call("GET", { method: "GET", path: "/mcp", headers: ACCEPT });
      await ctx.call("DELETE session", { method: "DELETE", path: "/mcp", headers: withSession });
    },
  ),
];
