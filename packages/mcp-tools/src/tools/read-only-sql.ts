/**
 * The statement check of `search.sql`: one read-only query, judged on SQLite's own tokens.
 *
 * The kernel's `/api/query/sql` runs whatever it is given, so the check never relies on it. The
 * statement is split into tokens the way SQLite's tokenizer does: string literals (`'…'`, `''`
 * escapes), quoted identifiers (`"…"`, `` `…` ``, `[…]`) and comments (`--`, `/* *\/`) are skipped;
 * words are runs of SQLite identifier characters (ASCII letters, digits, `_`, `$`, and every
 * non-ASCII character). A statement passes only when its first word is `SELECT` or `WITH`, no word
 * anywhere is a data- or schema-changing keyword, and nothing but whitespace and comments follows a
 * `;`. An unterminated literal, identifier or comment is refused rather than guessed at.
 */

/** Words that change data or schema (or the connection) wherever they stand in a statement. */
export const WRITE_KEYWORDS: ReadonlySet<string> = new Set([
  "DELETE",
  "INSERT",
  "UPDATE",
  "REPLACE",
  "UPSERT",
  "DROP",
  "ALTER",
  "CREATE",
  "ATTACH",
  "DETACH",
  "PRAGMA",
  "VACUUM",
  "REINDEX",
]);

/** The outcome of {@link checkReadOnlySql}: expected failure is a value. */
export type SqlCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

interface Token {
  readonly kind: "word" | "punct";
  /** Upper-cased for words; the character for punctuation. */
  readonly text: string;
}

/** SQLite's whitespace (`sqlite3Isspace`). */
const isSpace = (c: string): boolean =>
  c === " " || c === "\t" || c === "\n" || c === "\v" || c === "\f" || c === "\r";

/** SQLite's identifier characters (`IdChar`): every byte ≥ 0x80 counts, so every non-ASCII char. */
const isWordChar = (c: string): boolean => /[A-Za-z0-9_$]/.test(c) || c.charCodeAt(0) >= 0x80;

/** Index just past the quote closing the run opened at `start`, or -1 when it never closes. */
function skipQuoted(s: string, start: number, close: string, doubled: boolean): number {
  let i = start + 1;
  for (;;) {
    const at = s.indexOf(close, i);
    if (at < 0) return -1;
    if (doubled && s[at + 1] === close) {
      i = at + 2;
      continue;
    }
    return at + 1;
  }
}

/** SQLite-faithful tokens outside literals, quoted identifiers and comments; a reason on failure. */
function tokenize(s: string): Token[] | string {
  const tokens: Token[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i] as string;
    if (isSpace(c)) {
      i++;
    } else if (c === "-" && s[i + 1] === "-") {
      const end = s.indexOf("\n", i);
      i = end < 0 ? s.length : end + 1;
    } else if (c === "/" && s[i + 1] === "*") {
      const end = s.indexOf("*/", i + 2);
      if (end < 0) return "a /* comment is not closed";
      i = end + 2;
    } else if (c === "'" || c === '"' || c === "`" || c === "[") {
      const close = c === "[" ? "]" : c;
      const end = skipQuoted(s, i, close, c !== "[");
      if (end < 0)
        return c === "'" ? "a string literal is not closed" : "a quoted name is not closed";
      i = end;
    } else if (isWordChar(c)) {
      let j = i + 1;
      while (j < s.length && isWordChar(s[j] as string)) j++;
      tokens.push({ kind: "word", text: s.slice(i, j).toUpperCase() });
      i = j;
    } else {
      tokens.push({ kind: "punct", text: c });
      i++;
    }
  }
  return tokens;
}

/**
 * Accepts exactly one read-only query: first word `SELECT` or `WITH`, none of
 * {@link WRITE_KEYWORDS} anywhere outside literals, quoted names and comments (except the string
 * function `replace(…)`: `REPLACE` directly followed by `(` can never start a statement, since a
 * `REPLACE` statement is always `REPLACE INTO`), and no statement after a `;`.
 */
export function checkReadOnlySql(stmt: string): SqlCheck {
  const tokens = tokenize(stmt);
  if (typeof tokens === "string") return { ok: false, reason: tokens };
  const first = tokens[0];
  if (first === undefined) return { ok: false, reason: "the statement is empty" };
  if (first.kind !== "word" || (first.text !== "SELECT" && first.text !== "WITH"))
    return { ok: false, reason: "the statement does not start with SELECT or WITH" };
  for (const [i, t] of tokens.entries()) {
    if (t.kind === "punct" && t.text === ";" && i < tokens.length - 1)
      return { ok: false, reason: "more than one statement (something follows a ;)" };
    if (t.kind !== "word" || !WRITE_KEYWORDS.has(t.text)) continue;
    if (t.text === "REPLACE" && tokens[i + 1]?.text === "(") continue;
    return { ok: false, reason: `the statement contains ${t.text}` };
  }
  return { ok: true };
}

/**
 * Why SiYuan 3.7.3's `/api/query/sql` would answer `stmt` wrongly, or `undefined`. It re-prints
 * every statement with its SQL parser, which panics on `LIKE … ESCAPE` (kernel log: "PANIC
 * RECOVERED: sql.BinaryExpr.String(): invalid op ESCAPE") and then answers code 0 with no rows:
 * a statement that looks as if it matched nothing. `NOT LIKE`, `GLOB`, `REGEXP`, `BETWEEN`, `IS
 * NOT`, `CASE`, `CAST`, `COLLATE`, `||`, `->>`, `UNION`, `WITH` and subqueries answer as SQLite
 * does (probed on 3.7.3, `packages/reliability/real-kernel`).
 */
export function kernelMisreads(stmt: string): string | undefined {
  const tokens = tokenize(stmt);
  if (typeof tokens === "string") return undefined;
  if (!tokens.some((t) => t.kind === "word" && t.text === "ESCAPE")) return undefined;
  return "SiYuan answers a statement with LIKE … ESCAPE with no rows at all (its SQL parser fails on ESCAPE), so it would look as if nothing matched";
}
