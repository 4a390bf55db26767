/**
 * The short-hash alias pool: every digest gets the shortest of its own hex prefixes (4 digits or
 * more) that no other digest holds, and keeps it for the life of the pool. Resolution is an exact
 * lookup, never a prefix search. The pool stores digests and aliases only, never note content.
 */
import { ALIAS_MIN_HEX_DIGITS, SHA256_HEX_DIGITS, STATE_DIGEST_PREFIX } from "./constants.js";
import { parseCredential } from "./credential.js";
import { assertStateDigest, type StateDigest } from "./state-hash.js";

/** Process-lifetime registry of digest aliases; aliases are never changed, freed or reassigned. */
export class AliasPool {
  private readonly digestByAlias = new Map<string, StateDigest>();
  private readonly aliasByDigest = new Map<StateDigest, string>();

  /**
   * The alias of `digest`: the one already registered, or else the first of its hex prefixes of
   * length 4, 5, 6, ... that is not registered to a different digest, which is registered now.
   * @throws CoreHashError `digest_malformed` if `digest` is not a `StateDigest`.
   */
  aliasFor(digest: StateDigest): string {
    const existing = this.aliasByDigest.get(digest);
    if (existing !== undefined) return existing;
    assertStateDigest(digest, "digest");
    const start = STATE_DIGEST_PREFIX.length;
    // The 64-digit prefix is the digest itself, which no other digest can hold, so the loop
    // always ends with a registration.
    let alias = "";
    for (let n = ALIAS_MIN_HEX_DIGITS; n <= SHA256_HEX_DIGITS; n++) {
      alias = digest.slice(start, start + n);
      if (!this.digestByAlias.has(alias)) break;
    }
    this.digestByAlias.set(alias, digest);
    this.aliasByDigest.set(digest, alias);
    return alias;
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
    if (hex.length === SHA256_HEX_DIGITS) {
      const digest: StateDigest = `${STATE_DIGEST_PREFIX}${hex}`;
      return this.aliasByDigest.has(digest) ? digest : undefined;
    }
    return this.digestByAlias.get(hex);
  }

  /** Number of digests registered (equal to the number of aliases). */
  get size(): number {
    return this.aliasByDigest.size;
  }
}
