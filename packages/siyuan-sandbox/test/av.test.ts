/** Databases (attribute views, contract §4.7) over loopback HTTP. */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_IDS as I, type Sandbox } from "../src/index.js";
import { flush, kramdown, ok, post, start } from "./helpers.js";

type Tx = Array<{ doOperations: Array<Record<string, unknown>> }>;
interface Key {
  id: string;
  name: string;
  type: string;
  options?: Array<{ name: string; color: string }>;
  relation?: { avID: string; isTwoWay: boolean; backKeyID: string };
  rollup?: { relationKeyID: string; keyID: string; calc: { operator: string } };
  template?: string;
}
interface Cell {
  id: string;
  valueType: string;
  value: Record<string, unknown>;
}
interface Render {
  name: string;
  id: string;
  viewType: string;
  viewID: string;
  views: Array<{ id: string; type: string; pageSize: number }>;
  view: {
    columns: Array<{ id: string; name: string; type: string }>;
    rows: Array<{ id: string; cells: Cell[] }>;
    rowCount: number;
    pageSize: number;
    cards?: unknown[];
    cardCount?: number;
  };
  isMirror: boolean;
  newItemTemplates: unknown[];
  defaultTemplateID: string;
}

const ID_RE = /^\d{14}-[a-z0-9]{7}$/;
const UNKNOWN_AV = "20200101000000-avnone1";

let sb: Sandbox;
beforeAll(async () => {
  sb = await start({ flushIntervalMs: 60_000 });
});
afterAll(() => sb.stop());

/** Inserts a database block at the end of a document and flushes; returns block and AV IDs. */
async function insertAvBlock(
  docId: string = I.docPlan,
  html = '<div data-type="NodeAttributeView" data-av-type="table"></div>',
): Promise<{ blockID: string; avID: string; dom: string }> {
  const tx = await ok<Tx>(sb, "/api/block/appendBlock", {
    dataType: "markdown",
    data: html,
    parentID: docId,
  });
  const op = tx[0]!.doOperations[0]!;
  await flush(sb);
  const dom = String(op.data);
  const avID = /data-av-id="([^"]+)"/.exec(dom)?.[1] ?? "";
  return { blockID: String(op.id), avID, dom };
}

/** A database that exists (block + file); returns IDs and the primary/select key IDs. */
async function newDatabase(): Promise<{ blockID: string; avID: string; pk: string }> {
  const { blockID, avID } = await insertAvBlock();
  const r = await ok<Render>(sb, "/api/av/renderAttributeView", { id: avID, blockID });
  return { blockID, avID, pk: r.view.columns.find((c) => c.type === "block")!.id };
}

const render = (id: string, extra: Record<string, unknown> = {}) =>
  ok<Render>(sb, "/api/av/renderAttributeView", { id, ...extra });

async function addKey(avID: string, keyType: string, keyName: string, previousKeyID = "") {
  const keyID = newId();
  await ok(sb, "/api/av/addAttributeViewKey", {
    avID,
    keyID,
    keyName,
    keyType,
    keyIcon: "",
    previousKeyID,
  });
  return keyID;
}

let idSeq = 0;
/** A fresh node ID made by the client, as the UI does for keys. */
function newId(): string {
  idSeq++;
  return `20260202020202-k${String(idSeq).padStart(6, "0")}`;
}

async function addRows(avID: string, contents: string[], previousID = ""): Promise<string[]> {
  const before = new Set((await render(avID, { pageSize: 10_000 })).view.rows.map((r) => r.id));
  await ok(sb, "/api/av/addAttributeViewBlocks", {
    avID,
    previousID,
    srcs: contents.map((content) => ({ id: "", isDetached: true, content })),
  });
  const after = (await render(avID, { pageSize: 10_000 })).view.rows.map((r) => r.id);
  return after.filter((id) => !before.has(id));
}

const cell = (r: Render, rowID: string, keyID: string): Cell => {
  const row = r.view.rows.find((x) => x.id === rowID)!;
  const at = r.view.columns.findIndex((c) => c.id === keyID);
  return row.cells[at]!;
};
const pkText = (c: Cell) => (c.value.block as { content: string }).content;

async function tx(ops: Array<Record<string, unknown>>): Promise<void> {
  await ok(sb, "/api/transactions", {
    transactions: [{ doOperations: ops }],
    reqId: Date.now(),
  });
  await flush(sb);
}

