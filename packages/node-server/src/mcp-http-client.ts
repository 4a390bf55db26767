/**
 * The delegation link's MCP client: the two requests a delegating process sends to an authority's
 * `/mcp` — `server/discover` once per connection and `tools/call` — in the stateless 2026-07-28
 * era over Streamable HTTP (spec: one POST per request, `MCP-Protocol-Version`, `Mcp-Method` and
 * `Mcp-Name` headers, the per-request `_meta` envelope, a JSON or SSE answer; closing the request
 * is the cancellation). Written out rather than the SDK's `Client`: loading that client, its
 * schemas and `fetch` (undici) was most of a CLI call's wall time, for two POSTs.
 *
 * Failures reject with what the link classifies (`authority-link.ts`, along {@link causeChain}
 * below):
 * a network error keeps its `code` (`ECONNREFUSED`, …, {@link CONNECT_TIMEOUT_CODE}); a non-2xx
 * answer is an {@link McpHttpError} with `data.status`; a JSON-RPC error is an
 * {@link McpProtocolError} with its numeric `code`; the deadline is an {@link McpHttpError} with
 * code {@link REQUEST_TIMEOUT_CODE}; the caller's abort rejects with the signal's reason.
 */
import {
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type RequestOptions,
} from "node:http";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { parseJsonObject } from "./kernel-request.js";

/** The one protocol revision the link speaks (the authorities are dual-era, modern first). */
export const MCP_MODERN_PROTOCOL_VERSION = "2026-07-28";
/** A TCP connection not made within this many milliseconds fails as never sent. */
export const MCP_CONNECT_TIMEOUT_MS = 10_000;
/** The `code` of a connection that was not made in {@link MCP_CONNECT_TIMEOUT_MS}. */
export const CONNECT_TIMEOUT_CODE = "MCP_CONNECT_TIMEOUT";
/** The `code` of a request not answered within its deadline. */
export const REQUEST_TIMEOUT_CODE = "MCP_REQUEST_TIMEOUT";

const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
} as const;

/** An authority's answer outside 2xx that is not a JSON-RPC error of the request. */
export class McpHttpError extends Error {
  readonly code: string;
  readonly data: { readonly status?: number; readonly text?: string };
  constructor(code: string, message: string, data: McpHttpError["data"] = {}) {
    super(message);
    this.name = "McpHttpError";
    this.code = code;
    this.data = data;
  }
}

/** A JSON-RPC error answered to the request (its `code` is the JSON-RPC code). */
export class McpProtocolError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data: unknown) {
    super(message);
    this.name = "McpProtocolError";
    this.code = code;
    this.data = data;
  }
}

/** Who this client says it is (`_meta` `clientInfo`). */
export interface McpClientInfo {
  readonly name: string;
  readonly version: string;
}

/** One request's limits. */
export interface McpRequestOptions {
  /** Milliseconds from sending to the whole answer. */
  readonly timeoutMs: number;
  /** The caller's abort: closes the request (the cancellation of a modern HTTP call). */
  readonly signal?: AbortSignal;
}

/** A client of one authority URL with fixed headers (its bearer or `Token`). */
export class McpHttpClient {
  readonly #url: URL;
  readonly #headers: Readonly<Record<string, string>>;
  readonly #clientInfo: McpClientInfo;
  readonly #agent: HttpAgent;
  readonly #https: typeof import("node:https") | undefined;
  #nextId = 0;

  constructor(url: URL, headers: Readonly<Record<string, string>>, clientInfo: McpClientInfo) {
    this.#url = url;
    this.#headers = headers;
    this.#clientInfo = clientInfo;
    // node:https (and TLS with it) loads only for an authority reached over https.
    this.#https =
      url.protocol === "https:"
        ? (process.getBuiltinModule("node:https") as typeof import("node:https"))
        : undefined;
    this.#agent =
      this.#https === undefined
        ? new HttpAgent({ keepAlive: true })
        : new this.#https.Agent({ keepAlive: true });
  }

  /** `server/discover`: the authority answers in this era (else the promise rejects). */
  async discover(options: McpRequestOptions): Promise<Record<string, unknown>> {
    const result = await this.#request("server/discover", undefined, {}, {}, options);
    const supported = result["supportedVersions"];
    if (!Array.isArray(supported) || !supported.includes(MCP_MODERN_PROTOCOL_VERSION)) {
      throw new McpHttpError(
        "MCP_ERA_NEGOTIATION_FAILED",
        `the authority does not serve MCP ${MCP_MODERN_PROTOCOL_VERSION}`,
      );
    }
    return result;
  }

