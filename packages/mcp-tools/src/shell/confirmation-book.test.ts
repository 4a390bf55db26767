import { seededRandomSource } from "@sisyphus/core-hash";
import { describe, expect, it } from "vitest";
import { ConfirmationBook, hmacSha256Hex } from "./confirmation-book.js";
import { CONFIRMATION_TTL_MS, MAX_CONFIRMATIONS } from "./constants.js";

const binding = {
  principal: "bearer:abc",
  declaration: { form: {} },
  tool: "block",
  args: { action: "delete", id: "20260812120000-abcdefg" },
};

describe("ConfirmationBook", () => {
  it("signs with HMAC-SHA256 (RFC 4231 test cases 1 and 2)", () => {
    expect(hmacSha256Hex(new Uint8Array(20).fill(0x0b), "Hi There")).toBe(
      "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
    );
    expect(hmacSha256Hex(new TextEncoder().encode("Jefe"), "what do ya want for nothing?")).toBe(
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    );
  });

  it("accepts a state once, bound to the same operation", () => {
    const book = new ConfirmationBook({ random: seededRandomSource(1) });
    const s = book.issue(binding);
    expect(book.redeem(s, { ...binding, args: { id: binding.args.id, action: "delete" } })).toEqual(
      { ok: true },
    );
    expect(book.redeem(s, binding)).toEqual({ ok: false, reason: "reused" });
  });

  it("rejects changed arguments, another principal and another declaration, consuming the state", () => {
    const book = new ConfirmationBook({ random: seededRandomSource(2) });
    const s1 = book.issue(binding);
    expect(book.redeem(s1, { ...binding, args: { ...binding.args, id: "other" } })).toEqual({
      ok: false,
      reason: "mismatch",
    });
    expect(book.redeem(s1, binding)).toEqual({ ok: false, reason: "reused" });
    const s2 = book.issue(binding);
    expect(book.redeem(s2, { ...binding, principal: "bearer:zzz" }).ok).toBe(false);
    const s3 = book.issue(binding);
    expect(book.redeem(s3, { ...binding, declaration: {} }).ok).toBe(false);
  });

  it("rejects forged and tampered states", () => {
    const book = new ConfirmationBook({ random: seededRandomSource(3) });
    const s = book.issue(binding);
    const [payload, mac] = s.split(".") as [string, string];
    const decoded = JSON.parse(Buffer.from(payload, "base64url").toString()) as { e: number };
    decoded.e += 10_000_000;
    const tampered = `${Buffer.from(JSON.stringify(decoded)).toString("base64url")}.${mac}`;
    expect(book.redeem(tampered, binding)).toEqual({ ok: false, reason: "forged" });
    expect(book.redeem("nonsense", binding)).toEqual({ ok: false, reason: "forged" });
    expect(book.redeem(42, binding)).toEqual({ ok: false, reason: "forged" });
    expect(new ConfirmationBook({ random: seededRandomSource(4) }).redeem(s, binding)).toEqual({
      ok: false,
      reason: "forged",
    });
  });

  it("expires after five minutes", () => {
    let now = 0;
    const book = new ConfirmationBook({ random: seededRandomSource(5), clock: { now: () => now } });
    const s = book.issue(binding);
    now = CONFIRMATION_TTL_MS;
    expect(book.redeem(s, binding)).toEqual({ ok: false, reason: "expired" });
  });

  it("retains at most 128 outstanding states, evicting the oldest", () => {
    const book = new ConfirmationBook({ random: seededRandomSource(6) });
    const first = book.issue(binding);
    for (let i = 0; i < MAX_CONFIRMATIONS; i++) book.issue(binding);
    expect(book.size).toBe(MAX_CONFIRMATIONS);
    expect(book.redeem(first, binding)).toEqual({ ok: false, reason: "reused" });
  });
});
