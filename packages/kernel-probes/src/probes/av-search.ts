/**
 * Database reads and renaming, and the search endpoints of issue 34's av and search actions:
 * filters and sorts of a view, databases by name, primary-key values, setAttrViewName's answers,
 * the `((` reference search, the text of indexed asset files and semantic search.
 */
import type { ProbeContext } from "../probe.js";
import { newNodeId } from "./av.js";
import { childAt, data, probe, UNKNOWN_ID } from "./kit.js";

interface AvKey {
  id: string;
  name: string;
  type: string;
}

/** The parts of a database file the duplicate probe compares. */
interface AvFileJson {
  id: string;
  name: string;
  keyValues: Array<{
    key: AvKey;
    values?: Array<{
      blockID: string;
      isDetached?: boolean;
      block?: { id?: string; content?: string };
    }>;
  }>;
  views: Array<{ id: string }>;
}

/** A database block at the end of `doc`, its file rendered; returns the IDs and the primary key. */
async function database(ctx: ProbeContext, doc: string, name: string | null) {
  const block = newNodeId();
  const av = newNodeId();
  await ctx.quiet("/api/block/appendBlock", {
    dataType: "markdown",
    data: `<div data-type="NodeAttributeView" data-av-id="${av}" data-av-type="table"></div>\n{: id="${block}"}`,
    parentID: doc,
  });
  await ctx.flush();
  await ctx.quiet("/api/av/renderAttributeView", { id: av, blockID: block });
  if (name !== null) {
    await ctx.quiet("/api/transactions", {
      transactions: [{ doOperations: [{ action: "setAttrViewName", id: av, data: name }] }],
      reqId: 1,
    });
    await ctx.flush();
  }
  const keys = await ctx.quiet<AvKey[]>("/api/av/getAttributeViewKeysByAvID", { avID: av });
  const pk = keys.find((k) => k.type === "block")?.id ?? "";
  return { block, av, pk };
}

/** A transaction of one database op (recorded). */
const tx = (ctx: ProbeContext, label: string, op: Record<string, unknown>) =>
  ctx.post(label, "/api/transactions", { transactions: [{ doOperations: [op] }], reqId: 1 });

/** searchAttributeView kept to the databases this probe made (others of the run are left out). */
const ours =
  (...avs: string[]) =>
  (j: unknown) => {
    const e = j as { code: number; data: { results: Array<{ avID: string }> } | null };
    if (e.data === null) return e;
    return { ...e, data: { results: e.data.results.filter((x) => avs.includes(x.avID)) } };
  };

