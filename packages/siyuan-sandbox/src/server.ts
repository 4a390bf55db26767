/**
 * The HTTP front: request log and counters, faults, CORS preflight, auth, per-path
 * serialisation, JSON parsing, the envelope, and the optional `/__sandbox/*` control route.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { auditRequest, SNAPSHOT_ACTION_REPO_PATHS } from "./audit.js";
import {
  CONTROL_ROUTE_PREFIX,
  FAULT_DEFAULT_HTTP_STATUS,
  REQUEST_LOG_MAX_ENTRIES,
} from "./constants.js";
import { isSandboxError, type KernelErrorDetails } from "./errors.js";
import { type ArmedFault, defaultCorrupt, type FaultBook, type FaultKind } from "./faults.js";
import { parseJsonObjectBody } from "./go-json.js";
import { type HandlerContext, type PluginServices, RawReply, type Route } from "./handler-kit.js";
import { assetPrefixRoutes, assetRoutes } from "./handlers-asset.js";
import { avRoutes } from "./handlers-av.js";
import { avReadRoutes } from "./handlers-av-reads.js";
import { blockRoutes } from "./handlers-block.js";
import { filetreeAndNotebookRoutes } from "./handlers-filetree.js";
import { historyRoutes } from "./handlers-history.js";
import { mcpRoutes } from "./handlers-mcp.js";
import { miscRoutes } from "./handlers-misc.js";
import { navRoutes } from "./handlers-nav.js";
import { pluginPrefixRoutes, pluginRoutes } from "./handlers-plugin.js";
import { readRoutes } from "./handlers-reads.js";
import { repoRoutes } from "./handlers-repo.js";
import { riffRoutes } from "./handlers-riff.js";
import { searchMoreRoutes } from "./handlers-search-more.js";
import { templateRoutes } from "./handlers-template.js";
import type { Kernel } from "./kernel.js";
import type { PluginRouteContext } from "./plugin-host/host.js";

/** One request as the log keeps it. */
export interface RequestLogEntry {
  seq: number;
  method: string;
  path: string;
  /** HTTP status sent; 0 when the connection was destroyed without an answer. */
  status: number;
  /** Envelope `code` when the answer was a JSON envelope, else null. */
  code: number | null;
  /** Faults that hit this request. */
  faults: FaultKind[];
  /** Wall-clock start (ms since epoch, system clock). */
  startedAtMs: number;
  durationMs: number;
}

/** The request log and per-path counters. */
export class RequestLog {
  private readonly entries: RequestLogEntry[] = [];
  private readonly counters = new Map<string, number>();
  private seq = 0;
  /**
   * Set by `control.expectSnapshotActions()` in the tests of history.snapshot_*: this sandbox's
   * requests to the three paths those actions call are not audited (any other `/api/repo/*` is).
   */
  snapshotActionsExpected = false;

  /** Counts a request and opens its log entry. */
  open(method: string, path: string): RequestLogEntry {
    if (!(this.snapshotActionsExpected && SNAPSHOT_ACTION_REPO_PATHS.has(path))) auditRequest(path);
    this.counters.set(path, (this.counters.get(path) ?? 0) + 1);
    const e: RequestLogEntry = {
      seq: ++this.seq,
      method,
      path,
      status: 0,
      code: null,
      faults: [],
      startedAtMs: Date.now(),
      durationMs: 0,
    };
    this.entries.push(e);
    // trim in batches: Array.shift on a long log would cost O(n) per request
    if (this.entries.length > REQUEST_LOG_MAX_ENTRIES * 1.1) {
      this.entries.splice(0, this.entries.length - REQUEST_LOG_MAX_ENTRIES);
    }
    return e;
  }
  /** Entries, oldest first. */
  list(): RequestLogEntry[] {
    return this.entries
      .slice(-REQUEST_LOG_MAX_ENTRIES)
      .map((e) => ({ ...e, faults: [...e.faults] }));
  }
  /** Requests per exact path since the last reset. */
  counts(): Record<string, number> {
    return Object.fromEntries(this.counters);
  }
  /** Clears entries and counters. */
  reset(): void {
    this.entries.length = 0;
    this.counters.clear();
  }
}

/** Every kernel route of the sandbox. */
export const ROUTES: Record<string, Route> = {
  ...filetreeAndNotebookRoutes,
  ...blockRoutes,
  ...readRoutes,
  ...miscRoutes,
  ...templateRoutes,
  ...assetRoutes,
  ...navRoutes,
  ...mcpRoutes,
  ...avRoutes,
  ...avReadRoutes,
  ...historyRoutes,
  ...repoRoutes,
  ...riffRoutes,
  ...searchMoreRoutes,
  ...pluginRoutes,
};

/** Routes matched by path prefix (GET file routes), after the exact ROUTES. */
export const PREFIX_ROUTES: Record<string, Route> = {
  ...assetPrefixRoutes,
  ...pluginPrefixRoutes,
};

function prefixRoute(path: string): Route | undefined {
  for (const [prefix, route] of Object.entries(PREFIX_ROUTES)) {
    if (path.startsWith(prefix)) return route;
  }
  return undefined;
}

