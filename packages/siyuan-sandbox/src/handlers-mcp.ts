/**
 * The kernel's built-in MCP endpoint `/mcp` (contract §4.11): JSON-RPC 2.0 over plain HTTP, one
 * message per POST, no SSE; stateful sessions (`Mcp-Session-Id`) or the stateless 2026-07-28 mode.
 * The 32 native tools are listed with the names, actions and required fields the contract gives;
 * a subset of actions runs (in-process, through the same handlers as the HTTP API, so `/api/*`
 * counters do not move, as in the kernel); the others answer `isError` saying so. Tools kernel
 * plugins register (`siyuan.mcp.registerTool`) are listed and called as `plugin__<plugin>__<tool>`.
 */
import { KERNEL_VERSION, MCP_PROTOCOL_VERSIONS, MCP_TOOLS_TTL_MS } from "./constants.js";
import { isSandboxError, type KernelErrorDetails } from "./errors.js";
import { type HandlerContext, type PluginServices, RawReply, type Route } from "./handler-kit.js";
import { MEMORY_WORKSPACE_DIR } from "./handlers-asset.js";
import { blockRoutes } from "./handlers-block.js";
import { filetreeAndNotebookRoutes } from "./handlers-filetree.js";
import { miscRoutes } from "./handlers-misc.js";
import { navRoutes } from "./handlers-nav.js";
import type { Kernel } from "./kernel.js";

/** Answered when the client asks for an unsupported version. */
const MCP_DEFAULT_PROTOCOL_VERSION = MCP_PROTOCOL_VERSIONS[1];
/** The header value that selects the stateless mode. */
const MCP_STATELESS_VERSION = MCP_PROTOCOL_VERSIONS[2];

/** A property's schema: its JSON type, or a type with an enum. */
type PropDef = string | { type: string; enum: string[] };

interface ToolDef {
  name: string;
  /** The kernel's description where the sandbox has it (else a generated one). */
  description?: string;
  /** The `action` enum; `[]` for an `action` without one; absent for no `action`. */
  actions?: string[];
  /** Whether `action` is required (default true when there is one). */
  actionRequired?: boolean;
  props?: Record<string, PropDef>;
  required?: string[];
  title?: string;
  /** The kernel's non-standard `effectScope` (`local`, `external`, `mixed`). */
  effectScope?: string;
}

/**
 * The native tools as SiYuan 3.7.3's `/mcp` lists them: names, `action` enums, property names,
 * types and enums, required fields, `title` and `effectScope` (read from a real kernel's
 * tools/list, kernel-probes `mcp.kernel`); descriptions are the sandbox's except `system`'s.
 */
