/**
 * Action aliases (`document.set_attr` for `document.set_attrs`) resolve to the canonical action
 * before anything else, the lease scope included: a lease taken under one spelling commits under
 * the other, and a replay under either spelling is the same request. An unknown spelling fails
 * before any lease or request ID is issued. Also: one attribute-name rule on both tools.
 */
import { describe, expect, it } from "vitest";
import { describeTools } from "../src/index.js";
import { errorCode, useHarness } from "./harness.js";

const h = useHarness();

let docs = 0;
async function freshDoc(): Promise<string> {
  docs += 1;
  const id = h.sandbox.control.external.createDoc(h.notebook, `/alias-${docs}`, "seed");
  await h.client.flush();
  return id;
}

describe("document.set_attr is an alias of document.set_attrs", () => {
  for (const [first, second] of [
    ["set_attr", "set_attrs"],
    ["set_attrs", "set_attr"],
  ] as const) {
    it(`a preflight under ${first} commits under ${second}, and replays under either`, async () => {
      const doc = await freshDoc();
      const args = { id: doc, attrs: { "custom-kind": `via-${first}` } };
      const writes = h.writes("/api/attr/setBlockAttrs");
      const pre = await h.call("document", { action: first, ...args, validateOnly: true });
      expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeUndefined();
      expect(pre.structuredContent["preconditionField"]).toBe("expectedStateHash");

      const commit = await h.call(
        "document",
        h.commitArgs({ action: second, ...args }, pre.structuredContent),
      );
      expect(commit.isError, JSON.stringify(commit.structuredContent)).toBeUndefined();
      expect(commit.structuredContent["status"]).toBe("committed");
      expect(h.sandbox.control.attrs(doc)?.["custom-kind"]).toBe(`via-${first}`);
      expect(h.writes("/api/attr/setBlockAttrs")).toBe(writes + 1);

      for (const spelling of [first, second]) {
        const replay = await h.call(
          "document",
          h.commitArgs({ action: spelling, ...args }, pre.structuredContent),
        );
        expect(replay.structuredContent["replayed"], spelling).toBe(true);
        expect(replay.structuredContent["executedNow"], spelling).toBe(false);
      }
      expect(h.writes("/api/attr/setBlockAttrs")).toBe(writes + 1);
    });
  }

  it("a request ID issued under one spelling is refused for another action", async () => {
    const doc = await freshDoc();
    const pre = await h.call("document", {
      action: "set_attr",
      id: doc,
      attrs: { "custom-kind": "x" },
      validateOnly: true,
    });
    const other = await h.call(
      "document",
      h.commitArgs({ action: "rename", id: doc, title: "Other" }, pre.structuredContent),
    );
    expect(errorCode(other)).toBe("idempotency_conflict");
  });

  it("an unknown spelling fails before any lease or request ID, and writes nothing", async () => {
    const doc = await freshDoc();
    const before = h.coordinator.health();
    h.sandbox.control.resetLog();
    for (const action of ["set_atr", "setAttrs", "SET_ATTRS", "set_attrs ", ""]) {
      const r = await h.call("document", {
        action,
        id: doc,
        attrs: { "custom-kind": "x" },
        validateOnly: true,
      });
      expect(errorCode(r), action).toBe("unknown_action");
      const error = r.structuredContent["error"] as { actions: string[] };
      expect(error.actions).toContain("set_attrs");
      expect(error.actions).not.toContain("set_attr");
    }
    const after = h.coordinator.health();
    expect(after.leases).toBe(before.leases);
    expect(after.reservations).toBe(before.reservations);
    expect(h.sandbox.control.log().length).toBe(0);
  });

  it("advertises only the canonical name", () => {
    const document = describeTools(true).find((t) => t.name === "document");
    const properties = (document?.inputSchema["properties"] ?? {}) as Record<
      string,
      { enum?: string[] }
    >;
    const enumOf = properties["action"]?.enum;
    expect(enumOf).toContain("set_attrs");
    expect(enumOf).not.toContain("set_attr");
    expect(document?.description).toMatch(/set_attrs\(id,attrs\)/);
    expect(document?.description).not.toMatch(/set_attr\(/);
  });
});

describe("one attribute-name rule for block.set_attrs and document.set_attrs", () => {
  const refused = [
    "id",
    "updated",
    "data-task",
    "title",
    "Type",
    "1custom",
    "custom-1x",
    "custom-",
    "has space",
    "under_score",
  ];
  for (const tool of ["block", "document"] as const) {
    it(`${tool}: refuses kernel-managed and malformed names at preflight, before any lease`, async () => {
      const doc = await freshDoc();
      const reservations = h.coordinator.health().reservations;
      for (const name of refused) {
        const r = await h.call(tool, {
          action: "set_attrs",
          id: doc,
          attrs: { [name]: "v" },
          validateOnly: true,
        });
        expect(errorCode(r), `${tool} ${name}`).toBe("invalid_arguments");
        expect(String((r.structuredContent["error"] as { message: string }).message)).toContain(
          name,
        );
      }
      expect(h.coordinator.health().reservations).toBe(reservations);
    });

    it(`${tool}: accepts built-in and custom names, uppercase folded as the kernel does`, async () => {
      const doc = await freshDoc();
      const { commit } = await h.write(tool, {
        action: "set_attrs",
        id: doc,
        attrs: { "custom-owner": "ann", alias: "a1", "Custom-Case": "x" },
      });
      expect(commit.isError, JSON.stringify(commit.structuredContent)).toBeUndefined();
      expect(h.sandbox.control.attrs(doc)).toMatchObject({
        "custom-owner": "ann",
        alias: "a1",
        "custom-case": "x",
      });
    });
  }
});
