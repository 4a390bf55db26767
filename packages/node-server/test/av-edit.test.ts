/**
 * Database edits through the Node HTTP authority (a spawned server, the official MCP client): rows
 * added, a two-way relation column between two databases, a relation cell whose back link shows in
 * the other database, and the relation hashes answered as aliases, never as complete digests.
 */
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { describe, expect, it } from "vitest";
import { httpClient, sc, sharedDemoAuthority } from "./harness.js";

const shared = sharedDemoAuthority();
const ALIAS = /^[0-9a-f]{4,}$/;

describe("av edits through the Node authority", () => {
  it("adds rows, a two-way relation and a relation cell; hashes are aliases; a replay writes nothing", async () => {
    const client = await httpClient(shared.authority.url, { era: "modern" });
    const call = async (args: Record<string, unknown>) =>
      sc(await client.callTool({ name: "av", arguments: args }));
    /** Preflight, then commit with the answer's request ID and credential. */
    const write = async (args: Record<string, unknown>) => {
      const pre = await call({ ...args, validateOnly: true });
      expect(pre["error"], JSON.stringify(pre)).toBeUndefined();
      const field = pre["preconditionField"];
      const commitArgs = {
        ...args,
        requestId: pre["requestId"],
        ...(typeof field === "string" ? { [field]: pre[field] } : {}),
      };
      const done = await call(commitArgs);
      expect(done["status"], JSON.stringify(done)).toBe("committed");
      return { done, commitArgs };
    };
    const database = async (name: string) => {
      const { done } = await write({ action: "create", parentID: DEMO_IDS.docPlan, name });
      const avID = String(done["avID"]);
      const rows = (await write({ action: "add_rows", id: avID, detached: ["first", "second"] }))
        .done["rows"] as Array<{ rowID: string }>;
      return { avID, rows: rows.map((r) => r.rowID) };
    };
    const a = await database("Node books");
    const b = await database("Node authors");

    const { done: column } = await write({
      action: "add_column",
      id: a.avID,
      name: "Author",
      type: "relation",
      relation: { avID: b.avID, twoWay: true },
    });
    expect(column["relationPreimageHash"]).toMatch(ALIAS);
    expect(column["relationPostimageHash"]).toMatch(ALIAS);
    expect(JSON.stringify(column)).not.toMatch(/[0-9a-f]{64}/);
    const keyID = String(column["keyID"]);
    const backKeyID = String(column["backKeyID"]);

    const cell = {
      action: "set_cells",
      id: a.avID,
      cells: [{ rowID: a.rows[0], keyID, value: [b.rows[1]] }],
    };
    const { done: set, commitArgs } = await write(cell);
    expect(set["relationValuePreimageHash"]).toMatch(ALIAS);
    expect(set["relationValuePostimageHash"]).toMatch(ALIAS);
    const back = shared.sandbox.control
      .av(b.avID)
      ?.keyValues.find((kv) => kv.key.id === backKeyID)
      ?.values?.find((v) => v.blockID === b.rows[1]);
    expect(back?.["relation"]).toEqual({ blockIDs: [a.rows[0]] });

    const writes = shared.sandbox.control.count("/api/av/batchSetAttributeViewBlockAttrs");
    const replay = await call(commitArgs);
    expect(replay).toMatchObject({ replayed: true, executedNow: false });
    expect(replay["relationValuePreimageHash"]).toBe(set["relationValuePreimageHash"]);
    expect(shared.sandbox.control.count("/api/av/batchSetAttributeViewBlockAttrs")).toBe(writes);
    await client.close();
  });
});
