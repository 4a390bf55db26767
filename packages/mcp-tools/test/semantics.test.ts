/**
 * The semantics the spec fixes, each against the sandbox kernel over loopback.
 */
import { describe, expect, it } from "vitest";
import { createToolRuntime } from "../src/index.js";
import { errorCode, startHarness, useHarness } from "./harness.js";

const h = useHarness();
let seq = 0;

async function doc(markdown: string) {
  const id = h.sandbox.control.external.createDoc(h.notebook, `/Sem ${++seq}`, markdown);
  await h.client.flush();
  const children = await h.client.block.getChildBlocks({ id });
  return { id, title: `Sem ${seq}`, blocks: children.map((c) => c.id) };
}

describe("block state", () => {
  it("changes the hash for an inline mark change made by someone else (strong → em)", async () => {
    const d = await doc("plain **bold** text");
    const id = d.blocks[0] as string;
    const pre = await h.call("block", { action: "update", id, data: "new", validateOnly: true });
    h.sandbox.control.external.updateBlock(id, "plain *bold* text");
    const r = await h.call(
      "block",
      h.commitArgs({ action: "update", id, data: "new" }, pre.structuredContent),
    );
    expect(errorCode(r)).toBe("state_changed");
  });

  it("does not count a timestamp-only change as a content change", async () => {
    const d = await doc("stable text");
    const id = d.blocks[0] as string;
    const pre = await h.call("block", { action: "update", id, data: "next", validateOnly: true });
    // Same content rewritten by someone else: only `updated` moves.
    h.sandbox.control.external.updateBlock(id, "stable text");
    const r = await h.call(
      "block",
      h.commitArgs({ action: "update", id, data: "next" }, pre.structuredContent),
    );
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    expect(r.structuredContent["status"]).toBe("committed");
  });

  it("answers state_changed for attribute drift, committed for an edit, no_change for an unchanged readback", async () => {
    const d = await doc("attrs here");
    const id = d.blocks[0] as string;
    const set = { action: "set_attrs", id, attrs: { "custom-a": "1" } };
    const first = await h.write("block", set);
    expect(first.commit.structuredContent["status"]).toBe("committed");
    const again = await h.write("block", set);
    expect(again.commit.structuredContent["status"]).toBe("no_change");
    expect(again.commit.structuredContent["previousHash"]).toBe(
      again.commit.structuredContent["resultHash"],
    );

    const pre = await h.call("block", { ...set, attrs: { "custom-a": "2" }, validateOnly: true });
    h.sandbox.control.external.setBlockAttrs(id, { "custom-b": "x" });
    const drift = await h.call(
      "block",
      h.commitArgs({ ...set, attrs: { "custom-a": "2" } }, pre.structuredContent),
    );
    expect(errorCode(drift)).toBe("state_changed");
    expect(h.sandbox.control.attrs(id)?.["custom-a"]).toBe("1");
  });

  it("keeps the block's ID and its user attributes across a content update", async () => {
    const d = await doc("keep me");
    const id = d.blocks[0] as string;
    h.sandbox.control.external.setBlockAttrs(id, {
      "custom-owner": "ann",
      name: "keeper",
      alias: "k1",
    });
    await h.client.flush();
    const { commit } = await h.write("block", {
      action: "update",
      id,
      data: "rewritten **content**",
    });
    expect(commit.structuredContent["status"]).toBe("committed");
    const attrs = h.sandbox.control.attrs(id);
    expect(attrs).toMatchObject({ "custom-owner": "ann", name: "keeper", alias: "k1" });
    expect(h.sandbox.control.kramdown(id)).toContain("rewritten **content**");
  });

  it("reports readback_mismatch when the kernel stores corrupted content", async () => {
    const d = await doc("to corrupt");
    const id = d.blocks[0] as string;
    const args = { action: "update", id, data: "exact words" };
    const pre = await h.call("block", { ...args, validateOnly: true });
    h.sandbox.control.armFault({ endpoint: "/api/block/updateBlock", kind: "corrupt" });
    const r = await h.call("block", h.commitArgs(args, pre.structuredContent));
    h.sandbox.control.clearFaults();
    expect(errorCode(r)).toBe("readback_mismatch");
  });

  it("counts distinct targets: a batch of 11 different blocks reports 11, repeated IDs once", async () => {
    const d = await doc(Array.from({ length: 11 }, (_, i) => `para ${i}`).join("\n\n"));
    expect(d.blocks).toHaveLength(11);
    const items = d.blocks.map((id, i) => ({ id, data: `changed ${i}` }));
    const eleven = await h.write("block", { action: "update", items });
    expect(eleven.commit.structuredContent["targetCount"]).toBe(11);
    const repeated = [...items.slice(0, 2), { id: d.blocks[0], data: "again" }].map((x, i) => ({
      ...x,
      data: `${x.data} r${i}`,
    }));
    const two = await h.write("block", { action: "update", items: repeated });
    expect(two.commit.structuredContent["targetCount"]).toBe(2);
  });

  it("needs a strict update at most 8 kernel calls, 4 of them in the commit", async () => {
    const d = await doc("count me");
    const id = d.blocks[0] as string;
    const args = { action: "update", id, data: "counted" };
    h.client.resetStats();
    const pre = await h.call("block", { ...args, validateOnly: true });
    const preflightCalls = h.client.stats().totalCalls;
    const commit = await h.call("block", h.commitArgs(args, pre.structuredContent));
    expect(commit.structuredContent["status"]).toBe("committed");
    const total = h.client.stats().totalCalls;
    expect(total).toBeLessThanOrEqual(8);
    expect(preflightCalls).toBeLessThanOrEqual(2);
  });
});

