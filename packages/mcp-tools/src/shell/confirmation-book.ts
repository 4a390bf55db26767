/**
 * Integrity-protected, single-use confirmation states for MCP 2026-07-28 multi-round confirmation.
 * A state is `base64url(payload).base64url(HMAC-SHA256)`; the payload holds a random nonce, the
 * expiry, and a digest binding the authenticated principal, the client's elicitation declaration and
 * the normalised operation. The book retains at most `MAX_CONFIRMATIONS` outstanding nonces; a
 * state is consumed on its first redemption (accept, decline or cancel alike). Portable: SHA-256
 * from core-hash and an injected random source, so the kernel plugin runs the same book.
 */
import { createSha256, type RandomSource, sha256Hex } from "@sisyphus/core-hash";
import { type Clock, systemClock } from "@sisyphus/write-safety";
import { CONFIRMATION_TTL_MS, MAX_CONFIRMATIONS } from "./constants.js";

/** What a confirmation is bound to. */
export interface ConfirmationBinding {
  /** The authenticated context (e.g. the bearer principal, or `stdio:<pid>`). */
  principal: string;
  /** The client's declared elicitation capability, as sent. */
  declaration: unknown;
  /** Tool name. */
  tool: string;
  /** The tool arguments without the `confirm` convention field. */
  args: Record<string, unknown>;
}

/** Why a state was refused. */
export type ConfirmationRefusal = "forged" | "expired" | "reused" | "mismatch";

/** Stable JSON: sorted object keys, arrays in order. */
export function stableJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson(obj[k])}`).join(",")}}`;
}

function bindingDigest(b: ConfirmationBinding): string {
  return sha256Hex(stableJson({ p: b.principal, d: b.declaration ?? null, t: b.tool, a: b.args }));
}

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** base64url (no padding) of a string of code units below 256 (here: ASCII JSON). */
function base64url(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i += 3) {
    const n =
      (text.charCodeAt(i) << 16) |
      ((text.charCodeAt(i + 1) || 0) << 8) |
      (text.charCodeAt(i + 2) || 0);
    const chars = Math.min(4, Math.ceil(((text.length - i) * 8) / 6));
    for (let k = 0; k < chars; k++) out += BASE64URL[(n >> (18 - 6 * k)) & 63];
  }
  return out;
}

/** The inverse of {@link base64url}; `undefined` for a character outside the alphabet. */
function fromBase64url(text: string): string | undefined {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const ch of text) {
    const v = BASE64URL.indexOf(ch);
    if (v < 0) return undefined;
    value = (value << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += String.fromCharCode((value >> bits) & 255);
    }
  }
  return out;
}

function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** HMAC-SHA256 (RFC 2104) of `message` under a 32-byte key: 64 hex digits. */
export function hmacSha256Hex(key: Uint8Array, message: string): string {
  const inner = new Uint8Array(64).fill(0x36);
  const outer = new Uint8Array(64).fill(0x5c);
  for (let i = 0; i < key.length; i++) {
    inner[i] = (inner[i] as number) ^ (key[i] as number);
    outer[i] = (outer[i] as number) ^ (key[i] as number);
  }
  const innerHex = createSha256().update(inner).update(message).digestHex();
  return createSha256().update(outer).update(hexBytes(innerHex)).digestHex();
}

/** Equality of two strings in time that depends only on their lengths. */
function constantTimeEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length; i++)
    diff |= a.charCodeAt(i) ^ (b.charCodeAt(i % (b.length || 1)) || 0);
  return diff === 0;
}

/** `count` random bytes from `random`. */
function randomBytesOf(random: RandomSource, count: number): Uint8Array {
  const out = new Uint8Array(count);
  for (let i = 0; i < count; i++) out[i] = random.nextInt(256);
  return out;
}

/** Issues and redeems confirmation states. The key lives only in this process's memory. */
export class ConfirmationBook {
  readonly #key: Uint8Array;
  readonly #random: RandomSource;
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #max: number;
  /** Outstanding nonces → expiry, in issue order (oldest first). */
  readonly #outstanding = new Map<string, number>();

  /**
   * `random` makes the key and the nonces: a CSPRNG on Node; the kernel's `Math.random` source,
   * which is fine because a state is only ever accepted against this book's own outstanding nonces.
   */
  constructor(options: {
    random: RandomSource;
    clock?: Clock;
    key?: Uint8Array;
    ttlMs?: number;
    max?: number;
  }) {
    this.#random = options.random;
    this.#key = options.key ?? randomBytesOf(options.random, 32);
    this.#clock = options.clock ?? systemClock;
    this.#ttlMs = options.ttlMs ?? CONFIRMATION_TTL_MS;
    this.#max = options.max ?? MAX_CONFIRMATIONS;
  }

  /** Outstanding (issued, not yet redeemed, possibly expired) states. */
  get size(): number {
    return this.#outstanding.size;
  }

  /** Issues a state bound to `binding`, evicting the oldest beyond the retention cap. */
  issue(binding: ConfirmationBinding): string {
    const nonce = base64url(String.fromCharCode(...randomBytesOf(this.#random, 16)));
    const exp = this.#clock.now() + this.#ttlMs;
    this.#outstanding.set(nonce, exp);
    while (this.#outstanding.size > this.#max) {
      const oldest = this.#outstanding.keys().next().value as string;
      this.#outstanding.delete(oldest);
    }
    const payload = base64url(
      JSON.stringify({ v: 1, n: nonce, e: exp, b: bindingDigest(binding) }),
    );
    return `${payload}.${this.#mac(payload)}`;
  }

  /**
   * Verifies and consumes a state. Any state that verifies is consumed, even when its binding does
   * not match (so a state can never be tried twice).
   */
  redeem(
    state: unknown,
    binding: ConfirmationBinding,
  ): { ok: true } | { ok: false; reason: ConfirmationRefusal } {
    if (typeof state !== "string") return { ok: false, reason: "forged" };
    const dot = state.indexOf(".");
    if (dot <= 0) return { ok: false, reason: "forged" };
    const payload = state.slice(0, dot);
    if (!constantTimeEqual(state.slice(dot + 1), this.#mac(payload))) {
      return { ok: false, reason: "forged" };
    }
    let parsed: { n?: unknown; e?: unknown; b?: unknown };
    try {
      parsed = JSON.parse(fromBase64url(payload) ?? "") as typeof parsed;
    } catch {
      return { ok: false, reason: "forged" };
    }
    const nonce = String(parsed.n);
    const known = this.#outstanding.has(nonce);
    this.#outstanding.delete(nonce);
    if (typeof parsed.e !== "number" || this.#clock.now() >= parsed.e)
      return { ok: false, reason: "expired" };
    if (!known) return { ok: false, reason: "reused" };
    if (parsed.b !== bindingDigest(binding)) return { ok: false, reason: "mismatch" };
    return { ok: true };
  }

  #mac(payload: string): string {
    return hmacSha256Hex(this.#key, `sisyphus.confirmation:${payload}`);
  }
}