const NATIVE_TOOLS: ToolDef[] = [
  {
    name: "asset",
    actions: ["upload", "unused", "clean", "stat"],
    props: { files: "string", id: "string", path: "string" },
  },
  {
    name: "attr",
    actions: ["get", "set", "batch-get"],
    props: { attrs: "object", id: "string", ids: "string" },
  },
  {
    name: "block",
    actions: [
      "get",
      "get_kramdown",
      "get_children",
      "tree_stat",
      "dom",
      "insert",
      "append",
      "prepend",
      "update",
      "delete",
      "move",
      "breadcrumb",
      "batch_get",
      "batch_kramdown",
    ],
    props: {
      data: "string",
      dataType: { type: "string", enum: ["markdown", "dom"] },
      id: "string",
      ids: "string",
      nextID: "string",
      parentID: "string",
      previousID: "string",
    },
  },
  {
    name: "bookmark",
    actions: ["list", "labels", "remove", "rename"],
    props: { label: "string", new: "string", old: "string" },
  },
  {
    name: "dailynote",
    actions: ["create", "append", "prepend"],
    props: {
      data: "string",
      dataType: { type: "string", enum: ["markdown", "dom"] },
      notebook: "string",
    },
    required: ["notebook"],
  },
  {
    name: "database",
    actions: [
      "search",
      "get",
      "render",
      "keys",
      "key_add",
      "key_remove",
      "item_add",
      "item_remove",
      "item_update",
      "unused",
      "clean",
    ],
    props: {
      blockID: "string",
      content: "string",
      detached: "boolean",
      groupID: "string",
      icon: "string",
      id: "string",
      ignoreDefaultFill: "boolean",
      itemID: "string",
      itemIDs: "string",
      keyID: "string",
      keyword: "string",
      name: "string",
      page: "number",
      pageSize: "number",
      prev: "string",
      previousID: "string",
      query: "string",
      removeRelationDest: "boolean",
      type: "string",
      value: "string",
      viewID: "string",
    },
  },
  {
    name: "document",
    actions: [
      "get",
      "create",
      "list",
      "delete",
      "rename",
      "move",
      "duplicate",
      "search_docs",
      "info",
    ],
    props: {
      id: "string",
      keyword: "string",
      markdown: "string",
      notebook: "string",
      path: "string",
      title: "string",
    },
  },
  {
    name: "export",
    actions: ["md", "html", "preview", "docx", "sy", "md-zip", "data"],
    props: { id: "string", output: "string" },
  },
  {
    name: "file",
    actions: ["list", "read", "write", "delete", "rename", "copy", "grep", "find", "stat"],
    props: {
      context: "number",
      data: "string",
      dst: "string",
      include: "string",
      limit: "number",
      new: "string",
      offset: "number",
      old: "string",
      path: "string",
      pattern: "string",
      src: "string",
    },
  },
  { name: "frontend", actions: [], props: { id: "string", query: "string" } },
  {
    name: "history",
    actions: ["list", "search", "get", "rollback", "clear"],
    props: {
      notebook: "string",
      op: "string",
      page: "number",
      path: "string",
      query: "string",
      type: "number",
    },
  },
  {
    name: "http_request",
    actions: ["get", "post", "put", "delete", "patch"],
    actionRequired: false,
    props: { body: "string", headers: "object", url: "string" },
    required: ["url"],
    effectScope: "external",
  },
  {
    name: "image",
    actions: ["list", "analyze", "generate"],
    props: {
      assetPath: "string",
      detail: { type: "string", enum: ["auto", "low", "high"] },
      documentID: "string",
      outputFormat: { type: "string", enum: ["png", "jpeg", "webp"] },
      prompt: "string",
      quality: "string",
      question: "string",
      size: "string",
    },
    required: ["documentID"],
    title: "Document images",
    effectScope: "mixed",
  },
  {
    name: "import",
    actions: ["md", "sy", "data"],
    props: { notebook: "string", path: "string", targetPath: "string" },
  },
  {
    name: "inbox",
    actions: ["list", "get", "convert"],
    props: {
      id: "string",
      ids: "string",
      notebook: "string",
      page: "integer",
      path: "string",
      remove_after: "boolean",
    },
  },
  {
    name: "notebook",
    actions: ["list", "open", "close", "create", "rename", "remove", "set_icon", "random_icon"],
    props: { icon: "string", id: "string", name: "string" },
  },
  { name: "outline", actions: ["get"], props: { id: "string" }, required: ["id"] },
  { name: "question", props: { questions: "array" }, required: ["questions"] },
  {
    name: "ref",
    actions: ["backlinks", "mentions", "refresh"],
    props: { id: "string", keyword: "string", sort: "number" },
    required: ["id"],
  },
  {
    name: "repo",
    actions: [
      "list",
      "create",
      "tag",
      "untag",
      "checkout",
      "diff",
      "search",
      "purge",
      "file_get",
      "file_rollback",
      "file_open",
      "file_export",
    ],
    props: {
      id: "string",
      keyword: "string",
      left: "string",
      memo: "string",
      name: "string",
      page: "number",
      right: "string",
      tag: "boolean",
    },
  },
  {
    name: "search",
    actions: ["fulltext", "semantic", "asset", "getasset"],
    props: {
      ext: "string",
      groupBy: "number",
      method: "number",
      notebook: "string",
      orderBy: "number",
      page: "number",
      pageSize: "number",
      path: "string",
      query: "string",
      subtype: "string",
      type: "string",
    },
    effectScope: "local",
  },
  {
    name: "skill",
    actions: ["load", "save", "install", "remove", "rename", "list"],
    props: { content: "string", name: "string", new_name: "string", url: "string" },
    effectScope: "local",
  },
  {
    name: "sql",
    actions: ["query"],
    props: { stmt: "string" },
    required: ["stmt"],
    effectScope: "local",
  },
  { name: "sync", actions: ["perform", "upload", "download", "status"] },
  {
    name: "system",
    description: "System info. Actions: version(), current_time(), workspace().",
    actions: ["version", "current_time", "workspace"],
  },
  {
    name: "tag",
    actions: ["list", "rename", "remove"],
    props: { keyword: "string", label: "string", new: "string", old: "string" },
  },
  {
    name: "template",
    actions: ["search", "get", "remove", "render", "save_as", "create"],
    props: {
      content: "string",
      id: "string",
      keyword: "string",
      name: "string",
      overwrite: "boolean",
      path: "string",
    },
  },
  { name: "todo_write", props: { todos: "array" }, required: ["todos"] },
  {
    name: "unzip",
    props: { destPath: "string", zipPath: "string" },
    required: ["zipPath", "destPath"],
  },
  {
    name: "web_fetch",
    props: { format: { type: "string", enum: ["markdown", "text"] }, url: "string" },
    required: ["url"],
  },
  { name: "web_search", props: { query: "string" }, required: ["query"] },
  { name: "workspace", actions: ["list", "info"] },
];

