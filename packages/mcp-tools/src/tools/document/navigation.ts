/**
 * document navigation reads: the outline of a document (its headings in document order, flattened
 * with their nesting depth, paged) and the recent documents (the kernel's list, located and paged;
 * documents of notebooks the caller may not read are withheld).
 */
import { notFound } from "../../errors.js";
import { type ArgsOf, readAction, type ToolContext } from "../../handler.js";
import type { OutlineHeading, RecentDoc, RecentSort } from "../../kernel.js";
import { notebooksOfBlocks } from "../../permissions.js";
import { pageOf, plainText, readableItems } from "../listing.js";
import { sqlString } from "./find.js";

/** One heading of the flattened outline; `depth` 0 is a top-level heading. */
interface Heading {
  readonly id: string;
  readonly level: number;
  readonly text: string;
  readonly depth: number;
}

function flatten(headings: readonly OutlineHeading[], depth: number, out: Heading[]): Heading[] {
  for (const h of headings) {
    out.push({ id: h.id, level: Number(h.subType.slice(1)) || 0, text: plainText(h.html), depth });
    flatten(h.children, depth + 1, out);
  }
  return out;
}

/** document.outline: the headings of the block's document (another block selects its document). */
export const outline = readAction({
  run: async (ctx: ToolContext, a: ArgsOf<"document", "outline">) => {
    const info = await ctx.kernel.getBlockInfo(a.id);
    if (info === null) throw notFound("block", a.id);
    const all = flatten(await ctx.kernel.getDocOutline(info.rootID), 0, []);
    const { items, ...paging } = pageOf(all, a.page, a.pageSize);
    return { id: info.rootID, headings: items, ...paging };
  },
  notebooks: (ctx, a) => notebooksOfBlocks(ctx, [a.id]),
});

/** The kernel's `sortBy` for each `sort` of document.recent. */
const RECENT_SORT: Record<ArgsOf<"document", "recent">["sort"], RecentSort> = {
  updated: "updated",
  viewed: "viewedAt",
  opened: "openAt",
  closed: "closedAt",
};

/** Unix seconds as ISO 8601 (UTC), absent when the kernel gave none. */
function isoTimes(d: RecentDoc): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ["viewedAt", "openAt", "closedAt"] as const) {
    const v = d[k];
    if (v !== undefined) out[k] = new Date(v * 1000).toISOString();
  }
  return out;
}

/**
 * Notebook, hpath and `updated` of documents, from the SQL index in one query (the recent list
 * names documents only by ID). A document the index does not hold yet gets no row.
 */
async function locateDocs(ctx: ToolContext, ids: readonly string[]) {
  if (ids.length === 0) return new Map<string, Record<string, unknown>>();
  // DISTINCT: the index may hold a row twice, and LIMIT counts rows (see find.ts)
  const rows = await ctx.kernel.sql(
    `SELECT DISTINCT id, box, hpath, updated FROM blocks WHERE type = 'd' AND id IN (${ids.map(sqlString).join(", ")}) LIMIT ${ids.length}`,
  );
  return new Map(rows.map((r) => [String(r["id"]), r]));
}

/**
 * document.recent: `updated` (default) lists the documents changed last, from the index — it
 * answers with API-only use; `viewed`, `opened`, `closed` read the list SiYuan's UI keeps, which
 * is empty when no UI opened a document.
 */
export const recent = readAction({
  run: async (ctx: ToolContext, a: ArgsOf<"document", "recent">) => {
    const docs = await ctx.kernel.getRecentDocs(RECENT_SORT[a.sort]);
    const where = await locateDocs(
      ctx,
      docs.map((d) => d.id),
    );
    const rows = docs.map((d) => {
      const row = where.get(d.id);
      return {
        id: d.id,
        title: d.title,
        notebook: String(row?.["box"] ?? ""),
        hpath: String(row?.["hpath"] ?? ""),
        ...(a.sort === "updated" && row ? { updated: String(row["updated"]) } : isoTimes(d)),
      };
    });
    const { kept, withheld } = readableItems(ctx.permissions, rows, (r) => r.notebook);
    const { items, ...paging } = pageOf(kept, a.page, a.pageSize);
    return {
      sort: a.sort,
      docs: items,
      ...paging,
      ...withheld,
      ...(a.sort !== "updated" && docs.length === 0
        ? { hint: "SiYuan's UI fills this list; sort: updated lists recently changed documents" }
        : {}),
    };
  },
});
