/**
 * block.replace: replaces literal text inside one block's Kramdown without the caller resending
 * the block. The new content is planned, written and read back exactly as `block.update` does it
 * (the same state, the same attribute keeping, the same kernel write), so the block keeps its ID
 * and attributes and the readback proves the block now holds the old content with the replacement
 * applied.
 */
import { notFound, ToolError } from "../../errors.js";
import type { ArgsOf, MutationHandler, Probed } from "../../handler.js";
import { notebooksOfBlocks } from "../../permissions.js";
import { parseIalLine } from "../../state/attributes.js";
import { type BlockSnapshot, currentOf, readBlockState } from "../../state/block-state.js";
import { spreadsToSiblings } from "../../state/readback.js";
import { CONTAINER_NODE_TYPES, checkUpdateData } from "./checks.js";
import { update } from "./update.js";

type ReplaceArgs = ArgsOf<"block", "replace">;
type UpdateArgs = ArgsOf<"block", "update">;

/**
 * Block types whose text is not their own: containers (their Kramdown holds their children and
 * the children's IALs; replace inside the child) and database blocks (their content lives in the
 * database: av.set_cells).
 */
const NOT_REPLACEABLE: ReadonlySet<string> = new Set([
  ...CONTAINER_NODE_TYPES,
  "NodeAttributeView",
]);

/** The start offsets of the non-overlapping occurrences of `find` in `text`, left to right. */
export function occurrencesOf(text: string, find: string): number[] {
  const at: number[] = [];
  for (let i = text.indexOf(find); i >= 0; i = text.indexOf(find, i + find.length)) at.push(i);
  return at;
}

/** `text` with every listed occurrence of `find` replaced (literal: no `$&` patterns). */
function replaceAt(text: string, find: string, replacement: string, at: readonly number[]): string {
  let out = "";
  let from = 0;
  for (const i of at) {
    out += text.slice(from, i) + replacement;
    from = i + find.length;
  }
  return out + text.slice(from);
}

/** The spans (start, end) of the IALs (`{: …}`) inside a block's body. */
function ialSpans(body: string): Array<[number, number]> {
  return [...body.matchAll(/\{:[^}]*\}/g)].map((m) => [m.index, m.index + m[0].length]);
}

function refuse(
  a: Pick<ReplaceArgs, "id">,
  reason: string,
  message: string,
  extra = {},
): ToolError {
  return new ToolError("invalid_arguments", message, { id: a.id, reason, ...extra });
}

/** The outer element's `data-type` of a block's normalised DOM. */
function nodeTypeOfSnapshot(snap: BlockSnapshot): string | undefined {
  const dom = "dom" in snap.state ? snap.state.dom : "";
  return /^\s*<div\b[^>]*\sdata-type="([^"]*)"/.exec(dom)?.[1];
}

type Occurrence = Pick<ReplaceArgs, "id" | "find" | "replacement" | "all">;

/** Where `find` occurs in `body`, or the refusal: not found, or several without `all`. */
function checkedOccurrences(a: Occurrence, body: string): number[] {
  const at = occurrencesOf(body, a.find);
  if (at.length === 0) {
    throw refuse(
      a,
      "text_not_found",
      `block ${a.id} does not contain the text to find; it is matched literally against the block's Kramdown as block.get_kramdown shows it (Markdown marks and escapes included)`,
      { occurrences: 0 },
    );
  }
  if (at.length > 1 && !a.all) {
    throw refuse(
      a,
      "ambiguous",
      `block ${a.id} contains the text to find ${at.length} times: give more of the surrounding text so it occurs once, or all=true to replace every occurrence`,
      { occurrences: at.length },
    );
  }
  return at;
}

/**
 * A block's Kramdown body with the replacement applied (the write preview's "after"), or the
 * refusal when `find` is missing or ambiguous.
 */
export function replacedText(a: Occurrence, body: string): string {
  return replaceAt(body, a.find, a.replacement, checkedOccurrences(a, body));
}

/**
 * The block's new body, or the refusal the commit would meet: a document or container, text not
 * found, several occurrences without `all`, a match inside an attribute list, a replacement that
 * writes one, or a result that is empty or ends in an attribute line.
 */