describe("creating a database, stage by stage", () => {
  it("insert → block with a fresh AV ID, no file; render → default AV; then keys work", async () => {
    sb.control.holdQueue();
    const tx0 = await ok<Tx>(sb, "/api/block/appendBlock", {
      dataType: "markdown",
      data: '<div data-type="NodeAttributeView" data-av-type="table"></div>',
      parentID: I.docMeeting,
    });
    const op = tx0[0]!.doOperations[0]!;
    const blockID = String(op.id);
    const avID = /data-av-id="([^"]+)"/.exec(String(op.data))?.[1] ?? "";
    expect(avID).toMatch(ID_RE);
    expect(String(op.data)).toContain('data-type="NodeAttributeView"');
    // stage 0: queued, nothing in the tree, no file
    expect(sb.control.avBlocks(avID)).toEqual([]);
    sb.control.releaseQueue();
    // stage 1: the block exists, the file does not
    expect(sb.control.avBlocks(avID)).toEqual([blockID]);
    expect(sb.control.av(avID)).toBeNull();
    expect(sb.control.avLog(avID)).toEqual([]);
    expect(await kramdown(sb, blockID)).toBe(
      `<div data-type="NodeAttributeView" data-av-id="${avID}" data-av-type="table"></div>\n{: id="${blockID}" updated="${blockID.slice(0, 14)}"}`,
    );
    expect((await ok<{ av: unknown }>(sb, "/api/av/getAttributeView", { id: avID })).av).toBeNull();
    // before stage 2 the write endpoints fail
    const early = await post(sb, "/api/av/addAttributeViewKey", {
      avID,
      keyID: newId(),
      keyName: "Early",
      keyType: "text",
      keyIcon: "",
      previousKeyID: "",
    });
    expect(early.body).toEqual({ code: -1, msg: "view not found", data: null });
    const earlyRows = await post(sb, "/api/av/addAttributeViewBlocks", {
      avID,
      srcs: [{ id: "", isDetached: true, content: "x" }],
    });
    expect(earlyRows.body.code).toBe(-1);
    expect(earlyRows.body.msg).toBe("attribute view not found");
    // stage 2: the first render writes the default AV
    const r = await render(avID, { blockID });
    expect(r.name).toBe("");
    expect(r.viewType).toBe("table");
    expect(r.view.columns.map((c) => [c.name, c.type])).toEqual([
      ["Primary Key", "block"],
      ["Select", "select"],
    ]);
    expect(r.view.rows).toEqual([]);
    expect(r.view.rowCount).toBe(0);
    expect(r.isMirror).toBe(false);
    expect(sb.control.avLog(avID).map((e) => [e.kind, e.by])).toEqual([
      ["created", "/api/av/renderAttributeView"],
    ]);
    const stored = sb.control.av(avID)!;
    expect(stored.id).toBe(avID);
    expect(stored.views[0]!.id).toBe(r.viewID);
    // SiYuan 3.7.3 sets no custom-sy-av-view on the block here (kernel-probes av.stages)
    expect(sb.control.attrs(blockID)?.["custom-sy-av-view"]).toBeUndefined();
    // the file is a workspace file
    const f = await fetch(`${sb.url}/api/file/getFile`, {
      method: "POST",
      headers: { authorization: "Token test-token" },
      body: JSON.stringify({ path: `/data/storage/av/${avID}.json` }),
    });
    expect(f.status).toBe(200);
    expect(((await f.json()) as { id: string }).id).toBe(avID);
    // stage 3: naming goes through a transaction op (queued)
    await ok(sb, "/api/transactions", {
      transactions: [
        { doOperations: [{ action: "setAttrViewName", id: avID, data: "  Reading\nlist  " }] },
      ],
      reqId: 1,
    });
    expect(sb.control.av(avID)!.name).toBe("");
    await flush(sb);
    expect(sb.control.av(avID)!.name).toBe("Reading list");
    expect(sb.control.avLog(avID).map((e) => e.by)).toEqual([
      "/api/av/renderAttributeView",
      "tx:setAttrViewName",
    ]);
  });

  it("a caller-chosen data-av-id is kept; a malformed one is replaced", async () => {
    const chosen = "20260303030303-chosen1";
    const a = await insertAvBlock(
      I.docPlan,
      `<div data-type="NodeAttributeView" data-av-id="${chosen}" data-av-type="gallery"></div>`,
    );
    expect(a.avID).toBe(chosen);
    const b = await insertAvBlock(
      I.docPlan,
      '<div data-type="NodeAttributeView" data-av-id="not-an-id" data-av-type="table"></div>',
    );
    expect(b.avID).toMatch(ID_RE);
    expect(b.avID).not.toBe("not-an-id");
    // the gallery layout of the block decides the default view
    const r = await render(chosen, { blockID: a.blockID });
    expect(r.viewType).toBe("gallery");
    expect(r.view.cardCount).toBe(0);
    // previousKeyID "" puts a new key last in a gallery (first in a table)
    const k = await addKey(chosen, "text", "Caption");
    expect(sb.control.av(chosen)!.views[0]!.gallery!.cardFields.at(-1)!.id).toBe(k);
    const dom = await ok<{ dom: string }>(sb, "/api/block/getBlockDOM", { id: a.blockID });
    expect(dom.dom).toMatch(
      new RegExp(
        `^<div contenteditable="false" data-av-id="${chosen}" data-av-type="gallery" data-node-id="${a.blockID}" data-node-index="1" data-type="NodeAttributeView" class="av"`,
      ),
    );
    const rows = sb.control.sql(`SELECT type FROM blocks WHERE id = '${a.blockID}'`);
    expect(rows).toEqual([{ type: "av" }]);
  });

  it("two blocks showing one AV make it a mirror", async () => {
    const { blockID, avID } = await newDatabase();
    await insertAvBlock(
      I.docMilestones,
      `<div data-type="NodeAttributeView" data-av-id="${avID}" data-av-type="table"></div>`,
    );
    expect(sb.control.avBlocks(avID)).toHaveLength(2);
    expect((await render(avID, { blockID })).isMirror).toBe(true);
  });
});

describe("deleting the block", () => {
  it("removes the block but never the database file (an unused AV stays)", async () => {
    const { blockID, avID } = await newDatabase();
    await addRows(avID, ["kept"]);
    await ok(sb, "/api/block/deleteBlock", { id: blockID });
    await flush(sb);
    expect(await ok(sb, "/api/block/checkBlockExist", { id: blockID })).toBe(false);
    expect(sb.control.avBlocks(avID)).toEqual([]);
    const got = await ok<{ av: { id: string } | null }>(sb, "/api/av/getAttributeView", {
      id: avID,
    });
    expect(got.av?.id).toBe(avID);
    expect((await render(avID, { createIfNotExist: false })).view.rowCount).toBe(1);
  });
});

describe("probing an unknown AV ID", () => {
  it("getAttributeView, keys and render without createIfNotExist create nothing", async () => {
    expect(await ok(sb, "/api/av/getAttributeView", { id: UNKNOWN_AV })).toEqual({ av: null });
    expect(await ok(sb, "/api/av/getAttributeViewKeysByAvID", { avID: UNKNOWN_AV })).toEqual([]);
    const r = await post(sb, "/api/av/renderAttributeView", {
      id: UNKNOWN_AV,
      createIfNotExist: false,
    });
    expect(r.body).toEqual({ code: -1, msg: "attribute view not found", data: null });
    expect(sb.control.av(UNKNOWN_AV)).toBeNull();
    expect(sb.control.avLog(UNKNOWN_AV)).toEqual([]);
    const f = await post(sb, "/api/file/getFile", { path: `/data/storage/av/${UNKNOWN_AV}.json` });
    expect(f.status).toBe(202);
    expect(f.body.code).toBe(404);
  });

  it("a plain render of an unknown well-formed ID creates a database no block shows", async () => {
    const id = "20200101000000-avtrap1";
    const r = await render(id);
    expect(r.id).toBe(id);
    expect(sb.control.av(id)).not.toBeNull();
    expect(sb.control.avBlocks(id)).toEqual([]);
    expect(sb.control.avLog(id)[0]!.kind).toBe("created");
    expect(
      (await ok<Key[]>(sb, "/api/av/getAttributeViewKeysByAvID", { avID: id })).map((k) => k.type),
    ).toEqual(["block", "select"]);
  });

  it("error shapes: malformed ID, missing ID, bad JSON", async () => {
    const bad = await post(sb, "/api/av/renderAttributeView", { id: "../../conf/conf" });
    // renderAttributeView words it its own way (kernel-probes av.stages)
    expect(bad.body).toEqual({ code: -1, msg: "invalid id", data: null });
    const missing = await post(sb, "/api/av/renderAttributeView", {});
    expect(missing.body).toEqual({ code: 0, msg: "", data: null });
    const json = await post(sb, "/api/av/getAttributeView", undefined, { rawBody: "{nope" });
    expect(json.body.code).toBe(-1);
    expect(json.body.msg).toMatch(/^Parses request \[\/api\/av\/getAttributeView\] failed: /);
    const noAuth = await post(sb, "/api/av/getAttributeView", { id: UNKNOWN_AV }, { token: null });
    expect(noAuth.status).toBe(401);
  });
});

