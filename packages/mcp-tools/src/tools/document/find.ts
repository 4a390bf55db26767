/**
 * document.find: documents whose title contains a string, from the SQL index after a flush.
 *
 * The SQL index lags the live tree only until the kernel's queues drain; `flushTransaction` waits
 * for the write queue and the index queue, so after it the `blocks` rows of type `d` answer for
 * every document in one query. Walking the file tree instead would cost one call per folder of
 * every notebook. The title is matched with `instr(lower(content), lower(title))`: literally
 * (`%`, `_` and `\` are ordinary characters) and case-insensitive for ASCII, as SQLite's `lower`
 * is; quotes are doubled. Not `LIKE … ESCAPE`: SiYuan 3.7.3's `/api/query/sql` re-prints the
 * statement with its SQL parser, which panics on `ESCAPE` (the kernel logs "PANIC RECOVERED:
 * sql.BinaryExpr.String(): invalid op ESCAPE") and answers code 0 with no rows.
 * `DISTINCT`: SiYuan 3.7.3 can hold a document's rows twice (it indexes a new notebook again about
 * 2.5 s after creating it, documents made meanwhile included; kernel-probes `sql.notebook-index`).
 */
import { notFound, ToolError } from "../../errors.js";
import type { ArgsOf, ToolContext } from "../../handler.js";
import { readableRows } from "../../permissions.js";

/** At most this many rows in one find answer; `truncated` says when more matched. */
export const FIND_MAX_ROWS = 32;

/** A SQL string literal. */
export function sqlString(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/** The SQL condition "the title column `content` holds `title`", literally and ASCII case-insensitive. */
export function titleContains(title: string): string {
  return `instr(lower(content), lower(${sqlString(title)})) > 0`;
}

/** One found document. */
export interface FoundDoc {
  readonly id: string;
  readonly title: string;
  readonly hpath: string;
  readonly notebook: string;
  /** The notebook's name, so a caller need not list the notebooks to tell them apart. */
  readonly notebookName: string;
}

/** document.find's run. */
export async function findDocs(ctx: ToolContext, a: ArgsOf<"document", "find">) {
  // The notebooks (for their names, and to refuse an unknown one) beside the flush.
  const [notebooks] = await Promise.all([ctx.kernel.lsNotebooks(), ctx.kernel.flush()]);
  if (a.notebook !== undefined && !notebooks.some((n) => n.id === a.notebook))
    throw notFound("notebook", a.notebook);
  const names = new Map(notebooks.map((n) => [n.id, n.name]));
  const where = [
    "type = 'd'",
    titleContains(a.title),
    ...(a.notebook === undefined ? [] : [`box = ${sqlString(a.notebook)}`]),
  ];
  const raw = await ctx.kernel.sql(
    `SELECT DISTINCT id, content, hpath, box FROM blocks WHERE ${where.join(" AND ")} ORDER BY hpath, id LIMIT ${FIND_MAX_ROWS + 1}`,
  );
  const { rows, withheld } = readableRows(ctx.permissions, raw);
  const docs: FoundDoc[] = rows.slice(0, FIND_MAX_ROWS).map((r) => ({
    id: String(r["id"]),
    title: String(r["content"]),
    hpath: String(r["hpath"]),
    notebook: String(r["box"]),
    notebookName: names.get(String(r["box"])) ?? "",
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

/** At most this many documents an ambiguous title lists. */
const TITLE_CANDIDATES_MAX = 8;

/** A document a title names, as an ambiguous title lists it. */
export interface TitleCandidate {
  readonly id: string;
  readonly hpath: string;
  readonly notebook: string;
}

/**
 * The documents the caller may read whose title is exactly `title` (at most
 * {@link TITLE_CANDIDATES_MAX} + 1), from the SQL index; the caller flushes first. Documents of
 * notebooks the caller may not read do not count.
 */
async function titled(ctx: ToolContext, title: string): Promise<TitleCandidate[]> {
  const raw = await ctx.kernel.sql(
    `SELECT DISTINCT id, hpath, box FROM blocks WHERE type = 'd' AND content = ${sqlString(title)} ORDER BY hpath, id LIMIT ${TITLE_CANDIDATES_MAX + 1}`,
  );
  return readableRows(ctx.permissions, raw).rows.map((r) => ({
    id: String(r["id"]),
    hpath: String(r["hpath"]),
    notebook: String(r["box"]),
  }));
}

/**
 * The one document the caller may read whose title is exactly `title` (`document.get` by title),
 * from the SQL index after a flush; `not_found` when none, `ambiguous_path` with the candidates
 * (ID, path, notebook) when several.
 */
export async function docByTitle(
  ctx: ToolContext,
  title: string,
): Promise<{ id: string; notebook: string }> {
  await ctx.kernel.flush();
  const rows = await titled(ctx, title);
  const first = rows[0];
  if (first === undefined) {
    throw new ToolError("not_found", `no document is titled ${JSON.stringify(title)}`, {
      title,
      hint: "document.find matches part of a title",
    });
  }
  if (rows.length > 1) {
    throw new ToolError(
      "ambiguous_path",
      `${rows.length > TITLE_CANDIDATES_MAX ? "more than " + TITLE_CANDIDATES_MAX : rows.length} documents are titled ${JSON.stringify(title)}: get one by its id`,
      { candidates: rows.slice(0, TITLE_CANDIDATES_MAX) },
    );
  }
  return { id: first.id, notebook: first.notebook };
}

/**
 * What several exact titles name (`document.get(titles)`), after one flush: the one document of
 * each title that names one, the titles naming none, and the titles naming several with their
 * candidates (up to {@link TITLE_CANDIDATES_MAX}); one SQL query per distinct title, in parallel.
 */
export async function docsByTitles(ctx: ToolContext, titles: readonly string[]) {
  await ctx.kernel.flush();
  const distinct = [...new Set(titles)];
  const found = await Promise.all(distinct.map((t) => titled(ctx, t)));
  const docs: Array<{ id: string; notebook: string }> = [];
  const missing: string[] = [];
  const ambiguous: Array<{ title: string; candidates: TitleCandidate[] }> = [];
  distinct.forEach((title, i) => {
    const rows = found[i] ?? [];
    const first = rows[0];
    if (first === undefined) missing.push(title);
    else if (rows.length > 1)
      ambiguous.push({ title, candidates: rows.slice(0, TITLE_CANDIDATES_MAX) });
    else docs.push({ id: first.id, notebook: first.notebook });
  });
  return { docs, missing, ambiguous };
}
