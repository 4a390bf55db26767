/**
 * Database edits at the kernel authority: the built plugin in the sandbox's plugin host (goja's
 * language level), the official MCP client on its route. Rows, cells, a two-way relation column
 * and a rollup; the relation and rollup hashes come back as aliases; a probe of an unknown
 * database creates nothing.
 */
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { describe, expect, it } from "vitest";
import { kernelClient, sc, useSandboxWithPlugin } from "./harness.js";

const box = useSandboxWithPlugin();
const ALIAS = /^[0-9a-f]{4,}$/;

describe("av edits at the kernel authority", () => {
  it("adds rows, sets cells, relates two databases and rolls up; hashes are aliases", async () => {
    const client = await kernelClient(box.current);
    const call = async (args: Record<string, unknown>) =>
      sc(await client.callTool({ name: "av", arguments: args }));
    const write = async (args: Record<string, unknown>) => {
      const pre = await call({ ...args, validateOnly: true });
      expect(pre["error"], JSON.stringify(pre)).toBeUndefined();
      const field = pre["preconditionField"];
      const done = await call({
        ...args,
        requestId: pre["requestId"],
        ...(typeof field === "string" ? { [field]: pre[field] } : {}),
      });
      expect(done["status"], JSON.stringify(done)).toBe("committed");
      return done;
    };
    const database = async (name: string, columns: Array<{ name: string; type: string }>) => {
      const made = await write({ action: "create", parentID: DEMO_IDS.docPlan, name, columns });
      const avID = String(made["avID"]);
      const cols = Object.fromEntries(
        (made["columns"] as Array<{ id: string; name: string }>).map((c) => [c.name, c.id]),
      );
      const added = await write({ action: "add_rows", id: avID, detached: ["x", "y"] });
      return { avID, cols, rows: (added["rows"] as Array<{ rowID: string }>).map((r) => r.rowID) };
    };
    const orders = await database("Orders", [{ name: "Note", type: "text" }]);
    const items = await database("Items", [{ name: "Price", type: "number" }]);
    await write({
      action: "set_cells",
      id: items.avID,
      cells: [
        { rowID: items.rows[0], keyID: items.cols["Price"], value: 2 },
        { rowID: items.rows[1], keyID: items.cols["Price"], value: 5 },
      ],
    });
    const relation = await write({
      action: "add_column",
      id: orders.avID,
      name: "Items",
      type: "relation",
      relation: { avID: items.avID, twoWay: true },
    });
    expect(relation["relationPostimageHash"]).toMatch(ALIAS);
    const relKey = String(relation["keyID"]);
    await write({
      action: "set_cells",
      id: orders.avID,
      cells: [{ rowID: orders.rows[0], keyID: relKey, value: items.rows }],
    });
    const rollup = await write({
      action: "add_column",
      id: orders.avID,
      name: "Total",
      type: "rollup",
      rollup: { relationKeyID: relKey, keyID: items.cols["Price"], calc: "Sum" },
    });
    expect(rollup["rollupPreimageHash"]).toMatch(ALIAS);
    expect(rollup["rollupPostimageHash"]).toMatch(ALIAS);
    expect(JSON.stringify(rollup)).not.toMatch(/[0-9a-f]{64}/);
    const back = box.current.control
      .av(items.avID)
      ?.keyValues.find((kv) => kv.key.id === relation["backKeyID"]);
    expect(back?.values?.map((v) => v.blockID).sort()).toEqual([...items.rows].sort());

    const missing = "20260101120000-nosuchd";
    const refused = await call({
      action: "add_rows",
      id: missing,
      detached: ["z"],
      validateOnly: true,
    });
    expect((refused["error"] as { code: string }).code).toBe("not_found");
    expect(box.current.control.av(missing)).toBeNull();
    await client.close();
  });
});
