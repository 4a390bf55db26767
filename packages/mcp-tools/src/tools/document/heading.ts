/**
 * document.heading_to_doc and doc_to_heading (structure). heading_to_doc is SiYuan's `heading2Doc`. A heading at the top level of its
 * document and the blocks under it (up to the next heading of its level or higher) become a
 * document with the heading's ID, titled the heading's plain text (`/` as `_`), under a parent
 * (the heading's own document unless `parentID` names another document or a notebook). Every
 * block keeps its ID; the readback proves the new document holds exactly the planned blocks, in
 * order, where it was asked for, and the source holds exactly the rest.
 */
import { notFound, ToolError } from "../../errors.js";
import type { ArgsOf, MutationHandler, ReadbackResult, ToolContext } from "../../handler.js";
import type { ChildBlock } from "../../kernel.js";
import {
  childFolder,
  type DocLocation,
  type DocParent,
  locateDoc,
  resolveParent,
} from "../../state/doc-state.js";

type HeadingToDocArgs = ArgsOf<"document", "heading_to_doc">;

/** SiYuan's `BlockRefDynamicAnchorTextMaxLen` default: the title is cut there. */
const MAX_TITLE_RUNES = 96;

interface HeadingToDocPlan {
  readonly source: DocLocation;
  readonly parent: DocParent;
  /** The source's top-level blocks before the write. */
  readonly blocks: readonly ChildBlock[];
  /** Their IDs. */
  readonly children: readonly string[];
  /** The blocks that move under the new document, in order (the heading itself not included). */
  readonly section: readonly string[];
  readonly title: string;
}

const levelOf = (b: ChildBlock) => (b.type === "h" ? Number(b.subType?.slice(1)) || 1 : 0);

/** The title `heading2Doc` gives the new document: the heading's plain text, `/` as `_`. */
export function titleOfHeading(plain: string): string {
  return [...plain.replaceAll("/", "_")].slice(0, MAX_TITLE_RUNES).join("");
}

/** The blocks under the heading at `at`: following siblings up to a heading of its level or higher. */
export function sectionOf(children: readonly ChildBlock[], at: number): ChildBlock[] {
  const level = levelOf(children[at] as ChildBlock);
  const out: ChildBlock[] = [];
  for (const b of children.slice(at + 1)) {
    if (b.type === "h" && levelOf(b) <= level) break;
    out.push(b);
  }
  return out;
}

/** Reads what the write will move; refuses what `heading2Doc` would do other than asked. */
export async function planHeadingToDoc(
  ctx: ToolContext,
  a: HeadingToDocArgs,
): Promise<HeadingToDocPlan> {
  const info = await ctx.kernel.getBlockInfo(a.id);
  if (info === null) throw notFound("heading", a.id);
  if (info.rootID === a.id)
    throw new ToolError("invalid_arguments", `${a.id} is a document, not a heading`, { id: a.id });
  const source = await locateDoc(ctx, info.rootID);
  if (!source) throw notFound("document", info.rootID);
  const kids = await ctx.kernel.getChildBlocks(source.id);
  const at = kids.findIndex((k) => k.id === a.id);
  const heading = kids[at];
  if (heading?.type !== "h")
    throw new ToolError(
      "invalid_arguments",
      `${a.id} is not a heading at the top level of document ${source.id}: heading_to_doc turns such a heading and the blocks under it into a document`,
      { id: a.id, rootID: source.id },
    );
  const title = titleOfHeading(heading.content ?? "");
  if (title.trim() === "")
    throw new ToolError(
      "invalid_arguments",
      `heading ${a.id} has no text: its document would have no title`,
      { id: a.id },
    );
  const parent = await resolveParent(ctx, a.parentID ?? source.id);
  return {
    source,
    parent,
    blocks: kids,
    children: kids.map((k) => k.id),
    section: sectionOf(kids, at).map((k) => k.id),
    title,
  };
}

/**
 * The plan, or at commit the refusal of a check the preflight passed: with the same arguments such
 * a check fails only on what changed since, so the probe answers that refusal as its state (a
 * digest other than the leased one: the coordinator answers `state_changed`, nothing written)
 * instead of `invalid_arguments`. A target gone since stays `not_found`.
 */
async function planOrChanged<P>(
  ctx: ToolContext,
  plan: () => Promise<P>,
): Promise<P | { readonly refusedSincePreflight: string }> {
  try {
    return await plan();
  } catch (e) {
    if (ctx.phase === "commit" && e instanceof ToolError && e.code === "invalid_arguments")
      return { refusedSincePreflight: e.message };
    throw e;
  }
}

/** The snapshot execute and readback get: never a refusal, which the digest stops before them. */
function planned<P>(snapshot: P | null): P {
  if (snapshot === null) throw new ToolError("internal_error", "no plan reached the write");
  return snapshot;
}

