/**
 * A recording reverse proxy in front of the real kernel: the Node server, stdio and the CLI are
 * pointed at it (`--siyuan-url`), so every request they send to the kernel is seen and counted,
 * then forwarded unchanged (streamed both ways). The kernel plugin calls its kernel from inside,
 * so its own kernel calls are not seen here.
 */
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One request that went through the proxy. */
export interface ProxiedCall {
  readonly method: string;
  readonly path: string;
  /** The first bytes of the request body (up to 512), as text. */
  readonly body: string;
  readonly status: number;
  readonly ms: number;
}

export interface RecordingProxy {
  readonly url: string;
  /** Starts a new phase: the calls recorded so far are dropped. */
  mark(): void;
  /** Calls finished since the last mark. */
  calls(): readonly ProxiedCall[];
  stop(): Promise<void>;
}

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const to = new URL(target);
  let recorded: ProxiedCall[] = [];
  const server: Server = createServer((req, res) => {
    const started = performance.now();
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const headers = { ...req.headers, host: to.host };
    let body = "";
    req.on("data", (chunk: Buffer) => {
      if (body.length < 512) body += chunk.subarray(0, 512 - body.length).toString("utf8");
    });
    const upstream = request(
      {
        host: to.hostname,
        port: to.port,
        method: req.method,
        path: req.url,
        headers,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
        up.on("end", () => {
          recorded.push({
            method: req.method ?? "?",
            path,
            body,
            status: up.statusCode ?? 0,
            ms: Math.round(performance.now() - started),
          });
        });
      },
    );
    upstream.on("error", (e) => {
      recorded.push({ method: req.method ?? "?", path, body, status: 0, ms: 0 });
      if (!res.headersSent) res.writeHead(502);
      res.end(String(e));
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    mark() {
      recorded = [];
    },
    calls: () => [...recorded],
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
