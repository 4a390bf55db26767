/**
 * Integrity-protected, single-use confirmation states for MCP 2026-07-28 multi-round confirmation.
 * A state is `base64url(payload).base64url(HMAC-SHA256)`; the payload holds a random nonce, the
 * expiry, and a digest binding the authenticated principal, the client's elicitation declaration and
 * the normalised operation. The book retains at most `MAX_CONFIRMATIONS` outstanding nonces; a
 * state is consumed on its first redemption (accept, decline or cancel alike).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
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
  return createHash("sha256")
    .update(stableJson({ p: b.principal, d: b.declaration ?? null, t: b.tool, a: b.args }))
    .digest("base64url");
}

/** Issues and redeems confirmation states. The key lives only in this process's memory. */
export class ConfirmationBook {
  readonly #key: Buffer;
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #max: number;
  /** Outstanding nonces → expiry, in issue order (oldest first). */
  readonly #outstanding = new Map<string, number>();

  constructor(options: { clock?: Clock; key?: Buffer; ttlMs?: number; max?: number } = {}) {
    this.#key = options.key ?? randomBytes(32);
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
    const nonce = randomBytes(16).toString("base64url");
    const exp = this.#clock.now() + this.#ttlMs;
    this.#outstanding.set(nonce, exp);
    while (this.#outstanding.size > this.#max) {
      const oldest = this.#outstanding.keys().next().value as string;
      this.#outstanding.delete(oldest);
    }
    const payload = Buffer.from(
      JSON.stringify({ v: 1, n: nonce, e: exp, b: bindingDigest(binding) }),
    ).toString("base64url");
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
    const given = Buffer.from(state.slice(dot + 1), "base64url");
    const expected = Buffer.from(this.#mac(payload), "base64url");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return { ok: false, reason: "forged" };
    }
    let parsed: { n?: unknown; e?: unknown; b?: unknown };
    try {
      parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as typeof parsed;
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
    return createHmac("sha256", this.#key)
      .update(`sisyphus.confirmation:${payload}`)
      .digest("base64url");
  }
}