export function plannedBody(a: ReplaceArgs, snap: BlockSnapshot): { body: string; count: number } {
  const type = snap.attrs["type"] === "doc" ? "NodeDocument" : nodeTypeOfSnapshot(snap);
  if (type === undefined || NOT_REPLACEABLE.has(type)) {
    throw refuse(
      a,
      "not_a_text_block",
      `block ${a.id} is a ${type ?? "block of unknown type"}, whose text is not its own: replace inside one of its child blocks (block.get_children), or edit a database with av.set_cells`,
      { nodeType: type ?? null },
    );
  }
  const at = checkedOccurrences(a, snap.body);
  const spans = ialSpans(snap.body);
  if (at.some((i) => spans.some(([s, e]) => i < e && i + a.find.length > s))) {
    throw refuse(
      a,
      "inside_attributes",
      `the text to find in block ${a.id} lies inside an attribute list ({: …}): change attributes with block.set_attrs`,
    );
  }
  if (a.replacement.includes("{:")) {
    throw refuse(
      a,
      "writes_attributes",
      `the replacement for block ${a.id} writes an attribute list ({: …}), which would change or break the block's attributes: change attributes with block.set_attrs`,
    );
  }
  const body = replaceAt(snap.body, a.find, a.replacement, at);
  const last = body.trimEnd().split("\n").at(-1) ?? "";
  if (parseIalLine(last) !== undefined) {
    throw refuse(
      a,
      "writes_attributes",
      `the replaced text of block ${a.id} would end in an attribute line, read as the block's own attributes: change attributes with block.set_attrs`,
    );
  }
  if (body.trim() === "") {
    throw refuse(
      a,
      "empty_result",
      `replacing the text would leave block ${a.id} empty: use block.delete to remove it, or block.update to rewrite it`,
    );
  }
  return { body, count: at.length };
}

/**
 * {@link plannedBody}, and the refusals block.update itself would meet with it: data naming
 * kernel-managed identity, or text that would become several blocks.
 */
export function plannedUpdate(
  a: ReplaceArgs,
  snap: BlockSnapshot,
): { body: string; count: number } {
  const planned = plannedBody(a, snap);
  const item = { id: a.id, data: planned.body, dataType: "markdown" as const };
  checkUpdateData(item);
  if (spreadsToSiblings(item, snap)) {
    throw refuse(
      a,
      "several_blocks",
      `the replaced text of block ${a.id} would hold several blocks (a blank line or a block marker), and SiYuan keeps only the first when it updates a block: replace without starting a new block, and add blocks with block.insert (previousID=${a.id})`,
    );
  }
  return planned;
}

/** The block.update call this replace amounts to (one item, Markdown). */
const asUpdate = (id: string, body: string): UpdateArgs => ({
  id,
  data: body,
  dataType: "markdown",
});

interface ReplaceSnapshot {
  readonly block: BlockSnapshot;
  /** The new body and how many occurrences it replaces; absent when the commit re-probe found the
   * request no longer applies (the digest comparison then answers `state_changed`). */
  readonly planned: { readonly body: string; readonly count: number } | undefined;
}

/** What block.update's executor and readback take for this block. */
function updateBefore(before: Probed<ReplaceSnapshot>): Probed<readonly BlockSnapshot[]> {
  return { ...before, snapshot: [before.snapshot.block] };
}

function plannedOf(before: Probed<ReplaceSnapshot>): { body: string; count: number } {
  const planned = before.snapshot.planned;
  if (planned === undefined)
    throw new ToolError("internal_error", "block.replace executed without a planned body");
  return planned;
}

/**
 * block.replace: `find` → `replacement` in one leaf block's Kramdown body (its own IAL line left
 * out), literally; `all` false (the default) requires exactly one occurrence.
 */
export const replace: MutationHandler<
  ReplaceArgs,
  ReplaceSnapshot,
  Awaited<ReturnType<typeof update.execute>>
> = {
  targets: (a) => [a.id],
  summary: () => ({ targetCount: 1 }),
  showsWritten: true,
  async probe(ctx, a) {
    const snap = await readBlockState(ctx.kernel, a.id);
    if (!snap.exists) throw notFound("block", a.id);
    let planned: ReplaceSnapshot["planned"];
    try {
      planned = plannedUpdate(a, snap);
    } catch (e) {
      // At commit the same arguments passed at preflight: a refusal now means the block changed,
      // which the digest comparison reports as state_changed.
      if (ctx.phase !== "commit") throw e;
      planned = undefined;
    }
    return {
      state: [snap.state],
      notebooks: await notebooksOfBlocks(ctx, [a.id]),
      snapshot: { block: snap, planned },
      current: currentOf([snap]),
      ...(planned ? { preflightNotes: { occurrences: planned.count } } : {}),
    };
  },
  async execute(ctx, a, before) {
    const planned = plannedOf(before);
    return update.execute(ctx, asUpdate(a.id, planned.body), updateBefore(before));
  },
  async readback(ctx, a, before, plans) {
    const planned = plannedOf(before);
    const seen = await update.readback(
      ctx,
      asUpdate(a.id, planned.body),
      updateBefore(before),
      plans,
    );
    if (seen.verdict === "mismatch") {
      return {
        ...seen,
        reason: `${seen.reason ?? "the block does not show the replacement"} (block ${a.id} should hold its previous Kramdown with ${planned.count} replacement${planned.count === 1 ? "" : "s"})`,
      };
    }
    return { ...seen, receipt: { id: a.id, replacedCount: planned.count } };
  },
};
