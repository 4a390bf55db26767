/**
 * Where the docs list error codes, they agree with the wire's error table (`WIRE_ERRORS`): the
 * README names every tool code, and the protocol page's table and the skill name only wire codes.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isWireErrorCode, TOOL_ERROR_CODES } from "../src/index.js";

const read = (path: string) => readFileSync(new URL(path, import.meta.url), "utf8");
/**
 * Backticked snake_case words with at least one underscore (`state_changed`, not `code`), and
 * one-word wire codes (`cancelled`).
 */
const codesIn = (text: string) =>
  [...text.matchAll(/`([a-z]+(?:_[a-z]+)*)`/g)]
    .map((m) => m[1]!)
    .filter((c) => c.includes("_") || isWireErrorCode(c));

describe("docs and the wire error table", () => {
  it("the README's Errors paragraph names every tool code, each a wire code", () => {
    const paragraph = read("../README.md").split("**Errors**")[1]?.split("\n\n")[0] ?? "";
    const named = codesIn(paragraph).filter((c) => !c.endsWith("_CODES"));
    for (const code of TOOL_ERROR_CODES) expect(named, code).toContain(code);
    for (const code of named) expect(isWireErrorCode(code), code).toBe(true);
  });

  it("docs/strict-safe-writes.md's answer table lists only wire codes (beside the statuses)", () => {
    const rows = read("../../../docs/strict-safe-writes.md").match(/^\| `[a-z_]+`.*$/gm) ?? [];
    const codes = rows
      .map((row) => row.match(/^\| `([a-z_]+)`/)?.[1] ?? "")
      .filter((c) => c !== "committed" && c !== "replayed");
    expect(codes.length).toBeGreaterThan(5);
    for (const code of codes) expect(isWireErrorCode(code), code).toBe(true);
  });

  it("the skill names only wire codes as failures", () => {
    const skill = read("../../../skills/siyuan-strict-writes/SKILL.md");
    // "- state_changed: …", "- outcome_unknown / readback_mismatch: …", "… idempotency_conflict: …"
    const named = [...skill.matchAll(/([a-z]+(?:_[a-z]+)+)(?= \/ [a-z_]+:|:)/g)].map((m) => m[1]!);
    expect(named).toEqual(
      expect.arrayContaining(["state_changed", "outcome_unknown", "preflight_lease_invalid"]),
    );
    for (const code of named) expect(isWireErrorCode(code), code).toBe(true);
  });
});
