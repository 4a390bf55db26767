/**
 * `parseCall`: the one parse of a call — its class, its refusals as values, and a paged read's page
 * size taken from the call's settings after the parse without parsing again.
 */
import { describe, expect, it } from "vitest";
import { ACTIONS } from "./catalog.js";
import { parseCall } from "./parsed-call.js";
import { OPTION_LIMITS } from "./settings.js";

const ID = "20260101120000-abc1234";

describe("parseCall", () => {
  it("classifies a valid call from its parsed arguments", () => {
    const preflight = parseCall("block", { action: "delete", id: ID, validateOnly: true });
    expect(preflight).toMatchObject({
      kind: "mutation",
      tool: "block",
      action: "delete",
      dangerous: true,
      validateOnly: true,
      policy: { kind: "mutation", precondition: "state" },
      safety: { validateOnly: true },
    });
    // An alias resolves to its canonical action here, for every step after.
    const alias = parseCall("document", { action: "set_attr", id: ID, attrs: { "custom-a": "1" } });
    expect(alias).toMatchObject({ kind: "mutation", action: "set_attrs", dangerous: false });
  });

  it("answers a refusal as a value, with the action when the call names a known one", () => {
    expect(parseCall("nope", { action: "x" })).toMatchObject({
      kind: "invalid",
      dangerous: false,
      validateOnly: false,
      error: { code: "unknown_tool" },
    });
    expect(parseCall("block", { action: "nope" })).toMatchObject({
      kind: "invalid",
      error: { code: "unknown_action" },
    });
    const bad = parseCall("block", { action: "delete", id: ID, validateOnly: "yes" });
    expect(bad).toMatchObject({ kind: "invalid", action: "delete" });
    expect(bad.kind === "invalid" && bad.error.code).toBe("invalid_arguments");
  });

  it("binds a paged read to its settings' page size only when the call gave none", () => {
    const open = parseCall("document", { action: "outline", id: ID });
    const given = parseCall("document", { action: "outline", id: ID, pageSize: 5 });
    if (open.kind === "invalid" || given.kind === "invalid") throw new Error("parse failed");
    expect(open.pageSizeDefaulted).toBe(true);
    expect(open.boundUnder(undefined).args).toMatchObject({ pageSize: 16 });
    expect(open.boundUnder(3).args).toMatchObject({ id: ID, page: 1, pageSize: 3 });
    expect(given.pageSizeDefaulted).toBe(false);
    expect(given.boundUnder(3).args).toMatchObject({ pageSize: 5 });
  });

  it("gives every paged action the settings' page size limits, so a settings value needs no parse", () => {
    const paged = ACTIONS.filter((a) => "pageSize" in a.args.shape);
    expect(paged.length).toBeGreaterThan(0);
    const { min, max, default: fallback } = OPTION_LIMITS.pageSize;
    for (const a of paged) {
      const schema = a.args.shape["pageSize"];
      if (schema === undefined) throw new Error(`${a.tool}.${a.action} has no pageSize`);
      const accepts = (n: unknown) => schema.safeParse(n).success;
      expect([
        accepts(min),
        accepts(max),
        accepts(min - 1),
        accepts(max + 1),
        accepts(1.5),
      ]).toEqual([true, true, false, false, false]);
      expect(schema.parse(undefined)).toBe(fallback);
    }
  });
});
