/**
 * Search endpoints beside fullTextSearchBlock (SiYuan 3.7.3, kernel-probes search.ref-blocks,
 * search.asset-content, search.semantic): the editor's `((` reference search, the text of indexed
 * asset files, and semantic search (empty while SiYuan's embedding is off, as it always is here).
 */
import type { SqlValue } from "sql.js";
import { blockJsonOfRow } from "./block-json.js";
import { SQL_DEFAULT_LIMIT_ROWS as SEARCH_LIMIT } from "./constants.js";
import { type HandlerContext, panicReply, type Route } from "./handler-kit.js";
import { DEFAULT_SEARCH_TYPES } from "./handlers-misc.js";
import { hSize } from "./handlers-repo.js";
import type { Kernel } from "./kernel.js";
import { escapeHtml } from "./render.js";

const r = (handler: Route["handler"]): Route => ({
  handler,
  auth: true,
  body: "json",
  write: false,
});

const SEARCH_TYPES = [...DEFAULT_SEARCH_TYPES];
const CONTAINERS = new Set(["d", "l", "i", "b", "s", "callout"]);
const NODE_ID = /\d{14}-[0-9a-z]{7}/;

/** `<mark>` around every case-insensitive occurrence of `k` in the HTML-escaped text. */
function marked(text: string, k: string): string {
  const ek = escapeHtml(k).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return escapeHtml(text).replace(new RegExp(ek, "gi"), (m) => `<mark>${m}</mark>`);
}

/** The kernel's ranking of a `((` hit (`fullTextSearchRefBlock`'s ORDER BY CASE). */
function refRank(row: Record<string, SqlValue>, k: string): number {
  const s = (c: string) => String(row[c] ?? "");
  const has = (c: string) => s(c).toLowerCase().includes(k.toLowerCase());
  const type = s("type");
  if (s("name") === k) return 10;
  if (s("alias") === k) return 20;
  if (s("memo") === k) return 30;
  if (type === "d" && s("content") === k) return 40;
  if (type === "d" && has("content")) return 41;
  if (has("name")) return 50;
  if (has("alias")) return 60;
  if (type === "h" && s("content") === k) return 70;
  if (type === "h" && has("content")) return 71;
  if (type === "i" && s("fcontent") === k) return 80;
  if (type === "i" && has("fcontent")) return 81;
  if (has("memo")) return 90;
  if (has("content") && type !== "i" && type !== "l") return 100;
  return 65535;
}

/** The first leaf block under a container (`treenode.FirstLeafBlock`), by the SQL index. */
function firstLeafID(kernel: Kernel, id: string): string {
  let cur = id;
  for (let depth = 0; depth < 64; depth++) {
    const child = kernel.sql.select(
      "SELECT id, type FROM blocks WHERE parent_id = ? ORDER BY sort ASC LIMIT 1",
      [cur],
    )[0];
    if (!child) return cur;
    cur = String(child["id"]);
    if (!CONTAINERS.has(String(child["type"]))) return cur;
  }
  return cur;
}

/**
 * searchRefBlock with a keyword: blocks of the default search types whose name, alias, memo, tag
 * or content holds it (any case; an ID in it finds that block), ranked as the kernel ranks them,
 * then `sort` and `length`, at most 64; the referencing block, its document and a container whose
 * first leaf it is left out (a database block never). `refText` the block's text (a document's
 * title), `hPath` led by the notebook's name (a document's without its own title), `newDoc` when
 * no document is at the referencing document's path plus the keyword. An empty keyword lists the
 * recently referenced blocks in the kernel; the sandbox answers none (not used by the product).
 */
