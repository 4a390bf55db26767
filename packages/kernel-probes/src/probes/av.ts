/** Databases (contract §4.7): the stages of creation, keys, rows, values, transactions. */
import type { ProbeContext } from "../probe.js";
import { childAt, data, kramdown, probe, UNKNOWN_ID } from "./kit.js";

const pad = (n: number) => String(n).padStart(2, "0");
let seq = 0;

/** A fresh node ID made by the client, as the product makes them (local time + 7 characters). */
export function newNodeId(): string {
  const d = new Date();
  const stamp = `${d.getFullYear()}${pad(d.getMonth() + 1)}${pad(d.getDate())}${pad(d.getHours())}${pad(d.getMinutes())}${pad(d.getSeconds())}`;
  seq = (seq + 1) % 1000;
  const tail = `${Math.random().toString(36).slice(2, 6).padEnd(4, "0")}${String(seq).padStart(3, "0")}`;
  return `${stamp}-${tail}`;
}

/** Inserts a database block with chosen IDs (as av.create does); returns the block's reply. */
async function carrier(
  ctx: ProbeContext,
  label: string | null,
  doc: string,
  block: string,
  av: string,
) {
  const body = {
    dataType: "markdown",
    data: `<div data-type="NodeAttributeView" data-av-id="${av}" data-av-type="table"></div>\n{: id="${block}"}`,
    parentID: doc,
  };
  if (label === null) return ctx.quiet("/api/block/appendBlock", body);
  return ctx.post(label, "/api/block/appendBlock", body);
}

/** renderAttributeView kept to what is stable (views, columns, rows). */
const render = (j: unknown) => j;

interface AvKey {
  id: string;
  name: string;
  type: string;
}

