/**
 * The kernel-plugin JSON-RPC endpoints for callers outside a plugin (contract §9):
 * `POST /api/plugin/rpc/<name>` (or `/api/plugin/rpc?name=`), the listings `GET /api/plugin` and
 * `POST /api/plugin/listLoadedPlugins`, `GET /ws/plugin/rpc/<name>` (WebSocket: 501 here), and the
 * two switches that install a plugin as a user does: `/api/setting/setBazaar` (trust) and
 * `/api/petal/setPetalEnabled` (enable or disable one plugin at once).
 * Where the contract is silent the shapes follow the kernel's `plugin/rpc.go` and JSON-RPC 2.0;
 * docs/plugin-host.md lists the choices.
 */
import { kernelError } from "./errors.js";
import {
  type HandlerContext,
  type PluginRpcOutcome,
  panicReply,
  RawReply,
  type Route,
} from "./handler-kit.js";
import { goJson } from "./plugin-host/http.js";

const JSON_CT = { "content-type": "application/json; charset=utf-8" };
const TEXT_CT = { "content-type": "text/plain; charset=utf-8" };

type RpcId = string | number | null;
interface RpcError {
  code: number;
  message: string;
  data?: string;
}
type RpcResponse =
  | { jsonrpc: "2.0"; result: unknown; id: RpcId }
  | { jsonrpc: "2.0"; error: RpcError; id: RpcId };

const errorResponse = (error: RpcError, id: RpcId = null): RpcResponse => ({
  jsonrpc: "2.0",
  error,
  id,
});
/** gin's `c.JSON`: Go's encoder (`<`, `>`, `&` escaped). */
const jsonReply = (status: number, value: unknown): RawReply =>
  new RawReply(status, JSON_CT, goJson(value));

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const goKind = (v: unknown): string =>
  Array.isArray(v) ? "array" : typeof v === "boolean" ? "bool" : typeof v;

/** `/api/plugin/rpc/<name>` → name; `/api/plugin/rpc?name=` → the query; null: no such route. */
function pluginName(ctx: HandlerContext, base: string): string | null {
  if (ctx.path === base) return ctx.query?.get("name") ?? "";
  const rest = ctx.path.slice(base.length + 1);
  if (rest.includes("/")) return null;
  try {
    return decodeURIComponent(rest);
  } catch {
    return rest;
  }
}

const notFound = () => new RawReply(404, TEXT_CT, "404 page not found");

/** `resolveRunningPlugin`: -32001 not loaded, -32002 not running, else null. */
function unavailable(ctx: HandlerContext, name: string): RpcResponse | null {
  const state = ctx.plugins?.pluginState(name) ?? null;
  if (state === null) return errorResponse({ code: -32001, message: "Plugin not loaded" });
  if (state !== "running") return errorResponse({ code: -32002, message: "Plugin not running" });
  return null;
}

interface ParsedRequest {
  method: string;
  params: unknown;
  hasParams: boolean;
  id: RpcId;
  notification: boolean;
}

const invalidRequest = (detail: string): RpcResponse =>
  errorResponse({
    code: -32600,
    message: "Invalid Request",
    data: `RPC request is not a valid JSON-RPC object: ${detail}`,
  });

/** One request object as `JsonRpcRequest.UnmarshalJSON` checks it. */
function parseRequest(v: unknown): ParsedRequest | RpcResponse {
  if (v === null) return invalidRequest("missing jsonrpc field");
  if (!isObject(v)) {
    return invalidRequest(
      `json: cannot unmarshal ${goKind(v)} into Go value of type plugin.JsonRpcRequestObject`,
    );
  }
  if (!("jsonrpc" in v)) return invalidRequest("missing jsonrpc field");
  if (v.jsonrpc !== "2.0") return invalidRequest(`invalid jsonrpc version: ${String(v.jsonrpc)}`);
  if (typeof v.method !== "string") return invalidRequest("missing method field");
  const id = v.id;
  if (id !== undefined && id !== null && typeof id !== "string" && typeof id !== "number") {
    return invalidRequest("invalid id field: must be string, number, null or omitted");
  }
  return {
    method: v.method,
    params: v.params,
    hasParams: "params" in v,
    id: (id ?? null) as RpcId,
    notification: !("id" in v),
  };
}

