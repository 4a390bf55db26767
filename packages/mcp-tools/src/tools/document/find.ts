/**
 * document.find: documents whose title contains a string, from the SQL index after a flush.
 *
 * The SQL index lags the live tree only until the kernel's queues drain; `flushTransaction` waits
 * for the write queue and the index queue, so after it the `blocks` rows of type `d` answer for
 * every document in one query. Walking the file tree instead would cost one call per folder of
 * every notebook. The title is matched with `LIKE … ESCAPE '\'` (case-insensitive for ASCII, as
 * SQLite's LIKE is), its `%`, `_` and `\` escaped so they match literally; quotes are doubled.
 */
import { notFound } from "../../errors.js";
import type { ArgsOf, ToolContext } from "../../handler.js";
import { readableRows } from "../../permissions.js";

/** At most this many rows in one find answer; `truncated` says when more matched. */
export const FIND_MAX_ROWS = 32;

/** A SQL string literal. */
export function sqlString(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/** A `LIKE` pattern matching `s` anywhere, with `\` as the escape character. */
export function containsPattern(s: string): string {
  return `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** One found document. */
export interface FoundDoc {
  readonly id: string;
  readonly title: string;
  readonly hpath: string;
  readonly notebook: string;
}

/** document.find's run. */
export async function findDocs(ctx: ToolContext, a: ArgsOf<"document", "find">) {
  if (a.notebook !== undefined) {
    const notebooks = await ctx.kernel.lsNotebooks();
    if (!notebooks.some((n) => n.id === a.notebook)) throw notFound("notebook", a.notebook);
  }
  await ctx.kernel.flush();
  const where = [
    "type = 'd'",
    `content LIKE ${sqlString(containsPattern(a.title))} ESCAPE '\\'`,
    ...(a.notebook === undefined ? [] : [`box = ${sqlString(a.notebook)}`]),
  ];
  const raw = await ctx.kernel.sql(
    `SELECT id, content, hpath, box FROM blocks WHERE ${where.join(" AND ")} ORDER BY hpath, id LIMIT ${FIND_MAX_ROWS + 1}`,
  );
  const { rows, withheld } = readableRows(ctx.permissions, raw);
  const docs: FoundDoc[] = rows.slice(0, FIND_MAX_ROWS).map((r) => ({
    id: String(r["id"]),
    title: String(r["content"]),
    hpath: String(r["hpath"]),
    notebook: String(r["box"]),
  }));
  return {
    docs,
    truncated: raw.length > FIND_MAX_ROWS,
    ...(withheld > 0
      ? { withheld, withheldReason: "documents of notebooks you may not read" }
      : {}),
    ...(docs.length === 0
      ? { hint: "no title contains this; try search.fulltext for text inside documents" }
      : {}),
  };
}
