/**
 * The README quotes every limit by its constant's name with the value beside it, `NAME` (value);
 * this keeps the quoted values equal to `src/constants.ts` and every limit quoted. Its error table
 * lists the write-safety codes with the wire table's `writeAttempted` column (`src/wire-errors.ts`).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as limits from "../src/constants.js";
import { WRITE_SAFETY_ERROR_CODES } from "../src/errors.js";
import { isWireErrorCode, WIRE_ERRORS } from "../src/wire-errors.js";

const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/** How the README writes a value: durations in the largest whole unit, counts with thousands commas. */
function render(name: string, value: number): string {
  if (name.endsWith("_MS")) {
    if (value % DAY_MS === 0) return `${value / DAY_MS} days`;
    if (value % MINUTE_MS === 0) return `${value / MINUTE_MS} min`;
    return `${value} ms`;
  }
  return value.toLocaleString("en-US");
}

describe("README limits", () => {
  const quoted = new Map<string, string[]>();
  for (const m of README.matchAll(/`([A-Z][A-Z0-9_]+)` \(([^)]+)\)/g)) {
    quoted.set(m[1]!, [...(quoted.get(m[1]!) ?? []), m[2]!]);
  }

  it("quotes every limit of constants.ts", () => {
    expect([...quoted.keys()].sort()).toEqual(Object.keys(limits).sort());
  });

  it("quotes each with its current value", () => {
    for (const [name, values] of quoted) {
      const value = (limits as Record<string, number | undefined>)[name];
      expect(value, name).toBeTypeOf("number");
      for (const v of values) expect(v, name).toBe(render(name, value!));
    }
  });
});

describe("README error codes", () => {
  // The rows of the table headed "code (`WriteSafetyError`) | attempted | next step (`hint`)".
  const rows = [...README.matchAll(/^\| ([a-z_ /]+?) +\| (yes|no) +\|/gm)].map((m) => ({
    codes: expandCodes(m[1]!),
    attempted: m[2] === "yes",
  }));

  it("lists every write-safety code once, each a wire error code", () => {
    const listed = rows.flatMap((r) => r.codes);
    expect([...listed].sort()).toEqual([...WRITE_SAFETY_ERROR_CODES].sort());
    for (const code of listed) expect(isWireErrorCode(code), code).toBe(true);
  });

  it("says 'attempted' exactly where the wire table allows writeAttempted: true", () => {
    for (const { codes, attempted } of rows)
      for (const code of codes)
        expect(isWireErrorCode(code) && WIRE_ERRORS[code].writeAttempted === "possible", code).toBe(
          attempted,
        );
  });
});

/** `a_b_c / _d` → `a_b_c`, `a_b_d`: a code starting with `_` replaces the previous one's last word. */
function expandCodes(cell: string): string[] {
  const out: string[] = [];
  for (const part of cell.split(" / ").map((p) => p.trim())) {
    const previous = out[out.length - 1];
    out.push(
      part.startsWith("_") && previous !== undefined
        ? previous.slice(0, previous.lastIndexOf("_")) + part
        : part,
    );
  }
  return out;
}
