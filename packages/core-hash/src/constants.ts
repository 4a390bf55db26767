/**
 * The limits of core-hash, in one place. Documentation quotes these names; change them here only.
 */

/** Every state digest starts with this version tag; a new canonicalisation or hash gets `v2`. */
export const STATE_DIGEST_PREFIX = "sha256:v1:";

/** Hex digits of a complete SHA-256 digest (256 bits). */
export const SHA256_HEX_DIGITS = 64;

/** Shortest alias the pool hands out, in hex digits (16 bits: a lookup key, never a check). */
export const ALIAS_MIN_HEX_DIGITS = 4;

/** Shortest credential `parseCredential` accepts, in hex digits. */
export const CREDENTIAL_MIN_HEX_DIGITS = 4;

/** Longest credential `parseCredential` accepts, in hex digits (a complete digest). */
export const CREDENTIAL_MAX_HEX_DIGITS = 64;

/** Hex digits of a freshly drawn request ID before any collision extends it. */
export const REQUEST_ID_MIN_HEX_DIGITS = 4;

/**
 * Longest request ID the issuer will try before giving up with `request_id_exhausted`. Reaching it
 * means the reservation set answers `has` with true for everything (a broken store), since 64 random
 * hex digits never collide by chance.
 */
export const REQUEST_ID_MAX_HEX_DIGITS = 64;

/** Bytes hashed between two yields to the event loop in `hashChunked` (64 KiB). */
export const CHUNK_BATCH_BYTES = 65536;

/**
 * Deepest nesting of arrays and objects that `canonicalJson` accepts (the top-level value is depth
 * 0). Deeper input fails with `canonical_too_deep` instead of overflowing the call stack, which would
 * surface as an untyped `RangeError` at a depth that differs between runtimes.
 */
export const CANONICAL_MAX_DEPTH = 1000;
