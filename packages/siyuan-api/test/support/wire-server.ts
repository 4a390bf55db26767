/**
 * A loopback HTTP server whose answers a test scripts request by request: the wire-level fault
 * fixture for transport tests (resets, 5xx, silence, garbage bodies). It is not a kernel: endpoint
 * behaviour is tested against `@sisyphus/siyuan-sandbox`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** What the server does with one request. */
export type WireAction =
  | { kind: "json"; status?: number; body: unknown }
  | { kind: "raw"; status: number; body: string | Uint8Array; contentType?: string }
  | { kind: "reset" }
  | { kind: "silence" };

/** A request as the server received it. */
export interface WireRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
}

export interface WireServer {
  url: string;
  port: number;
  requests: WireRequest[];
  /** Sockets accepted so far (keep-alive reuse shows as fewer connections than requests). */
  connections(): number;
  /** Sockets open now (an idle keep-alive socket the server closed is no longer counted). */
  openConnections(): number;
  /** The handler for every request; may return a different action per call. */
  handle(fn: (req: WireRequest, index: number) => WireAction): void;
  stop(): Promise<void>;
}

/** Starts a wire server on 127.0.0.1, port 0. */
export async function startWireServer(
  options: { keepAliveTimeoutMs?: number } = {},
): Promise<WireServer> {
  const requests: WireRequest[] = [];
  const sockets = new Set<Socket>();
  let connectionCount = 0;
  let handler: (req: WireRequest, index: number) => WireAction = () => ({
    kind: "json",
    body: { code: 0, msg: "", data: null },
  });
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const entry: WireRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      requests.push(entry);
      const action = handler(entry, requests.length - 1);
      switch (action.kind) {
        case "json":
          res.writeHead(action.status ?? 200, { "content-type": "application/json" });
          res.end(JSON.stringify(action.body));
          return;
        case "raw":
          res.writeHead(action.status, { "content-type": action.contentType ?? "text/plain" });
          res.end(action.body);
          return;
        case "reset":
          req.socket.destroy();
          return;
        case "silence":
          return;
      }
    });
  });
  if (options.keepAliveTimeoutMs !== undefined)
    server.keepAliveTimeout = options.keepAliveTimeoutMs;
  server.on("connection", (s: Socket) => {
    connectionCount++;
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    connections: () => connectionCount,
    openConnections: () => sockets.size,
    handle(fn) {
      handler = fn;
    },
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback port that was just free: connecting to it is refused. */
export async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Kernel envelope helper. */
export function ok(data: unknown): WireAction {
  return { kind: "json", body: { code: 0, msg: "", data } };
}
