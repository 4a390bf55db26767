/**
 * Two loopback HTTP proxies for the delegation proofs.
 *
 * - {@link startKernelProxy}: the kernel as a spawned authority sees it. Every request is sent
 *   through an in-process kernel `Transport` (the matrix's recording, hooking transport), so the
 *   fault kinds that act around the n-th kernel write work the same when the writes come from
 *   another process. A transport failure closes the caller's socket without an answer.
 * - {@link startAuthorityProxy}: the Node authority as a delegating front sees it, able to lose
 *   the answer of one chosen commit (forwarded, executed, answer never delivered).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Transport } from "@sisyphus/siyuan-api";
import { PRECHECK_META_KEY } from "../../../mcp-tools/src/shell/index.js";

/** A listening proxy. */
export interface Proxy {
  readonly url: string;
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
}

/** A kernel endpoint whose kernel can be swapped (one cell's kernel after another's). */
export interface KernelProxy extends Proxy {
  /** Sends through `next` from now on. */
  retarget(next: Transport): void;
}

/** A kernel endpoint that forwards each request through `transport` (which adds the kernel token). */
export async function startKernelProxy(initial: Transport): Promise<KernelProxy> {
  let transport = initial;
  const server = createServer((req, res) => {
    void (async () => {
      const bytes = await bodyOf(req);
      const type = req.headers["content-type"] ?? "";
      const res2 = await transport.send({
        endpoint: (req.url ?? "/").split("?")[0] as string,
        body: type.includes("json")
          ? { kind: "json", text: bytes.toString("utf8") }
          : { kind: "bytes", bytes: new Uint8Array(bytes), contentType: type },
        responseType: "bytes",
      });
      const out = res2.type === "bytes" ? Buffer.from(res2.bytes) : Buffer.from(res2.text);
      res.writeHead(res2.status, res2.contentType ? { "content-type": res2.contentType } : {});
      res.end(out);
    })().catch(() => req.socket.destroy());
  });
  const url = await listen(server);
  return {
    url,
    close: closer(server),
    retarget(next) {
      transport = next;
    },
  };
}

/** The `tools/call` a JSON-RPC POST body carries, if any. */
function toolCallOf(
  body: Buffer,
): { arguments?: Record<string, unknown>; _meta?: Record<string, unknown> } | undefined {
  try {
    const msg = JSON.parse(body.toString("utf8")) as {
      method?: string;
      params?: { arguments?: Record<string, unknown>; _meta?: Record<string, unknown> };
    };
    return msg.method === "tools/call" ? (msg.params ?? {}) : undefined;
  } catch {
    return undefined;
  }
}

/** An authority proxy that can lose the answer to one commit. */
export interface AuthorityProxy extends Proxy {
  /**
   * The next commit (a `tools/call` carrying `requestId`, not a preflight or check) is forwarded and
   * fully answered by the authority, then the front's socket is destroyed instead of answering.
   */
  loseAnswerOf(requestId: string): void;
  /** Commits whose answers were lost. */
  readonly lost: string[];
  /** Sends to another authority from now on (a restarted one listens on a new port). */
  retarget(upstream: string): void;
}

const HOP_HEADERS = new Set(["host", "connection", "content-length", "keep-alive"]);

/** A proxy in front of a Node authority's `/mcp` (GET streams are declined with 405). */
export async function startAuthorityProxy(upstream: string): Promise<AuthorityProxy> {
  let target = new URL(upstream);
  let armed: string | undefined;
  const lost: string[] = [];
  const forward = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === "GET") {
      res.writeHead(405, { allow: "POST, DELETE" }).end();
      return;
    }
    const body = await bodyOf(req);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === "string" && !HOP_HEADERS.has(k)) headers[k] = v;
    const answer = await fetch(new URL(req.url ?? "/", target), {
      method: req.method ?? "POST",
      headers,
      ...(body.length > 0 ? { body } : {}),
    });
    const bytes = Buffer.from(await answer.arrayBuffer());
    const call = toolCallOf(body);
    const args = call?.arguments;
    // A confirmed action's check-only call (PRECHECK_META_KEY) carries the same arguments.
    const check = call?._meta?.[PRECHECK_META_KEY] === true;
    if (armed !== undefined && args?.["requestId"] === armed && !check && !args["validateOnly"]) {
      lost.push(armed);
      armed = undefined;
      req.socket.destroy();
      return;
    }
    const out: Record<string, string> = {};
    answer.headers.forEach((v, k) => {
      if (!HOP_HEADERS.has(k) && k !== "transfer-encoding" && k !== "content-encoding") out[k] = v;
    });
    res.writeHead(answer.status, out).end(bytes);
  };
  const server = createServer((req, res) => {
    forward(req, res).catch(() => req.socket.destroy());
  });
  const url = `${await listen(server)}${target.pathname}`;
  return {
    url,
    lost,
    close: closer(server),
    loseAnswerOf(requestId) {
      armed = requestId;
    },
    retarget(next) {
      target = new URL(next);
    },
  };
}