describe("keys", () => {
  it("adds every key type in column order, refuses block, lists them", async () => {
    const { avID, pk } = await newDatabase();
    const text = await addKey(avID, "text", "Notes", pk);
    const number = await addKey(avID, "number", "Pages", text);
    const first = await addKey(avID, "date", "Due"); // previousKeyID "" → first column
    const checkbox = await addKey(avID, "checkbox", "Done", number);
    const mSelect = await addKey(avID, "mSelect", "Tags", checkbox);
    const relation = await addKey(avID, "relation", "Links", mSelect);
    const rollup = await addKey(avID, "rollup", "Total", relation);
    const template = await addKey(avID, "template", "Label", rollup);
    await addKey(avID, "block", "Second primary", template);
    await addKey(avID, "bogus", "Nope", template);
    const keys = await ok<Key[]>(sb, "/api/av/getAttributeViewKeysByAvID", { avID });
    expect(keys.map((k) => k.type)).toEqual([
      "block",
      "select",
      "text",
      "number",
      "date",
      "checkbox",
      "mSelect",
      "relation",
      "rollup",
      "template",
    ]);
    expect(keys.find((k) => k.id === relation)!.relation).toBeUndefined();
    expect(keys.find((k) => k.id === rollup)!.rollup).toEqual({
      relationKeyID: "",
      keyID: "",
      calc: { operator: "" },
    });
    const cols = (await render(avID)).view.columns.map((c) => c.id);
    expect(cols[0]).toBe(first);
    expect(cols.slice(1, 4)).toEqual([pk, text, number]);
    expect(cols.at(-2)).toBe(template);
    expect(keys.find((k) => k.id === cols.at(-1))!.type).toBe("select"); // the default key stays last
    const byID = await ok<Key[]>(sb, "/api/av/getAttributeViewKeysByID", {
      avID,
      keyIDs: [number, checkbox],
    });
    expect(byID.map((k) => k.name)).toEqual(["Pages", "Done"]);
  });

  it("removeAttributeViewKey: removes column and values; unknown and primary refused", async () => {
    const { avID, pk } = await newDatabase();
    const text = await addKey(avID, "text", "Notes", pk);
    const [row] = await addRows(avID, ["r"]);
    await ok(sb, "/api/av/setAttributeViewBlockAttr", {
      avID,
      keyID: text,
      itemID: row,
      value: { text: { content: "hello" } },
    });
    const unknown = await post(sb, "/api/av/removeAttributeViewKey", { avID, keyID: newId() });
    expect(unknown.body).toEqual({ code: -1, msg: "key not found", data: null });
    const primary = await post(sb, "/api/av/removeAttributeViewKey", { avID, keyID: pk });
    expect(primary.body).toEqual({ code: -1, msg: "cannot remove primary key field", data: null });
    await ok(sb, "/api/av/removeAttributeViewKey", { avID, keyID: text });
    expect((await render(avID)).view.columns.map((c) => c.id)).not.toContain(text);
    expect(sb.control.av(avID)!.keyValues.some((kv) => kv.key.id === text)).toBe(false);
  });
});

describe("rows", () => {
  it("detached rows, a bound block, order by previousID, removal unbinds", async () => {
    const { avID, pk } = await newDatabase();
    const [a] = await addRows(avID, ["A"]);
    const [b] = await addRows(avID, ["B"]); // no previousID: goes first
    const [c] = await addRows(avID, ["C"], a!); // after A
    await ok(sb, "/api/av/addAttributeViewBlocks", {
      avID,
      previousID: c,
      srcs: [{ id: I.paragraphStatus, isDetached: false }],
    });
    // binding the same block again adds nothing
    await ok(sb, "/api/av/addAttributeViewBlocks", {
      avID,
      srcs: [{ id: I.paragraphStatus, isDetached: false }],
    });
    let r = await render(avID);
    expect(r.view.rowCount).toBe(4);
    const texts = r.view.rows.map((row) => pkText(cell(r, row.id, pk)));
    const statusText = texts[3]!;
    expect(texts.slice(0, 3)).toEqual(["B", "A", "C"]);
    expect(statusText.length).toBeGreaterThan(0);
    const boundRow = r.view.rows[3]!.id;
    expect(boundRow).not.toBe(I.paragraphStatus); // the item has its own ID
    const boundCell = cell(r, boundRow, pk).value;
    expect(boundCell.isDetached).toBe(false);
    expect((boundCell.block as { id: string }).id).toBe(I.paragraphStatus);
    expect(sb.control.attrs(I.paragraphStatus)?.["custom-avs"]).toBe(avID);
    // the bound block's text is read live at render time
    sb.control.external.updateBlock(I.paragraphStatus, "Status: **renamed**");
    r = await render(avID);
    expect(pkText(cell(r, boundRow, pk))).toBe("Status: renamed");
    // an unknown bound block becomes a detached row
    await ok(sb, "/api/av/addAttributeViewBlocks", {
      avID,
      srcs: [{ id: "20200101000000-nobody1", isDetached: false, content: "ghost" }],
    });
    r = await render(avID);
    expect(r.view.rowCount).toBe(5);
    expect(cell(r, r.view.rows[0]!.id, pk).value.isDetached).toBe(true);
    // removal: detached rows deleted, the bound block is unbound but stays
    await ok(sb, "/api/av/removeAttributeViewBlocks", { avID, srcIDs: [b, boundRow] });
    r = await render(avID);
    expect(r.view.rows.map((x) => x.id)).not.toContain(b);
    expect(r.view.rows.map((x) => x.id)).not.toContain(boundRow);
    expect(r.view.rowCount).toBe(3);
    expect(sb.control.attrs(I.paragraphStatus)?.["custom-avs"]).toBeUndefined();
    expect(sb.control.kramdown(I.paragraphStatus)).toContain("renamed");
  });

  it("paging: page/pageSize, rowCount over all rows, -1 = the view's 50", async () => {
    const { avID } = await newDatabase();
    await addRows(avID, ["1", "2", "3", "4", "5", "6", "7"]);
    const p3 = await render(avID, { page: 3, pageSize: 3 });
    expect(p3.view.rows).toHaveLength(1);
    expect(p3.view.rowCount).toBe(7);
    // the answer names the view's page size, not the request's (kernel-probes av.keys-rows-values)
    expect(p3.view.pageSize).toBe(50);
    const all = await render(avID, { pageSize: -1 });
    expect(all.view.pageSize).toBe(50);
    expect(all.view.rows).toHaveLength(7);
    expect(p3.view.rows[0]!.id).toBe(all.view.rows[6]!.id);
  });
});

