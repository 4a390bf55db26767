/** The one error class of @sisyphus/siyuan-sandbox. */

/** Error codes raised by the sandbox's in-process API (never sent over HTTP). */
export type SandboxErrorCode =
  | "invalid_option"
  | "not_found"
  | "invalid_argument"
  | "persistence_failed"
  /** A kernel-level failure; `details.kernelCode`, `details.kernelData` carry the envelope. */
  | "kernel_error"
  /** `waitFor` (the `./testing` entry) ran out of time; `details: { what, timeoutMs, last }`. */
  | "wait_timeout"
  /** `observeQuietFor` (the `./testing` entry) saw what must not happen; `details: { what, quietMs, afterMs, value }`. */
  | "not_quiet";

const BRAND = Symbol.for("@sisyphus/siyuan-sandbox/SandboxError");

/**
 * Error thrown by the in-process sandbox API (startSandbox, control.external.*).
 * `code` is a string union; `details` is a plain object; `cause` is kept.
 */
export class SandboxError extends Error {
  readonly code: SandboxErrorCode;
  readonly details: Readonly<Record<string, unknown>>;
  readonly [BRAND] = true;
  constructor(
    code: SandboxErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "SandboxError";
    this.code = code;
    this.details = details;
  }
}

/** Brand check for SandboxError that works across bundle copies (no instanceof). */
export function isSandboxError(e: unknown): e is SandboxError {
  return typeof e === "object" && e !== null && (e as Record<symbol, unknown>)[BRAND] === true;
}

/** Details of a `kernel_error`: what the HTTP envelope answers. */
export interface KernelErrorDetails {
  kernelCode: number;
  kernelData: unknown;
}

/** Builds the error a kernel handler throws to answer `{code, msg, data}`. */
export function kernelError(
  kernelCode: number,
  msg: string,
  kernelData: unknown = null,
): SandboxError {
  return new SandboxError("kernel_error", msg, { kernelCode, kernelData });
}
