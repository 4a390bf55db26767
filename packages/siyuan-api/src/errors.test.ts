import { describe, expect, it } from "vitest";
import { isSiyuanApiError, SiyuanApiError, type SiyuanApiErrorCode } from "./errors.js";

describe("SiyuanApiError", () => {
  const expected: Record<SiyuanApiErrorCode, boolean> = {
    not_dispatched: false,
    unauthorized: false,
    budget_exceeded: false,
    outcome_unknown: true,
    kernel_rejected: true,
    decode: true,
  };

  for (const [code, dispatched] of Object.entries(expected) as [SiyuanApiErrorCode, boolean][]) {
    it(`${code} has writeDispatched=${dispatched}`, () => {
      const e = new SiyuanApiError(code, "m", { endpoint: "/api/x" });
      expect(e.writeDispatched).toBe(dispatched);
      expect(e.code).toBe(code);
      expect(isSiyuanApiError(e)).toBe(true);
    });
  }

  it("keeps cause and details, and allows an explicit writeDispatched override", () => {
    const cause = new Error("low level");
    const e = new SiyuanApiError(
      "budget_exceeded",
      "m",
      { endpoint: "/api/x", budget: "bytes" },
      { cause, writeDispatched: true },
    );
    expect(e.cause).toBe(cause);
    expect(e.details.budget).toBe("bytes");
    expect(e.writeDispatched).toBe(true);
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe("SiyuanApiError");
  });

  it("guard rejects look-alikes and accepts a copy carrying the global brand", () => {
    expect(isSiyuanApiError(new Error("x"))).toBe(false);
    expect(isSiyuanApiError({ code: "not_dispatched", writeDispatched: false })).toBe(false);
    expect(isSiyuanApiError(null)).toBe(false);
    expect(isSiyuanApiError("not_dispatched")).toBe(false);
    const foreignCopy = { [Symbol.for("@sisyphus/siyuan-api/SiyuanApiError")]: true };
    expect(isSiyuanApiError(foreignCopy)).toBe(true);
  });
});