function toolJson(t: ToolDef): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  if (t.actions) {
    properties.action =
      t.actions.length > 0
        ? { type: "string", description: "Operation", enum: t.actions }
        : { type: "string", description: "Operation" };
    if (t.actionRequired !== false) required.push("action");
  }
  for (const [k, def] of Object.entries(t.props ?? {})) {
    properties[k] = typeof def === "string" ? { type: def } : { type: def.type, enum: def.enum };
  }
  for (const k of t.required ?? []) if (!required.includes(k)) required.push(k);
  // the kernel's ToolSchema leaves out empty properties/required (omitempty)
  const inputSchema: Record<string, unknown> = { type: "object" };
  if (Object.keys(properties).length > 0) inputSchema.properties = properties;
  if (required.length > 0) inputSchema.required = required;
  const actions = t.actions?.length ? t.actions : undefined;
  return {
    name: t.name,
    ...(t.title === undefined ? {} : { title: t.title }),
    description:
      t.description ??
      `SiYuan ${t.name} tool.${actions ? ` Actions: ${actions.map((a) => `${a}()`).join(", ")}.` : ""}`,
    inputSchema,
    source: "native",
    ...(t.effectScope === undefined ? {} : { effectScope: t.effectScope }),
  };
}

/**
 * The tools/list result's tools, sorted by name: the native ones, plus the kernel-plugin tools
 * `plugin__<plugin>__<tool>` when a plugin host is given.
 */
export function mcpTools(plugins?: PluginServices | null): Record<string, unknown>[] {
  const all = [...NATIVE_TOOLS.map(toolJson), ...(plugins?.mcpTools() ?? [])];
  return all.sort((a, b) => (String(a.name) < String(b.name) ? -1 : 1));
}

/** Sessions per kernel (in memory, never expire, lost on restart). */
const sessions = new WeakMap<Kernel, Set<string>>();
function sessionSet(kernel: Kernel): Set<string> {
  let s = sessions.get(kernel);
  if (!s) {
    s = new Set();
    sessions.set(kernel, s);
  }
  return s;
}

const SESSION_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
function newSessionId(kernel: Kernel): string {
  let s = "";
  for (let i = 0; i < 16; i++) {
    s += SESSION_ALPHABET[Math.floor(kernel.ids.random.next() * SESSION_ALPHABET.length)] ?? "a";
  }
  return s;
}

