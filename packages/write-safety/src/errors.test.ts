import { describe, expect, it } from "vitest";
import {
  isNotDispatched,
  isWriteSafetyError,
  WRITE_SAFETY_REASON_HINTS,
  WriteSafetyError,
} from "./errors.js";
import { WIRE_ERRORS } from "./wire-errors.js";

describe("WriteSafetyError", () => {
  it("carries code, hint, attempt/execution flags, details and cause", () => {
    const cause = new Error("socket reset");
    const e = new WriteSafetyError("outcome_unknown", {
      cause,
      details: { requestId: "b72f", ledgerState: "unknown" },
    });
    expect(e.toJSON()).toEqual({
      code: "outcome_unknown",
      message: e.message,
      hint: WIRE_ERRORS.outcome_unknown.hint,
      writeAttempted: true,
      writeExecuted: "unknown",
      details: { requestId: "b72f", ledgerState: "unknown" },
    });
    expect(e.cause).toBe(cause);
    expect(new WriteSafetyError("state_changed").writeExecuted).toBe(false);
    expect(new WriteSafetyError("outcome_unknown", { writeExecuted: true }).writeExecuted).toBe(
      true,
    );
  });

  it("preflight_lease_invalid hints are refined per reason and name the next call", () => {
    const reasons = Object.keys(WRITE_SAFETY_REASON_HINTS.preflight_lease_invalid);
    expect(reasons.sort()).toEqual(
      [
        "unknown_request_id",
        "request_id_expired",
        "other_epoch",
        "expired",
        "evicted",
        "consumed",
        "credential_mismatch",
      ].sort(),
    );
    const hints = new Set<string>();
    for (const reason of reasons) {
      const e = new WriteSafetyError("preflight_lease_invalid", {
        details: { reason, preconditionField: "expectedStateHash" },
      });
      expect(e.code).toBe("preflight_lease_invalid");
      expect(e.hint).toContain("validateOnly: true");
      expect(e.hint).toContain("new requestId and expectedStateHash");
      expect(e.hint).not.toContain("{credential}");
      expect(e.toJSON().hint).toBe(e.hint);
      hints.add(e.hint);
    }
    expect(hints.size).toBe(reasons.length);
    // additive actions have no credential field: the hint names the requestId only
    const additive = new WriteSafetyError("preflight_lease_invalid", {
      details: { reason: "other_epoch" },
    });
    expect(additive.hint).toMatch(/new requestId\.$/);
    // an unlisted reason, or none, keeps the code's hint
    expect(new WriteSafetyError("preflight_lease_invalid").hint).toBe(
      WIRE_ERRORS.preflight_lease_invalid.hint,
    );
    expect(new WriteSafetyError("state_changed", { details: { reason: "expired" } }).hint).toBe(
      WIRE_ERRORS.state_changed.hint,
    );
  });

  it("the guard checks a registry-wide brand, not instanceof (bundle copies)", () => {
    const e = new WriteSafetyError("queue_full");
    expect(isWriteSafetyError(e)).toBe(true);
    const fromOtherCopy = {
      [Symbol.for("@sisyphus/write-safety/WriteSafetyError")]: true,
      code: "queue_full",
    };
    expect(isWriteSafetyError(fromOtherCopy)).toBe(true);
    expect(isWriteSafetyError(new Error("queue_full"))).toBe(false);
    expect(isWriteSafetyError({ code: "queue_full" })).toBe(false);
    expect(isWriteSafetyError(null)).toBe(false);
  });

  it("only writeDispatched === false means not dispatched", () => {
    expect(isNotDispatched(Object.assign(new Error("refused"), { writeDispatched: false }))).toBe(
      true,
    );
    expect(isNotDispatched(Object.assign(new Error("reset"), { writeDispatched: true }))).toBe(
      false,
    );
    expect(isNotDispatched(new Error("plain"))).toBe(false);
    expect(isNotDispatched({ writeDispatched: "false" })).toBe(false);
    expect(isNotDispatched(undefined)).toBe(false);
  });
});
