/**
 * av.rename (state) and the av lookups (filter_sort, search, primary_key_values) against the
 * sandbox kernel over loopback: the rename is read back from the database's file and never sent
 * twice; the lookups answer what the kernel's own endpoints answer, compact, and a database
 * without a file is `not_found`.
 */
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { beforeAll, describe, expect, it } from "vitest";
import type { ToolResult } from "../src/index.js";
import { errorCode, useHarness } from "./harness.js";

const TX = "/api/transactions";

function ok(r: ToolResult): Record<string, unknown> {
  expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy();
  return r.structuredContent;
}

const h = useHarness();
let docs = 0;

/** A new database (av.create, named) with two detached rows and one bound row. */
async function database(name: string) {
  const doc = h.sandbox.control.external.createDoc(
    h.notebook,
    `/AV lookups ${++docs}`,
    "a bound one",
  );
  await h.sandbox.control.flush();
  const made = ok((await h.write("av", { action: "create", parentID: doc, name })).commit);
  const avID = String(made["avID"]);
  const blockID = String(made["id"]);
  return { doc, avID, blockID };
}

const file = async (id: string) => (await h.client.av.getAttributeView({ id })).av;

/** A kernel call the product does not make (another client's edit, a view's filters). */
async function kernelPost(path: string, body: unknown): Promise<void> {
  const res = await fetch(`${h.sandbox.url}${path}`, {
    method: "POST",
    headers: { authorization: `Token ${h.sandbox.token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(((await res.json()) as { code: number }).code).toBe(0);
}

/** Waits until the clock has moved on, so rows added one after the other have distinct update times. */
const tick = async () => {
  const now = Date.now();
  await waitFor(() => Date.now() > now, { what: "the clock to move on" });
};

describe("av.rename", () => {
  it("renames, stores the name as the kernel does, reads it back; a replay writes nothing", async () => {
    const { avID } = await database("Old name");
    const args = { action: "rename", id: avID, name: "  New\nname " };
    const { preflight, commit } = await h.write("av", args);
    expect(preflight["preconditionField"]).toBe("expectedStateHash");
    expect(ok(commit)).toMatchObject({ id: avID, name: "New name", previousName: "Old name" });
    expect((await file(avID))?.name).toBe("New name");
    const writes = h.writes(TX);
    const replay = ok(await h.call("av", h.commitArgs(args, preflight)));
    expect(replay).toMatchObject({ id: avID, name: "New name" });
    expect(h.writes(TX)).toBe(writes);
  });

  it("answers state_changed when the name changed after the preflight, and writes nothing", async () => {
    const { avID } = await database("Before");
    const args = { action: "rename", id: avID, name: "Mine" };
    const pre = ok(await h.call("av", { ...args, validateOnly: true }));
    await kernelPost("/api/transactions", {
      transactions: [{ doOperations: [{ action: "setAttrViewName", id: avID, data: "Theirs" }] }],
    });
    await h.sandbox.control.flush();
    const writes = h.writes(TX);
    expect(errorCode(await h.call("av", h.commitArgs(args, pre)))).toBe("state_changed");
    expect(h.writes(TX)).toBe(writes);
    expect((await file(avID))?.name).toBe("Theirs");
  });

  it("refuses a database without a file and an empty name before any write", async () => {
    const missing = await h.call("av", {
      action: "rename",
      id: "20200101000000-zzzzzzz",
      name: "X",
      validateOnly: true,
    });
    expect(errorCode(missing)).toBe("not_found");
    const { avID } = await database("Kept");
    const before = h.writes(TX);
    expect(
      errorCode(
        await h.call("av", { action: "rename", id: avID, name: " \n ", validateOnly: true }),
      ),
    ).toBe("invalid_arguments");
    expect(h.writes(TX)).toBe(before);
    expect((await file(avID))?.name).toBe("Kept");
  });

  it("a rename to the current name answers no_change", async () => {
    const { avID } = await database("Same");
    const r = ok((await h.write("av", { action: "rename", id: avID, name: "Same" })).commit);
    expect(r).toMatchObject({ name: "Same", previousName: "Same" });
    expect(r["status"]).toBe("no_change");
    expect(r["resultHash"]).toBe(r["previousHash"]);
  });
});

describe("av lookups", () => {
  let fx: { avID: string; blockID: string; doc: string; pk: string; rows: string[]; bound: string };

  beforeAll(async () => {
    const { avID, blockID, doc } = await database("Quince ledger");
    const keys = await h.client.av.getAttributeViewKeysByAvID({ avID });
    const pk = keys.find((k) => k.type === "block")?.id as string;
    const added = ok(
      (await h.write("av", { action: "add_rows", id: avID, detached: ["Row one"] })).commit,
    );
    await tick();
    const added2 = ok(
      (await h.write("av", { action: "add_rows", id: avID, detached: ["Row two apple"] })).commit,
    );
    await tick();
    const children = await h.client.block.getChildBlocks({ id: doc });
    const bound = children.find((c) => c.type === "p")?.id as string;
    const added3 = ok(
      (await h.write("av", { action: "add_rows", id: avID, blockIDs: [bound] })).commit,
    );
    const rows = [added, added2, added3].map(
      (a) => (a["rows"] as Array<{ rowID: string }>)[0]?.rowID as string,
    );
    fx = { avID, blockID, doc, pk, rows, bound };
  });

  it("filter_sort answers the view's filters and sorts, each column named", async () => {
    const fresh = ok(await h.call("av", { action: "filter_sort", id: fx.avID }));
    expect(fresh).toEqual({
      id: fx.avID,
      filters: [{ combination: "and", filters: [] }],
      sorts: [],
    });
    await kernelPost("/api/av/setAttrViewFilters", {
      avID: fx.avID,
      blockID: fx.blockID,
      data: [
        {
          column: fx.pk,
          operator: "Contains",
          value: { type: "block", block: { content: "apple" } },
        },
      ],
    });
    await kernelPost("/api/av/setAttrViewSorts", {
      avID: fx.avID,
      blockID: fx.blockID,
      data: [{ column: fx.pk, order: "DESC" }],
    });
    const set = ok(await h.call("av", { action: "filter_sort", id: fx.avID, blockID: fx.blockID }));
    expect(set).toEqual({
      id: fx.avID,
      blockID: fx.blockID,
      filters: [
        {
          combination: "and",
          filters: [
            {
              column: fx.pk,
              name: "Primary Key",
              operator: "Contains",
              value: { type: "block", block: { content: "apple" } },
            },
          ],
        },
      ],
      sorts: [{ column: fx.pk, name: "Primary Key", order: "DESC" }],
    });
    expect(
      errorCode(await h.call("av", { action: "filter_sort", id: "20200101000000-zzzzzzz" })),
    ).toBe("not_found");
  });

  it("search finds databases by every word of their name, any case, with block, path and views", async () => {
    const r = ok(await h.call("av", { action: "search", keyword: "QUINCE led" }));
    const dbs = r["databases"] as Array<Record<string, unknown>>;
    expect(dbs).toHaveLength(1);
    expect(dbs[0]).toMatchObject({
      avID: fx.avID,
      name: "Quince ledger",
      blockID: fx.blockID,
      views: [{ id: expect.any(String), name: "Table", type: "table" }],
    });
    expect(String(dbs[0]?.["hpath"])).toMatch(new RegExp(`^${h.notebookName}/AV lookups \\d+$`));
    const none = ok(await h.call("av", { action: "search", keyword: "quince nothing" }));
    expect(none["databases"]).toEqual([]);
  });

  it("primary_key_values pages the rows' primary text, last updated first, with a keyword", async () => {
    const all = ok(await h.call("av", { action: "primary_key_values", id: fx.avID }));
    expect(all).toMatchObject({
      id: fx.avID,
      name: "Quince ledger",
      blockIDs: [fx.blockID],
      page: 1,
      total: 3,
    });
    expect(all["rows"]).toEqual([
      { id: fx.rows[2], text: "a bound one", bound: fx.bound },
      { id: fx.rows[1], text: "Row two apple", bound: null },
      { id: fx.rows[0], text: "Row one", bound: null },
    ]);
    const second = ok(
      await h.call("av", { action: "primary_key_values", id: fx.avID, page: 2, pageSize: 1 }),
    );
    expect(second["rows"]).toEqual([{ id: fx.rows[1], text: "Row two apple", bound: null }]);
    expect(second).toMatchObject({ pageCount: 3, total: 3 });
    const past = ok(
      await h.call("av", { action: "primary_key_values", id: fx.avID, page: 9, pageSize: 1 }),
    );
    expect(past["rows"]).toEqual([]);
    const apple = ok(
      await h.call("av", { action: "primary_key_values", id: fx.avID, keyword: "APPLE" }),
    );
    expect((apple["rows"] as unknown[]).length).toBe(1);
    expect(
      errorCode(await h.call("av", { action: "primary_key_values", id: "20200101000000-zzzzzzz" })),
    ).toBe("not_found");
  });

  it("the lookups need the workspace's read permission", async () => {
    h.permissions = { default: "none", notebooks: { [h.notebook]: "read" } };
    try {
      for (const args of [
        { action: "filter_sort", id: fx.avID },
        { action: "search", keyword: "quince" },
        { action: "primary_key_values", id: fx.avID },
      ]) {
        expect(errorCode(await h.call("av", args)), args.action).toBe("permission_denied");
      }
    } finally {
      h.permissions = { default: "delete" };
    }
  });
});

describe("av.duplicate", () => {
  const DUP = "/api/av/duplicateAttributeViewBlock";
  const INSERT = "/api/block/insertBlock";

  it("copies columns and rows into a new database whose block follows the original; a replay writes nothing", async () => {
    const { avID, blockID, doc } = await database("Pantry");
    ok(
      (
        await h.write("av", {
          action: "add_column",
          id: avID,
          name: "Shelf",
          type: "text",
        })
      ).commit,
    );
    const rows = ok(
      (await h.write("av", { action: "add_rows", id: avID, detached: ["flour", "salt"] })).commit,
    );
    const args = { action: "duplicate", id: avID };
    const { preflight, commit } = await h.write("av", args);
    expect(preflight["preconditionField"]).toBeNull();
    const made = ok(commit);
    const copyID = String(made["avID"]);
    expect(copyID).not.toBe(avID);
    expect(made).toMatchObject({
      sourceAvID: avID,
      after: blockID,
      columns: 3,
      rows: 2,
      name: expect.stringMatching(/^Pantry \(Duplicated \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\)$/),
    });
    const children = (await h.client.block.getChildBlocks({ id: doc })).map((c) => c.id);
    expect(children.indexOf(String(made["id"]))).toBe(children.indexOf(blockID) + 1);
    const copy = await file(copyID);
    const source = await file(avID);
    expect(copy?.keyValues?.length).toBe(source?.keyValues?.length);
    const texts = (await h.call("av", { action: "primary_key_values", id: copyID }))
      .structuredContent;
    expect((texts["rows"] as Array<{ text: string }>).map((r) => r.text).sort()).toEqual([
      "flour",
      "salt",
    ]);
    expect((rows["rows"] as unknown[]).length).toBe(2);

    const [dups, inserts] = [h.writes(DUP), h.writes(INSERT)];
    const replay = ok(await h.call("av", h.commitArgs(args, preflight)));
    expect(replay).toMatchObject({ avID: copyID, id: made["id"] });
    expect([h.writes(DUP), h.writes(INSERT)]).toEqual([dups, inserts]);
  });

  it("refuses a block that does not show the database, and a database without a file", async () => {
    const { avID, doc } = await database("Shown");
    const para = (await h.client.block.getChildBlocks({ id: doc })).find((c) => c.type === "p");
    const dups = h.writes(DUP);
    const other = await h.call("av", {
      action: "duplicate",
      id: avID,
      blockID: para?.id,
      validateOnly: true,
    });
    expect(errorCode(other)).toBe("invalid_arguments");
    const missing = await h.call("av", {
      action: "duplicate",
      id: "20200101000000-zzzzzzz",
      validateOnly: true,
    });
    expect(errorCode(missing)).toBe("not_found");
    expect(h.writes(DUP)).toBe(dups);
  });

  it("answers outcome_unknown when the insert fails after the copy was written, and a replay writes nothing", async () => {
    const { avID } = await database("Halfway");
    const args = { action: "duplicate", id: avID };
    const pre = ok(await h.call("av", { ...args, validateOnly: true }));
    const fault = h.sandbox.control.armFault({ endpoint: INSERT, kind: "http5xx", times: 1 });
    const [dups, inserts] = [h.writes(DUP), h.writes(INSERT)];
    const failed = await h.call("av", h.commitArgs(args, pre));
    h.sandbox.control.disarmFault(fault);
    expect(errorCode(failed)).toBe("outcome_unknown");
    expect(h.writes(DUP)).toBe(dups + 1);
    const again = await h.call("av", h.commitArgs(args, pre));
    expect(errorCode(again)).toBe("outcome_unknown");
    expect([h.writes(DUP), h.writes(INSERT)]).toEqual([dups + 1, inserts + 1]);
  });
});