/** document.heading_to_doc: one `heading2Doc`, read back by the heading's ID as a document. */
export const headingToDoc: MutationHandler<HeadingToDocArgs, HeadingToDocPlan | null, null> = {
  probeUnlikeResult: true,
  targets: (a) => [a.id, ...(a.parentID === undefined ? [] : [a.parentID])],
  async probe(ctx, a) {
    const plan = await planOrChanged(ctx, () => planHeadingToDoc(ctx, a));
    if ("refusedSincePreflight" in plan) return { state: plan, notebooks: [], snapshot: null };
    return {
      // the source's top-level blocks (ID, type, level) and the parent: what the write moves and where
      state: {
        source: { id: plan.source.id, notebook: plan.source.notebook, path: plan.source.path },
        children: plan.blocks.map((k) => ({ id: k.id, type: k.type, subType: k.subType ?? "" })),
        parent: { id: plan.parent.id, notebook: plan.parent.notebook, path: plan.parent.path },
      },
      notebooks: [...new Set([plan.source.notebook, plan.parent.notebook])],
      snapshot: plan,
    };
  },
  async execute(ctx, a, before) {
    const { parent } = planned(before.snapshot);
    await ctx.write.heading2Doc(a.id, parent.notebook, parent.path);
    return null;
  },
  async readback(ctx, a, before): Promise<ReadbackResult> {
    await ctx.kernel.flush();
    const plan = planned(before.snapshot);
    const [loc, moved, rest, attrs] = await Promise.all([
      locateDoc(ctx, a.id),
      ctx.kernel.getChildBlocks(a.id),
      ctx.kernel.getChildBlocks(plan.source.id),
      ctx.kernel.getBlockAttrs(a.id),
    ]);
    const state = {
      document: loc,
      blocks: moved.map((b) => b.id),
      sourceBlocks: rest.map((b) => b.id),
    };
    const fail = (reason: string): ReadbackResult => ({ state, verdict: "mismatch", reason });
    const path = `${childFolder(plan.parent)}${a.id}.sy`;
    if (!loc || loc.notebook !== plan.parent.notebook || loc.path !== path)
      return fail(`${a.id} is not a document at ${path} of notebook ${plan.parent.notebook}`);
    if (attrs?.["title"] !== plan.title)
      return fail(
        `document ${a.id} is titled ${JSON.stringify(attrs?.["title"])}, not ${JSON.stringify(plan.title)}`,
      );
    if (JSON.stringify(state.blocks) !== JSON.stringify(plan.section))
      return fail(
        `document ${a.id} does not hold exactly the ${plan.section.length} blocks under the heading`,
      );
    const kept = plan.children.filter((id) => id !== a.id && !plan.section.includes(id));
    const keptOk =
      kept.length === 0
        ? rest.length === 1 && rest[0]?.type === "p" && !plan.children.includes(rest[0].id)
        : JSON.stringify(state.sourceBlocks) === JSON.stringify(kept);
    if (!keptOk)
      return fail(
        `document ${plan.source.id} does not hold exactly its other ${kept.length} blocks`,
      );
    return {
      state,
      verdict: "applied",
      receipt: {
        id: a.id,
        notebook: loc.notebook,
        path: loc.path,
        title: plan.title,
        moved: plan.section.length,
        sourceID: plan.source.id,
      },
    };
  },
};

type DocToHeadingArgs = ArgsOf<"document", "doc_to_heading">;

interface DocToHeadingPlan {
  readonly source: DocLocation;
  readonly target: DocLocation;
  /** The target's top-level blocks before the write. */
  readonly targetBlocks: readonly ChildBlock[];
  /** The source's top-level block IDs (they follow the new heading). */
  readonly moved: readonly string[];
  /** Where the heading goes among the target's top-level blocks. */
  readonly at: number;
  readonly level: number;
  /** Whether the kernel puts a paragraph of the document's tags first under the heading. */
  readonly tagged: boolean;
  readonly title: string;
}

/**
 * Where `doc2Heading` puts the heading among the target's top-level blocks, and its level: before
 * the target, or after it (a heading: after the blocks under it); the target heading's level, or
 * one below the heading a target block is under (1 when none).
 */
export function placeOfHeading(
  blocks: readonly ChildBlock[],
  targetAt: number,
  after: boolean,
): { at: number; level: number } {
  const target = blocks[targetAt] as ChildBlock;
  let under = 0;
  for (let i = targetAt; i >= 0; i--) {
    const b = blocks[i] as ChildBlock;
    if (b.type === "h") {
      under = levelOf(b);
      break;
    }
  }
  if (target.type !== "h")
    return { at: after ? targetAt + 1 : targetAt, level: Math.min(6, under + 1) };
  return {
    at: after ? targetAt + 1 + sectionOf(blocks, targetAt).length : targetAt,
    level: under,
  };
}