// gin's c.JSON (kernel-probes mcp.kernel)
const JSON_CT = { "content-type": "application/json; charset=utf-8" };
const plainJson = (
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): RawReply => new RawReply(status, { ...JSON_CT, ...headers }, JSON.stringify(value));
const rpcResult = (id: unknown, result: unknown, headers: Record<string, string> = {}): RawReply =>
  plainJson(200, { jsonrpc: "2.0", id, result }, headers);
const rpcError = (id: unknown, code: number, message: string): RawReply =>
  plainJson(200, { jsonrpc: "2.0", id, error: { code, message } });

const text = (t: string, isError = false) => ({
  content: [{ type: "text", text: t }],
  ...(isError ? { isError: true } : {}),
});

let routeTable: Record<string, Route> | null = null;
function route(path: string): Route {
  routeTable ??= { ...filetreeAndNotebookRoutes, ...blockRoutes, ...miscRoutes, ...navRoutes };
  const r = routeTable[path];
  if (!r) throw new Error(`no route ${path}`);
  return r;
}

/** Runs an API handler in-process; returns its data or throws its message. */
async function call(
  ctx: HandlerContext,
  path: string,
  body: Record<string, unknown>,
): Promise<unknown> {
  try {
    return await route(path).handler({ ...ctx, path, body });
  } catch (e) {
    if (isSandboxError(e) && e.code === "kernel_error") {
      const d = e.details as unknown as KernelErrorDetails;
      if (d.kernelCode === 0 && e.message === "") throw new Error("missing or invalid arguments");
    }
    throw e;
  }
}

type ToolRun = (ctx: HandlerContext, args: Record<string, unknown>) => Promise<ToolText>;
/** A tool's text answer; `isError` marks a failure result. */
interface ToolText {
  text: string;
  isError?: boolean;
}

/** A tool failure the run reports as an `isError` result. */
class ToolFailure extends Error {}

const str = (args: Record<string, unknown>, k: string): string =>
  typeof args[k] === "string" ? (args[k] as string) : "";

/** A required string argument ("<name> is required" otherwise, as the kernel's tools say). */
function need(args: Record<string, unknown>, k: string): string {
  const v = str(args, k);
  if (v === "") throw new ToolFailure(`${k} is required`);
  return v;
}

const ok = (text: string): ToolText => ({ text });

