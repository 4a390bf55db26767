/**
 * block reads over several blocks or the whole workspace: batch_kramdown (several blocks' Kramdown
 * in one call), word_count (SiYuan's counts summed over blocks) and recent_updated (the paragraphs
 * edited last). IDs the caller names are checked on their notebooks as every block read is (one in
 * a notebook the caller may not read refuses the call); a workspace-wide list withholds the items
 * of such notebooks instead.
 */
import { notFound, ToolError } from "../../errors.js";
import { readAction } from "../../handler.js";
import { notebooksOfBlocks, requirePermission } from "../../permissions.js";
import { readableItems } from "../listing.js";
import { snippetOf } from "../search.js";

/** block.batch_kramdown: each found block's Kramdown, in the order asked; unknown IDs listed apart. */
export const batchKramdown = readAction({
  run: async (ctx, a: { ids: readonly string[] }) => {
    const ids = [...new Set(a.ids)];
    const found = await ctx.kernel.getBlockKramdowns(ids);
    const kramdowns: Record<string, string> = {};
    const missing: string[] = [];
    for (const id of ids) {
      const k = found[id];
      if (k === undefined) missing.push(id);
      else kramdowns[id] = k;
    }
    return { kramdowns, ...(missing.length > 0 ? { missing } : {}) };
  },
  notebooks: (ctx, a) => notebooksOfBlocks(ctx, [...new Set(a.ids)]),
});

/**
 * block.word_count: SiYuan's counts (`getBlocksWordCount`) over the blocks found, each ID once; an
 * unknown ID is listed as missing and not sent (the kernel would count it in its `blockCount`).
 * Every ID is looked up (`getBlockInfo`) for its existence and notebook, so the answer never
 * counts a block it does not name and the permission check needs no second lookup.
 */
export const wordCount = readAction({
  run: async (ctx, a: { ids: readonly string[] }) => {
    const ids = [...new Set(a.ids)];
    const infos = await Promise.all(ids.map((id) => ctx.kernel.getBlockInfo(id)));
    const present = ids.filter((_, i) => infos[i] !== null);
    const missing = ids.filter((_, i) => infos[i] === null);
    requirePermission(
      ctx.permissions,
      infos.flatMap((info) => (info ? [info.box] : [])),
      "read",
    );
    if (present.length === 0) {
      throw missing.length === 1
        ? notFound("block", missing[0] as string)
        : new ToolError("not_found", `none of the blocks ${missing.join(", ")} exists`, {
            id: missing.join(","),
          });
    }
    const stat = await ctx.kernel.getBlocksWordCount(present);
    return { ...stat, blocks: present.length, ...(missing.length > 0 ? { missing } : {}) };
  },
});

/** block.recent_updated: the 16 paragraphs updated last, compact, other notebooks' withheld. */
export const recentUpdated = readAction({
  run: async (ctx) => {
    const found = await ctx.kernel.getRecentUpdatedBlocks();
    const { kept, withheld } = readableItems(ctx.permissions, found, (b) => b.notebook);
    return {
      blocks: kept.map((b) => ({
        id: b.id,
        docID: b.docID,
        notebook: b.notebook,
        hpath: b.hpath,
        snippet: snippetOf(b.content),
        updated: b.updated,
      })),
      ...withheld,
    };
  },
});