describe("cells", () => {
  it("text, number, date, checkbox, select and mSelect values are normalized", async () => {
    const { avID, pk } = await newDatabase();
    const text = await addKey(avID, "text", "Notes", pk);
    const number = await addKey(avID, "number", "Pages", text);
    const date = await addKey(avID, "date", "Due", number);
    const check = await addKey(avID, "checkbox", "Done", date);
    const tags = await addKey(avID, "mSelect", "Tags", check);
    const sel = sb.control.av(avID)!.keyValues.find((kv) => kv.key.type === "select")!.key.id;
    const [row] = await addRows(avID, ["row"]);
    const set = (keyID: string, value: unknown) =>
      ok<{ value: Record<string, unknown> }>(sb, "/api/av/setAttributeViewBlockAttr", {
        avID,
        keyID,
        itemID: row,
        value,
      });
    expect((await set(text, { text: { content: "hello" } })).value.text).toEqual({
      content: "hello",
    });
    const n = await set(number, { number: { content: 42, isNotEmpty: true } });
    expect(n.value.number).toMatchObject({ content: 42, isNotEmpty: true });
    expect(n.value.type).toBe("number");
    expect(n.value.blockID).toBe(row);
    const cleared = await set(number, { number: { content: 7, isNotEmpty: false } });
    expect(cleared.value.number).toMatchObject({ content: 0, isNotEmpty: false });
    await set(number, { number: { content: 12.5, isNotEmpty: true } });
    const d = await set(date, { date: { content: 1767225600000, isNotEmpty: true } });
    expect(d.value.date).toMatchObject({ content: 1767225600000, isNotEmpty: true });
    await set(check, { checkbox: { checked: true } });
    const s1 = await set(sel, { mSelect: [{ content: "urgent", color: "3" }] });
    expect(s1.value.mSelect).toEqual([{ content: "urgent", color: "3" }]);
    // the option now exists; a new color for it is ignored
    const s2 = await set(sel, { mSelect: [{ content: "urgent", color: "9" }] });
    expect(s2.value.mSelect).toEqual([{ content: "urgent", color: "3" }]);
    const m = await set(tags, { mSelect: [{ content: "" }, { content: "a" }, { content: "b" }] });
    expect((m.value.mSelect as Array<{ content: string }>).map((o) => o.content)).toEqual([
      "a",
      "b",
    ]);
    const keys = await ok<Key[]>(sb, "/api/av/getAttributeViewKeysByAvID", { avID });
    expect(keys.find((k) => k.id === sel)!.options).toEqual([{ name: "urgent", color: "3" }]);
    expect(keys.find((k) => k.id === tags)!.options!.map((o) => o.name)).toEqual(["a", "b"]);
    const r = await render(avID);
    expect(cell(r, row!, text).value.text).toEqual({ content: "hello" });
    expect(cell(r, row!, number).value.number).toMatchObject({ content: 12.5 });
    expect(cell(r, row!, check).value.checkbox).toEqual({ checked: true });
    expect(cell(r, row!, check).valueType).toBe("checkbox");
    expect(cell(r, row!, date).value.date).toMatchObject({ content: 1767225600000 });
  });

  it("rowID refused, unknown key answers 0/null and saves nothing, missing AV -1", async () => {
    const { avID, pk } = await newDatabase();
    const text = await addKey(avID, "text", "Notes", pk);
    const [row] = await addRows(avID, ["row"]);
    const old = await post(sb, "/api/av/setAttributeViewBlockAttr", {
      avID,
      keyID: text,
      rowID: row,
      value: { text: { content: "x" } },
    });
    expect(old.body.code).toBe(-1);
    expect(old.body.msg).toMatch(/rowID/);
    const before = JSON.stringify(sb.control.av(avID));
    const ghost = await post(sb, "/api/av/setAttributeViewBlockAttr", {
      avID,
      keyID: newId(),
      itemID: row,
      value: { text: { content: "x" } },
    });
    expect(ghost.body).toEqual({ code: 0, msg: "", data: null });
    expect(JSON.stringify(sb.control.av(avID))).toBe(before);
    const missing = await post(sb, "/api/av/setAttributeViewBlockAttr", {
      avID: UNKNOWN_AV,
      keyID: text,
      itemID: row,
      value: {},
    });
    expect(missing.body).toEqual({ code: -1, msg: "attribute view not found", data: null });
    expect(sb.control.av(UNKNOWN_AV)).toBeNull();
  });

  it("batchSetAttributeViewBlockAttrs sets several cells; rowID anywhere is refused", async () => {
    const { avID, pk } = await newDatabase();
    const text = await addKey(avID, "text", "Notes", pk);
    const number = await addKey(avID, "number", "N", text);
    const [a, b] = await addRows(avID, ["a", "b"]);
    expect(
      await ok(sb, "/api/av/batchSetAttributeViewBlockAttrs", {
        avID,
        values: [
          { keyID: text, itemID: a, value: { text: { content: "ta" } } },
          { keyID: number, itemID: b, value: { number: { content: 5, isNotEmpty: true } } },
        ],
      }),
    ).toBeNull();
    const r = await render(avID);
    expect(cell(r, a!, text).value.text).toEqual({ content: "ta" });
    expect(cell(r, b!, number).value.number).toMatchObject({ content: 5 });
    const refused = await post(sb, "/api/av/batchSetAttributeViewBlockAttrs", {
      avID,
      values: [
        { keyID: text, itemID: a, value: { text: { content: "new" } } },
        { keyID: text, rowID: b, value: { text: { content: "old" } } },
      ],
    });
    expect(refused.body.code).toBe(-1);
    expect(cell(await render(avID), a!, text).value.text).toEqual({ content: "ta" });
  });
});