describe("additive actions", () => {
  it("need the preflight-issued request ID and no hash", async () => {
    const d = await doc("anchor");
    const args = { action: "append", parentID: d.id, data: "added" };
    const none = await h.call("block", args);
    expect(errorCode(none)).toBe("precondition_required");
    const invented = await h.call("block", { ...args, requestId: "beef" });
    expect(errorCode(invented)).toBe("preflight_lease_invalid");
    const pre = await h.call("block", { ...args, validateOnly: true });
    expect(pre.structuredContent["preconditionField"]).toBeNull();
    const commit = await h.call("block", h.commitArgs(args, pre.structuredContent));
    const created = commit.structuredContent["id"] as string;
    expect(h.sandbox.control.kramdown(created)).toContain("added");
  });
});

describe("fs path readback", () => {
  it("does not prove a deletion when the existence query fails: outcome_unknown", async () => {
    const d = await doc("doomed");
    const list = await h.client.notebook.lsNotebooks();
    const name = list.notebooks.find((n) => n.id === h.notebook)?.name;
    const args = { action: "rm", path: `/${name}/${d.title}` };
    const pre = await h.call("fs", { ...args, validateOnly: true }, true);
    h.sandbox.control.armFault({
      endpoint: "/api/block/checkBlockExist",
      kind: "http5xx",
      status: 503,
      times: "always",
    });
    const r = await h.call("fs", h.commitArgs(args, pre.structuredContent), true);
    h.sandbox.control.clearFaults();
    expect(errorCode(r)).toBe("outcome_unknown");
    expect(await h.client.block.checkBlockExist({ id: d.id })).toBe(false);
  });
});

describe("calls refused before any kernel call", () => {
  it.each([
    ["block", { action: "nope" }, "unknown_action"],
    ["nope", { action: "list" }, "unknown_tool"],
    ["block", { action: "update", id: "not-an-id", data: "x" }, "invalid_arguments"],
    ["block", { action: "update", id: "20260101120000-abc1234" }, "invalid_arguments"],
    [
      "block",
      { action: "set_attrs", id: "20260101120000-abc1234", attrs: {}, extra: 1 },
      "invalid_arguments",
    ],
    ["fs", { action: "read", path: "no-slash" }, "invalid_arguments"],
    ["search", { action: "sql", stmt: "" }, "invalid_arguments"],
  ])("%s %j → %s", async (tool, args, code) => {
    h.sandbox.control.resetLog();
    const r = await h.call(tool, args as Record<string, unknown>);
    expect(errorCode(r)).toBe(code);
    expect((r.structuredContent["error"] as { hint: string }).hint.length).toBeGreaterThan(0);
    expect(h.sandbox.control.log()).toHaveLength(0);
  });

  it("names the tool's actions when the action is unknown", async () => {
    const r = await h.call("block", { action: "nope" });
    expect((r.structuredContent["error"] as { actions: string[] }).actions).toContain("update");
  });
});