  /** `tools/call` with `meta` added to the envelope; the tool's result, `resultType` left out. */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    meta: Record<string, unknown>,
    options: McpRequestOptions,
  ): Promise<CallToolResult> {
    const { resultType: _, ...result } = await this.#request(
      "tools/call",
      name,
      { name, arguments: args },
      meta,
      options,
    );
    if (!Array.isArray(result["content"])) {
      throw new McpHttpError("MCP_INVALID_RESULT", "the authority answered no tool result");
    }
    return result as CallToolResult;
  }

  /** Closes the kept-alive sockets. */
  close(): void {
    this.#agent.destroy();
  }

  #request(
    method: string,
    mcpName: string | undefined,
    params: Record<string, unknown>,
    meta: Record<string, unknown>,
    options: McpRequestOptions,
  ): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    const body = Buffer.from(
      JSON.stringify({
        jsonrpc: "2.0",
        id,
        method,
        params: {
          ...params,
          _meta: {
            [META.protocolVersion]: MCP_MODERN_PROTOCOL_VERSION,
            [META.clientInfo]: this.#clientInfo,
            [META.clientCapabilities]: {},
            ...meta,
          },
        },
      }),
      "utf8",
    );
    const headers: Record<string, string> = {
      ...this.#headers,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "content-length": String(body.byteLength),
      "mcp-protocol-version": MCP_MODERN_PROTOCOL_VERSION,
      "mcp-method": method,
      ...(mcpName === undefined ? {} : { "mcp-name": headerValue(mcpName) }),
    };
    const deadline = AbortSignal.timeout(options.timeoutMs);
    const signal =
      options.signal === undefined ? deadline : AbortSignal.any([options.signal, deadline]);
    const request: RequestOptions = { method: "POST", agent: this.#agent, headers, signal };
    return new Promise((resolve, reject) => {
      const fail = (e: unknown) =>
        reject(
          options.signal?.aborted === true
            ? options.signal.reason
            : deadline.aborted
              ? new McpHttpError(
                  REQUEST_TIMEOUT_CODE,
                  `the authority did not answer ${method} within ${options.timeoutMs} ms`,
                )
              : e,
        );
      const onResponse = (res: IncomingMessage) => {
        answerOf(res, id).then(resolve, fail);
      };
      const req =
        this.#https === undefined
          ? httpRequest(this.#url, request, onResponse)
          : this.#https.request(this.#url, request, onResponse);
      req.on("error", fail);
      req.on("socket", (socket) => {
        if (!socket.connecting) return;
        const timer = setTimeout(() => {
          const e = new Error(`no connection to the authority within ${MCP_CONNECT_TIMEOUT_MS} ms`);
          req.destroy(Object.assign(e, { code: CONNECT_TIMEOUT_CODE }));
        }, MCP_CONNECT_TIMEOUT_MS);
        timer.unref();
        socket.once("connect", () => clearTimeout(timer));
        socket.once("close", () => clearTimeout(timer));
      });
      req.end(body);
    });
  }
}

/** A header value as the spec carries it: plain ASCII as it is, else Base64 in its sentinel. */
function headerValue(value: string): string {
  return /^[\x20-\x7e]*$/.test(value)
    ? value
    : `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`;
}