describe("relations and rollups", () => {
  it("two-way relation: back key created in the other database and kept in sync", async () => {
    const tasks = await newDatabase();
    const projects = await newDatabase();
    await tx([{ action: "setAttrViewName", id: tasks.avID, data: "Tasks" }]);
    const [p1, p2] = await addRows(projects.avID, ["Apollo", "Gemini"]);
    const [t1, t2] = await addRows(tasks.avID, ["Design", "Build"]);
    const rel = await addKey(tasks.avID, "relation", "", tasks.pk);
    const back = newId();
    await tx([
      {
        action: "updateAttrViewColRelation",
        avID: tasks.avID,
        id: projects.avID,
        keyID: rel,
        isTwoWay: true,
        backRelationKeyID: back,
        name: "",
        format: "Project",
      },
    ]);
    const srcKey = (await ok<Key[]>(sb, "/api/av/getAttributeViewKeysByAvID", {
      avID: tasks.avID,
    }))!.find((k) => k.id === rel)!;
    expect(srcKey.name).toBe("Project");
    expect(srcKey.relation).toEqual({ avID: projects.avID, isTwoWay: true, backKeyID: back });
    const backKey = (await ok<Key[]>(sb, "/api/av/getAttributeViewKeysByAvID", {
      avID: projects.avID,
    }))!.find((k) => k.id === back)!;
    expect(backKey.name).toBe("Tasks Project");
    expect(backKey.relation).toEqual({ avID: tasks.avID, isTwoWay: true, backKeyID: rel });
    // link t1 → p1, t2 → p1 and p2
    const link = (itemID: string, blockIDs: string[]) =>
      ok(sb, "/api/av/setAttributeViewBlockAttr", {
        avID: tasks.avID,
        keyID: rel,
        itemID,
        value: { relation: { blockIDs } },
      });
    await link(t1!, [p1!]);
    await link(t2!, [p1!, p2!, p1!]);
    let pr = await render(projects.avID);
    expect((cell(pr, p1!, back).value.relation as { blockIDs: string[] }).blockIDs).toEqual([
      t1,
      t2,
    ]);
    expect((cell(pr, p2!, back).value.relation as { blockIDs: string[] }).blockIDs).toEqual([t2]);
    const tr = await render(tasks.avID);
    const relCell = cell(tr, t2!, rel).value.relation as {
      blockIDs: string[];
      contents: Array<{ block: { content: string } }>;
    };
    expect(relCell.blockIDs).toEqual([p1, p2]); // duplicates removed
    expect(relCell.contents.map((c) => c.block.content)).toEqual(["Apollo", "Gemini"]);
    // unlinking removes the back value
    await link(t2!, [p2!]);
    pr = await render(projects.avID);
    expect((cell(pr, p1!, back).value.relation as { blockIDs: string[] }).blockIDs).toEqual([t1]);
    // removing a source row drops it from the back values
    await ok(sb, "/api/av/removeAttributeViewBlocks", { avID: tasks.avID, srcIDs: [t1] });
    pr = await render(projects.avID);
    expect((cell(pr, p1!, back).value.relation as { blockIDs: string[] }).blockIDs).toEqual([]);
    // removing the source key without removeRelationDest makes the back key one-way
    await ok(sb, "/api/av/removeAttributeViewKey", { avID: tasks.avID, keyID: rel });
    const after = sb.control.av(projects.avID)!.keyValues.find((kv) => kv.key.id === back)!.key;
    expect(after.relation).toEqual({ avID: tasks.avID, isTwoWay: false, backKeyID: "" });
  });

  it("removeRelationDest removes the back key; an empty format blanks the name; one-way leaves the destination alone", async () => {
    const a = await newDatabase();
    const b = await newDatabase();
    const rel = await addKey(a.avID, "relation", "Keep me", a.pk);
    const back = newId();
    await tx([
      {
        action: "updateAttrViewColRelation",
        avID: a.avID,
        id: b.avID,
        keyID: rel,
        isTwoWay: true,
        backRelationKeyID: back,
        name: "Back",
        format: "",
      },
    ]);
    expect(sb.control.av(a.avID)!.keyValues.find((kv) => kv.key.id === rel)!.key.name).toBe("");
    expect(sb.control.av(b.avID)!.keyValues.find((kv) => kv.key.id === back)!.key.name).toBe(
      "Back",
    );
    await ok(sb, "/api/av/removeAttributeViewKey", {
      avID: a.avID,
      keyID: rel,
      removeRelationDest: true,
    });
    expect(sb.control.av(b.avID)!.keyValues.some((kv) => kv.key.id === back)).toBe(false);
    // one-way
    const oneWay = await addKey(a.avID, "relation", "", a.pk);
    const keysBefore = sb.control.av(b.avID)!.keyValues.length;
    await tx([
      {
        action: "updateAttrViewColRelation",
        avID: a.avID,
        id: b.avID,
        keyID: oneWay,
        isTwoWay: false,
        backRelationKeyID: newId(),
        name: "",
        format: "Ref",
      },
    ]);
    const [bRow] = await addRows(b.avID, ["target"]);
    const [aRow] = await addRows(a.avID, ["source"]);
    await ok(sb, "/api/av/setAttributeViewBlockAttr", {
      avID: a.avID,
      keyID: oneWay,
      itemID: aRow,
      value: { relation: { blockIDs: [bRow] } },
    });
    expect(sb.control.av(b.avID)!.keyValues.length).toBe(keysBefore);
    const r = await render(a.avID);
    const c = cell(r, aRow!, oneWay).value.relation as { contents: Array<{ block: unknown }> };
    expect(c.contents).toHaveLength(1);
  });

  it("back-fills existing values when a relation becomes two-way", async () => {
    const a = await newDatabase();
    const b = await newDatabase();
    const [bRow] = await addRows(b.avID, ["b"]);
    const [aRow] = await addRows(a.avID, ["a"]);
    const rel = await addKey(a.avID, "relation", "", a.pk);
    const op = {
      action: "updateAttrViewColRelation",
      avID: a.avID,
      id: b.avID,
      keyID: rel,
      backRelationKeyID: newId(),
      name: "",
      format: "R",
    };
    await tx([{ ...op, isTwoWay: false }]);
    await ok(sb, "/api/av/setAttributeViewBlockAttr", {
      avID: a.avID,
      keyID: rel,
      itemID: aRow,
      value: { relation: { blockIDs: [bRow] } },
    });
    await tx([{ ...op, isTwoWay: true }]);
    const r = await render(b.avID);
    const c = cell(r, bRow!, op.backRelationKeyID).value.relation as { blockIDs: string[] };
    expect(c.blockIDs).toEqual([aRow]);
  });

  it("rollup over a relation: Sum, Count all, raw values; data null saves nothing", async () => {
    const orders = await newDatabase();
    const items = await newDatabase();
    const price = await addKey(items.avID, "number", "Price", items.pk);
    const [i1, i2, i3] = await addRows(items.avID, ["pen", "ink", "pad"]);
    for (const [id, n] of [
      [i1, 2],
      [i2, 3.5],
      [i3, 10],
    ] as const) {
      await ok(sb, "/api/av/setAttributeViewBlockAttr", {
        avID: items.avID,
        keyID: price,
        itemID: id,
        value: { number: { content: n, isNotEmpty: true } },
      });
    }
    const rel = await addKey(orders.avID, "relation", "", orders.pk);
    await tx([
      {
        action: "updateAttrViewColRelation",
        avID: orders.avID,
        id: items.avID,
        keyID: rel,
        isTwoWay: false,
        backRelationKeyID: newId(),
        name: "",
        format: "Items",
      },
    ]);
    const total = await addKey(orders.avID, "rollup", "Total", rel);
    const [o1] = await addRows(orders.avID, ["order 1"]);
    await ok(sb, "/api/av/setAttributeViewBlockAttr", {
      avID: orders.avID,
      keyID: rel,
      itemID: o1,
      value: { relation: { blockIDs: [i1, i2] } },
    });
    const rollupOp = (operator: string | null) => ({
      action: "updateAttrViewColRollup",
      avID: orders.avID,
      id: total,
      parentID: rel,
      keyID: price,
      data: operator === null ? null : { calc: { operator } },
    });
    await tx([rollupOp("Sum")]);
    const contents = async () =>
      (
        cell(await render(orders.avID), o1!, total).value.rollup as {
          contents: Array<{ number?: { content: number } }>;
        }
      ).contents;
    expect((await contents()).map((c) => c.number?.content)).toEqual([5.5]);
    await tx([rollupOp("Count all")]);
    expect((await contents()).map((c) => c.number?.content)).toEqual([2]);
    await tx([rollupOp("")]);
    expect((await contents()).map((c) => c.number?.content)).toEqual([2, 3.5]);
    await tx([rollupOp(null)]); // data null: the key keeps its calc
    expect(
      sb.control.av(orders.avID)!.keyValues.find((kv) => kv.key.id === total)!.key.rollup,
    ).toEqual({ relationKeyID: rel, keyID: price, calc: { operator: "" } });
    // rollups are computed, never stored
    expect(
      sb.control.av(orders.avID)!.keyValues.find((kv) => kv.key.id === total)!.values ?? [],
    ).toEqual([]);
    // a new price shows on the next render
    await ok(sb, "/api/av/setAttributeViewBlockAttr", {
      avID: items.avID,
      keyID: price,
      itemID: i2,
      value: { number: { content: 4, isNotEmpty: true } },
    });
    await tx([rollupOp("Max")]);
    expect((await contents()).map((c) => c.number?.content)).toEqual([4]);
  });
});