describe("confirmation, permissions, external actions, strict mode off", () => {
  it("refuses a dangerous action without confirmation, but lets its preflight through", async () => {
    const d = await doc("dangerous");
    const args = { action: "delete", id: d.blocks[0] };
    const pre = await h.call("block", { ...args, validateOnly: true });
    expect(pre.isError).toBeUndefined();
    const r = await h.call("block", h.commitArgs(args, pre.structuredContent));
    expect(errorCode(r)).toBe("confirmation_required");
    expect(h.sandbox.control.kramdown(d.blocks[0] as string)).not.toBeNull();
  });

  it("fails a preflight with permission_denied before any lease is issued", async () => {
    const d = await doc("guarded");
    h.permissions = { default: "delete", notebooks: { [h.notebook]: "read" } };
    try {
      const leases = h.coordinator.health().leases;
      const r = await h.call("block", {
        action: "update",
        id: d.blocks[0],
        data: "x",
        validateOnly: true,
      });
      expect(errorCode(r)).toBe("permission_denied");
      expect(h.coordinator.health().leases).toBe(leases);
      const read = await h.call("block", { action: "get_kramdown", id: d.blocks[0] });
      expect(read.isError).toBeUndefined();
      h.permissions = { default: "delete", notebooks: { [h.notebook]: "none" } };
      const denied = await h.call("block", { action: "get_kramdown", id: d.blocks[0] });
      expect(errorCode(denied)).toBe("permission_denied");
    } finally {
      h.permissions = { default: "delete" };
    }
  });

  it("refuses validateOnly on an external action and runs a real call once without a guarantee", async () => {
    const pre = await h.call("system", { action: "notify", msg: "hello", validateOnly: true });
    expect(errorCode(pre)).toBe("preflight_unavailable");
    expect(h.sandbox.control.messages().some((m) => m.msg === "hello")).toBe(false);
    const r = await h.call("system", { action: "notify", msg: "hello" });
    expect(r.structuredContent["writeSafetyGuaranteed"]).toBe(false);
    expect(h.sandbox.control.messages().filter((m) => m.msg === "hello")).toHaveLength(1);
  });

  it("with strict mode off writes directly once and says writeSafetyGuaranteed: false", async () => {
    const off = await startHarness({ strict: false });
    try {
      const id = off.sandbox.control.external.createDoc(off.notebook, "/Legacy", "legacy text");
      await off.client.flush();
      const [block] = await off.client.block.getChildBlocks({ id });
      const runtime = createToolRuntime({ client: off.client, coordinator: off.coordinator });
      const r = await runtime.callTool("block", {
        action: "update",
        id: block?.id,
        data: "legacy write",
      });
      expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
      expect(r.structuredContent["writeSafetyGuaranteed"]).toBe(false);
      expect(off.sandbox.control.count("/api/block/updateBlock")).toBe(1);
      const props = Object.keys(runtime.listTools()[0]?.inputSchema["properties"] as object);
      expect(props).not.toContain("validateOnly");
      // A probe's own refusal (before any write) stays that refusal, not outcome_unknown.
      const missing = await runtime.callTool("block", {
        action: "update",
        id: "20200101000000-zzzzzzz",
        data: "x",
      });
      expect(errorCode(missing)).toBe("not_found");
      expect(off.sandbox.control.count("/api/block/updateBlock")).toBe(1);
    } finally {
      await off.stop();
    }
  });

  it("fails strict calls with write_coordinator_unavailable when the runtime has no coordinator", async () => {
    const runtime = createToolRuntime({ client: h.client });
    const r = await runtime.callTool("block", {
      action: "append",
      parentID: "20260101120000-abc1234",
      data: "x",
      validateOnly: true,
    });
    expect(errorCode(r)).toBe("write_coordinator_unavailable");
  });
});

describe("additive preflight", () => {
  it("fails before issuing a request ID when the anchor does not exist", async () => {
    const reservations = h.coordinator.health().reservations;
    const r = await h.call("block", {
      action: "append",
      parentID: "20200101000000-zzzzzzz",
      data: "x",
      validateOnly: true,
    });
    expect(errorCode(r)).toBe("not_found");
    expect(h.coordinator.health().reservations).toBe(reservations);
  });
});

describe("search under restricted permissions", () => {
  it("withholds rows of notebooks the caller may not read", async () => {
    const d = await doc("secretword in a hidden notebook");
    const stmt = `SELECT id, box FROM blocks WHERE content LIKE '%secretword%'`;
    const open = await h.call("search", { action: "sql", stmt });
    expect(open.structuredContent["rowCount"]).toBe(1);
    const found = await h.call("search", { action: "fulltext", query: "secretword" });
    expect(JSON.stringify(found.structuredContent)).toContain(d.blocks[0]);
    h.permissions = { default: "delete", notebooks: { [h.notebook]: "none" } };
    try {
      const hidden = await h.call("search", { action: "sql", stmt });
      expect(hidden.structuredContent["rowCount"]).toBe(0);
      expect(hidden.structuredContent["withheld"]).toBe(1);
      const full = await h.call("search", { action: "fulltext", query: "secretword" });
      expect(JSON.stringify(full.structuredContent)).not.toContain(d.blocks[0]);
      const rows = await h.call("search", { action: "fulltext", query: "secretword", full: true });
      expect(JSON.stringify(rows.structuredContent)).not.toContain(d.blocks[0]);
      const title = await h.call("document", { action: "find", title: d.title });
      expect(JSON.stringify(title.structuredContent)).not.toContain(d.id);
      expect(title.structuredContent["withheld"]).toBeGreaterThanOrEqual(1);
      const inNotebook = await h.call("document", {
        action: "find",
        title: d.title,
        notebook: h.notebook,
      });
      expect(errorCode(inNotebook)).toBe("permission_denied");
      const byPath = await h.call("document", {
        action: "lookup",
        notebook: h.notebook,
        hpath: `/${d.title}`,
      });
      expect(errorCode(byPath)).toBe("permission_denied");
    } finally {
      h.permissions = { default: "delete" };
    }
  });
});
