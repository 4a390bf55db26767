/**
 * av mutations against the sandbox kernel: add_rows (additive), remove_rows and set_cells
 * (manifest), add_column and remove_column (state), including two-way relations, whose state
 * covers both databases, and rollups. Relation and rollup pre/postimage digests come back as
 * aliases from the shared pool; a readback that cannot prove the change answers honestly.
 */
import { describe, expect, it } from "vitest";
import type { ToolResult } from "../src/index.js";
import type { AvFile } from "../src/kernel.js";
import { avDigest, cellState, keyState, relationSide, rowState } from "../src/state/av-state.js";
import { errorCode, useHarness } from "./harness.js";

const ADD_BLOCKS = "/api/av/addAttributeViewBlocks";
const BATCH_SET = "/api/av/batchSetAttributeViewBlockAttrs";
const ALIAS = /^[0-9a-f]{4,}$/;

type Json = Record<string, unknown>;

function ok(r: ToolResult): Record<string, unknown> {
  expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy();
  return r.structuredContent;
}

/** Every string in an answer that looks like a complete digest (40+ hex digits). */
function fullDigests(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string" && /[0-9a-f]{40,}/.test(value)) out.push(value);
  else if (Array.isArray(value)) for (const v of value) fullDigests(v, out);
  else if (typeof value === "object" && value !== null) {
    for (const v of Object.values(value)) fullDigests(v, out);
  }
  return out;
}

