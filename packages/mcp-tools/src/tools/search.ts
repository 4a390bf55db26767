/**
 * search: sql and fulltext (reads). The SQL index lags the live tree; results say so.
 * invalid_refs (blocks whose reference names a deleted block) and assets (files of `data/assets/`
 * by name) are SiYuan's own lists (`listInvalidBlockRefs`, `searchAsset`), withheld by permission.
 *
 * fulltext answers compact rows by default (ID, type, document ID, notebook, a plain-text snippet
 * of the content without the kernel's `<mark>` markup); `full: true` returns the kernel's rows as
 * they are. Rows of notebooks the caller may not read are withheld either way.
 */

import { ToolError } from "../errors.js";
import { readAction, type ToolHandlers } from "../handler.js";
import { readableRows } from "../permissions.js";
import { eachBlockOnce, sqlBlockType } from "./block-types.js";
import { pageOf, readableItems } from "./listing.js";
import { checkReadOnlySql, kernelMisreads } from "./read-only-sql.js";
import { searchMoreReads } from "./search-more.js";

import { snippetOf } from "./snippet.js";

export { SNIPPET_MAX_CHARS, snippetOf } from "./snippet.js";

/**
 * The most blocks with a dead reference read from the kernel in one call: the action pages what
 * the caller may read itself, so the kernel is asked for one page this large.
 */
export const INVALID_REFS_FETCH_MAX = 1024;

/** One compact fulltext row. */
export interface CompactHit {
  readonly id: string;
  readonly type: string;
  readonly docID: string;
  readonly notebook: string;
  readonly snippet: string;
}

function compactHit(b: Record<string, unknown>): CompactHit {
  return {
    id: String(b["id"] ?? ""),
    type: sqlBlockType(b["type"]),
    docID: String(b["rootID"] ?? ""),
    notebook: String(b["box"] ?? ""),
    snippet: snippetOf(b["content"]),
  };
}

/** The search tool's handlers. */
export const searchHandlers = {
  sql: readAction({
    run: async (ctx, a) => {
      // The kernel's `/api/query/sql` would run anything: refuse before any kernel call.
      const check = checkReadOnlySql(a.stmt);
      if (!check.ok) {
        throw new ToolError(
          "invalid_arguments",
          `search.sql runs one read-only SELECT statement: ${check.reason}; write a single SELECT (or WITH … SELECT) without data-changing keywords outside quotes, and use the write actions of block/document to change notes`,
          { reason: check.reason },
        );
      }
      const misread = kernelMisreads(a.stmt);
      if (misread !== undefined) {
        throw new ToolError(
          "invalid_arguments",
          `search.sql: ${misread}; match text literally with instr(column, 'text') > 0 (instr(lower(column), lower('text')) > 0 ignores ASCII case) instead of LIKE … ESCAPE`,
          { reason: "escape_clause" },
        );
      }
      // Every write that finished before this call is in the index it reads (D-354).
      await ctx.kernel.flush();
      const { rows, withheld } = readableRows(ctx.permissions, await ctx.kernel.sql(a.stmt));
      return {
        rows,
        rowCount: rows.length,
        ...(withheld > 0
          ? {
              withheld,
              withheldReason: "rows of notebooks you may not read, or without a box column",
            }
          : {}),
      };
    },
  }),
  fulltext: readAction({
    run: async (ctx, a) => {
      await ctx.kernel.flush();
      // SiYuan indexes open notebooks only: the answer names the closed ones the caller may read
      // (not searched), so "every notebook" needs no check of its own (D-361). Closing unindexes
      // in a task of its own, which a flush does not wait for: a hit of a notebook closed just
      // now is dropped, as the index is about to drop it (a real 3.7.3 still listed one).
      const [found, notebooks] = await Promise.all([
        ctx.kernel.fullTextSearch(a.query, a.page, a.pageSize),
        ctx.kernel.lsNotebooks(),
      ]);
      const result = found as {
        blocks?: Array<Record<string, unknown>> | null;
        matchedBlockCount?: number;
        matchedRootCount?: number;
        pageCount?: number;
      };
      const shut = notebooks.filter((n) => n.closed);
      const shutIds = new Set(shut.map((n) => n.id));
      const indexed = eachBlockOnce(result.blocks ?? []).filter(
        (b) => !shutIds.has(String(b["box"])),
      );
      const { rows, withheld } = readableRows(ctx.permissions, indexed);
      const closed = readableItems(ctx.permissions, shut, (n) => n.id).kept.map((n) => ({
        id: n.id,
        name: n.name,
      }));
      const more = {
        ...(withheld > 0 ? { withheld } : {}),
        ...(closed.length > 0 ? { closedNotebooks: closed } : {}),
      };
      if (a.full) return { ...result, blocks: rows, ...more };
      return {
        hits: rows.map(compactHit),
        page: a.page,
        pageSize: a.pageSize,
        ...(typeof result.pageCount === "number" ? { pageCount: result.pageCount } : {}),
        ...(typeof result.matchedBlockCount === "number"
          ? { matchedBlockCount: result.matchedBlockCount }
          : {}),
        ...more,
      };
    },
  }),
  invalid_refs: readAction({
    run: async (ctx, a) => {
      const found = await ctx.kernel.listInvalidBlockRefs(1, INVALID_REFS_FETCH_MAX);
      const { kept, withheld } = readableItems(ctx.permissions, found.blocks, (b) => b.notebook);
      const { items, ...paging } = pageOf(kept, a.page, a.pageSize);
      return {
        blocks: items.map((b) => ({
          id: b.id,
          docID: b.docID,
          notebook: b.notebook,
          hpath: b.hpath,
          snippet: snippetOf(b.content),
        })),
        ...paging,
        ...(found.matched > INVALID_REFS_FETCH_MAX ? { capped: true } : {}),
        ...withheld,
      };
    },
  }),
  assets: readAction({
    run: async (ctx, a) => {
      // SiYuan compares the extension with its dot: "png" and ".png" both mean ".png"
      const exts = [...new Set(a.exts.map((e) => (e.startsWith(".") ? e : `.${e}`)))];
      const found = await ctx.kernel.searchAsset(a.keyword, exts);
      // `data/assets/` is the workspace's: its default permission decides (as file.upload_asset)
      if (ctx.permissions.default === "none" && found.length > 0) {
        return {
          assets: [],
          withheld: found.length,
          withheldReason: "workspace assets need the default read permission",
        };
      }
      return { assets: found };
    },
  }),
  ...searchMoreReads,
} satisfies ToolHandlers<"search">;
