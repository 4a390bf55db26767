/**
 * The short-hash alias pool: every digest gets the shortest of its own hex prefixes (4 digits or
 * more) that no other digest holds, and keeps it for the life of the pool. Resolution is an exact
 * lookup, never a prefix search. The pool stores digests and aliases only, never note content.
 *
 * One map, alias -> digest, is the whole state. A digest's alias is found again by walking its
 * prefixes from 4 digits up: every prefix shorter than its alias was held by another digest when the
 * alias was given, and aliases are never freed or reassigned, so the walk meets only other digests
 * until it reaches the digest's own alias. Meeting a free prefix first proves the digest is new, and
 * that prefix is exactly the alias to give it.
 *
 * An alias travels as a credential (`parseCredential`, its syntax). Parsing is only syntax: a
 * well-formed credential grants nothing until the write coordinator resolves it to an active lease
 * and compares complete digests.
 */
import {
  ALIAS_MIN_HEX_DIGITS,
  CREDENTIAL_MAX_HEX_DIGITS,
  CREDENTIAL_MIN_HEX_DIGITS,
  SHA256_HEX_DIGITS,
  STATE_DIGEST_PREFIX,
} from "./constants.js";
import { CoreHashError } from "./errors.js";
import { assertStateDigest, type StateDigest } from "./state-hash.js";

const HEX_START = STATE_DIGEST_PREFIX.length;

/** Process-lifetime registry of digest aliases; aliases are never changed, freed or reassigned. */
export class AliasPool {
  private readonly digestByAlias = new Map<string, StateDigest>();

  /**
   * The alias of `digest`: the one already registered, or else the first of its hex prefixes of
   * length 4, 5, 6, ... that is not registered to a different digest, which is registered now.
   * @throws CoreHashError `digest_malformed` if `digest` is not a `StateDigest`.
   */
  aliasFor(digest: StateDigest): string {
    if (typeof digest !== "string") assertStateDigest(digest, "digest");
    const map = this.digestByAlias;
    // A malformed string is never registered, so the walk cannot "find" one; it is rejected below.
    for (let n = ALIAS_MIN_HEX_DIGITS; n <= SHA256_HEX_DIGITS; n++) {
      const alias = digest.slice(HEX_START, HEX_START + n);
      const holder = map.get(alias);
      if (holder === digest) return alias;
      if (holder === undefined) {
        assertStateDigest(digest, "digest");
        map.set(alias, digest);
        return alias;
      }
    }
    // Every prefix, the complete hex included, is held by another digest: impossible for a valid
    // digest (its complete hex can only be its own), so the input was malformed.
    throw new CoreHashError("digest_malformed", "digest is not a sha256:v1: state digest", {
      argument: "digest",
    });
  }

  /**
   * The full digest registered under `alias`, or `undefined`. The lookup is exact (no prefix
   * search); input is case-insensitive and may carry the `sha256:v1:` prefix, as credentials may.
   * A complete 64-digit digest resolves to itself only if that digest is in the pool.
   */
  resolve(alias: string): StateDigest | undefined {
    const parsed = parseCredential(alias);
    if (!parsed.ok) return undefined;
    const hex = parsed.hex;
    if (hex.length < SHA256_HEX_DIGITS) return this.digestByAlias.get(hex);
    const digest: StateDigest = `${STATE_DIGEST_PREFIX}${hex}`;
    return this.contains(digest) ? digest : undefined;
  }

  /** True if `digest` has an alias in this pool (registers nothing). */
  private contains(digest: StateDigest): boolean {
    for (let n = ALIAS_MIN_HEX_DIGITS; n <= SHA256_HEX_DIGITS; n++) {
      const holder = this.digestByAlias.get(digest.slice(HEX_START, HEX_START + n));
      if (holder === digest) return true;
      if (holder === undefined) return false;
    }
    return false;
  }

  /** Number of digests registered (equal to the number of aliases). */
  get size(): number {
    return this.digestByAlias.size;
  }
}

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