describe("templates", () => {
  it("template keys render from the row; new-item templates fill detached rows by default", async () => {
    const { avID, pk } = await newDatabase();
    const author = await addKey(avID, "text", "Author", pk);
    const label = await addKey(avID, "template", "Label", author);
    await tx([
      {
        action: "updateAttrViewColTemplate",
        avID,
        id: label,
        data: "by {{.Author}}",
        type: "template",
      },
    ]);
    const [row] = await addRows(avID, ["book"]);
    await ok(sb, "/api/av/setAttributeViewBlockAttr", {
      avID,
      keyID: author,
      itemID: row,
      value: { text: { content: "Ada" } },
    });
    let r = await render(avID);
    expect(cell(r, row!, label).value.template).toEqual({ content: "by Ada" });
    expect(r.newItemTemplates).toEqual([]);
    expect(r.defaultTemplateID).toBe("");
    const tplID = newId();
    await tx([
      {
        action: "setAttrViewNewItemTemplates",
        avID,
        data: {
          templates: [
            {
              id: tplID,
              name: "Anonymous",
              fieldValues: { [author]: { mode: "static", value: { text: { content: "anon" } } } },
            },
          ],
          defaultTemplateID: tplID,
        },
      },
    ]);
    r = await render(avID);
    expect(r.defaultTemplateID).toBe(tplID);
    expect(r.newItemTemplates).toHaveLength(1);
    const [filled] = await addRows(avID, ["new"]);
    const before = new Set((await render(avID)).view.rows.map((x) => x.id));
    await ok(sb, "/api/av/addAttributeViewBlocks", {
      avID,
      ignoreDefaultFill: true,
      srcs: [{ id: "", isDetached: true, content: "plain" }],
    });
    r = await render(avID);
    const plain = r.view.rows.find((x) => !before.has(x.id))!.id;
    expect(cell(r, filled!, author).value.text).toEqual({ content: "anon" });
    expect(cell(r, filled!, label).value.template).toEqual({ content: "by anon" });
    expect(cell(r, plain, author).value.text).toEqual({ content: "" });
  });
});