const EXEMPT_PREFIXES = [
  "/stage/",
  "/assets/",
  "/emojis/",
  "/plugins/",
  "/public/",
  "/snippets/",
  "/templates/",
  "/widgets/",
  "/appearance/",
  "/export/",
  "/history/",
  "/api/query/",
  "/api/search/",
  "/api/network/",
  "/api/broadcast/",
  "/api/ai/",
  "/es/",
  "/mcp",
];
const EXEMPT_VERBS = ["get", "list", "search", "render", "ls"];

/** True when the kernel does not serialise requests to this path (contract §1.4). */
export function isSerialisationExempt(path: string): boolean {
  if (EXEMPT_PREFIXES.some((p) => path.startsWith(p))) return true;
  const last = path.split("/").pop() ?? "";
  return EXEMPT_VERBS.some((v) => last.startsWith(v));
}

/** Per-path mutex. */
export class PathLocks {
  private readonly tails = new Map<string, Promise<void>>();
  async run<T>(path: string, fn: () => Promise<T>): Promise<T> {
    if (isSerialisationExempt(path)) return fn();
    const prev = this.tails.get(path) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => {
      release = r;
    });
    const tail = prev.then(() => mine);
    this.tails.set(path, tail);
    await prev;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(path) === tail) this.tails.delete(path);
    }
  }
}

/** Settings of the front. */
export interface FrontOptions {
  token: string;
  flushBeforeReply: boolean;
  controlRoute: ((path: string, body: Record<string, unknown>) => Promise<unknown>) | null;
  /** The kernel-plugin host: `/plugin/private/*` and plugin JWTs (`X-Auth-Token`). */
  pluginHost?: PluginFront | null;
}

/** What the front needs from the plugin host (src/plugin-host). */
export interface PluginFront extends PluginServices {
  verifyToken(token: string): boolean;
  serve(ctx: PluginRouteContext): Promise<void>;
}

const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-credentials": "true",
  "access-control-allow-headers": "origin, Content-Length, Content-Type, Authorization",
  "access-control-allow-methods": "GET, POST, PUT, DELETE, OPTIONS",
};

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

const TOKEN_HEADER = /^(?:Token|token|Bearer|bearer)\s+(.+)$/;

/** CheckAuth as the kernel does it, minus the localhost-without-token rule (always required). */
function authFailure(
  req: IncomingMessage,
  url: URL,
  token: string,
  plugins?: PluginFront | null,
): string | null {
  // 1. a plugin JWT in X-Auth-Token (siyuan.client); an invalid one falls through
  const jwt = req.headers["x-auth-token"];
  if (plugins && typeof jwt === "string" && plugins.verifyToken(jwt)) return null;
  const header = req.headers.authorization;
  if (header !== undefined) {
    const m = TOKEN_HEADER.exec(header.trim());
    return m && m[1] === token ? null : "Auth failed [header: Authorization]";
  }
  const q = url.searchParams.get("token");
  if (q !== null) return q === token ? null : "Auth failed [query: token]";
  return "Auth failed [session]";
}