/** Go's time.RFC3339 of a kernel clock reading (local offset, or Z in UTC mode). */
function rfc3339(ms: number, utc: boolean): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  if (utc) return `${d.toISOString().slice(0, 19)}Z`;
  const off = -d.getTimezoneOffset();
  const zone =
    off === 0
      ? "Z"
      : `${off > 0 ? "+" : "-"}${p(Math.floor(Math.abs(off) / 60))}:${p(Math.abs(off) % 60)}`;
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}${zone}`;
}

/** Tool writes are synchronous in the kernel (`PerformTxSync`): apply the queue before answering. */
async function writeThenFlush(
  ctx: HandlerContext,
  path: string,
  body: Record<string, unknown>,
): Promise<string> {
  const tx = (await call(ctx, path, body)) as Array<{ doOperations: Array<{ id: string }> }>;
  await ctx.kernel.flush();
  return tx[0]?.doOperations[0]?.id ?? "";
}

const blockWrite = (action: string, id: string): ToolText =>
  id === ""
    ? { text: `${action} block failed: empty block ID`, isError: true }
    : ok(JSON.stringify({ action, id }));

const dataArgs = (a: Record<string, unknown>) => ({
  data: need(a, "data"),
  dataType: str(a, "dataType") || "markdown",
});

/** The actions the sandbox runs, by `tool.action` (texts after the kernel's `mcp/tools/*.go`). */
const RUNS: Record<string, ToolRun> = {
  "system.version": async () => ok(KERNEL_VERSION),
  "system.current_time": async (ctx) => ok(rfc3339(ctx.kernel.ids.clock.now(), ctx.kernel.ids.utc)),
  "system.workspace": async (ctx) =>
    ok(
      `Workspace: ${ctx.kernel.dataDir ?? MEMORY_WORKSPACE_DIR}\nVersion: ${KERNEL_VERSION}\nContainer: std`,
    ),
  "notebook.list": async (ctx) => {
    const d = (await call(ctx, "/api/notebook/lsNotebooks", {})) as {
      notebooks: Array<{ id: string; name: string; closed: boolean }>;
    };
    return ok(
      d.notebooks.map((n) => `- ${n.name} (${n.id})${n.closed ? " [closed]" : ""}`).join("\n"),
    );
  },
  "block.get_kramdown": async (ctx, a) => {
    const id = need(a, "id");
    try {
      const k = ((await call(ctx, "/api/block/getBlockKramdown", { id })) as { kramdown: string })
        .kramdown;
      if (k) return ok(k);
    } catch {
      // falls through: the kernel answers the same text for unknown and empty blocks
    }
    return { text: `block not found or empty: ${id}`, isError: true };
  },
  "document.get": async (ctx, a) => {
    const id = need(a, "id");
    const k = ((await call(ctx, "/api/block/getBlockKramdown", { id })) as { kramdown: string })
      .kramdown;
    return ok(k);
  },
  "block.dom": async (ctx, a) =>
    ok(((await call(ctx, "/api/block/getBlockDOM", { id: need(a, "id") })) as { dom: string }).dom),
  "block.get_children": async (ctx, a) => {
    const id = need(a, "id");
    const kids = (await call(ctx, "/api/block/getChildBlocks", { id })) as Array<{
      id: string;
      type: string;
      content?: string;
      markdown?: string;
    }>;
    if (kids.length === 0) return ok("no child blocks found");
    return ok(
      kids
        .map((c) => {
          const content = [...(c.markdown || c.content || "")].slice(0, 200).join("");
          return `- [${c.type}] ${content} (${c.id})\n`;
        })
        .join(""),
    );
  },
  "block.breadcrumb": async (ctx, a) =>
    ok(
      (
        (await call(ctx, "/api/block/getBlockBreadcrumb", { id: need(a, "id") })) as Array<{
          id: string;
          name: string;
          type: string;
        }>
      )
        .map((c) => `- [${c.type}] ${c.name} (${c.id})`)
        .join("\n"),
    ),
  "block.update": async (ctx, a) => {
    const id = need(a, "id");
    if (!("data" in a)) throw new ToolFailure("data is required");
    await call(ctx, "/api/block/updateBlock", {
      id,
      data: str(a, "data"),
      dataType: str(a, "dataType") || "markdown",
    });
    await ctx.kernel.flush();
    return ok("block updated");
  },
  "block.append": async (ctx, a) =>
    blockWrite(
      "append",
      await writeThenFlush(ctx, "/api/block/appendBlock", {
        ...dataArgs(a),
        parentID: need(a, "parentID"),
      }),
    ),
  "block.prepend": async (ctx, a) =>
    blockWrite(
      "prepend",
      await writeThenFlush(ctx, "/api/block/prependBlock", {
        ...dataArgs(a),
        parentID: need(a, "parentID"),
      }),
    ),
  "block.insert": async (ctx, a) => {
    const d = dataArgs(a);
    const anchors = {
      parentID: str(a, "parentID"),
      previousID: str(a, "previousID"),
      nextID: str(a, "nextID"),
    };
    if (!anchors.parentID && !anchors.previousID && !anchors.nextID) {
      throw new ToolFailure("parentID, previousID, or nextID is required");
    }
    return blockWrite(
      "insert",
      await writeThenFlush(ctx, "/api/block/insertBlock", { ...d, ...anchors }),
    );
  },
  "block.delete": async (ctx, a) => {
    const id = need(a, "id");
    await call(ctx, "/api/block/deleteBlock", { id });
    await ctx.kernel.flush();
    return ok(`block deleted: ${id}`);
  },
  "outline.get": async (ctx, a) => {
    const d = (await call(ctx, "/api/outline/getDocOutline", { id: need(a, "id") })) as Array<{
      id: string;
      name: string;
      subType: string;
    }> | null;
    return ok(
      (d ?? []).map((h) => `- [${h.subType}] ${h.name} (${h.id})`).join("\n") || "no headings",
    );
  },
  "ref.backlinks": async (ctx, a) => {
    const d = (await call(ctx, "/api/ref/getBacklink2", { id: need(a, "id"), k: "", mk: "" })) as {
      backlinks: Array<{ id: string; hPath: string; count: number }>;
    };
    return ok(
      d.backlinks.map((b) => `- ${b.hPath} (${b.id}): ${b.count}`).join("\n") || "no backlinks",
    );
  },
  "sql.query": async (ctx, a) =>
    ok(
      ((await call(ctx, "/api/query/sql", { stmt: need(a, "stmt") })) as Record<string, unknown>[])
        .map((row) =>
          Object.entries(row)
            .map(([k, v]) => `${k}=${String(v)}`)
            .join(" "),
        )
        .join("\n"),
    ),
  "tag.list": async (ctx) =>
    ok(
      ((await call(ctx, "/api/search/searchTag", { k: "" })) as { tags: string[] }).tags.join("\n"),
    ),
  "dailynote.create": async (ctx, a) =>
    ok(
      (
        (await call(ctx, "/api/filetree/createDailyNote", { notebook: need(a, "notebook") })) as {
          id: string;
        }
      ).id,
    ),
  "dailynote.append": async (ctx, a) =>
    blockWrite(
      "append",
      await writeThenFlush(ctx, "/api/block/appendDailyNoteBlock", {
        ...dataArgs(a),
        notebook: need(a, "notebook"),
      }),
    ),
  "dailynote.prepend": async (ctx, a) =>
    blockWrite(
      "prepend",
      await writeThenFlush(ctx, "/api/block/prependDailyNoteBlock", {
        ...dataArgs(a),
        notebook: need(a, "notebook"),
      }),
    ),
};

