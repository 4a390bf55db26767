/**
 * Database reads beside the file and render, and the copy of a database (SiYuan 3.7.3,
 * kernel-probes av.filter-sort, av.search, av.primary-key-values, av.duplicate): a view's filters
 * and sorts and the two endpoints that set them, databases by name, one page of a database's
 * primary-key values, and `duplicateAttributeViewBlock`.
 */
import {
  type AttributeView,
  type AvView,
  avBlocks,
  avStore,
  bindBlock,
  primaryKey,
} from "./av-model.js";
import { isValidNodeId } from "./clock.js";
import { kernelError } from "./errors.js";
import { type HandlerContext, panicReply, type Route, reqStr } from "./handler-kit.js";
import { jaroWinkler } from "./handlers-reads.js";
import type { Kernel } from "./kernel.js";

const r = (handler: Route["handler"], write = false): Route => ({
  handler,
  auth: true,
  body: "json",
  write,
});

/** The view a block shows (`custom-sy-av-view`), else the database's current one, else the first. */
function viewOf(kernel: Kernel, av: AttributeView, blockID: string): AvView | undefined {
  const shown =
    blockID === "" ? undefined : kernel.ws.locate(blockID)?.block.attrs["custom-sy-av-view"];
  return (
    av.views.find((v) => v.id === shown) ?? av.views.find((v) => v.id === av.viewID) ?? av.views[0]
  );
}

/** getAttributeViewFilterSort: both `null` without a file; `[]` for none. */
function getAttributeViewFilterSort(ctx: HandlerContext): unknown {
  const id = reqStr(ctx, "id");
  const blockID = reqStr(ctx, "blockID");
  const av = avStore(ctx.kernel).peek(id);
  if (!av) return { filters: null, sorts: null };
  const view = viewOf(ctx.kernel, av, blockID);
  if (!view) return { filters: null, sorts: null };
  return { filters: view.filters ?? [], sorts: view.sorts ?? [] };
}

/**
 * setAttrViewFilters: the view's filters replaced; leaves not already under one root group are
 * wrapped in an "and" root group (spec 5), as the kernel does.
 */
function setAttrViewFilters(ctx: HandlerContext): unknown {
  const [avID, blockID] = [reqStr(ctx, "avID"), reqStr(ctx, "blockID")];
  const data = ctx.body.data;
  if (!Array.isArray(data)) throw panicReply();
  const store = avStore(ctx.kernel);
  const av = store.require(avID);
  const view = viewOf(ctx.kernel, av, blockID);
  if (!view) throw kernelError(-1, "view not found");
  const leaves = data.map((f) => f as Record<string, unknown>);
  const grouped = leaves.length === 1 && Array.isArray(leaves[0]?.["filters"]);
  view.filters = grouped
    ? leaves
    : [{ column: "", operator: "", value: null, combination: "and", filters: leaves }];
  store.save(av, ctx.path);
  return null;
}

/** setAttrViewSorts: the view's sorts replaced as given. */
function setAttrViewSorts(ctx: HandlerContext): unknown {
  const [avID, blockID] = [reqStr(ctx, "avID"), reqStr(ctx, "blockID")];
  const data = ctx.body.data;
  if (!Array.isArray(data)) throw panicReply();
  const store = avStore(ctx.kernel);
  const av = store.require(avID);
  const view = viewOf(ctx.kernel, av, blockID);
  if (!view) throw kernelError(-1, "view not found");
  view.sorts = data.map((s) => s as Record<string, unknown>);
  store.save(av, ctx.path);
  return null;
}

/**
 * searchAttributeView: databases (files of `data/storage/av/`) that a database block in an open
 * notebook shows, named with every word of `keyword` (any case; `""`: all), at most 12: best
 * Jaro-Winkler score first, then the file changed last; each with its first block, the block's
 * document path (notebook name first) and one child per view.
 */
function searchAttributeView(ctx: HandlerContext): unknown {
  const kw = ctx.body.keyword;
  if (typeof kw !== "string") throw panicReply();
  const keyword = kw.trim();
  const words = keyword.split(/\s+/).filter(Boolean);
  const excludes = Array.isArray(ctx.body.excludes) ? (ctx.body.excludes as unknown[]) : [];
  const store = avStore(ctx.kernel);
  const files = ctx.kernel.files;
  const found: Array<{ av: AttributeView; updated: number; score: number }> = [];
  const dir = "/data/storage/av";
  if (files.kind(dir) === "dir") {
    for (const e of files.list(dir)) {
      const id = e.name.replace(/\.json$/, "");
      if (e.isDir || !isValidNodeId(id) || excludes.includes(id)) continue;
      const av = store.peek(id);
      if (!av || avBlocks(ctx.kernel, id).length === 0) continue;
      let score = 0;
      const lower = av.name.toLowerCase();
      if (words.some((w) => !lower.includes(w.toLowerCase()))) continue;
      for (const w of words) score += jaroWinkler(av.name, w);
      found.push({ av, updated: e.updated, score });
    }
  }
  found.sort((x, y) => y.score - x.score || y.updated - x.updated);
  const results = found.slice(0, 12).map(({ av }) => {
    const block = avBlocks(ctx.kernel, av.id)[0]!;
    const loc = ctx.kernel.ws.locate(block.id);
    const box = loc ? ctx.kernel.ws.notebooks.get(loc.doc.box) : undefined;
    const hPath = loc ? `${box?.conf.name ?? ""}${ctx.kernel.ws.hpath(loc.doc.id)}` : "";
    const base = { avID: av.id, avName: av.name, blockID: block.id, hPath };
    return {
      avID: av.id,
      avName: av.name,
      viewName: "",
      viewID: "",
      viewLayout: "",
      blockID: block.id,
      hPath,
      children: av.views.map((v) => ({
        ...base,
        viewName: v.name,
        viewID: v.id,
        viewLayout: v.type,
        blockID: block.id,
        hPath,
      })),
    };
  });
  return { results };
}

