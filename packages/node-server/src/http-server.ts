/**
 * The Streamable HTTP shell: bearer auth, Origin/Host guards, body limit, `/health`, and the `/mcp`
 * path, which it hands to an `McpEndpoint` (see `mcp-stack.ts`). The shell needs neither the MCP
 * SDK nor zod, so it listens before they are loaded: the endpoint loads once the process has announced
 * itself (`HttpServerHandle.loadEndpoint`) or on the first `/mcp` request, and `/mcp` requests that arrive before it resolves wait for it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type AuthorityHealthInput, authorityHealth } from "@sisyphus/mcp-tools/shell/gate";
import { isLoopbackHost } from "./config.js";
import {
  HEALTH_PATH,
  HTTP_CLOSE_FLUSH_MS,
  MAX_JSON_DEPTH,
  MAX_REQUEST_BODY_BYTES,
  MCP_PATH,
} from "./constants.js";

import { bearerMatches, exceedsJsonDepth, originAllowed, parseHostHeader } from "./security.js";

/** What serves the `/mcp` path once authentication, guards and body parsing passed. */
export interface McpEndpoint {
  /** Answers one request; `body` is the parsed JSON body (POST) or `undefined`. */
  handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void>;
  /** Number of open legacy sessions. */
  legacySessions(): number;
  /** Read-budget counters of the tool runtime (reads, and those that exceeded a limit). */
  readBudget?(): AuthorityHealthInput["readBudget"];
  close(): Promise<void>;
}

/** Options of `startHttpServer`. */
export interface HttpServerOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /**
   * The bearer tokens a request may present (secrets): the configured token and the authority's
   * local credential (`authority.credential`). Each is checked in constant time, all of them always.
   */
  readonly authTokens: readonly string[];
  /** Called for every request that passed authentication (the idle stop's activity). */
  readonly onAuthenticated?: () => void;
  /** Extra allowed browser origins (loopback origins are always allowed). */
  readonly allowedOrigins: readonly string[];
  /** Loads the `/mcp` endpoint; called at most once, after the socket listens. */
  readonly loadEndpoint: () => Promise<McpEndpoint>;
  /**
   * What `/health` reports besides the endpoint's own counts (legacy sessions, read budgets), for
   * `authorityHealth`: the authority, the admission gate and the write lane.
   */
  readonly health: () => Omit<AuthorityHealthInput, "legacySessions" | "readBudget">;
  readonly onError?: (error: Error) => void;
}

/** A running HTTP shell. */
export interface HttpServerHandle {
  /** `http://host:port/mcp`. */
  readonly url: string;
  readonly port: number;
  /** Number of open legacy sessions. */
  legacySessions(): number;
  /**
   * Starts loading the `/mcp` endpoint now (else the first `/mcp` request does); idempotent. The
   * promise rejects when the endpoint cannot be loaded (then every `/mcp` request answers 500).
   */
  loadEndpoint(): Promise<void>;
  /**
   * Stops accepting connections, gives POST answers still being written up to `HTTP_CLOSE_FLUSH_MS`
   * to finish, then closes the endpoint and every connection.
   */
  close(): Promise<void>;
}

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function rpcError(res: ServerResponse, status: number, code: number, message: string) {
  json(res, status, { jsonrpc: "2.0", id: null, error: { code, message } });
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | "too_large"> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit) return "too_large";
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

/** How many raw `Host` header lines a request carries (Node keeps only the first in `headers`). */
function hostHeaderLines(req: IncomingMessage): number {
  let n = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]?.toLowerCase() === "host") n++;
  }
  return n;
}

/**
 * Starts the HTTP shell and resolves once it listens.
 * Status codes, checked in this order on every path: 400 (`bad_host`) for an absent, repeated or
 * malformed `Host` (parsed strictly: host and port only), 403 (`forbidden_host`) for a
 * non-loopback Host on a loopback bind, 400 (`bad_request`) for an unparseable request target, 403
 * for a foreign Origin, 401 without the right bearer token, 404 off the two paths, 413 above
 * `MAX_REQUEST_BODY_BYTES`, 400 (-32600) for JSON nested deeper than `MAX_JSON_DEPTH`, 400
 * (-32700) for an unparseable body, then the endpoint's own answers (400 for a legacy request
 * without session, 404 (-32001) for an unknown session, ...).
 */