export const avSearchProbes = [
  probe(
    "av.filter-sort",
    "a view's filters (one root group, spec 5) and sorts, before and after they are set",
    [
      "/api/av/getAttributeViewFilterSort",
      "/api/av/setAttrViewFilters",
      "/api/av/setAttrViewSorts",
    ],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Filtered", "Intro");
      const { block, av, pk } = await database(ctx, doc, "Filtered");
      await ctx.post("fresh view", "/api/av/getAttributeViewFilterSort", {
        id: av,
        blockID: block,
      });
      await ctx.post("no block: current view", "/api/av/getAttributeViewFilterSort", {
        id: av,
        blockID: "",
      });
      await ctx.post("blockID missing", "/api/av/getAttributeViewFilterSort", { id: av });
      await ctx.post("unknown database", "/api/av/getAttributeViewFilterSort", {
        id: UNKNOWN_ID,
        blockID: "",
      });
      await ctx.post("set filters", "/api/av/setAttrViewFilters", {
        avID: av,
        blockID: block,
        data: [
          {
            column: pk,
            operator: "Contains",
            value: { type: "block", block: { content: "apple" } },
          },
        ],
      });
      await ctx.post("set sorts", "/api/av/setAttrViewSorts", {
        avID: av,
        blockID: block,
        data: [{ column: pk, order: "DESC" }],
      });
      await ctx.post("after set", "/api/av/getAttributeViewFilterSort", { id: av, blockID: block });
    },
  ),
  probe(
    "av.search",
    "databases by name: every word in the name, any case; excludes; none",
    ["/api/av/searchAttributeView"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Databases", "Intro");
      const a = await database(ctx, doc, "Zephyr Tasks");
      const b = await database(ctx, doc, "Zephyr Reading list");
      const keep = { keep: ours(a.av, b.av) };
      await ctx.post("one word", "/api/av/searchAttributeView", { keyword: "zephyr tasks" }, keep);
      await ctx.post("both", "/api/av/searchAttributeView", { keyword: "Zephyr list" }, keep);
      await ctx.post(
        "excluded",
        "/api/av/searchAttributeView",
        { keyword: "Zephyr Tasks", excludes: [a.av] },
        keep,
      );
      await ctx.post("no hit", "/api/av/searchAttributeView", { keyword: "zephyr nothing" });
      await ctx.post("keyword missing", "/api/av/searchAttributeView", {});
    },
  ),
  probe(
    "av.primary-key-values",
    "primary-key values: last updated first, keyword, pages, past the end, unnamed, unknown",
    ["/api/av/getAttributeViewPrimaryKeyValues"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Keyed", "A bound paragraph");
      const bound = await childAt(ctx, doc, 0);
      const { av } = await database(ctx, doc, "Keyed");
      await ctx.quiet("/api/av/addAttributeViewBlocks", {
        avID: av,
        srcs: [{ id: "", isDetached: true, content: "Row one", itemID: newNodeId() }],
      });
      await ctx.sleep(1100);
      await ctx.quiet("/api/av/addAttributeViewBlocks", {
        avID: av,
        srcs: [{ id: "", isDetached: true, content: "Row two apple", itemID: newNodeId() }],
      });
      await ctx.sleep(1100);
      await ctx.quiet("/api/av/addAttributeViewBlocks", {
        avID: av,
        srcs: [{ id: bound.id, isDetached: false, itemID: newNodeId() }],
      });
      await ctx.flush();
      const pk = (label: string, body: Record<string, unknown>) =>
        ctx.post(label, "/api/av/getAttributeViewPrimaryKeyValues", { id: av, ...body });
      await pk("all", {});
      await pk("keyword any case", { keyword: "APPLE" });
      await pk("page 2 of 1", { page: 2, pageSize: 1 });
      await pk("past the end", { page: 9, pageSize: 1 });
      const unnamed = await database(ctx, doc, null);
      await ctx.post("unnamed, no rows", "/api/av/getAttributeViewPrimaryKeyValues", {
        id: unnamed.av,
      });
      await ctx.post("unknown database", "/api/av/getAttributeViewPrimaryKeyValues", {
        id: UNKNOWN_ID,
      });
    },
  ),
  probe(
    "av.rename",
    "setAttrViewName: trimmed, newlines as spaces; the block's av-names; empty; unknown database",
    ["/api/transactions"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Renamed", "Intro");
      const { av, block } = await database(ctx, doc, "Before");
      await tx(ctx, "rename", { action: "setAttrViewName", id: av, data: " After\nall " });
      await ctx.flush();
      const file = await ctx.post(
        "file after rename",
        "/api/av/getAttributeView",
        { id: av },
        {
          keep: (j) => ({ name: (j as { data: { av: { name: string } } }).data.av.name }),
        },
      );
      void data(file);
      await ctx.post("block attrs after rename", "/api/attr/getBlockAttrs", { id: block });
      await tx(ctx, "rename to empty", { action: "setAttrViewName", id: av, data: "" });
      await ctx.flush();
      await ctx.post(
        "file after empty name",
        "/api/av/getAttributeView",
        { id: av },
        {
          keep: (j) => ({ name: (j as { data: { av: { name: string } } }).data.av.name }),
        },
      );
      await tx(ctx, "rename unknown", { action: "setAttrViewName", id: UNKNOWN_ID, data: "X" });
      await ctx.flush();
      await ctx.post("unknown still has no file", "/api/av/getAttributeView", { id: UNKNOWN_ID });
    },
  ),
  probe(
    "av.duplicate",
    "duplicateAttributeViewBlock: a copy of the file under a new ID, no block until one is inserted",
    ["/api/av/duplicateAttributeViewBlock"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Copied", "A bound paragraph");
      const bound = await childAt(ctx, doc, 0);
      const { av, block } = await database(ctx, doc, "Source");
      await ctx.quiet("/api/av/addAttributeViewBlocks", {
        avID: av,
        srcs: [
          { id: "", isDetached: true, content: "Detached", itemID: newNodeId() },
          { id: bound.id, isDetached: false, itemID: newNodeId() },
        ],
      });
      await ctx.flush();
      const when = (j: unknown) =>
        JSON.parse(
          JSON.stringify(j).replace(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/g, "<datetime>"),
        ) as unknown;
      const dup = await ctx.post("duplicate", "/api/av/duplicateAttributeViewBlock", { avID: av });
      const made = data<{ avID: string; blockID: string }>(dup);
      await ctx.flush();
      // the file kept to what the copy carries over (the sandbox's file differs in layout fields)
      const copied = (j: unknown) => {
        const av = (j as { data: { av: AvFileJson } }).data.av;
        return when({
          id: av.id,
          name: av.name,
          keys: av.keyValues.map((kv) => ({ id: kv.key.id, name: kv.key.name, type: kv.key.type })),
          rows: av.keyValues
            .flatMap((kv) => (kv.key.type === "block" ? (kv.values ?? []) : []))
            .map((v) => ({
              item: v.blockID,
              content: v.block?.content,
              bound: v.isDetached === true ? null : (v.block?.id ?? null),
            }))
            .sort((a, b) => ((a.content ?? "") < (b.content ?? "") ? -1 : 1)),
          views: av.views.map((v) => v.id),
        });
      };
      await ctx.post(
        "copy's file",
        "/api/av/getAttributeView",
        { id: made.avID },
        { keep: copied },
      );
      await ctx.post(
        "source's file",
        "/api/av/getAttributeView",
        { id: av },
        {
          keep: (j) => ({ name: (j as { data: { av: { name: string } } }).data.av.name }),
        },
      );
      await ctx.post(
        "bound block attrs",
        "/api/attr/getBlockAttrs",
        { id: bound.id },
        { keep: when },
      );
      await ctx.post("copy's block before insert", "/api/block/getBlockKramdown", {
        id: made.blockID,
      });
      await ctx.post(
        "insert the copy's block",
        "/api/block/insertBlock",
        {
          dataType: "markdown",
          data: `<div data-type="NodeAttributeView" data-av-id="${made.avID}" data-av-type="table"></div>\n{: id="${made.blockID}"}`,
          previousID: block,
        },
        { mask: ["data.0.doOperations.0.data"] },
      );
      await ctx.flush();
      await ctx.post("copy's block after insert", "/api/block/getBlockKramdown", {
        id: made.blockID,
      });
      const unnamed = await database(ctx, doc, null);
      const dup2 = await ctx.post("duplicate unnamed", "/api/av/duplicateAttributeViewBlock", {
        avID: unnamed.av,
      });
      await ctx.post(
        "unnamed copy's name",
        "/api/av/getAttributeView",
        {
          id: data<{ avID: string }>(dup2).avID,
        },
        { keep: (j) => ({ name: (j as { data: { av: { name: string } } }).data.av.name }) },
      );
      await ctx.post("duplicate unknown", "/api/av/duplicateAttributeViewBlock", {
        avID: UNKNOWN_ID,
      });
    },
  ),
  probe(
    "search.ref-blocks",
    "the (( search: ranked hits, the referencing block and its document left out, an ID, newDoc",
    ["/api/search/searchRefBlock"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(
        nb,
        "/Quokka notes",
        "# Quokka heading\n\nA quokka paragraph\n\nOther text",
      );
      const para = await childAt(ctx, doc, 1);
      const other = await childAt(ctx, doc, 2);
      await ctx.flush();
      const ref = (label: string, body: Record<string, unknown>) =>
        ctx.post(label, "/api/search/searchRefBlock", { beforeLen: 48, ...body });
      await ref("from another block", { id: other.id, rootID: doc, k: "quokka" });
      await ref("from the paragraph", { id: para.id, rootID: doc, k: "quokka" });
      await ref("by ID", { id: other.id, rootID: doc, k: para.id });
      await ref("new doc name", { id: other.id, rootID: doc, k: "Quokka zzz" });
      await ref("no id", { k: "quokka" });
      await ref("unknown block", { id: UNKNOWN_ID, rootID: UNKNOWN_ID, k: "quokka" });
    },
  ),
  probe(
    "search.asset-content",
    "text of an asset file, indexed a moment after it is written; pages; no hit; empty query",
    ["/api/search/fullTextSearchAssetContent"],
    async (ctx) => {
      const name = "/data/assets/wombat-notes-20240101000000-abcdefg.txt";
      const body = "Quarterly wombat report\nsecond line names the wombat again\n";
      await ctx.quietRaw({
        path: "/api/file/putFile",
        form: [
          { name: "path", value: name },
          { name: "file", filename: "notes.txt", bytes: new TextEncoder().encode(body) },
        ],
      });
      const search = (q: Record<string, unknown>) =>
        ctx.quiet<{ matchedAssetCount: number }>("/api/search/fullTextSearchAssetContent", q);
      await ctx.poll(
        () => search({ query: "wombat" }),
        (r) => r.matchedAssetCount > 0,
      );
      const keep = { mask: ["data.assetContents.*.updated"] };
      await ctx.post("hit", "/api/search/fullTextSearchAssetContent", { query: "WOMBAT" }, keep);
      await ctx.post(
        "page 2",
        "/api/search/fullTextSearchAssetContent",
        { query: "wombat", page: 2, pageSize: 1 },
        keep,
      );
      await ctx.post("no hit", "/api/search/fullTextSearchAssetContent", { query: "zzqqy" });
      await ctx.post("empty query", "/api/search/fullTextSearchAssetContent", { query: "" });
      await ctx.quiet("/api/file/removeFile", { path: name });
    },
  ),
  probe(
    "search.semantic",
    "semantic search while SiYuan's embedding is off (a fresh workspace): no blocks, code 0",
    ["/api/search/semanticSearchBlock"],
    async (ctx) => {
      await ctx.post("off", "/api/search/semanticSearchBlock", { query: "anything" });
    },
  ),
];
