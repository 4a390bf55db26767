/**
 * The call pipeline every client method runs through: required-field check → budget → send (reads
 * retried on transient failures, writes exactly once) → HTTP status → envelope (`{code, msg, data}`,
 * "not found" codes → `null`) → byte accounting → zod validation of `data`. Every failure becomes a
 * {@link SiyuanApiError}; which endpoint is a read comes from `ENDPOINTS` alone.
 */
import type { z } from "zod";
import { type CallBudget, CallCounter } from "./budget.js";
import {
  DEFAULT_READ_BASE_DELAY_MS,
  DEFAULT_READ_MAX_ATTEMPTS,
  DEFAULT_READ_MAX_DELAY_MS,
  MAX_READ_ATTEMPTS_LIMIT,
  RETRYABLE_HTTP_STATUSES,
} from "./constants.js";
import { ENDPOINTS, type EndpointKey, type EndpointKind, type EndpointSpec } from "./endpoints.js";
import { isSiyuanApiError, SiyuanApiError, type SiyuanApiErrorDetails } from "./errors.js";
import { encodeMultipart, type MultipartPart, makeBoundary } from "./multipart.js";
import * as S from "./schemas.js";
import type { Transport, TransportBody, TransportResponse } from "./transport/transport.js";
import type { FileContent } from "./types.js";
import { decodeUtf8 } from "./utf8.js";

