/**
 * Credential syntax. Parsing is only syntax: a well-formed credential grants nothing until the
 * write coordinator resolves it to an active lease and compares complete digests.
 */
import {
  CREDENTIAL_MAX_HEX_DIGITS,
  CREDENTIAL_MIN_HEX_DIGITS,
  STATE_DIGEST_PREFIX,
} from "./constants.js";

/** The outcome of `parseCredential`: the lowercase hex digits, or why the input is not a credential. */
export type CredentialParseResult =
  | { ok: true; hex: string }
  | { ok: false; code: "credential_malformed"; message: string };

const CREDENTIAL = /^(?:sha256:v1:)?([0-9a-f]{4,64})$/i;
const LONGEST = STATE_DIGEST_PREFIX.length + CREDENTIAL_MAX_HEX_DIGITS;

function malformed(message: string): CredentialParseResult {
  return { ok: false, code: "credential_malformed", message };
}

/**
 * Accepts `sha256:v1:<4-64 hex digits>` or bare `<4-64 hex digits>`, case-insensitively, and
 * returns the hex digits in lowercase. Anything else (surrounding spaces, another prefix, fewer than
 * 4 or more than 64 digits, non-hex characters, a non-string) is `credential_malformed`. Never throws.
 */
export function parseCredential(input: unknown): CredentialParseResult {
  if (typeof input !== "string") {
    return malformed(`a credential is a string, not ${input === null ? "null" : typeof input}`);
  }
  const match = input.length <= LONGEST ? CREDENTIAL.exec(input) : null;
  if (match === null) {
    return malformed(
      `a credential is ${STATE_DIGEST_PREFIX}<hex> or bare <hex>, with ${CREDENTIAL_MIN_HEX_DIGITS} to ${CREDENTIAL_MAX_HEX_DIGITS} hex digits and nothing else; copy it exactly as preflight returned it`,
    );
  }
  return { ok: true, hex: match[1]!.toLowerCase() };
}