const outcomeResponse = (o: PluginRpcOutcome, id: RpcId): RpcResponse =>
  o.ok
    ? { jsonrpc: "2.0", result: o.result, id }
    : errorResponse(
        o.data === undefined
          ? { code: o.code, message: o.message }
          : { code: o.code, message: o.message, data: o.data },
        id,
      );

/** Dispatches one parsed request; null for a notification (called, not answered). */
async function dispatch(
  ctx: HandlerContext,
  name: string,
  r: ParsedRequest | RpcResponse,
): Promise<RpcResponse | null> {
  if ("jsonrpc" in r) return r; // refused while parsing: answered even without an id
  if (r.hasParams && !Array.isArray(r.params) && !isObject(r.params)) {
    if (r.notification) return null;
    return errorResponse(
      {
        code: -32602,
        message: "Invalid params",
        data: "Invalid params: must be array or object if present",
      },
      r.id,
    );
  }
  const call = ctx.plugins!.callRpc(name, r.method, r.hasParams ? r.params : undefined);
  if (r.notification) {
    void call.catch(() => undefined);
    return null;
  }
  return outcomeResponse(await call, r.id);
}

/** `POST /api/plugin/rpc/<name>` and `POST /api/plugin/rpc?name=` (`HandleRpcHttp`). */
async function rpcHttp(ctx: HandlerContext): Promise<RawReply> {
  const name = pluginName(ctx, "/api/plugin/rpc");
  if (name === null) return notFound();
  const gone = unavailable(ctx, name);
  if (gone) return jsonReply(200, gone);
  // the silent fault: answered, the method never runs
  if (ctx.silent) return new RawReply(200, JSON_CT, "");
  let msg: unknown;
  try {
    msg = JSON.parse(ctx.rawBody.toString("utf8"));
  } catch {
    return jsonReply(
      200,
      errorResponse({
        code: -32700,
        message: "Parse error",
        data: "RPC request is not valid JSON",
      }),
    );
  }
  // the front parsed the same object; a `corrupt` fault has been applied to that copy
  if (isObject(msg)) msg = ctx.body;
  if (!Array.isArray(msg)) {
    const r = await dispatch(ctx, name, parseRequest(msg));
    return r ? jsonReply(200, r) : new RawReply(204, {}, "");
  }
  if (msg.length === 0) {
    return jsonReply(
      200,
      errorResponse({
        code: -32600,
        message: "Invalid Request",
        data: "RPC request is not allowed to be an empty array",
      }),
    );
  }
  const all = await Promise.all(msg.map((m) => dispatch(ctx, name, parseRequest(m))));
  const answered = all.filter((r): r is RpcResponse => r !== null);
  // only notifications: no empty array (JSON-RPC 2.0)
  return answered.length > 0 ? jsonReply(200, answered) : new RawReply(204, {}, "");
}

/** `GET /ws/plugin/rpc/<name>`: the sandbox serves no WebSocket (501 for an upgrade). */
function rpcWebSocket(ctx: HandlerContext): RawReply {
  const name = pluginName(ctx, "/ws/plugin/rpc");
  if (name === null) return notFound();
  const gone = unavailable(ctx, name);
  if (gone) return jsonReply(404, gone);
  const upgrade = ctx.headers.upgrade;
  if (typeof upgrade === "string" && upgrade.toLowerCase() === "websocket") {
    return new RawReply(
      501,
      TEXT_CT,
      `[plugin:${name}] siyuan-sandbox does not serve WebSocket upgrades`,
    );
  }
  return new RawReply(400, TEXT_CT, "This endpoint only accepts WebSocket connections");
}

/** `GetLoadedPluginsInfo` (a nil slice, so null, when no plugin is loaded). */
function listLoaded(ctx: HandlerContext): unknown {
  const list = ctx.plugins?.loadedPlugins() ?? [];
  return list.length > 0 ? list : null;
}

const rpcRoute: Route = { handler: rpcHttp, auth: true, body: "tolerant", write: false };
const wsRoute: Route = {
  handler: rpcWebSocket,
  auth: true,
  body: "none",
  write: false,
  methods: ["GET"],
};

