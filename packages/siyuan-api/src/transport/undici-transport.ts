/**
 * Node transport over undici: a keep-alive `Pool` (or a caller's dispatcher), per-request timeouts,
 * no automatic retries, and a classification of every failure into `not_dispatched` or
 * `outcome_unknown`.
 */
import { type Dispatcher, Pool, RetryAgent } from "undici";
import {
  DEFAULT_POOL_CONNECTIONS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  POOL_CONNECT_TIMEOUT_MS,
  POOL_KEEP_ALIVE_MAX_TIMEOUT_MS,
  POOL_KEEP_ALIVE_THRESHOLD_MS,
  POOL_KEEP_ALIVE_TIMEOUT_MS,
  RETRYABLE_HTTP_STATUSES,
} from "../constants.js";
import { SiyuanApiError, type TransportFailureReason } from "../errors.js";
import type { Transport, TransportRequest, TransportResponse } from "./transport.js";

/** Options of {@link undiciTransport}. */
export interface UndiciTransportOptions {
  /** Kernel base URL, e.g. `http://127.0.0.1:6806` (a path prefix is kept). */
  readonly baseUrl: string;
  /** API token, sent as `Authorization: Token <token>`; omit for localhost-without-token setups. */
  readonly token?: string;
  /** Per-request timeout in milliseconds, applied to headers and to the body separately. */
  readonly timeoutMs?: number;
  /**
   * A dispatcher to use instead of an own `Pool` (e.g. to share a pool with a benchmark). It must not
   * be a `RetryAgent` or carry a retry interceptor: writes must reach the wire exactly once.
   * The transport does not close a dispatcher it did not create.
   */
  readonly dispatcher?: Dispatcher;
  /** Keep-alive connections of the own pool. */
  readonly connections?: number;
}

const NOT_DISPATCHED: Readonly<Record<string, TransportFailureReason>> = {
  ECONNREFUSED: "connection_refused",
  ENOTFOUND: "dns",
  EAI_AGAIN: "dns",
  EAI_NONAME: "dns",
  ERR_INVALID_URL: "invalid_url",
  UND_ERR_CONNECT_TIMEOUT: "connect_timeout",
  UND_ERR_CLOSED: "client_closed",
  UND_ERR_DESTROYED: "client_closed",
  UND_ERR_INVALID_ARG: "invalid_request",
  EHOSTUNREACH: "connection_refused",
  ENETUNREACH: "connection_refused",
  EADDRNOTAVAIL: "connection_refused",
};

const OUTCOME_UNKNOWN: Readonly<Record<string, TransportFailureReason>> = {
  ECONNRESET: "connection_reset",
  EPIPE: "connection_reset",
  UND_ERR_SOCKET: "socket",
  UND_ERR_HEADERS_TIMEOUT: "timeout",
  UND_ERR_BODY_TIMEOUT: "timeout",
  ETIMEDOUT: "timeout",
  UND_ERR_ABORTED: "aborted",
  ABORT_ERR: "aborted",
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: "unreadable_body",
  HPE_INVALID_CONSTANT: "unreadable_body",
};

function errorCodeOf(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const e = err as { code?: unknown; name?: unknown; errors?: unknown; cause?: unknown };
  if (typeof e.code === "string") return e.code;
  // Node's happy-eyeballs connect gives an AggregateError; all parts failed before connecting.
  if (Array.isArray(e.errors) && e.errors.length > 0) {
    const codes = e.errors.map(errorCodeOf);
    const first = codes[0];
    if (first !== undefined && codes.every((c) => c !== undefined && c in NOT_DISPATCHED)) {
      return first;
    }
    return codes.find((c) => c !== undefined);
  }
  if (e.name === "AbortError") return "ABORT_ERR";
  if (e.cause !== undefined && e.cause !== err) return errorCodeOf(e.cause);
  return undefined;
}

/**
 * Maps a low-level failure to `not_dispatched` (provably never sent) or `outcome_unknown`.
 * Unknown errors are `outcome_unknown`: the conservative side for writes.
 */
export function classifyUndiciError(endpoint: string, err: unknown): SiyuanApiError {
  const causeCode = errorCodeOf(err);
  const detail = err instanceof Error ? err.message : String(err);
  if (causeCode !== undefined) {
    const nd = NOT_DISPATCHED[causeCode];
    if (nd !== undefined) {
      return new SiyuanApiError(
        "not_dispatched",
        `${endpoint}: not dispatched (${causeCode}: ${detail})`,
        {
          endpoint,
          reason: nd,
          causeCode,
          transient: nd !== "invalid_url" && nd !== "invalid_request" && nd !== "client_closed",
        },
        { cause: err },
      );
    }
  }
  const reason = (causeCode !== undefined ? OUTCOME_UNKNOWN[causeCode] : undefined) ?? "unknown";
  const transient = reason === "connection_reset" || reason === "socket" || reason === "timeout";
  return new SiyuanApiError(
    "outcome_unknown",
    `${endpoint}: outcome unknown (${causeCode ?? "error"}: ${detail})`,
    causeCode === undefined
      ? { endpoint, reason, transient }
      : { endpoint, reason, causeCode, transient },
    { cause: err },
  );
}

