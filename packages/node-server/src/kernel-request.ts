/**
 * The one client of the SiYuan port's small routes a delegating process calls besides `/mcp`: the
 * kernel plugin's `/tasks` and `/transfer/*`, and the settings read through the kernel's
 * `/api/file/getFile`. It adds the `Token` header of the SiYuan API token, bounds each request
 * by its deadline, and sends with `node:http` over kept-alive sockets, not `fetch`: the first
 * `fetch` of a process loads Node's bundled undici, tens of milliseconds of a CLI call's start,
 * and every later one costs more than a plain request. Free sockets never keep the process alive.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import type { Agent as HttpsAgent, RequestOptions } from "node:https";

/** A SiYuan kernel and the API token this process presents to it. */
export interface KernelAddress {
  /** Base URL, e.g. `http://127.0.0.1:6806` (a trailing slash is ignored). */
  readonly siyuanUrl: string;
  /** The SiYuan API token; without it no `Authorization` header is sent. */
  readonly siyuanToken?: string;
}

/** The `Authorization` header of a SiYuan API token (none without a token). */
export function kernelAuthorization(siyuanToken: string | undefined): Record<string, string> {
  return siyuanToken === undefined ? {} : { authorization: `Token ${siyuanToken}` };
}

/** One request to a kernel route. */
export interface KernelRequest {
  /** Default `POST`. */
  readonly method?: "GET" | "POST";
  /** A JSON value (sent as `application/json`) or raw bytes (with `contentType`). */
  readonly json?: unknown;
  readonly bytes?: Uint8Array;
  /** The content type of `bytes`; default `application/octet-stream`. */
  readonly contentType?: string;
  /** Further headers (the `Authorization` header comes from the address). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The whole request's deadline, answer included, in milliseconds. */
  readonly timeoutMs: number;
  /** Stops the request early (as the deadline does). */
  readonly signal?: AbortSignal;
  /**
   * Sends once more when a kept-alive socket the kernel had closed fails before any answer: only
   * for requests that may be repeated (reads); the race is the socket's, not the kernel's.
   */
  readonly idempotent?: boolean;
}

/** What a kernel route answered (any status). */
export interface KernelAnswer {
  readonly status: number;
  /** A response header, by lower-case name. */
  header(name: string): string | undefined;
  /** The body as UTF-8 text. */
  readonly text: string;
  /** The body as a JSON object, or `undefined` when it is not one. */
  json(): Record<string, unknown> | undefined;
}

/** Kept-alive sockets (free ones never keep the process alive). */
let httpAgent: HttpAgent | undefined;
let httpsAgent: HttpsAgent | undefined;

/** How a kept-alive socket the other end already closed fails. */
const STALE_SOCKET = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED"]);

/** A request on a reused kept-alive socket failed before its answer began. */
class StaleSocketError extends Error {}

/**
 * Sends one request to `path` on the kernel and reads the whole answer. Rejects on a network
 * error, at the deadline, and when `signal` aborts (the signal's reason then).
 */
export async function kernelRequest(
  kernel: KernelAddress,
  path: string,
  request: KernelRequest,
): Promise<KernelAnswer> {
  const url = new URL(`${kernel.siyuanUrl.replace(/\/+$/, "")}${path}`);
  const deadline = AbortSignal.timeout(request.timeoutMs);
  const signal =
    request.signal === undefined ? deadline : AbortSignal.any([request.signal, deadline]);
  const body =
    request.json !== undefined
      ? Buffer.from(JSON.stringify(request.json), "utf8")
      : request.bytes === undefined
        ? undefined
        : Buffer.from(request.bytes.buffer, request.bytes.byteOffset, request.bytes.byteLength);
  const headers: Record<string, string> = {
    ...kernelAuthorization(kernel.siyuanToken),
    ...(body === undefined
      ? {}
      : {
          "content-type":
            request.json !== undefined
              ? "application/json"
              : (request.contentType ?? "application/octet-stream"),
          "content-length": String(body.byteLength),
        }),
    ...request.headers,
  };
  const method = request.method ?? "POST";
  try {
    return await sendOnce(url, method, headers, body, signal);
  } catch (e) {
    if (!(e instanceof StaleSocketError) || request.idempotent !== true) throw unwrapStale(e);
    return sendOnce(url, method, headers, body, signal).catch((again) => {
      throw unwrapStale(again);
    });
  }
}

function unwrapStale(e: unknown): unknown {
  return e instanceof StaleSocketError ? e.cause : e;
}

function sendOnce(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  signal: AbortSignal,
): Promise<KernelAnswer> {
  // node:https (and TLS with it) loads only for a kernel reached over https.
  const https =
    url.protocol === "https:"
      ? (process.getBuiltinModule("node:https") as typeof import("node:https"))
      : undefined;
  let agent: HttpAgent | HttpsAgent;
  if (https === undefined) {
    httpAgent ??= new HttpAgent({ keepAlive: true });
    agent = httpAgent;
  } else {
    httpsAgent ??= new https.Agent({ keepAlive: true });
    agent = httpsAgent;
  }
  const options: RequestOptions = { method, agent, headers, signal };
  return new Promise((resolve, reject) => {
    let answered = false;
    const onResponse = (res: IncomingMessage) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve(answerOf(res, Buffer.concat(chunks).toString("utf8"))));
      res.on("error", reject);
    };
    const req =
      https === undefined
        ? httpRequest(url, options, onResponse)
        : https.request(url, options, onResponse);
    req.on("error", (e: NodeJS.ErrnoException) => {
      const stale =
        req.reusedSocket && !answered && !signal.aborted && STALE_SOCKET.has(e.code ?? "");
      reject(stale ? new StaleSocketError(e.message, { cause: e }) : e);
    });
    req.end(body);
  });
}

function answerOf(res: IncomingMessage, text: string): KernelAnswer {
  return {
    status: res.statusCode ?? 0,
    header: (name) => {
      const value = res.headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(", ") : value;
    },
    text,
    json: () => parseJsonObject(text),
  };
}

/** `text` as a JSON object, or undefined (not JSON, or JSON of another kind). */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
