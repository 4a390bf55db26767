/**
 * What a dangerous call would remove or move, said in one line a person can judge without looking
 * anything up: each target block's kind and first line, how many blocks go with it, and its
 * document's title, path and number of blocks.
 *
 * Read for the confirmation, before the commit and outside the write lane; it writes nothing. Its
 * reads are bounded whatever the call: the kernel's queue flushed, two queries of the `blocks`
 * index for at most {@link SUBJECT_MAX_TARGETS} targets, and those targets' Kramdown (the blocks
 * under a block that is not a document). Rows of a notebook the permissions do not let the caller
 * read are left out. Text from the notes is cleaned (no markup, no control characters) and cut.
 */

import type { KernelReads } from "./kernel.js";
import { type PermissionMap, readableRows } from "./permissions.js";
import { sqlString } from "./tools/document/find.js";

/** At most this many of a call's targets are described; the rest are counted. */
export const SUBJECT_MAX_TARGETS = 3;
/** A block's first line is cut to this many characters. */
const FIRST_LINE_MAX = 60;

const KINDS: Readonly<Record<string, string>> = {
  d: "document",
  h: "heading",
  p: "paragraph",
  l: "list",
  i: "list item",
  c: "code block",
  m: "math block",
  t: "table",
  b: "blockquote",
  s: "super block",
  html: "HTML block",
  query_embed: "embed block",
  av: "database",
  callout: "callout",
};

const SIYUAN_ID = /^\d{14}-[0-9a-z]{7}$/;
/** One block's IAL naming its ID: each block in a Kramdown has exactly one. */
const BLOCK_IAL = /\{:[^}\n]*\bid="\d{14}-[0-9a-z]{7}"/g;

/** `text` as one short, plain line: markup and control characters out, whitespace collapsed, cut. */
export function plainLine(text: string, max: number = FIRST_LINE_MAX): string {
  const line = text
    .replace(/<[^>]*>/g, " ")
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, " ")
    .replace(/[<>]/g, " ")
    .replace(/"/g, "'")
    .replace(/\s+/g, " ")
    .trim();
  return line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`;
}

const plural = (n: number, what: string): string => `${n} ${what}${n === 1 ? "" : "s"}`;

/**
 * The subject of a dangerous call on `targetIds`, e.g. `paragraph "We chose SQLite…" (3 blocks) in
 * document "Decisions" (/Projects/Decisions, 42 blocks)`: a block counts itself and the blocks
 * inside it, a document only the blocks inside it. `undefined` when none of its targets is a block
 * or document the caller may read, or a read fails (the question then names the IDs only).
 */
export async function describeTargets(
  kernel: KernelReads,
  targetIds: readonly string[],
  permissions: PermissionMap,
): Promise<string | undefined> {
  const all = [...new Set(targetIds)].filter((id) => SIYUAN_ID.test(id));
  const ids = all.slice(0, SUBJECT_MAX_TARGETS);
  if (ids.length === 0) return undefined;
  try {
    await kernel.flush();
    const list = ids.map(sqlString).join(", ");
    const [raw, kramdowns] = await Promise.all([
      kernel.sql(`SELECT id, type, content, root_id, hpath, box FROM blocks WHERE id IN (${list})`),
      kernel.getBlockKramdowns(ids),
    ]);
    const rows = readableRows(permissions, raw).rows;
    const byId = new Map(rows.map((r) => [String(r["id"]), r]));
    const found = ids.flatMap((id) => {
      const row = byId.get(id);
      return row === undefined ? [] : [row];
    });
    if (found.length === 0) return undefined;
    const roots = [...new Set(found.map((r) => String(r["root_id"])))];
    const counts = await kernel.sql(
      `SELECT root_id, count(*) AS n FROM blocks WHERE root_id IN (${roots.map(sqlString).join(", ")}) AND id != root_id GROUP BY root_id`,
    );
    const sizeOf = new Map(counts.map((c) => [String(c["root_id"]), Number(c["n"])]));
    const parts = found.map((row) => {
      const id = String(row["id"]);
      const hpath = plainLine(String(row["hpath"] ?? ""), 120);
      const title = plainLine(hpath.slice(hpath.lastIndexOf("/") + 1));
      const size = sizeOf.get(String(row["root_id"]));
      const document = `document "${title}" (${hpath}${size === undefined ? "" : `, ${plural(size, "block")}`})`;
      if (row["type"] === "d") return document;
      const kind = KINDS[String(row["type"])] ?? "block";
      const under = (kramdowns[id] ?? "").match(BLOCK_IAL)?.length ?? 0;
      const with_ = under > 1 ? ` (${plural(under, "block")})` : "";
      return `${kind} "${plainLine(String(row["content"] ?? ""))}"${with_} in ${document}`;
    });
    const more = all.length - found.length;
    return more > 0 ? `${parts.join("; ")}; and ${more} more` : parts.join("; ");
  } catch {
    return undefined;
  }
}