/**
 * Creates a Node transport over undici. Without `dispatcher` it owns a `Pool` with
 * `connections` keep-alive sockets, a client-side idle timeout shorter than the server's, and no
 * retry layer; `close()` closes that pool.
 *
 * Invariant: exactly one request on the wire per `send`. undici's core `Pool`/`Client` never re-sends
 * a request that was already written (only `RetryAgent`/retry interceptors do, and none is used);
 * requests are sent with `idempotent: false`, so they are never pipelined behind another request.
 * Throws `TypeError` at creation when `dispatcher` is a `RetryAgent`.
 * Errors: `not_dispatched` (refused, DNS, invalid URL, connect timeout, closed pool) or
 * `outcome_unknown` (reset, socket closed, timeout after sending, abort, unreadable body).
 */
export function undiciTransport(options: UndiciTransportOptions): Transport {
  if (options.dispatcher instanceof RetryAgent) {
    // A RetryAgent re-sends failed requests, writes included: that breaks "exactly once".
    throw new TypeError(
      "undiciTransport: a RetryAgent may not be used; reads are retried by the client",
    );
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  let origin: string | undefined;
  let prefix = "";
  let urlError: unknown;
  try {
    const url = new URL(options.baseUrl);
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw Object.assign(new TypeError(`unsupported protocol ${url.protocol}`), {
        code: "ERR_INVALID_URL",
      });
    }
    origin = url.origin;
    prefix = url.pathname.replace(/\/+$/, "");
  } catch (err) {
    urlError = err;
  }
  const ownsDispatcher = options.dispatcher === undefined;
  let dispatcher: Dispatcher | undefined = options.dispatcher;
  if (dispatcher === undefined && origin !== undefined) {
    dispatcher = new Pool(origin, {
      connections: options.connections ?? DEFAULT_POOL_CONNECTIONS,
      pipelining: 1,
      keepAliveTimeout: POOL_KEEP_ALIVE_TIMEOUT_MS,
      keepAliveMaxTimeout: POOL_KEEP_ALIVE_MAX_TIMEOUT_MS,
      keepAliveTimeoutThreshold: POOL_KEEP_ALIVE_THRESHOLD_MS,
      connect: { timeout: POOL_CONNECT_TIMEOUT_MS },
    });
  }
  let closed = false;
  const authHeader = options.token === undefined ? undefined : `Token ${options.token}`;

  return {
    name: "undici",
    async send(req: TransportRequest): Promise<TransportResponse> {
      if (urlError !== undefined || dispatcher === undefined || origin === undefined) {
        const err = Object.assign(new TypeError(`invalid base URL: ${options.baseUrl}`), {
          code: "ERR_INVALID_URL",
          cause: urlError,
        });
        throw classifyUndiciError(req.endpoint, err);
      }
      const headers: Record<string, string> = { ...req.headers };
      if (authHeader !== undefined) headers["authorization"] = authHeader;
      let body: string | Uint8Array;
      if (req.body.kind === "json") {
        headers["content-type"] = "application/json";
        body = req.body.text;
      } else {
        headers["content-type"] = req.body.contentType;
        body = req.body.bytes;
      }
      let res: Dispatcher.ResponseData;
      try {
        res = await dispatcher.request({
          origin,
          path: prefix + req.endpoint,
          method: "POST",
          headers,
          body,
          idempotent: false,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
      } catch (err) {
        throw classifyUndiciError(req.endpoint, err);
      }
      const contentType = headerValue(res.headers["content-type"]);
      try {
        if (req.responseType === "text") {
          const text = await res.body.text();
          return {
            type: "text",
            status: res.statusCode,
            contentType,
            text,
            byteLength: Buffer.byteLength(text),
          };
        }
        const bytes = new Uint8Array(await res.body.arrayBuffer());
        return {
          type: "bytes",
          status: res.statusCode,
          contentType,
          bytes,
          byteLength: bytes.length,
        };
      } catch (err) {
        const classified = classifyUndiciError(req.endpoint, err);
        // Headers arrived: whatever failed, the kernel saw the request.
        throw new SiyuanApiError(
          "outcome_unknown",
          classified.message,
          {
            ...classified.details,
            httpStatus: res.statusCode,
            reason: "unreadable_body",
            transient:
              RETRYABLE_HTTP_STATUSES.includes(res.statusCode) ||
              classified.details.transient === true,
          },
          { cause: err },
        );
      }
    },
    async close(): Promise<void> {
      if (ownsDispatcher && dispatcher !== undefined && !closed) {
        closed = true;
        await dispatcher.close();
      }
    },
  };
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
