import { WIRE_ERRORS, type WireErrorCode, type WireExitClass } from "@sisyphus/mcp-tools";
import { describe, expect, expectTypeOf, it } from "vitest";
import { classify, EXIT, type ExitCode } from "./exit-codes.js";

/** The exit of every code that is not a plain failure (exit 1), as the README documents them. */
const NOT_PLAIN: Readonly<Partial<Record<WireErrorCode, ExitCode>>> = {
  precondition_required: EXIT.safety,
  preflight_lease_invalid: EXIT.safety,
  state_changed: EXIT.safety,
  idempotency_conflict: EXIT.safety,
  preflight_unavailable: EXIT.safety,
  confirmation_required: EXIT.confirmation,
  confirmation_declined: EXIT.confirmation,
  confirmation_cancelled: EXIT.confirmation,
  confirmation_invalid: EXIT.confirmation,
  outcome_unknown: EXIT.outcomeUnknown,
  readback_mismatch: EXIT.outcomeUnknown,
  write_coordinator_unavailable: EXIT.unavailable,
  write_coordinator_changed: EXIT.unavailable,
  kernel_unavailable: EXIT.unavailable,
  queue_full: EXIT.unavailable,
  task_rejected: EXIT.unavailable,
  permission_denied: EXIT.denied,
  action_disabled: EXIT.denied,
  cancelled: EXIT.interrupted,
};

describe("classify", () => {
  it("gives every wire error code the exit status of its class", () => {
    for (const code of Object.keys(WIRE_ERRORS) as WireErrorCode[]) {
      const exit = classify(code);
      expect(exit, code).toBe(EXIT[WIRE_ERRORS[code].exit]);
      expect(exit, code).toBe(NOT_PLAIN[code] ?? EXIT.error);
      expect([EXIT.ok, EXIT.usage], code).not.toContain(exit);
    }
  });

  it("answers success without a code and a plain failure for a code it does not know", () => {
    expect(classify(undefined)).toBe(EXIT.ok);
    expect(classify("a_newer_authoritys_code")).toBe(EXIT.error);
    expect(classify("toString")).toBe(EXIT.error);
  });

  it("does not compile a wire code without an exit class, nor a class without a status", () => {
    expectTypeOf(WIRE_ERRORS).toExtend<Readonly<Record<WireErrorCode, { exit: WireExitClass }>>>();
    expectTypeOf(EXIT).toExtend<Readonly<Record<WireExitClass, number>>>();
    // @ts-expect-error a row's class must be one of the classes EXIT gives a status
    const unclassified: { exit: WireExitClass } = { exit: "somewhere_else" };
    expect(unclassified.exit).toBe("somewhere_else");
  });
});
