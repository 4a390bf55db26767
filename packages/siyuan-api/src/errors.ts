/**
 * The one error class of `@sisyphus/siyuan-api`: {@link SiyuanApiError} with a string code union,
 * typed details, the original `cause`, a structural `writeDispatched` flag and a brand guard.
 */

/**
 * Failure classes a caller (the write coordinator) can act on.
 * - `not_dispatched`: the request provably never reached the kernel (connection refused, DNS failure,
 *   invalid URL, connect timeout, closed client). Safe to treat as "nothing happened".
 * - `outcome_unknown`: the request may have reached the kernel (reset or timeout after sending, HTTP
 *   5xx, an unreadable body). A write with this outcome must never be retried blindly.
 * - `kernel_rejected`: the kernel answered with an error (`code != 0`, or an unexpected HTTP 4xx).
 * - `decode`: the kernel answered, but the envelope or `data` does not have the contracted shape.
 * - `unauthorized`: HTTP 401/403; the kernel's auth guard refused before any handler ran.
 * - `budget_exceeded`: the caller's {@link CallBudget} refused the call (before sending) or the
 *   decoded size of a read's answer (after receiving).
 */
export type SiyuanApiErrorCode =
  | "not_dispatched"
  | "outcome_unknown"
  | "kernel_rejected"
  | "decode"
  | "unauthorized"
  | "budget_exceeded";

/** Why a transport-level failure happened (finer than the code; used for retry decisions and logs). */
export type TransportFailureReason =
  | "connection_refused"
  | "dns"
  | "invalid_url"
  | "connect_timeout"
  | "client_closed"
  | "invalid_request"
  | "connection_reset"
  | "socket"
  | "timeout"
  | "aborted"
  | "http_status"
  | "unreadable_body"
  | "unknown";

/** Structured details of a {@link SiyuanApiError}. Every field except `endpoint` is optional. */
export interface SiyuanApiErrorDetails {
  /** URL pathname of the kernel endpoint, e.g. `/api/block/updateBlock`. */
  readonly endpoint: string;
  /** Whether the endpoint is classified as a read or a write (see `ENDPOINTS`). */
  readonly kind?: "read" | "write";
  /** Number of HTTP attempts made (1 for every write). */
  readonly attempts?: number;
  /** HTTP status of the answer, when one arrived. */
  readonly httpStatus?: number;
  /** The kernel's `code` from the envelope (`kernel_rejected`). */
  readonly kernelCode?: number;
  /** The kernel's `msg` from the envelope (`kernel_rejected`, `unauthorized`). */
  readonly kernelMessage?: string;
  /** The kernel's `data` on a rejection (e.g. `{closeTimeout: 7000}`). */
  readonly kernelData?: unknown;
  /** Transport-level reason (`not_dispatched`, `outcome_unknown`). */
  readonly reason?: TransportFailureReason;
  /** The low-level error code seen (`ECONNREFUSED`, `UND_ERR_SOCKET`, …). */
  readonly causeCode?: string;
  /** True when a read may be retried after this failure. */
  readonly transient?: boolean;
  /** Zod issue paths and messages (`decode`). */
  readonly issues?: ReadonlyArray<{ readonly path: string; readonly message: string }>;
  /** Which budget limit refused the call (`budget_exceeded`). */
  readonly budget?: "calls" | "bytes";
}

const BRAND = "@sisyphus/siyuan-api/SiyuanApiError";
const BRAND_KEY: unique symbol = Symbol.for(BRAND);

/**
 * The single error class of this package. Check it with {@link isSiyuanApiError}, not `instanceof`
 * (the kernel bundle and the Node server may each carry a copy of this package).
 *
 * `writeDispatched` is the structural bit `@sisyphus/write-safety` reads: `false` means the kernel
 * provably did not run the handler (`not_dispatched`, `unauthorized` — the 401/403 guard answers before
 * any handler runs —, and `budget_exceeded` raised before sending); `true` means it may have
 * (`outcome_unknown`, `kernel_rejected`, `decode`, and `budget_exceeded` raised after a read's answer).
 */
export class SiyuanApiError extends Error {
  /** The failure class. */
  readonly code: SiyuanApiErrorCode;
  /** Structured context. */
  readonly details: SiyuanApiErrorDetails;
  /** False only when the request provably never reached a kernel handler. */
  readonly writeDispatched: boolean;
  readonly [BRAND_KEY] = true;

  constructor(
    code: SiyuanApiErrorCode,
    message: string,
    details: SiyuanApiErrorDetails,
    options?: { cause?: unknown; writeDispatched?: boolean },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "SiyuanApiError";
    this.code = code;
    this.details = details;
    this.writeDispatched = options?.writeDispatched ?? defaultWriteDispatched(code);
  }
}

function defaultWriteDispatched(code: SiyuanApiErrorCode): boolean {
  return !(code === "not_dispatched" || code === "unauthorized" || code === "budget_exceeded");
}

/**
 * Brand guard for {@link SiyuanApiError}; works across bundled copies of this package.
 * Narrows to an object with `code`, `details` and `writeDispatched`.
 */
export function isSiyuanApiError(value: unknown): value is SiyuanApiError {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<PropertyKey, unknown>)[BRAND_KEY] === true
  );
}
