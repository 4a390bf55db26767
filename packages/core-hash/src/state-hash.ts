/** Versioned state digests: `sha256:v1:` + 64 lowercase hex digits of SHA-256 over canonical JSON. */
import { canonicalJsonChunks } from "./canonical-json.js";
import { SHA256_HEX_DIGITS, STATE_DIGEST_PREFIX } from "./constants.js";
import { CoreHashError } from "./errors.js";
import { createSha256 } from "./sha256.js";

/** A complete, versioned state digest: `sha256:v1:` followed by 64 lowercase hex digits. */
export type StateDigest = `sha256:v1:${string}`;

/**
 * The digest of `value`'s canonical JSON, encoded as UTF-8. The text is hashed chunk by chunk as it
 * is written, never built as one string: a large string costs more to allocate than to hash.
 * @throws CoreHashError with a `canonical_*` code when `value` is not JSON data (see `canonicalJson`).
 */
export function stateHash(value: unknown): StateDigest {
  const hash = createSha256();
  canonicalJsonChunks(value, (chunk) => {
    hash.update(chunk);
  });
  return `${STATE_DIGEST_PREFIX}${hash.digestHex()}`;
}

/** True for exactly `sha256:v1:` + 64 lowercase hex digits (the form `stateHash` produces). */
export function isStateDigest(value: unknown): value is StateDigest {
  if (
    typeof value !== "string" ||
    value.length !== STATE_DIGEST_PREFIX.length + SHA256_HEX_DIGITS ||
    !value.startsWith(STATE_DIGEST_PREFIX)
  ) {
    return false;
  }
  for (let i = STATE_DIGEST_PREFIX.length; i < value.length; i++) {
    const c = value.charCodeAt(i);
    // 0-9 or a-f only: uppercase is not the canonical form.
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
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