/**
 * getAttributeViewPrimaryKeyValues: the name ("Untitled" when empty), the blocks showing the
 * database, and the primary-key values whose text holds `keyword` (any case), bound rows whose
 * block is gone left out, last updated first, one page (`pageSize` below 1: 16). A page past the
 * end panics in the kernel (recovered: code 0, data null); the values are left out when none.
 */
function getAttributeViewPrimaryKeyValues(ctx: HandlerContext): unknown {
  const id = reqStr(ctx, "id");
  const page = typeof ctx.body.page === "number" ? ctx.body.page : 1;
  let pageSize = typeof ctx.body.pageSize === "number" ? ctx.body.pageSize : -1;
  const keyword = typeof ctx.body.keyword === "string" ? ctx.body.keyword.toLowerCase() : "";
  const av = avStore(ctx.kernel).require(id, "view not found");
  const pk = primaryKey(av);
  const values = (av.keyValues.find((kv) => kv.key.id === pk.id)?.values ?? [])
    .filter((v) => {
      const bound = String((v["block"] as { id?: unknown } | undefined)?.id ?? "");
      return v.isDetached === true || ctx.kernel.ws.locate(bound) !== null;
    })
    .filter((v) => {
      const content = String((v["block"] as { content?: unknown } | undefined)?.content ?? "");
      return content.toLowerCase().includes(keyword);
    });
  const updated = (v: (typeof values)[number]) =>
    Number((v["block"] as { updated?: unknown } | undefined)?.updated ?? 0);
  values.sort((a, b) => updated(b) - updated(a));
  if (pageSize < 1) pageSize = 16;
  const start = (page - 1) * pageSize;
  const end = Math.min(values.length, start + pageSize);
  if (start > end || start < 0) throw panicReply();
  // `isDetached` is `omitempty` in the kernel's JSON
  const slice = values
    .slice(start, end)
    .map(({ isDetached, ...v }) => (isDetached === true ? { ...v, isDetached } : v));
  return {
    name: av.name.trim() === "" ? "Untitled" : av.name.trim(),
    blockIDs: avBlocks(ctx.kernel, id).map((b) => b.id),
    rows: { key: pk, ...(slice.length > 0 ? { values: slice } : {}) },
  };
}

/**
 * duplicateAttributeViewBlock (`model.DuplicateDatabaseBlock`): a copy of the database's file under
 * a new ID (the old ID replaced wherever it occurs; keys, views and items keep theirs), named
 * "<name> (Duplicated <local time>)" unless unnamed, two-way relations made one-way; every bound
 * block also shows the copy (`custom-avs`, `av-names`). No block is made: the answer's `blockID` is
 * the ID the caller's carrier block is to have (the editor inserts it after the original).
 */
function duplicateAttributeViewBlock(ctx: HandlerContext): unknown {
  const avID = reqStr(ctx, "avID");
  const store = avStore(ctx.kernel);
  const old = store.require(avID, "view not found");
  const newAvID = store.newId();
  const newBlockID = store.newId();
  const copy = JSON.parse(JSON.stringify(old).split(avID).join(newAvID)) as AttributeView;
  if (copy.name !== "") {
    const t = ctx.kernel.ids.timestamp();
    const when = `${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)} ${t.slice(8, 10)}:${t.slice(10, 12)}:${t.slice(12, 14)}`;
    copy.name = `${old.name} (Duplicated ${when})`;
  }
  for (const kv of copy.keyValues) {
    if (kv.key.relation?.isTwoWay)
      kv.key.relation = { ...kv.key.relation, isTwoWay: false, backKeyID: "" };
  }
  store.save(copy, ctx.path);
  const pk = primaryKey(copy);
  for (const v of copy.keyValues.find((kv) => kv.key.id === pk.id)?.values ?? []) {
    const bound = (v["block"] as { id?: unknown } | undefined)?.id;
    if (v.isDetached !== true && typeof bound === "string")
      bindBlock(ctx.kernel, copy, bound, true);
  }
  return { avID: newAvID, blockID: newBlockID };
}

/** The routes of this file. */
export const avReadRoutes: Record<string, Route> = {
  "/api/av/getAttributeViewFilterSort": r(getAttributeViewFilterSort),
  "/api/av/setAttrViewFilters": r(setAttrViewFilters, true),
  "/api/av/setAttrViewSorts": r(setAttrViewSorts, true),
  "/api/av/searchAttributeView": r(searchAttributeView),
  "/api/av/getAttributeViewPrimaryKeyValues": r(getAttributeViewPrimaryKeyValues),
  "/api/av/duplicateAttributeViewBlock": r(duplicateAttributeViewBlock, true),
};
