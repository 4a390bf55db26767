import { describe, expect, it } from "vitest";
import { ConfirmationBook } from "./confirmation-book.js";
import { CONFIRMATION_TTL_MS, MAX_CONFIRMATIONS } from "./constants.js";

const binding = {
  principal: "bearer:abc",
  declaration: { form: {} },
  tool: "block",
  args: { action: "delete", id: "20260812120000-abcdefg" },
};

describe("ConfirmationBook", () => {
  it("accepts a state once, bound to the same operation", () => {
    const book = new ConfirmationBook();
    const s = book.issue(binding);
    expect(book.redeem(s, { ...binding, args: { id: binding.args.id, action: "delete" } })).toEqual(
      { ok: true },
    );
    expect(book.redeem(s, binding)).toEqual({ ok: false, reason: "reused" });
  });

  it("rejects changed arguments, another principal and another declaration, consuming the state", () => {
    const book = new ConfirmationBook();
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
    const book = new ConfirmationBook();
    const s = book.issue(binding);
    const [payload, mac] = s.split(".") as [string, string];
    const decoded = JSON.parse(Buffer.from(payload, "base64url").toString()) as { e: number };
    decoded.e += 10_000_000;
    const tampered = `${Buffer.from(JSON.stringify(decoded)).toString("base64url")}.${mac}`;
    expect(book.redeem(tampered, binding)).toEqual({ ok: false, reason: "forged" });
    expect(book.redeem("nonsense", binding)).toEqual({ ok: false, reason: "forged" });
    expect(book.redeem(42, binding)).toEqual({ ok: false, reason: "forged" });
    expect(new ConfirmationBook().redeem(s, binding)).toEqual({ ok: false, reason: "forged" });
  });

  it("expires after five minutes", () => {
    let now = 0;
    const book = new ConfirmationBook({ clock: { now: () => now } });
    const s = book.issue(binding);
    now = CONFIRMATION_TTL_MS;
    expect(book.redeem(s, binding)).toEqual({ ok: false, reason: "expired" });
  });

  it("retains at most 128 outstanding states, evicting the oldest", () => {
    const book = new ConfirmationBook();
    const first = book.issue(binding);
    for (let i = 0; i < MAX_CONFIRMATIONS; i++) book.issue(binding);
    expect(book.size).toBe(MAX_CONFIRMATIONS);
    expect(book.redeem(first, binding)).toEqual({ ok: false, reason: "reused" });
  });
});