describe("addAttrViewCol and transactions of several ops", () => {
  const keyIDs = (avID: string) => sb.control.av(avID)!.keyValues.map((kv) => kv.key.id);
  const columnIDs = (avID: string) =>
    (sb.control.av(avID)!.views[0]!.table as { columns: Array<{ id: string }> }).columns.map(
      (c) => c.id,
    );
  const failures = () => sb.control.transactionFailures();

  it("adds the key after previousID with data as its icon, queued until applied", async () => {
    const { avID, pk } = await newDatabase();
    const id = newId();
    const echo = await ok<Tx>(sb, "/api/transactions", {
      transactions: [
        {
          doOperations: [
            {
              action: "addAttrViewCol",
              avID,
              id,
              name: "Due",
              type: "date",
              data: "📅",
              previousID: pk,
            },
          ],
        },
      ],
      reqId: 3,
    });
    expect(echo[0]!.doOperations[0]).toMatchObject({
      action: "addAttrViewCol",
      avID,
      id,
      name: "Due",
      type: "date",
      previousID: pk,
      keyID: "",
      isTwoWay: false,
    });
    expect(keyIDs(avID)).not.toContain(id);
    await flush(sb);
    const key = sb.control.av(avID)!.keyValues.find((kv) => kv.key.id === id)!.key;
    expect(key).toMatchObject({ name: "Due", type: "date", icon: "📅" });
    expect(columnIDs(avID).indexOf(id)).toBe(columnIDs(avID).indexOf(pk) + 1);
    expect(sb.control.avLog(avID).at(-1)?.by).toBe("tx:addAttrViewCol");
    // no data: no icon; "" previousID: the first column of a table
    const first = newId();
    await tx([{ action: "addAttrViewCol", avID, id: first, name: "First", type: "text" }]);
    expect(columnIDs(avID)[0]).toBe(first);
    expect(sb.control.av(avID)!.keyValues.find((kv) => kv.key.id === first)!.key.icon).toBe("");
  });

  it("an unsupported type adds nothing and fails nothing, like the endpoint", async () => {
    const { avID } = await newDatabase();
    const before = failures().length;
    const keys = keyIDs(avID);
    await tx([{ action: "addAttrViewCol", avID, id: newId(), name: "PK", type: "block" }]);
    await tx([{ action: "addAttrViewCol", avID, id: newId(), name: "X", type: "nonsense" }]);
    expect(keyIDs(avID)).toEqual(keys);
    expect(failures()).toHaveLength(before);
  });

  it("adds a relation column and configures it two-way in one transaction", async () => {
    const a = await newDatabase();
    const b = await newDatabase();
    await tx([{ action: "setAttrViewName", id: a.avID, data: "Books" }]);
    const [keyID, backKeyID] = [newId(), newId()];
    await tx([
      {
        action: "addAttrViewCol",
        avID: a.avID,
        id: keyID,
        name: "Author",
        type: "relation",
        previousID: a.pk,
      },
      {
        action: "updateAttrViewColRelation",
        avID: a.avID,
        id: b.avID,
        keyID,
        isTwoWay: true,
        backRelationKeyID: backKeyID,
        name: "",
        format: "Author",
      },
    ]);
    const src = sb.control.av(a.avID)!.keyValues.find((kv) => kv.key.id === keyID)!.key;
    expect(src).toMatchObject({
      name: "Author",
      type: "relation",
      relation: { avID: b.avID, isTwoWay: true, backKeyID },
    });
    const back = sb.control.av(b.avID)!.keyValues.find((kv) => kv.key.id === backKeyID)!.key;
    expect(back).toMatchObject({
      name: "Books Author",
      relation: { avID: a.avID, isTwoWay: true, backKeyID: keyID },
    });
    expect(
      sb.control
        .avLog(a.avID)
        .slice(-2)
        .map((e) => e.by),
    ).toEqual(["tx:addAttrViewCol", "tx:updateAttrViewColRelation"]);
    // a given back-key name is trimmed (strings.TrimSpace)
    const [k2, b2] = [newId(), newId()];
    await tx([
      { action: "addAttrViewCol", avID: a.avID, id: k2, name: "Editor", type: "relation" },
      {
        action: "updateAttrViewColRelation",
        avID: a.avID,
        id: b.avID,
        keyID: k2,
        isTwoWay: true,
        backRelationKeyID: b2,
        name: "  Edited  ",
        format: "Editor",
      },
    ]);
    expect(sb.control.av(b.avID)!.keyValues.find((kv) => kv.key.id === b2)!.key.name).toBe(
      "Edited",
    );
  });

  it("the second op failing keeps what the first wrote: the column stays, unconfigured", async () => {
    const a = await newDatabase();
    const keyID = newId();
    const before = failures().length;
    await tx([
      { action: "addAttrViewCol", avID: a.avID, id: keyID, name: "Link", type: "relation" },
      {
        action: "updateAttrViewColRelation",
        avID: a.avID,
        id: UNKNOWN_AV,
        keyID,
        isTwoWay: true,
        backRelationKeyID: newId(),
        name: "",
        format: "Link",
      },
    ]);
    expect(failures()).toHaveLength(before + 1);
    expect(failures().at(-1)!.message).toContain(`attribute view not found [${UNKNOWN_AV}]`);
    const key = sb.control.av(a.avID)!.keyValues.find((kv) => kv.key.id === keyID)!.key;
    expect(key).toMatchObject({ name: "Link", type: "relation" });
    expect(key.relation).toBeUndefined();
  });

  it("the first op failing stops the transaction: later ops never run", async () => {
    const a = await newDatabase();
    const before = failures().length;
    // a missing database
    await tx([
      { action: "addAttrViewCol", avID: UNKNOWN_AV, id: newId(), name: "Lost", type: "text" },
      { action: "setAttrViewName", id: a.avID, data: "Never" },
    ]);
    expect(failures().at(-1)!.message).toContain("attribute view not found");
    // an icon that is not a string: the kernel's type assertion panics
    const keyID = newId();
    await tx([
      { action: "addAttrViewCol", avID: a.avID, id: keyID, name: "Odd", type: "text", data: 7 },
      { action: "setAttrViewName", id: a.avID, data: "Never" },
    ]);
    expect(failures()).toHaveLength(before + 2);
    expect(failures().at(-1)!.message).toBe(
      "Transaction failed: transaction panic: interface conversion: interface {} is float64, not string",
    );
    expect(keyIDs(a.avID)).not.toContain(keyID);
    expect(sb.control.av(a.avID)!.name).toBe("");
  });

  it("a failing transaction rolls back its attribute ops; other transactions of the request apply", async () => {
    const a = await newDatabase();
    const before = failures().length;
    await ok(sb, "/api/transactions", {
      transactions: [
        {
          doOperations: [
            { action: "setAttrs", id: I.mathJournal, data: { "custom-rolled": "back" } },
            { action: "setAttrViewName", id: UNKNOWN_AV, data: "x" },
          ],
        },
        { doOperations: [{ action: "setAttrViewName", id: a.avID, data: "Applied" }] },
      ],
      reqId: 4,
    });
    await flush(sb);
    expect(failures()).toHaveLength(before + 1);
    expect(sb.control.attrs(I.mathJournal)?.["custom-rolled"]).toBeUndefined();
    expect(sb.control.av(a.avID)!.name).toBe("Applied");
    // an attribute op on a missing block stops its transaction, after a database op applied
    await tx([
      { action: "setAttrViewName", id: a.avID, data: "Kept" },
      { action: "setAttrs", id: "20200101000000-noblock", data: { "custom-x": "1" } },
      { action: "setAttrViewName", id: a.avID, data: "Never" },
    ]);
    expect(failures()).toHaveLength(before + 2);
    expect(failures().at(-1)!.message).toContain("tree not found");
    expect(sb.control.av(a.avID)!.name).toBe("Kept");
  });
});

