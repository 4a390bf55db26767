import { describe, expect, expectTypeOf, it } from "vitest";
import { WRITE_SAFETY_ERROR_CODES, WriteSafetyError } from "./errors.js";
import {
  isWireErrorCode,
  WIRE_ERRORS,
  type WireErrorCode,
  type WireErrorEntry,
  type WireExitClass,
} from "./wire-errors.js";

const EXIT_CLASSES: readonly WireExitClass[] = [
  "error",
  "safety",
  "confirmation",
  "outcomeUnknown",
  "unavailable",
  "denied",
  "interrupted",
];

describe("WIRE_ERRORS", () => {
  it("gives every code one single-line hint, an exit class and a writeAttempted column", () => {
    const codes = Object.keys(WIRE_ERRORS) as WireErrorCode[];
    expect(codes.length).toBeGreaterThan(30);
    for (const code of codes) {
      const row: WireErrorEntry = WIRE_ERRORS[code];
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(row.hint, code).not.toContain("\n");
      expect(row.hint.length, code).toBeGreaterThan(10);
      expect(EXIT_CLASSES, code).toContain(row.exit);
      expect(["never", "possible"], code).toContain(row.writeAttempted);
    }
  });

  it("allows writeAttempted: true only where a write may have been dispatched", () => {
    const possible = Object.entries(WIRE_ERRORS)
      .filter(([, row]) => row.writeAttempted === "possible")
      .map(([code]) => code);
    expect(possible.sort()).toEqual(["outcome_unknown", "readback_mismatch"]);
  });

  it("sets each write-safety error's default writeAttempted from the column", () => {
    for (const code of WRITE_SAFETY_ERROR_CODES) {
      const e = new WriteSafetyError(code);
      expect(e.writeAttempted, code).toBe(WIRE_ERRORS[code].writeAttempted === "possible");
      expect(e.hint, code).toBe(WIRE_ERRORS[code].hint);
    }
  });

  it("recognises its codes and nothing else", () => {
    expect(isWireErrorCode("queue_full")).toBe(true);
    expect(isWireErrorCode("toString")).toBe(false);
    expect(isWireErrorCode("no_such_code")).toBe(false);
    expect(isWireErrorCode(undefined)).toBe(false);
  });

  it("does not compile a code without an exit class, nor a layer's code outside the table", () => {
    expectTypeOf(WIRE_ERRORS).toExtend<Readonly<Record<WireErrorCode, WireErrorEntry>>>();
    expectTypeOf<(typeof WRITE_SAFETY_ERROR_CODES)[number]>().toExtend<WireErrorCode>();
    const row = { hint: "Retry later; nothing ran.", writeAttempted: "never" } as const;
    // @ts-expect-error a row without `exit` is not a WireErrorEntry
    const missingExit: WireErrorEntry = row;
    expect(missingExit.hint).toBe(row.hint);
    // @ts-expect-error a code not in the table is not a WireErrorCode
    const unknown: WireErrorCode = "no_such_code";
    expect(isWireErrorCode(unknown)).toBe(false);
  });
});
