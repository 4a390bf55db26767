/**
 * The Streamable HTTP shell: bearer auth, Origin/Host guards, body limit, `/health`, and era
 * routing on `/mcp` (modern 2026-07-28 through `createMcpHandler` with `legacy: 'reject'`;
 * 2025-era traffic through a table of sessionful `NodeStreamableHTTPServerTransport`s).
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type NodeIncomingMessageLike,
  NodeStreamableHTTPServerTransport,
  toNodeHandler,
  toWebRequest,
} from "@modelcontextprotocol/node";
import {
  type AuthInfo,
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  type McpServer,
} from "@modelcontextprotocol/server";
import { isLoopbackHost } from "./config.js";
import {
  HEALTH_PATH,
  LEGACY_SESSION_SWEEP_MS,
  MAX_REQUEST_BODY_BYTES,
  MCP_PATH,
} from "./constants.js";
import { type Clock, LegacySessionTable } from "./legacy-sessions.js";
import { bearerMatches, originAllowed, principalOf } from "./security.js";

/** Builds one MCP server instance for an era; `authInfo.clientId` carries the principal. */
export type ServerFactory = (ctx: { era: "modern" | "legacy"; authInfo?: AuthInfo }) => McpServer;

/** Options of `startHttpServer`. */
export interface HttpServerOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** The bearer token every request must present (secret). */
  readonly authToken: string;
  /** Extra allowed browser origins (loopback origins are always allowed). */
  readonly allowedOrigins: readonly string[];
  readonly factory: ServerFactory;
  /** Aggregate counters for `/health` (numbers only: no IDs, tokens or content). */
  readonly health: () => Record<string, number | string | boolean>;
  readonly clock?: Clock;
  readonly onError?: (error: Error) => void;
}

/** A running HTTP shell. */
export interface HttpServerHandle {
  /** `http://host:port/mcp`. */
  readonly url: string;
  readonly port: number;
  /** Number of open legacy sessions. */
  legacySessions(): number;
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

/**
 * Starts the HTTP shell and resolves once it listens.
 * Status codes: 401 without the right bearer token, 403 for a foreign Origin or (on a loopback
 * bind) a non-loopback Host, 404 off the two paths, 413 above `MAX_REQUEST_BODY_BYTES`, 400 for an
 * unparseable body or a legacy request without session, 404 (-32001) for an unknown session.
 */
export async function startHttpServer(options: HttpServerOptions): Promise<HttpServerHandle> {
  const clock = options.clock ?? Date.now;
  const principal = principalOf(options.authToken);
  const authInfo: AuthInfo = { token: "", clientId: principal, scopes: [] };
  const onError = options.onError ?? (() => undefined);
  const modern = createMcpHandler(() => options.factory({ era: "modern", authInfo }), {
    legacy: "reject",
    maxRequestBodySize: MAX_REQUEST_BODY_BYTES,
    onerror: onError,
  });
  const modernNode = toNodeHandler(modern, {
    maxRequestBodySize: MAX_REQUEST_BODY_BYTES,
    onerror: onError,
  });
  const sessions = new LegacySessionTable<NodeStreamableHTTPServerTransport>(clock);
  const loopbackBind = isLoopbackHost(options.host);

  async function handleLegacy(
    req: IncomingMessage & { auth?: AuthInfo },
    res: ServerResponse,
    body: unknown,
  ): Promise<void> {
    req.auth = authInfo;
    const header = req.headers["mcp-session-id"];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId !== undefined) {
      const transport = sessions.touch(sessionId);
      if (transport === undefined) {
        rpcError(res, 404, -32001, "Session not found");
        return;
      }
      await transport.handleRequest(req, res, body);
      return;
    }
    if (req.method !== "POST" || !isInitializeRequest(body)) {
      rpcError(res, 400, -32000, "Bad Request: no valid Mcp-Session-Id; send initialize first");
      return;
    }
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => sessions.add(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.remove(transport.sessionId);
    };
    const server = options.factory({ era: "legacy", authInfo });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (!originAllowed(req.headers.origin, options.allowedOrigins)) {
      json(res, 403, { error: "forbidden_origin" });
      return;
    }
    if (loopbackBind) {
      const host = req.headers.host;
      const hostname = host === undefined ? "" : new URL(`http://${host}`).hostname;
      if (!isLoopbackHost(hostname)) {
        json(res, 403, { error: "forbidden_host" });
        return;
      }
    }
    if (!bearerMatches(req.headers.authorization, options.authToken)) {
      json(res, 401, { error: "unauthorized" }, { "www-authenticate": 'Bearer realm="sisyphus"' });
      return;
    }
    if (path === HEALTH_PATH) {
      if (req.method !== "GET") {
        json(res, 405, { error: "method_not_allowed" });
        return;
      }
      json(res, 200, { ok: true, ...options.health(), legacySessions: sessions.size });
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
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch {
        rpcError(res, 400, -32700, "Parse error");
        return;
      }
    }
    const legacy =
      req.method !== "POST" ||
      req.headers["mcp-session-id"] !== undefined ||
      (await isLegacyRequest(await toWebRequest(req as NodeIncomingMessageLike, body), body));
    if (legacy) {
      await handleLegacy(req, res, body);
      return;
    }
    await modernNode(req as NodeIncomingMessageLike, res, body);
  }

  const server: Server = createServer((req, res) => {
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
  const sweep = setInterval(() => sessions.sweep(), LEGACY_SESSION_SWEEP_MS);
  sweep.unref();
  const port = (server.address() as AddressInfo).port;
  const hostForUrl = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${hostForUrl}:${port}${MCP_PATH}`,
    port,
    legacySessions: () => sessions.size,
    async close() {
      clearInterval(sweep);
      await sessions.closeAll();
      await modern.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