/** The result of request `id` from an answer (JSON or SSE), or the error it stands for. */
async function answerOf(res: IncomingMessage, id: number): Promise<Record<string, unknown>> {
  const status = res.statusCode ?? 0;
  const type = (res.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
  if (status >= 200 && status < 300 && type === "text/event-stream") {
    return resultOf(await responseFromEvents(res, id), id);
  }
  const text = await textOf(res);
  if (status >= 200 && status < 300) {
    if (type !== "application/json") {
      throw new McpHttpError("MCP_UNEXPECTED_CONTENT", `Unexpected content type: ${type}`);
    }
    return resultOf(parseJsonObject(text), id);
  }
  // A modern request's 400 may carry its JSON-RPC error (a refused version, a bad envelope).
  const message = status === 400 ? parseJsonObject(text) : undefined;
  if (message !== undefined && message["id"] === id && message["error"] !== undefined) {
    return resultOf(message, id);
  }
  throw new McpHttpError("MCP_HTTP_ERROR", `Error POSTing to endpoint: ${text}`, { status, text });
}

function resultOf(
  message: Record<string, unknown> | undefined,
  id: number,
): Record<string, unknown> {
  if (message === undefined || message["id"] !== id) {
    throw new McpHttpError(
      "MCP_INVALID_RESPONSE",
      "the authority answered no response to the request",
    );
  }
  const error = message["error"] as
    | { code?: unknown; message?: unknown; data?: unknown }
    | undefined;
  if (error !== undefined) {
    throw new McpProtocolError(
      typeof error.code === "number" ? error.code : -32603,
      typeof error.message === "string" ? error.message : "JSON-RPC error",
      error.data,
    );
  }
  const result = message["result"];
  if (typeof result !== "object" || result === null || Array.isArray(result)) {
    throw new McpHttpError("MCP_INVALID_RESPONSE", "the authority answered no result object");
  }
  const resultType = (result as { resultType?: unknown }).resultType;
  if (resultType !== undefined && resultType !== "complete") {
    throw new McpHttpError(
      "MCP_UNSUPPORTED_RESULT",
      `the authority answered a ${String(resultType)} result, which this client does not take`,
    );
  }
  return result as Record<string, unknown>;
}

async function textOf(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * The JSON-RPC response to `id` on an SSE answer (notifications before it are skipped); the
 * stream is left once it came. `undefined` when the stream ends without it.
 */
async function responseFromEvents(
  res: IncomingMessage,
  id: number,
): Promise<Record<string, unknown> | undefined> {
  let buffered = "";
  let data: string[] = [];
  res.setEncoding("utf8");
  for await (const chunk of res) {
    buffered += chunk as string;
    for (;;) {
      const end = buffered.search(/\r\n|\r|\n/);
      if (end < 0) break;
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + (buffered.startsWith("\r\n", end) ? 2 : 1));
      if (line === "") {
        const message = data.length === 0 ? undefined : parseJsonObject(data.join("\n"));
        data = [];
        if (message !== undefined && message["id"] === id && !("method" in message)) {
          res.destroy();
          return message;
        }
      } else if (line.startsWith("data:")) {
        data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
      }
    }
  }
  return undefined;
}

// The one walk over an error's causes: a delegated call's failure arrives wrapped (a network
// error inside a client error, an `AggregateError` of several connection attempts), and what it
// means (refused before sending, an HTTP status, an unauthorized token) is on some link of it.

/** How many `cause` links are followed from each error (a cycle ends there too). */
export const CAUSE_CHAIN_MAX_DEPTH = 8;

/**
 * `e`, its `cause`, that one's `cause` and so on (at most {@link CAUSE_CHAIN_MAX_DEPTH} from each
 * start), with the errors of an `AggregateError`-like `errors` array and their own chains, in
 * the order met: each error before its aggregated ones, those before its cause.
 */
export function causeChain(e: unknown): unknown[] {
  const chain: unknown[] = [];
  let cur: unknown = e;
  for (let depth = 0; depth < CAUSE_CHAIN_MAX_DEPTH && cur !== undefined && cur !== null; depth++) {
    chain.push(cur);
    const errors = (cur as { errors?: unknown }).errors;
    if (Array.isArray(errors)) for (const inner of errors) chain.push(...causeChain(inner));
    cur = (cur as { cause?: unknown }).cause;
  }
  return chain;
}

/** Every `code` (string or number, as a string) along {@link causeChain}. */
export function errorCodes(e: unknown): string[] {
  return causeChain(e).flatMap((link) => {
    const code = (link as { code?: unknown }).code;
    return typeof code === "string" || typeof code === "number" ? [String(code)] : [];
  });
}

/** The first HTTP status along {@link causeChain} (a link's `data.status`), if any. */
export function httpStatusOf(e: unknown): number | undefined {
  for (const link of causeChain(e)) {
    const status = (link as { data?: { status?: unknown } }).data?.status;
    if (typeof status === "number") return status;
  }
  return undefined;
}

/** Whether a message along {@link causeChain} says 401 or unauthorized. */
export function mentionsUnauthorized(e: unknown): boolean {
  return causeChain(e).some((link) => {
    const message = (link as { message?: unknown }).message;
    return typeof message === "string" && /\b401\b|unauthori[sz]ed/i.test(message);
  });
}
