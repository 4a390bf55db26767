/**
 * Read budgets (spec, "Read budgets"): an owned ordinary read runs under at most 128 kernel calls
 * (each retry counts) and 8 MiB of answers; overflow answers `read_budget_exceeded` even when the
 * handler caught the client's error; writes, their probes and readbacks are never charged. Against
 * the sandbox kernel over loopback, at the spec's limits and at small injected ones.
 */
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { describe, expect, it } from "vitest";
import {
  createToolRuntime,
  READ_BUDGET_LIMITS,
  READ_BUDGET_MAX_CALLS,
  READ_BUDGET_MAX_DECODED_BYTES,
  type ReadBudgetLimits,
  type ToolRuntime,
} from "../src/index.js";
import { errorCode, useHarness } from "./harness.js";

const h = useHarness();

function runtimeWith(readBudget: ReadBudgetLimits): ToolRuntime {
  return createToolRuntime({
    client: h.client,
    coordinator: h.coordinator,
    config: { loadPermissions: () => h.permissions, readBudget },
  });
}

const error = (r: { structuredContent: Record<string, unknown> }) =>
  r.structuredContent["error"] as Record<string, unknown>;

/** Kernel requests of every endpoint since `before` (a `counts()` snapshot). */
function requestsSince(before: Record<string, number>): number {
  const now = h.sandbox.control.counts();
  return Object.entries(now).reduce((n, [path, c]) => n + c - (before[path] ?? 0), 0);
}

describe("read budgets at the spec's limits", () => {
  it("answers read_budget_exceeded for a tree listing that needs more than 128 kernel calls, having made at most 128", async () => {
    const notebook = (await h.client.notebook.createNotebook({ name: "Budget tree" })).id;
    // 130 documents with one child each: a depth-2 listing needs 1 + 130 listings.
    for (let i = 0; i < 130; i++) {
      const parent = await h.client.filetree.createDocWithMd({
        notebook,
        path: `/Folder ${i}`,
        markdown: "",
      });
      await h.client.filetree.createDocWithMd({
        notebook,
        path: `/Folder ${i}/Child`,
        markdown: "",
        parentID: parent,
      });
    }
    const before = h.sandbox.control.counts();
    const r = await h.call("document", { action: "list_tree", notebook, depth: 2 });
    expect(errorCode(r), JSON.stringify(r.structuredContent).slice(0, 300)).toBe(
      "read_budget_exceeded",
    );
    expect(error(r)).toMatchObject({ limit: "calls", calls: READ_BUDGET_MAX_CALLS });
    expect(error(r)["hint"]).toMatch(/narrow it/);
    expect(requestsSince(before)).toBeLessThanOrEqual(READ_BUDGET_MAX_CALLS);
    // One level needs one listing: within budget.
    const shallow = await h.call("document", { action: "list_tree", notebook, depth: 1 });
    expect(errorCode(shallow)).toBeUndefined();
  });

  it("are the spec's numbers: 128 calls and 8 MiB of answers per read", () => {
    // The byte limit is exercised at a small injected size below: an 8 MiB document takes the
    // sandbox about 20 s to create, for the same accounting code with another number.
    expect(READ_BUDGET_LIMITS).toEqual({ maxCalls: 128, maxDecodedBytes: 8 * 1024 * 1024 });
    expect(READ_BUDGET_MAX_DECODED_BYTES).toBe(8_388_608);
  });
});

describe("read budgets at small limits", () => {
  it("counts a retry as a call: a read whose first answer is a 503 is not retried past the budget", async () => {
    const runtime = runtimeWith({ maxCalls: 1, maxDecodedBytes: READ_BUDGET_MAX_DECODED_BYTES });
    const endpoint = "/api/system/version";
    const before = h.sandbox.control.count(endpoint);
    h.sandbox.control.armFault({ endpoint, kind: "http5xx", status: 503 });
    const r = await runtime.callTool("system", { action: "version" });
    h.sandbox.control.clearFaults();
    expect(errorCode(r)).toBe("read_budget_exceeded");
    expect(error(r)).toMatchObject({ limit: "calls", calls: 1 });
    expect(h.sandbox.control.count(endpoint)).toBe(before + 1);
    // What a shell's /health reports: reads under a budget, and which limit stopped them.
    expect(runtime.readBudgetCounts()).toEqual({ reads: 1, exceededCalls: 1, exceededBytes: 0 });
    // With room for the retry the same read succeeds after the 503.
    h.sandbox.control.armFault({ endpoint, kind: "http5xx", status: 503 });
    const retried = await runtimeWith({
      maxCalls: 2,
      maxDecodedBytes: READ_BUDGET_MAX_DECODED_BYTES,
    }).callTool("system", { action: "version" });
    h.sandbox.control.clearFaults();
    expect(errorCode(retried)).toBeUndefined();
    expect(h.sandbox.control.count(endpoint)).toBe(before + 3);
  });

  it("answers read_budget_exceeded even when the handler caught the client's error", async () => {
    // system.health catches a failing kernel call and reports the kernel "down".
    const runtime = runtimeWith({ maxCalls: 0, maxDecodedBytes: READ_BUDGET_MAX_DECODED_BYTES });
    const r = await runtime.callTool("system", { action: "health" });
    expect(errorCode(r)).toBe("read_budget_exceeded");
    const normal = await h.call("system", { action: "health" });
    expect(normal.structuredContent["kernel"]).toBe("up");
  });

  it("bounds the bytes of answers, and never charges a strict write, its probe or its readback", async () => {
    const runtime = runtimeWith({ maxCalls: 1, maxDecodedBytes: 64 });
    const read = await runtime.callTool("block", {
      action: "get_kramdown",
      id: DEMO_IDS.paragraphGoals,
    });
    expect(errorCode(read)).toBe("read_budget_exceeded");
    expect(error(read)).toMatchObject({ limit: "bytes", calls: 1 });
    const args = {
      action: "update",
      id: DEMO_IDS.paragraphGoals,
      dataType: "markdown",
      data: "Goals: written under a tiny read budget",
    };
    const pre = await runtime.callTool("block", { ...args, validateOnly: true });
    expect(errorCode(pre)).toBeUndefined();
    const commit = await runtime.callTool("block", h.commitArgs(args, pre.structuredContent));
    expect(commit.structuredContent["status"]).toBe("committed");
  });
});
