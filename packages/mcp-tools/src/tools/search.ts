/**
 * search: sql and fulltext (reads). The SQL index lags the live tree; results say so.
 */
import { ToolError } from "../errors.js";
import { readAction, type ToolHandlers } from "../handler.js";
import { readableRows } from "../permissions.js";
import { checkReadOnlySql } from "./read-only-sql.js";

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
        note: "The SQL index can lag recent writes by a moment.",
      };
    },
  }),
  fulltext: readAction({
    run: async (ctx, a) => {
      const result = (await ctx.kernel.fullTextSearch(a.query, a.page, a.pageSize)) as {
        blocks?: Array<Record<string, unknown>> | null;
      };
      const { rows, withheld } = readableRows(ctx.permissions, result.blocks ?? []);
      return { ...result, blocks: rows, ...(withheld > 0 ? { withheld } : {}) };
    },
  }),
} satisfies ToolHandlers<"search">;