function searchRefBlock(ctx: HandlerContext): unknown {
  const reqId = ctx.body.reqId ?? null;
  if (ctx.body.id === undefined || ctx.body.id === null) return { reqId };
  const { id, rootID, k, beforeLen } = ctx.body;
  if (typeof id !== "string" || typeof rootID !== "string" || typeof k !== "string")
    throw panicReply();
  if (typeof beforeLen !== "number") throw panicReply();
  const kernel = ctx.kernel;
  let rows: Array<Record<string, SqlValue>> = [];
  if (k !== "") {
    const byId = NODE_ID.exec(k)?.[0];
    if (byId !== undefined) {
      rows = kernel.sql.select("SELECT * FROM blocks WHERE id = ?", [byId]);
    } else {
      const like = `%${k.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const cols = ["name", "alias", "memo", "tag", "content"];
      rows = kernel.sql.select(
        `SELECT * FROM blocks WHERE (${cols.map((c) => `${c} LIKE ? ESCAPE '\\'`).join(" OR ")}) AND type IN (${SEARCH_TYPES.map(() => "?").join(",")})`,
        [...cols.map(() => like), ...SEARCH_TYPES],
      );
      rows.sort(
        (a, b) =>
          refRank(a, k) - refRank(b, k) ||
          Number(a["sort"]) - Number(b["sort"]) ||
          Number(a["length"]) - Number(b["length"]),
      );
      rows = rows.slice(0, SEARCH_LIMIT);
    }
  }
  const kept = rows.filter((row) => {
    const rid = String(row["id"]);
    const type = String(row["type"]);
    if (type === "av") return true;
    const hitsFirstChild = CONTAINERS.has(type) && type !== "d" && firstLeafID(kernel, rid) === id;
    return rid !== id && rid !== rootID && !hitsFirstChild;
  });
  const blocks = kept.map((row) => {
    const b = blockJsonOfRow(row);
    const boxName = kernel.ws.notebooks.get(b.box)?.conf.name ?? "";
    let hPath = `${escapeHtml(boxName)}${b.hPath}`;
    if (row["type"] === "d")
      hPath = hPath.slice(0, hPath.length - (b.hPath.split("/").pop() ?? "").length);
    const refCount = Number(
      kernel.sql.select("SELECT COUNT(*) AS n FROM refs WHERE def_block_id = ?", [b.id])[0]?.[
        "n"
      ] ?? 0,
    );
    return {
      ...b,
      hPath,
      content: marked(b.content, k),
      refText: row["type"] === "d" ? String(row["content"] ?? "") : b.content,
      refCount,
    };
  });
  let newDoc = false;
  const loc = kernel.ws.locate(id);
  if (loc) {
    const base = kernel.ws.hpath(loc.doc.id);
    const target = `${base === "/" ? "" : base}/${k}`.replace(/\/+/g, "/");
    newDoc = kernel.ws.docsByHPath(loc.doc.box, target).length === 0;
  }
  return { blocks, newDoc, k: escapeHtml(k), reqId };
}

/** The extensions SiYuan indexes as plain text (its TxtAssetParser); others are not indexed here. */
const TEXT_ASSET_EXTS = new Set(
  ".txt .md .markdown .json .log .sql .html .xml .java .h .c .cpp .go .rs .swift .kt .py .php .js .css .ts .sh .bat .cmd .ini .yaml .rst .adoc .textile .opml .org .wiki .cs".split(
    " ",
  ),
);
/** A text asset larger than this is not indexed (`TxtAssetContentMaxSize`). */
const TXT_ASSET_CONTENT_MAX_BYTES = 4 * 1024 * 1024;

/** `util.RemoveID`: a file name without the `-<node ID>` before its extension. */
function removeID(name: string): string {
  const dot = name.lastIndexOf(".");
  const ext = dot > 0 ? name.slice(dot) : "";
  let base = ext === "" ? name : name.slice(0, -ext.length);
  if (base.length > 23 && /^\d{14}-[a-z0-9]{7}$/.test(base.slice(-22))) base = base.slice(0, -23);
  return base + ext;
}

/** One index ID per asset path and kernel, as the kernel keeps one row per indexed file. */
const assetRowIds = new WeakMap<Kernel, Map<string, string>>();
function assetRowId(kernel: Kernel, path: string): string {
  let ids = assetRowIds.get(kernel);
  if (!ids) {
    ids = new Map();
    assetRowIds.set(kernel, ids);
  }
  let id = ids.get(path);
  if (id === undefined) {
    id = kernel.ids.newId();
    ids.set(path, id);
  }
  return id;
}

/**
 * fullTextSearchAssetContent, keyword method: text assets under `data/assets/` (UTF-8, at most
 * 4 MiB) whose name or content holds `query` (any case), by path; `content` HTML-escaped with
 * the hits in `<mark>` (the kernel's is a snippet of 64 tokens around the hits); the kernel indexes
 * a new file a moment later, the sandbox reads the folder live.
 */
function fullTextSearchAssetContent(ctx: HandlerContext): unknown {
  const query = (typeof ctx.body.query === "string" ? ctx.body.query : "").trim();
  const page = typeof ctx.body.page === "number" && ctx.body.page > 0 ? ctx.body.page : 1;
  const pageSize =
    typeof ctx.body.pageSize === "number" && ctx.body.pageSize > 0 ? ctx.body.pageSize : 32;
  const files = ctx.kernel.files;
  const hits: Array<Record<string, unknown>> = [];
  const visit = (dir: string, rel: string): void => {
    for (const e of files.list(dir).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.isDir) {
        visit(`${dir}/${e.name}`, `${rel}/${e.name}`);
        continue;
      }
      const dot = e.name.lastIndexOf(".");
      const ext = dot >= 0 ? e.name.slice(dot) : "";
      if (!TEXT_ASSET_EXTS.has(ext.toLowerCase())) continue;
      const raw = files.read(`${dir}/${e.name}`);
      if (raw.length > TXT_ASSET_CONTENT_MAX_BYTES) continue;
      let text: string;
      try {
        text = new TextDecoder("utf-8", { fatal: true }).decode(raw);
      } catch {
        continue;
      }
      const name = removeID(e.name);
      const lower = query.toLowerCase();
      if (!name.toLowerCase().includes(lower) && !text.toLowerCase().includes(lower)) continue;
      const path = `assets${rel}/${e.name}`;
      hits.push({
        id: assetRowId(ctx.kernel, path),
        name,
        ext,
        path,
        size: raw.length,
        hSize: hSize(raw.length),
        updated: e.updated,
        content: marked(text, query),
      });
    }
  };
  if (query !== "" && files.kind("/data/assets") === "dir") visit("/data/assets", "");
  return {
    assetContents: hits.slice((page - 1) * pageSize, page * pageSize),
    matchedAssetCount: hits.length,
    pageCount: Math.ceil(hits.length / pageSize),
  };
}

/** semanticSearchBlock: SiYuan's embedding is off in the sandbox, so the kernel's empty answer. */
function semanticSearchBlock(_ctx: HandlerContext): unknown {
  return { blocks: [], matchedBlockCount: 0, matchedRootCount: 0, pageCount: 0 };
}

/** The routes of this file. */
export const searchMoreRoutes: Record<string, Route> = {
  "/api/search/searchRefBlock": r(searchRefBlock),
  "/api/search/fullTextSearchAssetContent": r(fullTextSearchAssetContent),
  "/api/search/semanticSearchBlock": r(semanticSearchBlock),
};
