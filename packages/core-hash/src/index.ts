/**
 * @sisyphus/core-hash: canonical JSON, versioned SHA-256 (portable, with a seam for the Node fast
 * path in `@sisyphus/core-hash/node`), credential parsing, the alias pool and request-ID issuing.
 *
 * Pure: no I/O, no clock, no globals beyond the language. This entry imports nothing from `node:*`,
 * and its global build (`dist/core-hash.global.js`) runs in a bare JavaScript context.
 */
export { AliasPool, type CredentialParseResult, parseCredential } from "./alias-pool.js";
export { canonicalJson } from "./canonical-json.js";
export { type HashChunkedOptions, hashChunked } from "./chunked.js";
export {
  ALIAS_MIN_HEX_DIGITS,
  CANONICAL_MAX_DEPTH,
  CHUNK_BATCH_BYTES,
  CREDENTIAL_MAX_HEX_DIGITS,
  CREDENTIAL_MIN_HEX_DIGITS,
  REQUEST_ID_MAX_HEX_DIGITS,
  REQUEST_ID_MIN_HEX_DIGITS,
  SHA256_HEX_DIGITS,
  STATE_DIGEST_PREFIX,
} from "./constants.js";
export {
  CoreHashError,
  type CoreHashErrorCode,
  type CoreHashErrorDetails,
  isCoreHashError,
} from "./errors.js";
export { type RandomSource, seededRandomSource } from "./random.js";
export { RequestIdIssuer, type ReservationSet } from "./request-id.js";
export {
  createPortableSha256,
  createSha256,
  PORTABLE_SHA256_BACKEND,
  portableSha256Hex,
  type Sha256,
  type Sha256Backend,
  setSha256Backend,
  sha256BackendName,
  sha256Hex,
} from "./sha256.js";
export { digestHex, isStateDigest, type StateDigest, stateHash } from "./state-hash.js";
export { utf8ByteLength, utf8Decode, utf8Encode } from "./utf8.js";
