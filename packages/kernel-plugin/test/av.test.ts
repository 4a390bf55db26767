/**
 * Databases at the kernel authority: the built plugin in the sandbox's plugin host (goja's
 * language level), the official MCP client on its route. av.create makes one carrier block and one
 * database; av.render reads it back without creating anything; a replay writes nothing.
 */
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { describe, expect, it } from "vitest";
import { kernelClient, PLUGIN_NAME, sc, useSandboxWithPlugin } from "./harness.js";

const INSERT = "/api/block/insertBlock";
const RENDER = "/api/av/renderAttributeView";
const box = useSandboxWithPlugin();

describe("av at the kernel authority", () => {
  it("creates a named database with template columns once, renders it, and replays the receipt", async () => {
    const client = await kernelClient(box.current);
    const call = async (args: Record<string, unknown>) =>
      sc(await client.callTool({ name: "av", arguments: args }));
    const args = {
      action: "create",
      previousID: DEMO_IDS.paragraphGoals,
      name: "Reading",
      columns: [{ name: "Rating", type: "number" }],
    };
    const pre = await call({ ...args, validateOnly: true });
    expect(pre["error"], JSON.stringify(pre)).toBeUndefined();
    expect(box.current.control.count(INSERT)).toBe(0);
    const commitArgs = { ...args, requestId: pre["requestId"] };
    const made = await call(commitArgs);
    expect(made, JSON.stringify(made)).toMatchObject({ status: "committed", name: "Reading" });
    const avID = String(made["avID"]);
    expect(box.current.control.avBlocks(avID)).toEqual([made["id"]]);
    expect(box.current.control.count(INSERT)).toBe(1);

    const renders = box.current.control.count(RENDER);
    const shown = await call({ action: "render", id: avID });
    expect(shown).toMatchObject({ id: avID, name: "Reading", viewType: "table", total: 0 });
    expect((shown["columns"] as Array<{ name: string }>).map((c) => c.name)).toEqual([
      "Primary Key",
      "Rating",
    ]);
    expect(box.current.control.count(RENDER)).toBe(renders + 1);

    const replay = await call(commitArgs);
    expect(replay).toMatchObject({ replayed: true, executedNow: false, avID });
    expect(box.current.control.count(INSERT)).toBe(1);
    expect(box.current.control.avLog(avID).filter((e) => e.kind === "created")).toHaveLength(1);
    await client.close();
  });

  it("resumes a creation whose column answer was lost, after a plugin reload: one database", async () => {
    const sb = box.current;
    let client = await kernelClient(sb);
    const call = async (args: Record<string, unknown>) =>
      sc(await client.callTool({ name: "av", arguments: args }));
    const args = {
      action: "create",
      parentID: DEMO_IDS.docPlan,
      name: "Resumed",
      columns: [{ name: "Owner", type: "text" }],
    };
    const pre = await call({ ...args, validateOnly: true });
    const commitArgs = { ...args, requestId: pre["requestId"] };
    const inserts = sb.control.count(INSERT);
    sb.control.armFault({ endpoint: "/api/av/addAttributeViewKey", kind: "resetAfterApply" });
    const lost = await call(commitArgs);
    const error = lost["error"] as {
      code: string;
      details: { creation: { reservedIds: string[] } };
    };
    expect(error.code, JSON.stringify(lost)).toBe("outcome_unknown");
    const [blockID, avID] = error.details.creation.reservedIds;
    await client.close();
    await sb.plugins.reload(PLUGIN_NAME);

    client = await kernelClient(sb);
    const resumed = await call(commitArgs);
    expect(resumed, JSON.stringify(resumed)).toMatchObject({
      status: "committed",
      resumed: true,
      id: blockID,
      avID,
      name: "Resumed",
    });
    expect((resumed["columns"] as Array<{ name: string }>).map((c) => c.name)).toEqual([
      "Primary Key",
      "Owner",
    ]);
    expect(sb.control.count(INSERT)).toBe(inserts + 1);
    expect(sb.control.avBlocks(String(avID))).toEqual([blockID]);
    expect(sb.control.avLog(String(avID)).filter((e) => e.kind === "created")).toHaveLength(1);
    await client.close();
  });

  it("renders an unknown database as not_found without creating it", async () => {
    const client = await kernelClient(box.current);
    const id = "20260101120000-nosuchv";
    const r = sc(await client.callTool({ name: "av", arguments: { action: "render", id } }));
    expect((r["error"] as { code: string }).code).toBe("not_found");
    expect(box.current.control.av(id)).toBeNull();
    await client.close();
  });
});