/** Retry policy for reads. Delay before retry n (1-based) = random() × min(maxDelayMs, baseDelayMs × 2^(n−1)). */
export interface ReadRetryPolicy {
  /** Total attempts including the first, 1..{@link MAX_READ_ATTEMPTS_LIMIT}. */
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

/** Resolves the retry policy, clamping to sane bounds. */
export function resolveReadRetry(p: Partial<ReadRetryPolicy> = {}): ReadRetryPolicy {
  const maxAttempts = Math.min(
    MAX_READ_ATTEMPTS_LIMIT,
    Math.max(1, Math.floor(p.maxAttempts ?? DEFAULT_READ_MAX_ATTEMPTS)),
  );
  return {
    maxAttempts,
    baseDelayMs: Math.max(0, p.baseDelayMs ?? DEFAULT_READ_BASE_DELAY_MS),
    maxDelayMs: Math.max(0, p.maxDelayMs ?? DEFAULT_READ_MAX_DELAY_MS),
  };
}

/** What the pipeline is built over. */
export interface CallPipelineOptions {
  readonly transport: Transport;
  readonly retry: ReadRetryPolicy;
  readonly budget: CallBudget | undefined;
  /** Random source in [0, 1) for backoff jitter and multipart boundaries. */
  readonly random: () => number;
  /** Sleep between read retries. */
  readonly sleep: (ms: number) => Promise<void>;
  /** Counters shared with another pipeline (a budgeted view of a client); default: new ones. */
  readonly counter?: CallCounter;
}

/** How one call is sent and answered; every method validates the answer's `data` with `schema`. */
export interface CallPipeline {
  /** JSON call; `busyCodes` are kernel codes that mean "busy, ask again" (reads only, retried). */
  call<O>(
    key: EndpointKey,
    args: unknown,
    schema: z.ZodType<O>,
    options?: { readonly busyCodes?: readonly number[] },
  ): Promise<O>;
  /** JSON call whose kernel codes `nullOnCodes` mean "not found": answers `null` for them. */
  callNullable<O>(
    key: EndpointKey,
    args: unknown,
    schema: z.ZodType<O>,
    nullOnCodes: readonly number[],
  ): Promise<O | null>;
  /** JSON call whose `data` is ignored. */
  callVoid(key: EndpointKey, args: unknown): Promise<void>;
  /** Multipart call: `args` are checked first, then `toParts(args)` is encoded as the body. */
  callMultipart<A, O>(
    key: EndpointKey,
    args: A,
    toParts: (args: A) => MultipartPart[],
    schema: z.ZodType<O>,
  ): Promise<O>;
  /**
   * Download: HTTP 200 carries the raw bytes; any other answer carries an envelope, whose
   * `nullOnCodes` mean "not found" (`null`).
   */
  callDownload(
    key: EndpointKey,
    args: unknown,
    nullOnCodes: readonly number[],
  ): Promise<FileContent | null>;
  /** JSON call to an endpoint without a typed wrapper (no field check); `data` unvalidated. */
  callPath(path: string, kind: EndpointKind, args: unknown): Promise<unknown>;
  /**
   * One JSON-RPC message to the kernel's `/mcp` (no envelope): the HTTP 200/202 answer's body
   * as text (empty for a notification, and for a tool whose handler panicked). Other statuses
   * throw as any call's (4xx `kernel_rejected` with `httpStatus`).
   */
  callMcp(
    message: unknown,
    headers: Readonly<Record<string, string>>,
    kind: EndpointKind,
  ): Promise<McpHttpAnswer>;
  /** Call and byte counters of this pipeline. */
  readonly counter: CallCounter;
}

/** What the kernel's `/mcp` answered: HTTP 200 or 202, and the body as text. */
export interface McpHttpAnswer {
  readonly status: number;
  readonly text: string;
}

/** The kernel's built-in MCP endpoint (contract §4.11). */
const BUILTIN_MCP_PATH = "/mcp";

/** `getBlockInfo` answers this code while the kernel is indexing (contract §4.4). */
export const GET_BLOCK_INFO_INDEXING_CODE = 3;

/** Marker for "the kernel said not found" (a `nullOnCodes` code). */
const NOT_FOUND: unique symbol = Symbol("not_found");

interface CallShape {
  /** `text` (JSON envelope) or `bytes` (raw download). */
  readonly responseType?: "text" | "bytes";
  /** Kernel codes that mean "not found" and become `null`. */
  readonly nullOnCodes?: readonly number[];
  /** Kernel codes that mean "busy, ask again" (reads only; retried like a transient failure). */
  readonly busyCodes?: readonly number[];
}

/** The envelope code of a text answer when it is one of `codes`. */
function busyCode(res: TransportResponse, codes: readonly number[]): number | undefined {
  if (res.type !== "text") return undefined;
  try {
    const code = (JSON.parse(res.text) as { code?: unknown }).code;
    return typeof code === "number" && codes.includes(code) ? code : undefined;
  } catch {
    return undefined;
  }
}

function enrich(err: SiyuanApiError, extra: Partial<SiyuanApiErrorDetails>): SiyuanApiError {
  return new SiyuanApiError(
    err.code,
    err.message,
    { ...err.details, ...extra },
    { cause: err.cause, writeDispatched: err.writeDispatched },
  );
}

/** The error an HTTP status other than 200/202 means, or `undefined` for those two. */
function statusFailure(
  endpoint: string,
  kind: EndpointKind,
  res: TransportResponse,
): SiyuanApiError | undefined {
  const status = res.status;
  if (status === 200 || status === 202) return undefined;
  if (status === 401 || status === 403) {
    let kernelMessage: string | undefined;
    if (res.type === "text" && res.text !== "") {
      try {
        const parsed = JSON.parse(res.text) as { msg?: unknown };
        if (typeof parsed.msg === "string") kernelMessage = parsed.msg;
      } catch {
        // empty or non-JSON 403 body: no message
      }
    }
    return new SiyuanApiError(
      "unauthorized",
      `${endpoint}: HTTP ${status}${kernelMessage === undefined ? "" : ` ${kernelMessage}`}`,
      kernelMessage === undefined
        ? { endpoint, kind, httpStatus: status }
        : { endpoint, kind, httpStatus: status, kernelMessage },
    );
  }
  if (status >= 500) {
    return new SiyuanApiError("outcome_unknown", `${endpoint}: HTTP ${status}`, {
      endpoint,
      kind,
      httpStatus: status,
      reason: "http_status",
      transient: RETRYABLE_HTTP_STATUSES.includes(status),
    });
  }
  return new SiyuanApiError("kernel_rejected", `${endpoint}: HTTP ${status}`, {
    endpoint,
    kind,
    httpStatus: status,
  });
}

function decodeFailure(
  endpoint: string,
  kind: EndpointKind,
  attempts: number,
  what: string,
  error: z.ZodError | undefined,
  httpStatus: number,
): SiyuanApiError {
  const issues = (error?.issues ?? []).slice(0, 10).map((i) => ({
    path: i.path.map(String).join("."),
    message: i.message,
  }));
  const first = issues[0];
  return new SiyuanApiError(
    "decode",
    `${endpoint}: ${what}${first === undefined ? "" : ` (${first.path || "<root>"}: ${first.message})`}`,
    { endpoint, kind, attempts, httpStatus, issues },
    error === undefined ? undefined : { cause: error },
  );
}

/** Parses the envelope; returns `data`, or `NOT_FOUND` for a `nullOnCodes` code. */
function openEnvelope(
  endpoint: string,
  kind: EndpointKind,
  attempts: number,
  res: TransportResponse,
  nullOnCodes: readonly number[] | undefined,
): unknown {
  const text = res.type === "text" ? res.text : decodeUtf8(res.bytes);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new SiyuanApiError(
      "outcome_unknown",
      `${endpoint}: unreadable answer (not JSON, HTTP ${res.status})`,
      {
        endpoint,
        kind,
        attempts,
        httpStatus: res.status,
        reason: "unreadable_body",
        transient: false,
      },
      { cause: err },
    );
  }
  const env = S.envelopeSchema.safeParse(json);
  if (!env.success) {
    throw decodeFailure(
      endpoint,
      kind,
      attempts,
      "answer is not a kernel envelope",
      env.error,
      res.status,
    );
  }
  const { code, msg, data } = env.data;
  if (code !== 0) {
    if (nullOnCodes?.includes(code)) return NOT_FOUND;
    throw new SiyuanApiError("kernel_rejected", `${endpoint}: kernel code ${code}: ${msg ?? ""}`, {
      endpoint,
      kind,
      attempts,
      httpStatus: res.status,
      kernelCode: code,
      kernelMessage: msg ?? "",
      kernelData: data,
    });
  }
  return data;
}

