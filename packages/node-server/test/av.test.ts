/**
 * Databases through the Node HTTP authority (a spawned server, the official MCP client): av.create
 * makes one carrier block and one database, av.render reads it back without creating anything,
 * and a replay of the commit writes nothing.
 */
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { describe, expect, it } from "vitest";
import { errorCode, httpClient, sc, sharedDemoAuthority } from "./harness.js";

const INSERT = "/api/block/insertBlock";
const RENDER = "/api/av/renderAttributeView";
const shared = sharedDemoAuthority();

describe("av through the Node authority", () => {
  it("creates a named database with template columns once, renders it, and replays the receipt", async () => {
    const client = await httpClient(shared.authority.url, { era: "modern" });
    const call = async (args: Record<string, unknown>) =>
      client.callTool({ name: "av", arguments: args });
    const args = {
      action: "create",
      parentID: DEMO_IDS.docPlan,
      name: "Backlog",
      columns: [
        { name: "Done", type: "checkbox" },
        { name: "Link", type: "url" },
      ],
    };
    const inserts = shared.sandbox.control.count(INSERT);
    const pre = sc(await call({ ...args, validateOnly: true }));
    expect(pre["preconditionField"], JSON.stringify(pre)).toBeNull();
    const commitArgs = { ...args, requestId: pre["requestId"] };
    const made = sc(await call(commitArgs));
    expect(made, JSON.stringify(made)).toMatchObject({ status: "committed", name: "Backlog" });
    const avID = String(made["avID"]);
    expect(shared.sandbox.control.avBlocks(avID)).toEqual([made["id"]]);
    expect(shared.sandbox.control.count(INSERT)).toBe(inserts + 1);

    const shown = sc(await call({ action: "render", id: avID, pageSize: 5 }));
    expect(shown).toMatchObject({ id: avID, name: "Backlog", total: 0, pageSize: 5 });
    expect((shown["columns"] as Array<{ name: string }>).map((c) => c.name)).toEqual([
      "Primary Key",
      "Done",
      "Link",
    ]);

    const replay = sc(await call(commitArgs));
    expect(replay).toMatchObject({ replayed: true, executedNow: false, avID });
    expect(shared.sandbox.control.count(INSERT)).toBe(inserts + 1);
    expect(shared.sandbox.control.avLog(avID).filter((e) => e.kind === "created")).toHaveLength(1);

    const renders = shared.sandbox.control.count(RENDER);
    const missing = await call({ action: "render", id: "20260101120000-nosuchv" });
    expect(errorCode(missing)).toBe("not_found");
    expect(shared.sandbox.control.count(RENDER)).toBe(renders + 1);
    expect(shared.sandbox.control.av("20260101120000-nosuchv")).toBeNull();
    await client.close();
  });
});
