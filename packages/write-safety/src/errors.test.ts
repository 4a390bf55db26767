import { describe, expect, it } from "vitest";
import {
  isNotDispatched,
  isWriteSafetyError,
  WRITE_SAFETY_HINTS,
  WriteSafetyError,
} from "./errors.js";

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
      hint: WRITE_SAFETY_HINTS.outcome_unknown,
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