/** Refuses, before anything is sent, a call that lacks a field the kernel requires. */
function checkArgs(key: EndpointKey, args: unknown): void {
  const spec: EndpointSpec = ENDPOINTS[key];
  const a = (typeof args === "object" && args !== null ? args : {}) as Record<string, unknown>;
  const present = (f: string): boolean => a[f] !== undefined && a[f] !== null;
  const missing = spec.required.find((f) => !present(f));
  let problem: string | undefined;
  if (missing !== undefined) problem = `Field [${missing}] is required`;
  else if (spec.anyOf !== undefined && !spec.anyOf.some(present)) {
    problem = `one of the fields [${spec.anyOf.join(", ")}] is required`;
  }
  if (problem !== undefined) {
    throw new SiyuanApiError("not_dispatched", `${spec.path}: not sent: ${problem}`, {
      endpoint: spec.path,
      kind: spec.kind,
      attempts: 0,
      reason: "invalid_request",
      transient: false,
    });
  }
}

function jsonBody(args: unknown): TransportBody {
  return { kind: "json", text: args === undefined ? "{}" : JSON.stringify(args) };
}

/** Builds the pipeline of one client. */
export function createCallPipeline(options: CallPipelineOptions): CallPipeline {
  const { transport, budget, retry, random, sleep } = options;
  const counter = options.counter ?? new CallCounter();

  /** Sends with the retry policy; returns a response whose status is 200 or 202. */
  async function exchange(
    endpoint: string,
    kind: EndpointKind,
    body: TransportBody,
    responseType: "text" | "bytes",
    busyCodes?: readonly number[],
    headers?: Readonly<Record<string, string>>,
  ): Promise<{ res: TransportResponse; attempts: number }> {
    if (budget !== undefined && !budget.reserveCall({ endpoint, kind })) {
      throw new SiyuanApiError("budget_exceeded", `${endpoint}: call budget exhausted`, {
        endpoint,
        kind,
        attempts: 0,
        budget: "calls",
      });
    }
    counter.call(endpoint);
    const maxAttempts = kind === "read" ? retry.maxAttempts : 1;
    for (let attempt = 1; ; attempt++) {
      if (
        attempt > 1 &&
        budget?.reserveRetry !== undefined &&
        !budget.reserveRetry({ endpoint, kind })
      ) {
        throw new SiyuanApiError(
          "budget_exceeded",
          `${endpoint}: call budget exhausted by retries`,
          {
            endpoint,
            kind,
            attempts: attempt - 1,
            budget: "calls",
          },
        );
      }
      counter.attempt(endpoint);
      let failure: SiyuanApiError;
      try {
        const res = await transport.send(
          headers === undefined
            ? { endpoint, body, responseType }
            : { endpoint, body, responseType, headers },
        );
        const bad = statusFailure(endpoint, kind, res);
        if (bad === undefined) {
          const busy = busyCodes === undefined ? undefined : busyCode(res, busyCodes);
          // A "busy" kernel code (e.g. 3 = indexing) on a read is retried; the last answer is returned as is.
          if (busy === undefined || kind === "write" || attempt >= maxAttempts) {
            return { res, attempts: attempt };
          }
          failure = new SiyuanApiError(
            "kernel_rejected",
            `${endpoint}: kernel busy (code ${busy})`,
            {
              endpoint,
              kind,
              attempts: attempt,
              kernelCode: busy,
              transient: true,
            },
          );
        } else {
          failure = enrich(bad, { attempts: attempt });
        }
      } catch (err) {
        failure = isSiyuanApiError(err)
          ? enrich(err, { endpoint, kind, attempts: attempt })
          : new SiyuanApiError(
              "outcome_unknown",
              `${endpoint}: transport failed: ${err instanceof Error ? err.message : String(err)}`,
              { endpoint, kind, attempts: attempt, reason: "unknown", transient: false },
              { cause: err },
            );
      }
      if (kind === "write" || attempt >= maxAttempts || failure.details.transient !== true) {
        throw failure;
      }
      const ceiling = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1));
      await sleep(Math.floor(random() * ceiling));
    }
  }

  function recordBytes(
    endpoint: string,
    kind: EndpointKind,
    attempts: number,
    bytes: number,
  ): void {
    counter.received(bytes);
    if (budget !== undefined && !budget.recordBytes({ endpoint, kind, bytes }) && kind === "read") {
      throw new SiyuanApiError(
        "budget_exceeded",
        `${endpoint}: byte budget exhausted`,
        {
          endpoint,
          kind,
          attempts,
          budget: "bytes",
        },
        { writeDispatched: true },
      );
    }
  }

  async function invokeBody<O>(
    spec: { readonly path: string; readonly kind: EndpointKind },
    body: TransportBody,
    schema: z.ZodType<O>,
    shape: CallShape = {},
  ): Promise<O | typeof NOT_FOUND> {
    const endpoint = spec.path;
    const kind = spec.kind;
    const { res, attempts } = await exchange(
      endpoint,
      kind,
      body,
      shape.responseType ?? "text",
      shape.busyCodes,
    );
    recordBytes(endpoint, kind, attempts, res.byteLength);
    const data = openEnvelope(endpoint, kind, attempts, res, shape.nullOnCodes);
    if (data === NOT_FOUND) return NOT_FOUND;
    const parsed = schema.safeParse(data);
    if (!parsed.success) {
      throw decodeFailure(
        endpoint,
        kind,
        attempts,
        "unexpected data shape",
        parsed.error,
        res.status,
      );
    }
    return parsed.data;
  }

  async function call<O>(
    key: EndpointKey,
    args: unknown,
    schema: z.ZodType<O>,
    callOptions: { readonly busyCodes?: readonly number[] } = {},
  ): Promise<O> {
    checkArgs(key, args);
    const shape: CallShape =
      callOptions.busyCodes === undefined ? {} : { busyCodes: callOptions.busyCodes };
    // Without `nullOnCodes` the envelope never answers NOT_FOUND.
    return (await invokeBody(ENDPOINTS[key], jsonBody(args), schema, shape)) as O;
  }

  async function callNullable<O>(
    key: EndpointKey,
    args: unknown,
    schema: z.ZodType<O>,
    nullOnCodes: readonly number[],
  ): Promise<O | null> {
    checkArgs(key, args);
    const out = await invokeBody(ENDPOINTS[key], jsonBody(args), schema, { nullOnCodes });
    return out === NOT_FOUND ? null : out;
  }

  async function callVoid(key: EndpointKey, args: unknown): Promise<void> {
    checkArgs(key, args);
    await invokeBody(ENDPOINTS[key], jsonBody(args), S.ignoredSchema);
  }

  async function callMultipart<A, O>(
    key: EndpointKey,
    args: A,
    toParts: (args: A) => MultipartPart[],
    schema: z.ZodType<O>,
  ): Promise<O> {
    checkArgs(key, args);
    const { body, contentType } = encodeMultipart(toParts(args), makeBoundary(random));
    const multipart: TransportBody = { kind: "bytes", bytes: body, contentType };
    return (await invokeBody(ENDPOINTS[key], multipart, schema)) as O;
  }

  async function callDownload(
    key: EndpointKey,
    args: unknown,
    nullOnCodes: readonly number[],
  ): Promise<FileContent | null> {
    checkArgs(key, args);
    const spec = ENDPOINTS[key];
    const { res, attempts } = await exchange(spec.path, spec.kind, jsonBody(args), "bytes");
    recordBytes(spec.path, spec.kind, attempts, res.byteLength);
    if (res.status === 200 && res.type === "bytes") {
      return { bytes: res.bytes, contentType: res.contentType };
    }
    // Any other answer (HTTP 202) carries an error envelope.
    const data = openEnvelope(spec.path, spec.kind, attempts, res, nullOnCodes);
    if (data === NOT_FOUND) return null;
    throw decodeFailure(
      spec.path,
      spec.kind,
      attempts,
      `HTTP ${res.status} with code 0 instead of file bytes`,
      undefined,
      res.status,
    );
  }

  return {
    counter,
    call,
    callNullable,
    callVoid,
    callMultipart,
    callDownload,
    callPath: (path, kind, args) => invokeBody({ path, kind }, jsonBody(args), S.ignoredSchema),
    async callMcp(message, headers, kind) {
      const { res, attempts } = await exchange(
        BUILTIN_MCP_PATH,
        kind,
        jsonBody(message),
        "text",
        undefined,
        headers,
      );
      recordBytes(BUILTIN_MCP_PATH, kind, attempts, res.byteLength);
      return { status: res.status, text: res.type === "text" ? res.text : "" };
    },
  };
}