/** Reads what the write will move and where; refuses what `doc2Heading` would do other than asked. */
export async function planDocToHeading(
  ctx: ToolContext,
  a: DocToHeadingArgs,
): Promise<DocToHeadingPlan> {
  const source = await locateDoc(ctx, a.id);
  if (!source) {
    const info = await ctx.kernel.getBlockInfo(a.id);
    if (info === null) throw notFound("document", a.id);
    throw new ToolError("invalid_arguments", `${a.id} is a block, not a document`, {
      id: a.id,
      rootID: info.rootID,
    });
  }
  const subdocs = (await ctx.kernel.listDocsByPath(source.notebook, source.path))?.files ?? [];
  if (subdocs.length > 0)
    throw new ToolError(
      "invalid_arguments",
      `document ${a.id} has ${subdocs.length} sub-documents: SiYuan turns only a document without any into a heading; move them first`,
      { id: a.id, subdocs: subdocs.length },
    );
  const info = await ctx.kernel.getBlockInfo(a.targetID);
  if (info === null) throw notFound("block", a.targetID);
  if (info.rootID === a.targetID)
    throw new ToolError(
      "invalid_arguments",
      `${a.targetID} is a document: pass the block of it the heading goes before or after`,
      { targetID: a.targetID },
    );
  if (info.rootID === a.id)
    throw new ToolError("invalid_arguments", `${a.targetID} is inside document ${a.id} itself`, {
      targetID: a.targetID,
    });
  const target = await locateDoc(ctx, info.rootID);
  if (!target) throw notFound("document", info.rootID);
  const [targetBlocks, moved, attrs] = await Promise.all([
    ctx.kernel.getChildBlocks(target.id),
    ctx.kernel.getChildBlocks(a.id),
    ctx.kernel.getBlockAttrs(a.id),
  ]);
  const targetAt = targetBlocks.findIndex((b) => b.id === a.targetID);
  if (targetAt < 0)
    throw new ToolError(
      "invalid_arguments",
      `${a.targetID} is not at the top level of document ${target.id}: pass a top-level block or heading`,
      { targetID: a.targetID, rootID: target.id },
    );
  const { at, level } = placeOfHeading(targetBlocks, targetAt, a.after);
  return {
    source,
    target,
    targetBlocks,
    moved: moved.map((b) => b.id),
    at,
    level,
    tagged: (attrs?.["tags"] ?? "").split(",").some((t) => t !== ""),
    title: attrs?.["title"] ?? "",
  };
}

/**
 * document.doc_to_heading (structure, dangerous: the document's file is removed): one
 * `doc2Heading`, read back in the target: the heading with the document's ID at the planned place
 * and level, the document's blocks right after it, the target's other blocks as they were, and no
 * document with that ID left.
 */
export const docToHeading: MutationHandler<DocToHeadingArgs, DocToHeadingPlan | null, null> = {
  probeUnlikeResult: true,
  targets: (a) => [a.id, a.targetID],
  async probe(ctx, a) {
    const plan = await planOrChanged(ctx, () => planDocToHeading(ctx, a));
    if ("refusedSincePreflight" in plan) return { state: plan, notebooks: [], snapshot: null };
    const blocks = (list: readonly ChildBlock[]) =>
      list.map((k) => ({ id: k.id, type: k.type, subType: k.subType ?? "" }));
    return {
      state: {
        source: { id: plan.source.id, notebook: plan.source.notebook, path: plan.source.path },
        moved: plan.moved,
        title: plan.title,
        tagged: plan.tagged,
        target: { id: plan.target.id, notebook: plan.target.notebook, path: plan.target.path },
        targetBlocks: blocks(plan.targetBlocks),
      },
      notebooks: [...new Set([plan.source.notebook, plan.target.notebook])],
      snapshot: plan,
    };
  },
  async execute(ctx, a) {
    await ctx.write.doc2Heading(a.id, a.targetID, a.after);
    return null;
  },
  async readback(ctx, a, before): Promise<ReadbackResult> {
    await ctx.kernel.flush();
    const plan = planned(before.snapshot);
    const [asDoc, after] = await Promise.all([
      locateDoc(ctx, a.id),
      ctx.kernel.getChildBlocks(plan.target.id),
    ]);
    const state = { document: asDoc, targetBlocks: after.map((b) => b.id) };
    const fail = (reason: string): ReadbackResult => ({ state, verdict: "mismatch", reason });
    if (asDoc) return fail(`document ${a.id} still exists at ${asDoc.path}`);
    const ids = plan.targetBlocks.map((b) => b.id);
    const tag = plan.tagged ? [after[plan.at + 1]?.id ?? ""] : [];
    const expected = [...ids.slice(0, plan.at), a.id, ...tag, ...plan.moved, ...ids.slice(plan.at)];
    if (plan.tagged && (ids.includes(tag[0] as string) || after[plan.at + 1]?.type !== "p"))
      return fail(`no paragraph of the document's tags follows heading ${a.id}`);
    if (JSON.stringify(state.targetBlocks) !== JSON.stringify(expected))
      return fail(
        `document ${plan.target.id} does not hold heading ${a.id} and the ${plan.moved.length} blocks of the document at the planned place`,
      );
    const heading = after[plan.at];
    if (heading?.type !== "h" || heading.subType !== `h${plan.level}`)
      return fail(`${a.id} is not an h${plan.level} heading in document ${plan.target.id}`);
    return {
      state,
      verdict: "applied",
      receipt: {
        id: a.id,
        targetDocID: plan.target.id,
        level: plan.level,
        moved: plan.moved.length,
        removedPath: plan.source.path,
      },
    };
  },
};
