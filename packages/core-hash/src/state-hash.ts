/** Versioned state digests: `sha256:v1:` + 64 lowercase hex digits of SHA-256 over canonical JSON. */
import { canonicalJson } from "./canonical-json.js";
import { STATE_DIGEST_PREFIX } from "./constants.js";
import { CoreHashError } from "./errors.js";
import { sha256Hex } from "./sha256.js";

/** A complete, versioned state digest: `sha256:v1:` followed by 64 lowercase hex digits. */
export type StateDigest = `sha256:v1:${string}`;

const STATE_DIGEST = /^sha256:v1:[0-9a-f]{64}$/;

/**
 * The digest of `value`'s canonical JSON, encoded as UTF-8.
 * @throws CoreHashError with a `canonical_*` code when `value` is not JSON data (see `canonicalJson`).
 */
export function stateHash(value: unknown): StateDigest {
  return `${STATE_DIGEST_PREFIX}${sha256Hex(canonicalJson(value))}`;
}

/** True for exactly `sha256:v1:` + 64 lowercase hex digits (the form `stateHash` produces). */
export function isStateDigest(value: unknown): value is StateDigest {
  return typeof value === "string" && value.length === 74 && STATE_DIGEST.test(value);
}

/**
 * The 64 hex digits of a state digest.
 * @throws CoreHashError `digest_malformed` if `digest` is not a `StateDigest`.
 */
export function digestHex(digest: StateDigest): string {
  assertStateDigest(digest, "digest");
  return digest.slice(STATE_DIGEST_PREFIX.length);
}

/** Throws `digest_malformed` unless `value` is a `StateDigest`. */
export function assertStateDigest(value: unknown, argument: string): asserts value is StateDigest {
  if (!isStateDigest(value)) {
    throw new CoreHashError(
      "digest_malformed",
      `${argument} must be ${STATE_DIGEST_PREFIX} followed by 64 lowercase hex digits`,
      { argument, received: typeof value === "string" ? `string(${value.length})` : typeof value },
    );
  }
}