const PETALS = "/data/storage/petal/petals.json";

/** The workspace's bazaar switches (`conf.json` `bazaar`); the sandbox does not gate on them. */
const bazaar = new WeakMap<object, { trust: boolean; petalDisabled: boolean }>();

/** `/api/setting/setBazaar`: stores `trust` / `petalDisabled` and answers the bazaar conf. */
function setBazaar(ctx: HandlerContext): unknown {
  const conf = bazaar.get(ctx.kernel) ?? { trust: false, petalDisabled: false };
  if (typeof ctx.body["trust"] === "boolean") conf.trust = ctx.body["trust"];
  if (typeof ctx.body["petalDisabled"] === "boolean")
    conf.petalDisabled = ctx.body["petalDisabled"];
  bazaar.set(ctx.kernel, conf);
  return { ...conf };
}

/**
 * `/api/petal/setPetalEnabled` (`model.SetPetalEnabled`): writes the plugin's `enabled` into
 * `petals.json` and starts or stops its kernel part at once. Answers the petal (its frontend and
 * kernel code); an unknown plugin folder → -1 `plugin [<name>] not found`.
 */
async function setPetalEnabled(ctx: HandlerContext): Promise<unknown> {
  const name = ctx.body["packageName"];
  const enabled = ctx.body["enabled"];
  if (typeof name !== "string" || typeof enabled !== "boolean") throw panicReply();
  const fs = ctx.kernel.files;
  const dir = `/data/plugins/${name}`;
  if (!/^[A-Za-z0-9_.-]+$/.test(name) || fs.kind(`${dir}/plugin.json`) !== "file") {
    throw kernelError(-1, `plugin [${name}] not found`);
  }
  let petals: Array<Record<string, unknown>> = [];
  if (fs.kind(PETALS) === "file") {
    try {
      const v = JSON.parse(fs.read(PETALS).toString("utf8")) as unknown;
      if (Array.isArray(v)) petals = v as Array<Record<string, unknown>>;
    } catch {
      petals = [];
    }
  }
  const entry = petals.find((p) => p["name"] === name);
  if (entry) entry["enabled"] = enabled;
  else petals.push({ name, enabled });
  fs.write(PETALS, Buffer.from(JSON.stringify(petals)), Date.now());
  await ctx.plugins?.reload(name);
  let manifest: Record<string, unknown> = {};
  try {
    manifest = JSON.parse(fs.read(`${dir}/plugin.json`).toString("utf8")) as Record<
      string,
      unknown
    >;
  } catch {
    manifest = {};
  }
  const text = (p: string) => (fs.kind(p) === "file" ? fs.read(p).toString("utf8") : "");
  const display = manifest["displayName"] as Record<string, unknown> | undefined;
  return {
    name,
    displayName: typeof display?.["default"] === "string" ? display["default"] : name,
    version: typeof manifest["version"] === "string" ? manifest["version"] : "",
    enabled,
    incompatible: false,
    disabledInPublish: manifest["disabledInPublish"] === true,
    disallowInstall: false,
    js: text(`${dir}/index.js`),
    css: text(`${dir}/index.css`),
    i18n: null,
    kernel: {
      js: text(`${dir}/kernel.js`),
      existed: fs.kind(`${dir}/kernel.js`) === "file",
      incompatible: false,
    },
  };
}

/** Exact plugin routes. */
export const pluginRoutes: Record<string, Route> = {
  "/api/plugin": { handler: listLoaded, auth: true, body: "none", write: false, methods: ["GET"] },
  "/api/plugin/listLoadedPlugins": { handler: listLoaded, auth: true, body: "none", write: false },
  "/api/plugin/rpc": rpcRoute,
  "/api/setting/setBazaar": { handler: setBazaar, auth: true, body: "json", write: true },
  "/api/petal/setPetalEnabled": { handler: setPetalEnabled, auth: true, body: "json", write: true },
  "/ws/plugin/rpc": wsRoute,
};

/** `…/<name>` forms, matched by prefix. */
export const pluginPrefixRoutes: Record<string, Route> = {
  "/api/plugin/rpc/": rpcRoute,
  "/ws/plugin/rpc/": wsRoute,
};