export async function startHttpServer(options: HttpServerOptions): Promise<HttpServerHandle> {
  const onError = options.onError ?? (() => undefined);
  let endpoint: Promise<McpEndpoint> | undefined;
  let loaded: McpEndpoint | undefined;
  const loopbackBind = isLoopbackHost(options.host);

  /** POST requests whose answer is not yet fully written (graceful close waits for them). */
  const answering = new Set<Promise<void>>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const host = hostHeaderLines(req) === 1 ? parseHostHeader(req.headers.host) : undefined;
    if (host === undefined) {
      json(res, 400, { error: "bad_host" });
      return;
    }
    if (loopbackBind && !isLoopbackHost(host.host)) {
      json(res, 403, { error: "forbidden_host" });
      return;
    }
    let path: string;
    try {
      path = new URL(req.url ?? "/", "http://localhost").pathname;
    } catch {
      json(res, 400, { error: "bad_request" });
      return;
    }
    if (!originAllowed(req.headers.origin, options.allowedOrigins)) {
      json(res, 403, { error: "forbidden_origin" });
      return;
    }
    // Every token is compared (no early exit), so timing does not tell which one was close.
    const matches = options.authTokens.map((t) => bearerMatches(req.headers.authorization, t));
    if (!matches.includes(true)) {
      json(res, 401, { error: "unauthorized" }, { "www-authenticate": 'Bearer realm="sisyphus"' });
      return;
    }
    options.onAuthenticated?.();
    if (path === HEALTH_PATH) {
      if (req.method !== "GET") {
        json(res, 405, { error: "method_not_allowed" });
        return;
      }
      const readBudget = loaded?.readBudget?.();
      json(
        res,
        200,
        authorityHealth({
          ...options.health(),
          legacySessions: loaded?.legacySessions() ?? 0,
          ...(readBudget === undefined ? {} : { readBudget }),
        }),
      );
      return;
    }
    if (path !== MCP_PATH) {
      json(res, 404, { error: "not_found" });
      return;
    }
    const declared = Number(req.headers["content-length"] ?? "0");
    if (declared > MAX_REQUEST_BODY_BYTES) {
      rpcError(res, 413, -32600, "Request body too large");
      return;
    }
    let body: unknown;
    if (req.method === "POST") {
      const raw = await readBody(req, MAX_REQUEST_BODY_BYTES);
      if (raw === "too_large") {
        rpcError(res, 413, -32600, "Request body too large");
        return;
      }
      if (exceedsJsonDepth(raw, MAX_JSON_DEPTH)) {
        rpcError(
          res,
          400,
          -32600,
          `Invalid Request: JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
        );
        return;
      }
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch {
        rpcError(res, 400, -32700, "Parse error");
        return;
      }
    }
    await (endpoint ?? startLoading()).then((e) => e.handle(req, res, body));
  }

  function startLoading(): Promise<McpEndpoint> {
    endpoint = options.loadEndpoint().then((e) => {
      loaded = e;
      return e;
    });
    // A failed load answers every `/mcp` request with 500 (through `handle`'s catch); report it once.
    endpoint.catch((e: unknown) => onError(e instanceof Error ? e : new Error(String(e))));
    return endpoint;
  }

  const server: Server = createServer((req, res) => {
    if (req.method === "POST") {
      const done = new Promise<void>((resolve) => res.once("close", resolve));
      answering.add(done);
      void done.then(() => answering.delete(done));
    }
    handle(req, res).catch((e: unknown) => {
      onError(e instanceof Error ? e : new Error(String(e)));
      if (!res.headersSent) rpcError(res, 500, -32603, "Internal error");
      else res.end();
    });
  });
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const hostForUrl = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${hostForUrl}:${port}${MCP_PATH}`,
    port,
    legacySessions: () => loaded?.legacySessions() ?? 0,
    async loadEndpoint() {
      await (endpoint ?? startLoading());
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      if (answering.size > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          Promise.all(answering),
          new Promise<void>((resolve) => {
            timer = setTimeout(resolve, HTTP_CLOSE_FLUSH_MS);
          }),
        ]);
        clearTimeout(timer);
      }
      await endpoint?.then((e) => e.close()).catch(() => undefined);
      server.closeAllConnections();
      await closed;
    },
  };
}