export const avProbes = [
  probe(
    "av.stages",
    "a database block, then its file only after the first render; reads and writes before it",
    [
      "/api/av/getAttributeView",
      "/api/av/renderAttributeView",
      "/api/av/getAttributeViewKeysByAvID",
      "/api/av/addAttributeViewKey",
    ],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Database", "Intro");
      const block = newNodeId();
      const av = newNodeId();
      await carrier(ctx, "insert block", doc, block, av);
      await ctx.flush();
      ctx.note("block kramdown", await kramdown(ctx, block));
      await ctx.post("file before render", "/api/av/getAttributeView", { id: av });
      await ctx.post("keys before render", "/api/av/getAttributeViewKeysByAvID", { avID: av });
      await ctx.post("add key before render", "/api/av/addAttributeViewKey", {
        avID: av,
        keyID: newNodeId(),
        keyName: "Early",
        keyType: "text",
        keyIcon: "",
        previousKeyID: "",
      });
      await ctx.post("render without create", "/api/av/renderAttributeView", {
        id: av,
        createIfNotExist: false,
      });
      await ctx.post(
        "render",
        "/api/av/renderAttributeView",
        { id: av, blockID: block, pageSize: 1 },
        {
          keep: render,
        },
      );
      await ctx.post("file after render", "/api/av/getAttributeView", { id: av });
      await ctx.post("keys after render", "/api/av/getAttributeViewKeysByAvID", { avID: av });
      await ctx.post("block attrs after render", "/api/attr/getBlockAttrs", { id: block });
      await ctx.post("sql row of the block", "/api/query/sql", {
        stmt: `SELECT type, content, markdown FROM blocks WHERE id = '${block}'`,
      });
      await ctx.post("file of an unknown id", "/api/av/getAttributeView", { id: UNKNOWN_ID });
      await ctx.post("render malformed id", "/api/av/renderAttributeView", { id: "nope" });
    },
  ),
  probe(
    "av.keys-rows-values",
    "keys added and removed, rows detached and bound, cell values, rowID refusal",
    [
      "/api/av/addAttributeViewKey",
      "/api/av/removeAttributeViewKey",
      "/api/av/addAttributeViewBlocks",
      "/api/av/removeAttributeViewBlocks",
      "/api/av/setAttributeViewBlockAttr",
      "/api/av/batchSetAttributeViewBlockAttrs",
      "/api/av/renderAttributeView",
    ],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Database rows", "A bound paragraph");
      const bound = await childAt(ctx, doc, 0);
      const block = newNodeId();
      const av = newNodeId();
      await carrier(ctx, null, doc, block, av);
      await ctx.flush();
      await ctx.quiet("/api/av/renderAttributeView", { id: av, blockID: block });
      const keys = await ctx.quiet<AvKey[]>("/api/av/getAttributeViewKeysByAvID", { avID: av });
      const pk = keys.find((k) => k.type === "block");
      const select = keys.find((k) => k.type === "select");
      const text = newNodeId();
      const num = newNodeId();
      await ctx.post("add text key after pk", "/api/av/addAttributeViewKey", {
        avID: av,
        keyID: text,
        keyName: "Notes",
        keyType: "text",
        keyIcon: "",
        previousKeyID: pk?.id ?? "",
      });
      await ctx.post("add number key first", "/api/av/addAttributeViewKey", {
        avID: av,
        keyID: num,
        keyName: "Count",
        keyType: "number",
        keyIcon: "",
        previousKeyID: "",
      });
      await ctx.post("add block-type key", "/api/av/addAttributeViewKey", {
        avID: av,
        keyID: newNodeId(),
        keyName: "Another PK",
        keyType: "block",
        keyIcon: "",
        previousKeyID: "",
      });
      await ctx.post("keys", "/api/av/getAttributeViewKeysByAvID", { avID: av });
      await ctx.post("remove select key", "/api/av/removeAttributeViewKey", {
        avID: av,
        keyID: select?.id,
      });
      await ctx.post("remove primary key", "/api/av/removeAttributeViewKey", {
        avID: av,
        keyID: pk?.id,
      });
      await ctx.post("remove unknown key", "/api/av/removeAttributeViewKey", {
        avID: av,
        keyID: UNKNOWN_ID,
      });
      const item1 = newNodeId();
      const item2 = newNodeId();
      await ctx.post("add detached row", "/api/av/addAttributeViewBlocks", {
        avID: av,
        srcs: [{ id: "", isDetached: true, content: "Detached row", itemID: item1 }],
      });
      await ctx.post("add bound row", "/api/av/addAttributeViewBlocks", {
        avID: av,
        srcs: [{ id: bound.id, isDetached: false, itemID: item2 }],
      });
      await ctx.post("set a cell", "/api/av/setAttributeViewBlockAttr", {
        avID: av,
        keyID: text,
        itemID: item1,
        value: { text: { content: "note one" } },
      });
      await ctx.post("set cells in a batch", "/api/av/batchSetAttributeViewBlockAttrs", {
        avID: av,
        values: [
          { keyID: num, itemID: item1, value: { number: { content: 42, isNotEmpty: true } } },
          { keyID: text, itemID: item2, value: { text: { content: "note two" } } },
        ],
      });
      await ctx.post("set with rowID", "/api/av/setAttributeViewBlockAttr", {
        avID: av,
        keyID: text,
        rowID: item1,
        value: { text: { content: "x" } },
      });
      await ctx.post("set unknown key", "/api/av/setAttributeViewBlockAttr", {
        avID: av,
        keyID: UNKNOWN_ID,
        itemID: item1,
        value: { text: { content: "x" } },
      });
      await ctx.post("render rows", "/api/av/renderAttributeView", { id: av, blockID: block });
      await ctx.post(
        "render page size 1",
        "/api/av/renderAttributeView",
        { id: av, blockID: block, page: 2, pageSize: 1 },
        {
          keep: (j) => {
            const v = (j as { data: { view: Record<string, unknown> } }).data.view;
            const rows = Array.isArray(v["rows"]) ? (v["rows"] as unknown[]) : [];
            return { rows: rows.length, rowCount: v["rowCount"], pageSize: v["pageSize"] };
          },
        },
      );
      await ctx.flush();
      await ctx.post("bound block attrs", "/api/attr/getBlockAttrs", { id: bound.id });
      await ctx.post("remove rows", "/api/av/removeAttributeViewBlocks", {
        avID: av,
        srcIDs: [item1, item2],
      });
      await ctx.flush();
      await ctx.post("render after remove", "/api/av/renderAttributeView", {
        id: av,
        blockID: block,
      });
      await ctx.post("bound block still there", "/api/block/checkBlockExist", { id: bound.id });
      await ctx.post("bound block attrs after remove", "/api/attr/getBlockAttrs", { id: bound.id });
    },
  ),
  probe(
    "av.transactions",
    "/api/transactions: setAttrViewName, addAttrViewCol, relation and rollup keys",
    ["/api/transactions"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Database tx", "Intro");
      const ids = { a: newNodeId(), b: newNodeId(), ba: newNodeId(), bb: newNodeId() };
      await carrier(ctx, null, doc, ids.ba, ids.a);
      await carrier(ctx, null, doc, ids.bb, ids.b);
      await ctx.flush();
      await ctx.quiet("/api/av/renderAttributeView", { id: ids.a, blockID: ids.ba });
      await ctx.quiet("/api/av/renderAttributeView", { id: ids.b, blockID: ids.bb });
      await ctx.post("set name", "/api/transactions", {
        transactions: [
          { doOperations: [{ action: "setAttrViewName", id: ids.a, data: "  Tasks\nlist " }] },
        ],
        reqId: 1,
      });
      const rel = newNodeId();
      const back = newNodeId();
      const roll = newNodeId();
      const keysB = await ctx.quiet<AvKey[]>("/api/av/getAttributeViewKeysByAvID", { avID: ids.b });
      const pkB = keysB.find((k) => k.type === "block");
      await ctx.post("relation and rollup", "/api/transactions", {
        transactions: [
          {
            doOperations: [
              {
                action: "addAttrViewCol",
                avID: ids.a,
                id: rel,
                name: "Link",
                type: "relation",
                previousID: "",
              },
              {
                action: "updateAttrViewColRelation",
                avID: ids.a,
                id: ids.b,
                keyID: rel,
                isTwoWay: true,
                backRelationKeyID: back,
                name: "Back",
                format: "Link",
              },
              {
                action: "addAttrViewCol",
                avID: ids.a,
                id: roll,
                name: "Roll",
                type: "rollup",
                previousID: rel,
              },
              {
                action: "updateAttrViewColRollup",
                avID: ids.a,
                id: roll,
                parentID: rel,
                keyID: pkB?.id,
                data: { calc: { operator: "Count all" } },
              },
            ],
          },
        ],
        reqId: 2,
      });
      await ctx.flush();
      const file = await ctx.post(
        "file a",
        "/api/av/getAttributeView",
        { id: ids.a },
        {
          keep: (j) => {
            const e = j as { data: { av: { name: string; keyValues: Array<{ key: unknown }> } } };
            return { name: e.data.av.name, keys: e.data.av.keyValues.map((kv) => kv.key) };
          },
        },
      );
      void data(file);
      await ctx.post("keys b", "/api/av/getAttributeViewKeysByAvID", { avID: ids.b });
      await ctx.post("unknown action", "/api/transactions", {
        transactions: [{ doOperations: [{ action: "noSuchAction", id: ids.a }] }],
        reqId: 3,
      });
      await ctx.post("no transactions", "/api/transactions", { reqId: 4 });
    },
  ),
];
