/**
 * The one error class of core-hash, its code union, and a brand check that works across bundle
 * copies (the kernel bundle and the Node server may each carry their own copy of this package).
 */

/** Every way a core-hash call can fail with an exception. */
export type CoreHashErrorCode =
  /** `undefined` at the top level or as an array element (object properties that are `undefined` are omitted instead). */
  | "canonical_undefined"
  /** `NaN`, `Infinity` or `-Infinity`. */
  | "canonical_non_finite_number"
  /** A `bigint` value. */
  | "canonical_bigint"
  /** A function value. */
  | "canonical_function"
  /** A symbol value, or an object with symbol-keyed own properties. */
  | "canonical_symbol"
  /** A `Date` (serialise it to a string yourself, in the format you mean). */
  | "canonical_date"
  /** A typed array, `DataView`, `ArrayBuffer` or `SharedArrayBuffer`. */
  | "canonical_typed_array"
  /** An object or array that contains itself. */
  | "canonical_cycle"
  /** An object whose prototype is neither `Object.prototype` nor `null` (class instances, `Map`, `Set`, `RegExp`, boxed primitives, ...). */
  | "canonical_non_plain_object"
  /** Nesting deeper than `CANONICAL_MAX_DEPTH`. */
  | "canonical_too_deep"
  /** A string that should be a `StateDigest` (`sha256:v1:` + 64 lowercase hex digits) is not one. */
  | "digest_malformed"
  /** An argument of the wrong type or out of range (e.g. a non-positive `batchBytes`). */
  | "invalid_argument"
  /** `update` was called on a hasher after its digest was taken. */
  | "hash_finalized"
  /** An injected `RandomSource` returned something other than an integer in `[0, maxExclusive)`. */
  | "random_out_of_range"
  /** The request-ID issuer reached `REQUEST_ID_MAX_HEX_DIGITS` without finding a free ID. */
  | "request_id_exhausted";

/** Structured context of a `CoreHashError`; `path` is a JSON path such as `$.children[3].attrs["data-x"]`. */
export interface CoreHashErrorDetails {
  /** Where in the value the problem was found (canonical JSON errors), `$` being the value itself. */
  path?: string;
  /** Further facts (e.g. `constructorName`, `argument`, `received`), for logs; never note content. */
  [key: string]: unknown;
}

const BRAND: unique symbol = Symbol.for("@sisyphus/core-hash/CoreHashError");

/** The only error core-hash throws; match on `code`, never on `message`. */
export class CoreHashError extends Error {
  /** What went wrong; stable across versions. */
  readonly code: CoreHashErrorCode;
  /** Where and with what; see `CoreHashErrorDetails`. */
  readonly details: CoreHashErrorDetails;
  /** Brand read by `isCoreHashError`, shared by every copy of this package through `Symbol.for`. */
  readonly [BRAND] = true;

  constructor(
    code: CoreHashErrorCode,
    message: string,
    details: CoreHashErrorDetails = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "CoreHashError";
    this.code = code;
    this.details = details;
  }
}

/** True for a `CoreHashError` from any copy of this package (a brand check, not `instanceof`). */
export function isCoreHashError(e: unknown): e is CoreHashError {
  return typeof e === "object" && e !== null && (e as { [BRAND]?: unknown })[BRAND] === true;
}