/** Builds the request listener. */
export function createRequestListener(
  kernel: Kernel,
  faults: FaultBook,
  log: RequestLog,
  opts: FrontOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  const locks = new PathLocks();

  const send = (
    res: ServerResponse,
    entry: RequestLogEntry,
    status: number,
    headers: Record<string, string>,
    body: Buffer | string,
    code: number | null,
  ): void => {
    entry.status = status;
    entry.code = code;
    entry.durationMs = Date.now() - entry.startedAtMs;
    res.writeHead(status, { ...CORS_HEADERS, ...headers });
    res.end(body);
  };
  const sendJson = (
    res: ServerResponse,
    entry: RequestLogEntry,
    status: number,
    value: Record<string, unknown>,
  ): void =>
    send(
      res,
      entry,
      status,
      { "content-type": "application/json; charset=utf-8" },
      JSON.stringify(value),
      typeof value.code === "number" ? value.code : null,
    );
  const envelope = (code: number, msg: string, data: unknown) => ({ code, msg, data });

  const destroy = (req: IncomingMessage, res: ServerResponse, entry: RequestLogEntry): void => {
    entry.status = 0;
    entry.durationMs = Date.now() - entry.startedAtMs;
    res.socket?.resetAndDestroy?.();
    req.socket.destroy();
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const path = url.pathname;
    const method = req.method ?? "GET";
    const entry = log.open(method, path);
    const hits: ArmedFault[] = method === "OPTIONS" ? [] : faults.take(path);
    entry.faults = hits.map((f) => f.kind);
    const has = (k: FaultKind) => hits.find((f) => f.kind === k);

    if (has("refuse")) {
      destroy(req, res, entry);
      return;
    }
    const raw = await readBody(req);
    const http5xx = has("http5xx");
    if (http5xx) {
      const status = http5xx.status ?? FAULT_DEFAULT_HTTP_STATUS;
      send(
        res,
        entry,
        status,
        { "content-type": "text/plain; charset=utf-8" },
        `${status} injected by siyuan-sandbox`,
        null,
      );
      return;
    }
    if (method === "OPTIONS") {
      send(res, entry, 204, {}, "", null);
      return;
    }
    if (has("holdQueue")) kernel.hold();

    if (opts.controlRoute && path.startsWith(CONTROL_ROUTE_PREFIX)) {
      const fail = authFailure(req, url, opts.token);
      if (fail) return sendJson(res, entry, 401, { code: -1, msg: fail });
      let body: Record<string, unknown> = {};
      try {
        body = raw.length > 0 ? (JSON.parse(raw.toString("utf8")) as Record<string, unknown>) : {};
      } catch {
        return sendJson(res, entry, 200, envelope(-1, "bad JSON", null));
      }
      try {
        return sendJson(
          res,
          entry,
          200,
          envelope(0, "", (await opts.controlRoute(path, body)) ?? null),
        );
      } catch (e) {
        return sendJson(
          res,
          entry,
          200,
          envelope(-1, e instanceof Error ? e.message : String(e), null),
        );
      }
    }

    if (opts.pluginHost && path.startsWith("/plugin/private/")) {
      return opts.pluginHost.serve({
        req,
        res,
        url,
        raw,
        hits,
        authFailure: authFailure(req, url, opts.token, opts.pluginHost),
        lock: (p, fn) => locks.run(p, fn),
        done: (status, code) => {
          entry.status = status;
          entry.code = code;
          entry.durationMs = Date.now() - entry.startedAtMs;
        },
        baseHeaders: CORS_HEADERS,
        flush: () => kernel.flush(),
        hold: () => faults.hold(),
      });
    }
    const route = ROUTES[path] ?? prefixRoute(path);
    // gin answers unknown routes (and a wrong method) with 404 before any guard runs
    const getAllowed = path === "/api/system/version" || path === "/api/system/bootProgress";
    const methodOk = route?.methods
      ? route.methods.includes(method)
      : method === "POST" || (method === "GET" && getAllowed);
    if (!route || !methodOk) {
      send(
        res,
        entry,
        404,
        { "content-type": "text/plain; charset=utf-8" },
        "404 page not found",
        null,
      );
      return;
    }
    if (route.auth) {
      const fail = authFailure(req, url, opts.token, opts.pluginHost);
      if (fail) return sendJson(res, entry, 401, { code: -1, msg: fail });
    }

    await locks.run(path, async () => {
      // a slow kernel: the delay is spent holding the path's lock
      const delay = has("delay");
      if (delay) await new Promise((r) => setTimeout(r, delay.delayMs ?? 0));
      if (has("hold")) await faults.hold();
      let body: Record<string, unknown> = {};
      if (route.body === "json" || route.body === "tolerant") {
        const { parsed, detail } = parseJsonObjectBody(raw.toString("utf8"));
        if (detail !== null) {
          if (route.body === "json") {
            sendJson(
              res,
              entry,
              200,
              envelope(-1, `Parses request [${path}] failed: ${detail}`, null),
            );
            return;
          }
        } else body = parsed as Record<string, unknown>;
      }
      const corrupt = has("corrupt");
      if (corrupt) body = (corrupt.corrupt ?? defaultCorrupt)(body);
      const ctx: HandlerContext = {
        kernel,
        path,
        method,
        query: url.searchParams,
        body,
        rawBody: raw,
        headers: req.headers,
        silent: has("silentDrop") !== undefined,
        flushBeforeReply: opts.flushBeforeReply,
        plugins: opts.pluginHost ?? null,
        token: opts.token,
      };
      let reply: {
        status: number;
        headers: Record<string, string>;
        body: Buffer | string;
        code: number | null;
      };
      if (ctx.silent && route.write) {
        reply = jsonReply(envelope(0, "", null));
      } else {
        try {
          const data = await route.handler(ctx);
          if (data instanceof RawReply) {
            const code =
              data.status === 202 && String(data.body) !== ""
                ? (JSON.parse(String(data.body)) as { code: number }).code
                : null;
            reply = { status: data.status, headers: data.headers, body: data.body, code };
          } else reply = jsonReply(envelope(0, "", data ?? null));
        } catch (e) {
          if (isSandboxError(e) && e.code === "kernel_error") {
            const d = e.details as unknown as KernelErrorDetails;
            reply = jsonReply(envelope(d.kernelCode, e.message, d.kernelData ?? null));
          } else {
            reply = jsonReply(envelope(-1, e instanceof Error ? e.message : String(e), null));
          }
        }
      }
      if (has("resetAfterApply")) {
        await kernel.flush();
        destroy(req, res, entry);
        return;
      }
      send(res, entry, reply.status, reply.headers, reply.body, reply.code);
    });
  }

  function jsonReply(value: { code: number; msg: string; data: unknown }) {
    return {
      status: 200,
      headers: { "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify(value),
      code: value.code,
    };
  }

  return (req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
        res.end(e instanceof Error ? e.message : String(e));
      }
    });
  };
}