/** A native tool, or the full name of a plugin tool: exact, then case-insensitive, then without `siyuan_`. */
function findTool(name: string, plugins?: PluginServices | null): ToolDef | string | undefined {
  const lower = name.toLowerCase();
  const stripped = name.startsWith("siyuan_") ? name.slice("siyuan_".length) : name;
  const all: Array<ToolDef | string> = [
    ...NATIVE_TOOLS,
    ...(plugins?.mcpTools() ?? []).map((t) => String(t.name)),
  ];
  const nameOf = (t: ToolDef | string) => (typeof t === "string" ? t : t.name);
  return (
    all.find((t) => nameOf(t) === name) ??
    all.find((t) => nameOf(t).toLowerCase() === lower) ??
    all.find((t) => nameOf(t) === stripped)
  );
}

async function callTool(ctx: HandlerContext, params: unknown, id: unknown): Promise<RawReply> {
  if (typeof params !== "object" || params === null || Array.isArray(params)) {
    return rpcError(id, -32602, "Invalid params");
  }
  const p = params as { name?: unknown; arguments?: unknown };
  if (typeof p.name !== "string" || p.name === "") {
    return rpcError(id, -32602, "Invalid params: name is required");
  }
  const tool = findTool(p.name, ctx.plugins);
  if (!tool) return rpcResult(id, text(`tool not found: ${p.name}`, true));
  const args =
    typeof p.arguments === "object" && p.arguments !== null && !Array.isArray(p.arguments)
      ? (p.arguments as Record<string, unknown>)
      : {};
  if (typeof tool === "string") {
    // a kernel-plugin tool (contract §6): its JSON-encoded return value, or isError
    const r = await ctx.plugins!.callMcpTool(tool, args);
    return rpcResult(id, text(r.text, r.isError));
  }
  if (tool.name === "frontend") {
    return rpcResult(
      id,
      text("frontend actions are only available in the interactive agent chat", true),
    );
  }
  if (tool.name === "question") {
    return rpcResult(id, text("question tool: should be intercepted by agent loop"));
  }
  // the kernel calls the nil handler and the recovered panic leaves an empty 200 (inferred)
  if (tool.name === "image") return new RawReply(200, {}, "");
  const action = str(args, "action");
  if (tool.actions && tool.actionRequired !== false && !tool.actions.includes(action)) {
    return rpcResult(
      id,
      text(`unknown action '${action}', expected one of: [${tool.actions.join(", ")}]`, true),
    );
  }
  const run = RUNS[`${tool.name}.${action}`];
  if (!run) {
    return rpcResult(
      id,
      text(
        `siyuan-sandbox does not simulate the ${tool.name} tool${action ? ` action ${action}` : ""}`,
        true,
      ),
    );
  }
  try {
    const r = await run(ctx, args);
    return rpcResult(id, text(r.text, r.isError === true));
  } catch (e) {
    return rpcResult(id, text(e instanceof Error ? e.message : String(e), true));
  }
}