describe("transactions, faults and counters on AV endpoints", () => {
  it("an AV op on a missing database answers code 0 and fails asynchronously", async () => {
    const failures = sb.control.transactionFailures().length;
    await ok(sb, "/api/transactions", {
      transactions: [{ doOperations: [{ action: "setAttrViewName", id: UNKNOWN_AV, data: "x" }] }],
      reqId: 2,
    });
    await flush(sb);
    const after = sb.control.transactionFailures();
    expect(after).toHaveLength(failures + 1);
    expect(after.at(-1)!.message).toContain("attribute view not found");
    expect(sb.control.av(UNKNOWN_AV)).toBeNull();
  });

  it("resetAfterApply on addAttributeViewKey: the key exists, the caller saw no answer", async () => {
    const { avID, pk } = await newDatabase();
    sb.control.armFault({ endpoint: "/api/av/addAttributeViewKey", kind: "resetAfterApply" });
    const keyID = newId();
    await expect(
      post(sb, "/api/av/addAttributeViewKey", {
        avID,
        keyID,
        keyName: "Crash",
        keyType: "text",
        keyIcon: "",
        previousKeyID: pk,
      }),
    ).rejects.toThrow();
    expect(sb.control.av(avID)!.keyValues.some((kv) => kv.key.id === keyID)).toBe(true);
    const last = sb.control
      .log()
      .filter((e) => e.path === "/api/av/addAttributeViewKey")
      .at(-1)!;
    expect(last.faults).toEqual(["resetAfterApply"]);
    expect(last.status).toBe(0);
  });

  it("resetAfterApply on the first render: the file exists although the caller saw nothing", async () => {
    const { blockID, avID } = await insertAvBlock();
    sb.control.armFault({ endpoint: "/api/av/renderAttributeView", kind: "resetAfterApply" });
    await expect(post(sb, "/api/av/renderAttributeView", { id: avID, blockID })).rejects.toThrow();
    expect(sb.control.av(avID)).not.toBeNull();
    expect(sb.control.avLog(avID).map((e) => e.kind)).toEqual(["created"]);
  });

  it("silentDrop on setAttributeViewBlockAttr: code 0, nothing written; counters count", async () => {
    const { avID, pk } = await newDatabase();
    const text = await addKey(avID, "text", "T", pk);
    const [row] = await addRows(avID, ["r"]);
    const n = sb.control.count("/api/av/setAttributeViewBlockAttr");
    sb.control.armFault({ endpoint: "/api/av/setAttributeViewBlockAttr", kind: "silentDrop" });
    const res = await post(sb, "/api/av/setAttributeViewBlockAttr", {
      avID,
      keyID: text,
      itemID: row,
      value: { text: { content: "dropped" } },
    });
    expect(res.body.code).toBe(0);
    expect(cell(await render(avID), row!, text).value.text).toEqual({ content: "" });
    expect(sb.control.count("/api/av/setAttributeViewBlockAttr")).toBe(n + 1);
  });
});

describe("the AV file is a workspace file", () => {
  it("a putFile over data/storage/av/<id>.json is what the AV endpoints read next", async () => {
    const { avID } = await newDatabase();
    const edited = { ...sb.control.av(avID)!, name: "Written by putFile" };
    const form = new FormData();
    form.set("path", `/data/storage/av/${avID}.json`);
    form.set("file", new Blob([JSON.stringify(edited)]), "f");
    const res = await fetch(`${sb.url}/api/file/putFile`, {
      method: "POST",
      headers: { authorization: "Token test-token" },
      body: form,
    });
    expect(((await res.json()) as { code: number }).code).toBe(0);
    expect((await render(avID)).name).toBe("Written by putFile");
    // the sandbox did not write it: the stage log has no entry for the putFile
    expect(sb.control.avLog(avID).map((e) => e.kind)).toEqual(["created"]);
  });
});

describe("persistence and the control route", () => {
  it("AV files and database blocks survive a restart under a data dir", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sandbox-av-"));
    try {
      const one = await start({ dataDir: dir, flushIntervalMs: 60_000, controlRoute: true });
      const t = await ok<Tx>(one, "/api/block/appendBlock", {
        dataType: "markdown",
        data: '<div data-type="NodeAttributeView" data-av-type="kanban"></div>',
        parentID: I.docJournal,
      });
      await flush(one);
      const blockID = String(t[0]!.doOperations[0]!.id);
      const avID = /data-av-id="([^"]+)"/.exec(String(t[0]!.doOperations[0]!.data))![1]!;
      await ok(one, "/api/av/renderAttributeView", { id: avID, blockID });
      const viaRoute = await ok<{ id: string } | null>(one, "/__sandbox/av", { id: avID });
      expect(viaRoute?.id).toBe(avID);
      const log = await ok<Array<{ kind: string }>>(one, "/__sandbox/av-log", { id: avID });
      expect(log.map((e) => e.kind)).toEqual(["created"]);
      await one.stop();
      const onDisk = JSON.parse(
        readFileSync(join(dir, "data", "storage", "av", `${avID}.json`), "utf8"),
      ) as { id: string; views: Array<{ type: string }> };
      expect(onDisk.id).toBe(avID);
      expect(onDisk.views[0]!.type).toBe("kanban");
      const two = await start({ dataDir: dir, flushIntervalMs: 60_000 });
      try {
        expect(two.control.avBlocks(avID)).toEqual([blockID]);
        expect(await kramdown(two, blockID)).toContain(`data-av-type="kanban"`);
        const r = await ok<Render>(two, "/api/av/renderAttributeView", {
          id: avID,
          createIfNotExist: false,
        });
        expect(r.viewType).toBe("kanban");
      } finally {
        await two.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