describe("av mutations", () => {
  const h = useHarness();
  let docs = 0;

  /** A new database (av.create) with a text and a number column and two detached rows. */
  async function database(name: string) {
    const doc = h.sandbox.control.external.createDoc(h.notebook, `/AV edit ${++docs}`, "intro");
    await h.sandbox.control.flush();
    const made = ok(
      (
        await h.write("av", {
          action: "create",
          parentID: doc,
          name,
          columns: [
            { name: "Note", type: "text" },
            { name: "Pages", type: "number" },
            { name: "Done", type: "checkbox" },
            { name: "Tag", type: "select" },
          ],
        })
      ).commit,
    );
    const avID = String(made["avID"]);
    const cols = Object.fromEntries(
      (made["columns"] as Array<{ id: string; name: string }>).map((c) => [c.name, c.id]),
    );
    const added = ok(
      (await h.write("av", { action: "add_rows", id: avID, detached: ["one", "two"] })).commit,
    );
    const rows = (added["rows"] as Array<{ rowID: string }>).map((r) => r.rowID);
    return { doc, avID, cols, rows };
  }

  const file = async (id: string) =>
    (await h.client.av.getAttributeView({ id })).av as AvFile | null;

  it("add_rows binds a block and adds a detached row; replay writes nothing; a probe creates no database", async () => {
    const { doc, avID } = await database("Rows");
    const block = h.sandbox.control.external.appendBlock(doc, "a paragraph row")[0] as string;
    await h.sandbox.control.flush();
    const args = { action: "add_rows", id: avID, blockIDs: [block], detached: ["free"] };
    const { preflight, commit } = await h.write("av", args);
    expect(preflight["preconditionField"]).toBeNull();
    const receipt = ok(commit);
    expect(receipt).toMatchObject({ status: "committed", rowCount: 2 });
    const rows = receipt["rows"] as Array<{ rowID: string; blockID?: string }>;
    expect(rows[0]?.blockID).toBe(block);
    const render = ok(await h.call("av", { action: "render", id: avID }));
    const shown = (render["rows"] as Array<{ id: string; values: unknown[] }>).map((r) => r.id);
    expect(shown).toEqual(expect.arrayContaining(rows.map((r) => r.rowID)));
    expect(h.sandbox.control.attrs(block)?.["custom-avs"]).toContain(avID);

    const writes = h.writes(ADD_BLOCKS);
    const replay = ok(await h.call("av", h.commitArgs(args, preflight)));
    expect(replay).toMatchObject({ replayed: true, executedNow: false });
    expect(h.writes(ADD_BLOCKS)).toBe(writes);

    expect(
      errorCode(await h.call("av", { ...args, detached: undefined, validateOnly: true })),
    ).toBe("already_exists");
    const missing = "20260101120000-nosuchd";
    const created = h.sandbox.control.avLog().length;
    const r = await h.call("av", {
      action: "add_rows",
      id: missing,
      detached: ["x"],
      validateOnly: true,
    });
    expect(errorCode(r)).toBe("not_found");
    expect(h.sandbox.control.av(missing)).toBeNull();
    expect(h.sandbox.control.avLog().length).toBe(created);
  });

  it("set_cells sets typed plain values under a manifest precondition and replays", async () => {
    const { avID, cols, rows } = await database("Cells");
    const cells = [
      { rowID: rows[0], keyID: cols["Note"], value: "hello" },
      { rowID: rows[0], keyID: cols["Pages"], value: 42 },
      { rowID: rows[1], keyID: cols["Done"], value: true },
      { rowID: rows[1], keyID: cols["Tag"], value: "red" },
    ];
    const args = { action: "set_cells", id: avID, cells };
    const { preflight, commit } = await h.write("av", args);
    expect(preflight["preconditionField"]).toBe("expectedManifestHash");
    expect(ok(commit)).toMatchObject({ status: "committed", cellCount: 4 });
    const render = ok(await h.call("av", { action: "render", id: avID }));
    const byId = new Map(
      (render["rows"] as Array<{ id: string; values: unknown[] }>).map((r) => [r.id, r.values]),
    );
    expect(byId.get(rows[0] as string)).toEqual(["one", "hello", 42, false, []]);
    expect(byId.get(rows[1] as string)).toEqual(["two", null, null, true, ["red"]]);
    const again = ok(await h.call("av", h.commitArgs(args, preflight)));
    expect(again).toMatchObject({ replayed: true });

    // The same values again: the kernel shows no change.
    const same = ok((await h.write("av", args)).commit);
    expect(same["status"]).toBe("no_change");

    const bad = await h.call("av", {
      action: "set_cells",
      id: avID,
      cells: [{ rowID: rows[0], keyID: cols["Pages"], value: "many" }],
      validateOnly: true,
    });
    expect(errorCode(bad)).toBe("invalid_arguments");
    const noRow = await h.call("av", {
      action: "set_cells",
      id: avID,
      cells: [{ rowID: "20260101120000-norow00", keyID: cols["Note"], value: "x" }],
      validateOnly: true,
    });
    expect(errorCode(noRow)).toBe("not_found");
  });

  it("set_cells answers state_changed when a named cell changed after preflight", async () => {
    const { avID, cols, rows } = await database("Drift");
    const args = {
      action: "set_cells",
      id: avID,
      cells: [{ rowID: rows[0], keyID: cols["Note"], value: "mine" }],
    };
    const pre = ok(await h.call("av", { ...args, validateOnly: true }));
    await h.client.av.setAttributeViewBlockAttr({
      avID,
      keyID: cols["Note"] as string,
      itemID: rows[0] as string,
      value: { text: { content: "theirs" } },
    });
    const writes = h.writes(BATCH_SET);
    expect(errorCode(await h.call("av", h.commitArgs(args, pre)))).toBe("state_changed");
    expect(h.writes(BATCH_SET)).toBe(writes);
  });

  it("remove_rows needs confirmation, removes the rows and keeps a bound block", async () => {
    const { doc, avID, rows } = await database("Remove");
    const block = h.sandbox.control.external.appendBlock(doc, "bound row")[0] as string;
    await h.sandbox.control.flush();
    const bound = ok(
      (await h.write("av", { action: "add_rows", id: avID, blockIDs: [block] })).commit,
    );
    const boundRow = (bound["rows"] as Array<{ rowID: string }>)[0]?.rowID as string;
    const args = { action: "remove_rows", id: avID, rowIDs: [rows[0], boundRow] };
    const pre = ok(await h.call("av", { ...args, validateOnly: true }));
    expect(pre).toMatchObject({
      preconditionField: "expectedManifestHash",
      confirmationRequired: true,
    });
    expect(errorCode(await h.call("av", h.commitArgs(args, pre)))).toBe("confirmation_required");
    const done = ok(await h.call("av", h.commitArgs(args, pre), true));
    expect(done).toMatchObject({ status: "committed", removed: 2 });
    const left = ok(await h.call("av", { action: "render", id: avID }));
    expect((left["rows"] as Array<{ id: string }>).map((r) => r.id)).toEqual([rows[1]]);
    expect(await h.client.block.checkBlockExist({ id: block })).toBe(true);
  });

  it("a two-way relation covers both databases; its hashes are aliases of the pool", async () => {
    const a = await database("Books");
    const b = await database("Authors");
    const before = await file(b.avID);
    const args = {
      action: "add_column",
      id: a.avID,
      name: "Author",
      type: "relation",
      relation: { avID: b.avID, twoWay: true, backName: "Books" },
    };
    const { preflight, commit } = await h.write("av", args);
    expect(preflight["preconditionField"]).toBe("expectedStateHash");
    const receipt = ok(commit);
    expect(fullDigests(receipt)).toEqual([]);
    const keyID = String(receipt["keyID"]);
    const backKeyID = String(receipt["backKeyID"]);
    expect(receipt["relationPreimageHash"]).toMatch(ALIAS);
    expect(receipt["relationPostimageHash"]).toMatch(ALIAS);
    expect(h.coordinator.aliases.resolve(String(receipt["relationPreimageHash"]))).toBe(
      avDigest(relationSide(before, "")),
    );
    const back = (await file(b.avID))?.keyValues?.find(
      (kv) => (kv as { key: { id: string } }).key.id === backKeyID,
    ) as { key: { name: string; relation: unknown } };
    expect(back.key).toMatchObject({
      name: "Books",
      relation: { avID: a.avID, isTwoWay: true, backKeyID: keyID },
    });

    // A relation cell: the back link appears in the other database.
    const cell = {
      action: "set_cells",
      id: a.avID,
      cells: [{ rowID: a.rows[0], keyID, value: [b.rows[1]] }],
    };
    const set = ok((await h.write("av", cell)).commit);
    expect(set["relationValuePreimageHash"]).toMatch(ALIAS);
    expect(set["relationValuePostimageHash"]).toMatch(ALIAS);
    expect(set["relationValuePreimageHash"]).not.toBe(set["relationValuePostimageHash"]);
    expect(fullDigests(set)).toEqual([]);
    const render = ok(await h.call("av", { action: "render", id: b.avID }));
    const cols = (render["columns"] as Array<{ id: string }>).map((c) => c.id);
    const bRow = (render["rows"] as Array<{ id: string; values: unknown[] }>).find(
      (r) => r.id === b.rows[1],
    );
    expect(bRow?.values[cols.indexOf(backKeyID)]).toEqual([a.rows[0]]);

    // A change in the OTHER database after preflight: state_changed.
    const relate = { ...cell, cells: [{ rowID: a.rows[1], keyID, value: [b.rows[0]] }] };
    const pre = ok(await h.call("av", { ...relate, validateOnly: true }));
    // Someone relates from B's side: only B's back-key values move.
    await h.client.av.setAttributeViewBlockAttr({
      avID: b.avID,
      keyID: backKeyID,
      itemID: b.rows[0] as string,
      value: { relation: { blockIDs: [a.rows[0]] } },
    });
    expect(errorCode(await h.call("av", h.commitArgs(relate, pre)))).toBe("state_changed");

    // Removing the relation column leaves the back key one-way.
    const remove = { action: "remove_column", id: a.avID, keyID };
    const rpre = ok(await h.call("av", { ...remove, validateOnly: true }));
    expect(rpre["confirmationRequired"]).toBe(true);
    const removed = ok(await h.call("av", h.commitArgs(remove, rpre), true));
    expect(removed["relationPreimageHash"]).toMatch(ALIAS);
    expect(removed["relationPostimageHash"]).toMatch(ALIAS);
    const after = (await file(b.avID))?.keyValues?.find(
      (kv) => (kv as { key: { id: string } }).key.id === backKeyID,
    ) as { key: { relation: { isTwoWay: boolean } } };
    expect(after.key.relation.isTwoWay).toBe(false);
  });

  it("add_column answers state_changed when the destination database changed after preflight", async () => {
    const a = await database("Left");
    const b = await database("Right");
    const args = {
      action: "add_column",
      id: a.avID,
      name: "Link",
      type: "relation",
      relation: { avID: b.avID, twoWay: true },
    };
    const pre = ok(await h.call("av", { ...args, validateOnly: true }));
    await h.client.av.addAttributeViewKey({
      avID: b.avID,
      keyID: "20260101120000-extkey2",
      keyName: "Late",
      keyType: "text",
      keyIcon: "",
      previousKeyID: "",
    });
    expect(errorCode(await h.call("av", h.commitArgs(args, pre)))).toBe("state_changed");
  });

  it("add_column sends one transaction; an op the kernel fails or alters is a readback_mismatch, never nothing written", async () => {
    const a = await database("Half");
    const b = await database("Whole");
    const args = {
      action: "add_column",
      id: a.avID,
      name: "Link",
      type: "relation",
      relation: { avID: b.avID, twoWay: true },
    };
    const bKeys = (await file(b.avID))?.keyValues;
    const names = async (id: string) =>
      ((await file(id))?.keyValues ?? []).map((kv) => (kv as { key: { name: string } }).key.name);
    const sent: string[][] = [];
    /** Commits `args` with `field` of the transaction's op `at` set to `value` on its way. */
    async function commitBreaking(at: number, field: string, value = "20200101000000-avnone1") {
      const pre = ok(await h.call("av", { ...args, validateOnly: true }));
      const fault = h.sandbox.control.armFault({
        endpoint: "/api/transactions",
        kind: "corrupt",
        corrupt: (body) => {
          const copy = structuredClone(body) as { transactions: Array<{ doOperations: Json[] }> };
          const ops = copy.transactions[0]?.doOperations ?? [];
          sent.push(ops.map((o) => String(o["action"])));
          (ops[at] as Json)[field] = value;
          return copy;
        },
      });
      const r = await h.call("av", h.commitArgs(args, pre));
      h.sandbox.control.disarmFault(fault);
      expect(errorCode(r)).toBe("readback_mismatch");
      expect(r.structuredContent["error"]).toMatchObject({ writeAttempted: true });
      return String(
        ((r.structuredContent["error"] as Json)["details"] as Json | undefined)?.["reason"],
      );
    }

    // The second op (the relation) fails: the column the first op wrote stays, unconfigured.
    expect(await commitBreaking(1, "id")).toMatch(/was added, but its relation .* not configured/);
    expect(sent[0]).toEqual(["addAttrViewCol", "updateAttrViewColRelation"]);
    const half = (await file(a.avID))?.keyValues?.find(
      (kv) => (kv as { key: { name: string } }).key.name === "Link",
    ) as { key: { relation?: unknown } } | undefined;
    expect(half?.key.relation ?? null).toBeNull();
    expect((await file(b.avID))?.keyValues).toEqual(bKeys);

    // The first op fails: the kernel stops the transaction, so nothing more is written.
    const before = await names(a.avID);
    expect(await commitBreaking(0, "avID")).toMatch(/is missing after its insert/);
    expect(await names(a.avID)).toEqual(before);
    expect((await file(b.avID))?.keyValues).toEqual(bKeys);

    // Both ops apply, but the back key is not named as asked (the kernel's default here).
    expect(await commitBreaking(1, "name", "Elsewhere")).toMatch(
      /back key \S+ is not named Half Link/,
    );
    expect(await names(b.avID)).toContain("Elsewhere");
  });

  it("a rollup column reads through a relation; its hashes are aliases", async () => {
    const a = await database("Orders");
    const b = await database("Items");
    await h.write("av", {
      action: "set_cells",
      id: b.avID,
      cells: [
        { rowID: b.rows[0], keyID: b.cols["Pages"], value: 3 },
        { rowID: b.rows[1], keyID: b.cols["Pages"], value: 4 },
      ],
    });
    const rel = ok(
      (
        await h.write("av", {
          action: "add_column",
          id: a.avID,
          name: "Items",
          type: "relation",
          relation: { avID: b.avID },
        })
      ).commit,
    );
    const relKey = String(rel["keyID"]);
    expect(rel["backKeyID"]).toBeUndefined();
    await h.write("av", {
      action: "set_cells",
      id: a.avID,
      cells: [{ rowID: a.rows[0], keyID: relKey, value: [b.rows[0], b.rows[1]] }],
    });
    const args = {
      action: "add_column",
      id: a.avID,
      name: "Total",
      type: "rollup",
      rollup: { relationKeyID: relKey, keyID: b.cols["Pages"], calc: "Sum" },
    };
    const receipt = ok((await h.write("av", args)).commit);
    expect(receipt["rollupPreimageHash"]).toMatch(ALIAS);
    expect(receipt["rollupPostimageHash"]).toMatch(ALIAS);
    expect(fullDigests(receipt)).toEqual([]);
    const keys = ok(await h.call("av", { action: "keys", id: a.avID }));
    expect((keys["columns"] as Array<{ name: string }>).map((c) => c.name)).toContain("Total");

    const wrong = await h.call("av", {
      ...args,
      rollup: { relationKeyID: a.cols["Note"], keyID: b.cols["Pages"] },
      validateOnly: true,
    });
    expect(errorCode(wrong)).toBe("invalid_arguments");
    const noRelation = await h.call("av", {
      action: "add_column",
      id: a.avID,
      name: "X",
      type: "relation",
      validateOnly: true,
    });
    expect(errorCode(noRelation)).toBe("invalid_arguments");
  });

  it("remove_column refuses the primary key and removes a plain column", async () => {
    const { avID, cols } = await database("Columns");
    const keys = ok(await h.call("av", { action: "keys", id: avID }));
    const pk = (keys["columns"] as Array<{ id: string; type: string }>).find(
      (c) => c.type === "block",
    )?.id;
    const refused = await h.call("av", {
      action: "remove_column",
      id: avID,
      keyID: pk,
      validateOnly: true,
    });
    expect(errorCode(refused)).toBe("invalid_arguments");
    const args = { action: "remove_column", id: avID, keyID: cols["Pages"] };
    const { commit } = await h.write("av", args, true);
    expect(ok(commit)).toMatchObject({ status: "committed", keyID: cols["Pages"] });
    const after = ok(await h.call("av", { action: "keys", id: avID }));
    expect((after["columns"] as Array<{ id: string }>).map((c) => c.id)).not.toContain(
      cols["Pages"],
    );
  });

  it("a dropped write is a readback_mismatch; a failed readback is outcome_unknown", async () => {
    const { avID, cols, rows } = await database("Faults");
    const args = {
      action: "set_cells",
      id: avID,
      cells: [{ rowID: rows[0], keyID: cols["Note"], value: "lost" }],
    };
    const pre = ok(await h.call("av", { ...args, validateOnly: true }));
    const drop = h.sandbox.control.armFault({ endpoint: BATCH_SET, kind: "silentDrop" });
    const dropped = await h.call("av", h.commitArgs(args, pre));
    h.sandbox.control.disarmFault(drop);
    expect(errorCode(dropped)).toBe("readback_mismatch");

    const pre2 = ok(
      await h.call("av", {
        ...args,
        cells: [{ rowID: rows[0], keyID: cols["Note"], value: "unseen" }],
        validateOnly: true,
      }),
    );
    // The commit's probe reads the file once; every read after the write fails.
    const blind = h.sandbox.control.armFault({
      endpoint: "/api/av/getAttributeView",
      kind: "http5xx",
      skip: 1,
      times: "always",
    });
    const unseen = await h.call(
      "av",
      h.commitArgs(
        { ...args, cells: [{ rowID: rows[0], keyID: cols["Note"], value: "unseen" }] },
        pre2,
      ),
    );
    h.sandbox.control.disarmFault(blind);
    expect(errorCode(unseen)).toBe("outcome_unknown");
    expect(unseen.structuredContent["error"]).toMatchObject({ writeAttempted: true });
  });
});