const header = (ctx: HandlerContext, name: string): string | undefined => {
  const v = ctx.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

async function mcp(ctx: HandlerContext): Promise<unknown> {
  const { kernel } = ctx;
  const method = ctx.method ?? "POST";
  if (method === "GET") return new RawReply(405, {}, "");
  if (method === "DELETE") {
    const sid = header(ctx, "mcp-session-id");
    if (!sid) return new RawReply(400, {}, "");
    sessionSet(kernel).delete(sid);
    return new RawReply(200, {}, "");
  }
  let msg: unknown;
  try {
    msg = JSON.parse(ctx.rawBody.toString("utf8"));
  } catch {
    return rpcError(null, -32700, "Parse error");
  }
  if (typeof msg !== "object" || msg === null || Array.isArray(msg)) {
    return rpcError(null, -32700, "Parse error");
  }
  const m = msg as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
  const id = m.id ?? null;
  if (m.jsonrpc !== "2.0" || typeof m.method !== "string" || m.method === "") {
    return rpcError(id, -32600, "Invalid Request");
  }
  const rpcMethod = m.method;
  const stateless = header(ctx, "mcp-protocol-version") === MCP_STATELESS_VERSION;
  const serverInfo = { name: "SiYuan", version: KERNEL_VERSION };
  const capabilities = { tools: { listChanged: false } };

  if (stateless) {
    const hm = header(ctx, "mcp-method");
    if (hm !== undefined && hm !== rpcMethod) {
      return plainJson(400, { error: "Mcp-Method header does not match body method" });
    }
  } else if (rpcMethod !== "initialize") {
    const sid = header(ctx, "mcp-session-id");
    if (!sid) return plainJson(400, { error: "Mcp-Session-Id required" });
    if (!sessionSet(kernel).has(sid)) return plainJson(404, { error: "session not found" });
  }
  if (!("id" in m)) return new RawReply(202, {}, ""); // a notification

  switch (rpcMethod) {
    case "initialize": {
      if (stateless) break;
      const asked = (m.params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
      const protocolVersion =
        typeof asked === "string" && (MCP_PROTOCOL_VERSIONS as readonly string[]).includes(asked)
          ? asked
          : MCP_DEFAULT_PROTOCOL_VERSION;
      const sid = newSessionId(kernel);
      sessionSet(kernel).add(sid);
      return rpcResult(
        id,
        { protocolVersion, capabilities, serverInfo },
        { "mcp-session-id": sid },
      );
    }
    case "server/discover":
      if (!stateless) break;
      return rpcResult(id, { protocolVersion: MCP_STATELESS_VERSION, capabilities, serverInfo });
    case "ping":
      return rpcResult(id, {});
    case "tools/list":
      return rpcResult(
        id,
        stateless
          ? { tools: mcpTools(ctx.plugins), ttlMs: MCP_TOOLS_TTL_MS, cacheScope: "user" }
          : { tools: mcpTools(ctx.plugins) },
      );
    case "tools/call":
      return callTool(ctx, m.params, id);
  }
  return rpcError(id, -32601, "Method not found");
}

/** The `/mcp` route (POST, GET → 405, DELETE ends a session). */
export const mcpRoutes: Record<string, Route> = {
  "/mcp": {
    handler: mcp,
    auth: true,
    body: "none",
    write: false,
    methods: ["POST", "GET", "DELETE"],
  },
};
