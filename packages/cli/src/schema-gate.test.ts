import { describe, expect, it } from "vitest";
import { schemaAccepts } from "./schema-gate.js";

const ID = { type: "string", pattern: "^\\d{14}-[a-z0-9]{7}$" };
const TREE = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    id: ID,
    depth: { type: "integer", minimum: 1, maximum: 10, default: 3 },
    names: { type: "array", items: { type: "string", minLength: 1, maxLength: 3 } },
    mode: { enum: ["a", "b"] },
  },
  required: ["id"],
  additionalProperties: false,
};

describe("schemaAccepts", () => {
  it("accepts what meets every keyword", () => {
    expect(schemaAccepts(TREE, { id: "20260101120000-abc1234" })).toBe(true);
    expect(
      schemaAccepts(TREE, { id: "20260101120000-abc1234", depth: 10, names: ["ab"], mode: "b" }),
    ).toBe(true);
  });

  it("refuses a missing required, a wrong type, a broken pattern, bound, length or enum, an unknown key", () => {
    const ok = { id: "20260101120000-abc1234" };
    for (const bad of [
      {},
      { id: 7 },
      { id: "nope" },
      { ...ok, depth: 11 },
      { ...ok, depth: 0 },
      { ...ok, depth: 2.5 },
      { ...ok, names: [""] },
      { ...ok, names: ["abcd"] },
      { ...ok, names: "ab" },
      { ...ok, mode: "c" },
      { ...ok, other: 1 },
    ]) {
      expect(schemaAccepts(TREE, bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it("refuses whatever a keyword it does not know would decide", () => {
    expect(schemaAccepts({ type: "object", anyOf: [] }, {})).toBe(false);
    expect(schemaAccepts({ type: "string", format: "email" }, "x")).toBe(false);
    expect(schemaAccepts({ type: "object", additionalProperties: true }, {})).toBe(false);
  });
});
