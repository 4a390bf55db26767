/**
 * Issue 34's av and search actions at the kernel authority (the built plugin in the sandbox's
 * plugin host, goja's language level): av.rename writes once and reads the name back, a replay
 * writes nothing; av.duplicate makes one copy with its block; av.search, av.primary_key_values, av.filter_sort, search.refs and
 * search.asset_content answer as at the Node authority; search.semantic answers unsupported.
 */
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { describe, expect, it } from "vitest";
import { kernelClient, sc, useSandboxWithPlugin } from "./harness.js";

const TX = "/api/transactions";
const box = useSandboxWithPlugin();

describe("issue 34's av and search actions at the kernel authority", () => {
  it("av.rename writes once, the lookups find the database, a replay writes nothing", async () => {
    const client = await kernelClient(box.current);
    const call = async (tool: string, args: Record<string, unknown>) =>
      sc(await client.callTool({ name: tool, arguments: args }));
    const create = { action: "create", previousID: DEMO_IDS.paragraphGoals, name: "Wombat list" };
    const pre = await call("av", { ...create, validateOnly: true });
    const made = await call("av", { ...create, requestId: pre["requestId"] });
    const avID = String(made["avID"]);

    const rename = { action: "rename", id: avID, name: "Wombat ledger" };
    const rpre = await call("av", { ...rename, validateOnly: true });
    expect(rpre["preconditionField"]).toBe("expectedStateHash");
    const commit = {
      ...rename,
      requestId: rpre["requestId"],
      expectedStateHash: rpre["expectedStateHash"],
    };
    const done = await call("av", commit);
    expect(done, JSON.stringify(done)).toMatchObject({
      name: "Wombat ledger",
      status: "committed",
    });
    const writes = box.current.control.count(TX);
    expect(await call("av", commit)).toMatchObject({ replayed: true, executedNow: false });
    expect(box.current.control.count(TX)).toBe(writes);
    expect(box.current.control.av(avID)?.name).toBe("Wombat ledger");

    const found = await call("av", { action: "search", keyword: "wombat LEDGER" });
    expect(found["databases"]).toMatchObject([
      { avID, name: "Wombat ledger", blockID: made["id"] },
    ]);
    const keys = await call("av", { action: "primary_key_values", id: avID });
    expect(keys).toMatchObject({
      name: "Wombat ledger",
      blockIDs: [made["id"]],
      rows: [],
      total: 0,
    });
    const dup = { action: "duplicate", id: avID };
    const dpre = await call("av", { ...dup, validateOnly: true });
    const copy = await call("av", { ...dup, requestId: dpre["requestId"] });
    expect(copy, JSON.stringify(copy)).toMatchObject({ sourceAvID: avID, after: made["id"] });
    expect(box.current.control.avBlocks(String(copy["avID"]))).toEqual([copy["id"]]);
    expect(box.current.control.av(String(copy["avID"]))?.name).toMatch(
      /^Wombat ledger \(Duplicated \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\)$/,
    );
    const fs = await call("av", { action: "filter_sort", id: avID });
    expect(fs).toEqual({ id: avID, filters: [{ combination: "and", filters: [] }], sorts: [] });
    await client.close();
  });

  it("search.refs and search.asset_content answer; search.semantic is unsupported", async () => {
    const client = await kernelClient(box.current);
    const call = async (args: Record<string, unknown>) =>
      sc(await client.callTool({ name: "search", arguments: args }));
    const refs = await call({ action: "refs", keyword: "goals" });
    const ids = (refs["hits"] as Array<{ id: string }>).map((h) => h.id);
    expect(ids).toContain(DEMO_IDS.headingGoals);
    const assets = await call({ action: "asset_content", query: "nothing-like-this" });
    expect(assets).toMatchObject({ hits: [], matched: 0 });
    const semantic = await call({ action: "semantic", query: "goals" });
    expect(semantic["error"]).toMatchObject({ code: "unsupported", reason: "embedding_off" });
    await client.close();
  });
});
