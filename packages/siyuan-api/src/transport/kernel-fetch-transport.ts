/**
 * Transport for code running inside the SiYuan kernel plugin runtime (goja): requests go through
 * `siyuan.client.fetch` (loopback to the kernel, authenticated by the kernel's plugin JWT). Uses no
 * Node APIs, no `fetch`, no `TextEncoder`, no `AbortController`; bodies are strings or ArrayBuffers.
 */
import { KERNEL_FETCH_TIMEOUT_MS } from "../constants.js";
import { SiyuanApiError } from "../errors.js";
import { utf8ByteLength } from "../utf8.js";
import type { Transport, TransportRequest, TransportResponse } from "./transport.js";

/** The reply of `siyuan.client.fetch` (contract §9). Only `status`, `headers`, `text()` and `arrayBuffer()` are used. */
export interface KernelFetchReply {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText?: string;
  readonly url?: string;
  /** Header name → comma-joined values; name case as the kernel sends it. */
  readonly headers?: Readonly<Record<string, string>>;
  text(): Promise<string> | string;
  json(): Promise<unknown> | unknown;
  arrayBuffer(): Promise<ArrayBuffer> | ArrayBuffer;
}

/** The part of the runtime's `siyuan.client` this transport needs. */
export interface KernelFetchClient {
  fetch(
    path: string,
    init: {
      method: string;
      headers?: Record<string, string>;
      body?: string | ArrayBuffer;
    },
  ): Promise<KernelFetchReply>;
}

/** Options of {@link kernelFetchTransport}. */
export interface KernelFetchTransportOptions {
  /**
   * Give up waiting after this many milliseconds (`outcome_unknown`, reason `timeout`). The runtime's
   * own loopback timeout is 60 s; the underlying request cannot be cancelled (no AbortController).
   */
  readonly timeoutMs?: number;
  /** Timer functions; default the runtime's `setTimeout`/`clearTimeout`. */
  readonly timers?: {
    setTimeout(fn: () => void, ms: number): unknown;
    clearTimeout(handle: unknown): void;
  };
}

/** Go's net/http dial errors that mean the connection was never made. */
const NOT_DISPATCHED_PATTERN =
  /connection refused|no such host|dial tcp|connect: |network is unreachable/i;

/** Go errors after the connection was made that are worth retrying for a read. */
const TRANSIENT_PATTERN = /\bEOF\b|connection reset|broken pipe|timeout|deadline exceeded/i;

function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  if (
    bytes.byteOffset === 0 &&
    bytes.byteLength === bytes.buffer.byteLength &&
    bytes.buffer instanceof ArrayBuffer
  ) {
    return bytes.buffer;
  }
  return bytes.slice().buffer as ArrayBuffer;
}

function headerOf(
  headers: Readonly<Record<string, string>> | undefined,
  name: string,
): string | undefined {
  if (headers === undefined) return undefined;
  const lower = name.toLowerCase();
  for (const key of Object.keys(headers)) if (key.toLowerCase() === lower) return headers[key];
  return undefined;
}

/**
 * Creates a transport over the kernel runtime's `siyuan.client`. One `fetch` per `send`, never
 * retried. A rejected `fetch` whose message is a Go dial error (`connection refused`, …) is
 * `not_dispatched`; any other rejection, and the timeout, is `outcome_unknown`.
 */
export function kernelFetchTransport(
  client: KernelFetchClient,
  options: KernelFetchTransportOptions = {},
): Transport {
  const timeoutMs = options.timeoutMs ?? KERNEL_FETCH_TIMEOUT_MS;
  const timers = options.timers ?? {
    setTimeout: (fn: () => void, ms: number) => globalThis.setTimeout(fn, ms),
    clearTimeout: (h: unknown) => globalThis.clearTimeout(h as ReturnType<typeof setTimeout>),
  };

  async function exchange(req: TransportRequest): Promise<TransportResponse> {
    const headers: Record<string, string> = { ...req.headers };
    let body: string | ArrayBuffer;
    if (req.body.kind === "json") {
      headers["Content-Type"] = "application/json";
      body = req.body.text;
    } else {
      headers["Content-Type"] = req.body.contentType;
      body = toArrayBuffer(req.body.bytes);
    }
    let reply: KernelFetchReply;
    try {
      reply = await client.fetch(req.endpoint, { method: "POST", headers, body });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (NOT_DISPATCHED_PATTERN.test(message)) {
        throw new SiyuanApiError(
          "not_dispatched",
          `${req.endpoint}: not dispatched (${message})`,
          { endpoint: req.endpoint, reason: "connection_refused", transient: true },
          { cause: err },
        );
      }
      throw new SiyuanApiError(
        "outcome_unknown",
        `${req.endpoint}: outcome unknown (${message})`,
        TRANSIENT_PATTERN.test(message)
          ? { endpoint: req.endpoint, reason: "connection_reset", transient: true }
          : { endpoint: req.endpoint, reason: "unknown", transient: false },
        { cause: err },
      );
    }
    const contentType = headerOf(reply.headers, "content-type");
    try {
      if (req.responseType === "text") {
        const text = await reply.text();
        if (typeof text !== "string") throw new TypeError("text() did not return a string");
        return {
          type: "text",
          status: reply.status,
          contentType,
          text,
          byteLength: utf8ByteLength(text),
        };
      }
      const buf = await reply.arrayBuffer();
      const bytes = new Uint8Array(buf);
      return { type: "bytes", status: reply.status, contentType, bytes, byteLength: bytes.length };
    } catch (err) {
      throw new SiyuanApiError(
        "outcome_unknown",
        `${req.endpoint}: unreadable answer body`,
        {
          endpoint: req.endpoint,
          httpStatus: reply.status,
          reason: "unreadable_body",
          transient: false,
        },
        { cause: err },
      );
    }
  }

  return {
    name: "kernel-fetch",
    send(req: TransportRequest): Promise<TransportResponse> {
      return new Promise<TransportResponse>((resolve, reject) => {
        let settled = false;
        const handle = timers.setTimeout(() => {
          if (settled) return;
          settled = true;
          reject(
            new SiyuanApiError(
              "outcome_unknown",
              `${req.endpoint}: no answer within ${timeoutMs} ms`,
              {
                endpoint: req.endpoint,
                reason: "timeout",
                transient: true,
              },
            ),
          );
        }, timeoutMs);
        exchange(req).then(
          (res) => {
            if (settled) return;
            settled = true;
            timers.clearTimeout(handle);
            resolve(res);
          },
          (err: unknown) => {
            if (settled) return;
            settled = true;
            timers.clearTimeout(handle);
            reject(err);
          },
        );
      });
    },
    async close(): Promise<void> {},
  };
}
