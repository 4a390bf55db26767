/**
 * fs reads: ls, read, tree, search. search is search.fulltext's kernel call (`fullTextSearchBlock`,
 * words in any case) narrowed to a path: the document there and its subdocuments (a notebook path:
 * the whole notebook), as `grep -r` on a folder. The kernel is asked for one large page and the
 * hits under the path are paged here (as search.invalid_refs pages), with `capped` when the kernel
 * matched more blocks than that page held.
 */

import { notFound } from "../../errors.js";
import { readAction, type ToolHandlers } from "../../handler.js";
import { type DocParent, listChildren } from "../../state/doc-state.js";
import { eachBlockOnce, sqlBlockType } from "../block-types.js";
import { listTree } from "../document/tree.js";
import { pageOf, readableItems } from "../listing.js";
import { snippetOf } from "../snippet.js";
import { parentAt, requireDocAt } from "./paths.js";

/** The most fulltext hits read from the kernel for one fs.search (then filtered to the path). */
export const FS_SEARCH_FETCH_MAX = 1024;

/** Whether a fulltext row lies under a parent: its notebook, or the document and its subdocuments. */
function under(parent: DocParent, row: Record<string, unknown>): boolean {
  if (row["box"] !== parent.notebook) return false;
  if (parent.isNotebook) return true;
  const path = String(row["path"] ?? "");
  return row["rootID"] === parent.id || path.startsWith(`${parent.path.replace(/\.sy$/, "")}/`);
}

/** The fs tool's reads. */
export const fsReads = {
  ls: readAction({
    run: async (ctx, a) => {
      const parent = await parentAt(ctx, a.path);
      const files = await listChildren(ctx, parent);
      return {
        path: a.path,
        entries: files.map((f) => ({ title: f.name, id: f.id, children: f.subFileCount })),
      };
    },
  }),
  read: readAction({
    run: async (ctx, a) => {
      const { id } = await requireDocAt(ctx, a.path);
      const kramdown = await ctx.kernel.getBlockKramdown(id);
      if (kramdown === null) throw notFound("path", a.path);
      return { path: a.path, id, kramdown };
    },
  }),
  tree: readAction({
    run: async (ctx, a) => {
      const parent = await parentAt(ctx, a.path);
      return { path: a.path, ...(await listTree(ctx, parent, a.depth)) };
    },
  }),
  search: readAction({
    run: async (ctx, a) => {
      // Every write that finished before this call is in the index it searches (D-354).
      const [parent] = await Promise.all([parentAt(ctx, a.path), ctx.kernel.flush()]);
      const result = (await ctx.kernel.fullTextSearch(a.query, 1, FS_SEARCH_FETCH_MAX)) as {
        blocks?: Array<Record<string, unknown>> | null;
        matchedBlockCount?: number;
      };
      const rows = eachBlockOnce(result.blocks ?? []);
      const { kept, withheld } = readableItems(
        ctx.permissions,
        rows.filter((b) => under(parent, b)),
        (b) => String(b["box"] ?? ""),
      );
      const { items, ...paging } = pageOf(kept, a.page, a.pageSize);
      return {
        path: a.path,
        hits: items.map((b) => ({
          id: String(b["id"] ?? ""),
          type: sqlBlockType(b["type"]),
          hpath: String(b["hPath"] ?? ""),
          snippet: snippetOf(b["content"]),
        })),
        ...paging,
        ...((result.matchedBlockCount ?? 0) > rows.length ? { capped: true } : {}),
        ...withheld,
      };
    },
  }),
} satisfies Pick<ToolHandlers<"fs">, "ls" | "read" | "tree" | "search">;
