/**
 * fs.replace: block.find_replace over the document at a path. The blocks are the document's own
 * leaf blocks (paragraphs, headings, code, tables… found live through `getChildBlocks`, descending
 * into lists, list items, blockquotes, super blocks and callouts; not its subdocuments, and not
 * database blocks, whose content is the database's): their Kramdown holds the text or not. The
 * manifest, checks, write and readback are block.find_replace's own; since the commit re-lists the
 * document, a block that starts holding the text after the preflight (or a new one that does)
 * changes the manifest and the commit answers `state_changed` before any write.
 */
import { ToolError } from "../../errors.js";
import type { ArgsOf, MutationHandler, Probed, ToolContext } from "../../handler.js";
import {
  type FindReplaceExecuted,
  type FindReplaceSnapshot,
  findReplace,
  probeMatches,
} from "../block/find-replace.js";
import { requireDocAt } from "./paths.js";

type FsReplaceArgs = ArgsOf<"fs", "replace">;

/** `getChildBlocks` types whose children are blocks of their own (the kernel's containers). */
const CONTAINERS: ReadonlySet<string> = new Set(["l", "i", "b", "s", "callout"]);
/** Leaf types whose text is not theirs to replace (a database's content is the database's). */
const SKIPPED: ReadonlySet<string> = new Set(["av"]);

/** The most leaf blocks one fs.replace reads (block.find_replace takes named blocks beyond that). */
export const FS_REPLACE_MAX_BLOCKS = 2048;

/** The document's leaf blocks in document order, read live level by level. */
export async function leafBlocks(ctx: ToolContext, docId: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (id: string): Promise<void> => {
    for (const kid of await ctx.kernel.getChildBlocks(id)) {
      if (CONTAINERS.has(kid.type)) await walk(kid.id);
      else if (!SKIPPED.has(kid.type)) out.push(kid.id);
      if (out.length > FS_REPLACE_MAX_BLOCKS) {
        throw new ToolError(
          "invalid_arguments",
          `the document has more than ${FS_REPLACE_MAX_BLOCKS} blocks: find the blocks with fs.search and use block.find_replace on them`,
          { reason: "too_many_blocks", max: FS_REPLACE_MAX_BLOCKS },
        );
      }
    }
  };
  await walk(docId);
  return out;
}

/** block.find_replace's answer with the document's unmatched blocks counted, not listed. */
function counted<T extends Record<string, unknown> | undefined>(notes: T): T {
  if (notes === undefined || !Array.isArray(notes["unmatched"])) return notes;
  const { unmatched, ...rest } = notes;
  return { ...rest, unmatchedCount: (unmatched as unknown[]).length } as unknown as T;
}

/** fs.replace (manifest, dangerous): every `find` replaced in the document's blocks holding it. */
export const replace: MutationHandler<FsReplaceArgs, FindReplaceSnapshot, FindReplaceExecuted> = {
  probeUnlikeResult: true,
  targets: (a) => [a.path],
  summary: () => ({}),
  async probe(ctx, a): Promise<Probed<FindReplaceSnapshot>> {
    const { id, notebook } = await requireDocAt(ctx, a.path);
    const ids = await leafBlocks(ctx, id);
    const probed = await probeMatches(
      ctx,
      { ids, find: a.find, replacement: a.replacement },
      { notebooks: [notebook], nothingFound: `no block of ${a.path} contains the text to find` },
    ).catch((e: unknown) => {
      // the refusal counts the document's blocks rather than listing each of them
      if (e instanceof ToolError && Array.isArray(e.details["unmatched"]))
        throw new ToolError(e.code, e.message, counted(e.details));
      throw e;
    });
    const notes = counted(probed.preflightNotes);
    return { ...probed, ...(notes ? { preflightNotes: notes } : {}) };
  },
  execute: (ctx, a, before) =>
    findReplace.execute(ctx, { ids: [], find: a.find, replacement: a.replacement }, before),
  async readback(ctx, a, before, executed) {
    const seen = await findReplace.readback(
      ctx,
      { ids: [], find: a.find, replacement: a.replacement },
      before,
      executed,
    );
    return "receipt" in seen && seen.receipt ? { ...seen, receipt: counted(seen.receipt) } : seen;
  },
};
