/**
 * The one error class of `@sisyphus/node-server`, its code union, and a brand check that works
 * across bundle copies.
 */

/** Every way the Node server shell can fail with an exception. */
export type NodeServerErrorCode =
  /** A flag or environment variable has an invalid value; `details.setting` names it. */
  | "config_invalid"
  /** Another live process owns the data directory; `details.holderPid` names it. */
  | "data_dir_locked"
  /** A durable store file is unreadable or corrupt; the store refuses to open (fail closed). */
  | "store_corrupt"
  /** A durable store could not write or fsync; the caller must treat the record as not persisted. */
  | "store_io";

/** Structured context of a `NodeServerError`; never tokens or note content. */
export interface NodeServerErrorDetails {
  /** `config_invalid`: the flag (and its environment fallback) at fault, e.g. `--port (SISYPHUS_HTTP_PORT)`. */
  setting?: string;
  /** `data_dir_locked`: the process holding the lock. */
  holderPid?: number;
  /** `data_dir_locked`: the MCP URL the holder announced, if any. */
  holderUrl?: string;
  /** Store errors: the file at fault. */
  file?: string;
  /** `store_corrupt`: the 1-based line of the first bad record. */
  line?: number;
  [key: string]: unknown;
}

const BRAND: unique symbol = Symbol.for("@sisyphus/node-server/NodeServerError");

/** The only error node-server throws; match on `code`, never on `message`. */
export class NodeServerError extends Error {
  /** What went wrong; stable across versions. */
  readonly code: NodeServerErrorCode;
  /** Where and with what. */
  readonly details: NodeServerErrorDetails;
  /** Brand read by `isNodeServerError`. */
  readonly [BRAND] = true;

  constructor(
    code: NodeServerErrorCode,
    message: string,
    details: NodeServerErrorDetails = {},
    options?: { cause?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "NodeServerError";
    this.code = code;
    this.details = details;
  }
}

/** Brand check for `NodeServerError` (works across package copies, unlike `instanceof`). */
export function isNodeServerError(e: unknown): e is NodeServerError {
  return typeof e === "object" && e !== null && (e as Record<symbol, unknown>)[BRAND] === true;
}