describe("av state (pure)", () => {
  const key = (id: string, type: string, extra: Record<string, unknown> = {}) => ({
    key: { id, name: id, type, ...extra },
  });
  const dest = (stamp: number, back: string[]): AvFile => ({
    id: "20260101120000-destdb1",
    keyValues: [
      {
        ...key("pk", "block"),
        values: [{ blockID: "i1", type: "block", isDetached: true, block: { content: "a" } }],
      },
      {
        ...key("back", "relation", { relation: { avID: "src", isTwoWay: true, backKeyID: "k" } }),
        values: [
          {
            id: `v${stamp}`,
            blockID: "i1",
            type: "relation",
            updatedAt: stamp,
            relation: { blockIDs: back },
          },
        ],
      },
    ],
  });

  it("ignores the kernel's bookkeeping and sees what a cell says", () => {
    const cell = (stamp: number, content: number) => ({
      id: `v${stamp}`,
      type: "number",
      createdAt: stamp,
      updatedAt: stamp,
      number: { content, isNotEmpty: true, formattedContent: `${content}.00` },
    });
    expect(cellState(cell(1, 5))).toEqual(cellState(cell(2, 5)));
    expect(cellState(cell(1, 5))).not.toEqual(cellState(cell(1, 6)));
    expect(
      cellState({ type: "block", isDetached: false, block: { id: "b1", content: "t" } }),
    ).toEqual({
      content: "t",
      bound: "b1",
    });
  });

  it("covers a relation's back-key values on the far side, not their timestamps", () => {
    expect(avDigest(relationSide(dest(1, ["r1"]), "back"))).toBe(
      avDigest(relationSide(dest(2, ["r1"]), "back")),
    );
    expect(avDigest(relationSide(dest(1, ["r1"]), "back"))).not.toBe(
      avDigest(relationSide(dest(1, ["r1", "r2"]), "back")),
    );
    expect(relationSide(null, "back")).toBeNull();
    expect(rowState(dest(1, ["r1"]), "i1").cells).toEqual({
      pk: { content: "a", bound: null },
      back: ["r1"],
    });
  });

  it("describes relation and rollup columns by their configuration", () => {
    expect(
      keyState({
        id: "r",
        name: "Total",
        type: "rollup",
        rollup: { relationKeyID: "k", keyID: "p", calc: { operator: "Sum", result: 7 } },
      }),
    ).toEqual({
      id: "r",
      name: "Total",
      type: "rollup",
      rollup: { relationKeyID: "k", keyID: "p", operator: "Sum" },
    });
    expect(keyState({ id: "k", name: "L", type: "relation", relation: null })).toEqual({
      id: "k",
      name: "L",
      type: "relation",
    });
  });
});
