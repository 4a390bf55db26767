/**
 * The token budgets of the tool surface (issue 16, "Budgets that must hold"), counted with o200k
 * as the bench counts: `tools/list` with every action enabled at or under 45 tokens per action on
 * average, the server instructions under 1,500 tokens.
 */
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import { ACTIONS, describeTools, SERVER_INSTRUCTIONS } from "../src/index.js";

const tokens = (value: unknown) =>
  encode(typeof value === "string" ? value : JSON.stringify(value)).length;

describe("tool surface budgets", () => {
  it("tools/list stays at or under 45 tokens per action on average", () => {
    const total = describeTools(true).reduce((n, t) => n + tokens(t), 0);
    expect(ACTIONS.length).toBeGreaterThan(40);
    expect(total / ACTIONS.length).toBeLessThanOrEqual(45);
  });

  it("server instructions stay under 1,500 tokens", () => {
    expect(tokens(SERVER_INSTRUCTIONS)).toBeLessThan(1500);
  });
});
