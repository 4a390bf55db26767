/**
 * block.transfer_references: every block reference to `fromID` then points at `toID` (SiYuan 3.7.3
 * `transferBlockRef`). Manifest class: the write changes the blocks that hold the references, so
 * the digest covers each of them (found in the refs index after a flush, then read live and kept
 * when its Kramdown holds `((fromID`) and the target block (a dynamic anchor takes its text). The
 * commit sends exactly the leased blocks as `refIDs`, so a reference made after the preflight is
 * not moved unseen (it changes the manifest: `state_changed`). `fromID` need not exist: moving the
 * references of a deleted block is how they are repaired.
 *
 * The readback requires each block to read as before with every `((fromID …))` now `((toID …))`:
 * a static anchor (`"text"`) kept, a dynamic one (`'text'`) holding whatever the kernel renders.
 */
import { notFound, ToolError } from "../../errors.js";
import type { ArgsOf, MutationHandler, ReadbackResult, ToolContext } from "../../handler.js";
import { notebooksOfBlocks } from "../../permissions.js";
import {
  type BlockSnapshot,
  currentOf,
  readBlockState,
  readBlockStates,
} from "../../state/block-state.js";

type TransferArgs = ArgsOf<"block", "transfer_references">;

/** At most this many referring blocks per transfer (the manifest is read block by block). */
export const TRANSFER_MANIFEST_MAX_BLOCKS = 64;

/** A block reference in Kramdown: `((id))`, `((id 'dynamic'))` or `((id "static"))`. */
const BLOCK_REF = /\(\((\d{14}-[0-9a-z]{7})(?:\s+("[^"]*"|'[^']*'))?\)\)/g;

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** How many references to `id` a block body holds. */
export function referencesTo(body: string, id: string): number {
  return [...body.matchAll(BLOCK_REF)].filter((m) => m[1] === id).length;
}

/**
 * A pattern of `body` after the transfer: each reference to `fromID` re-pointed at `toID`, its
 * static anchor kept and its dynamic anchor free; every other character as it was.
 */
export function transferredPattern(body: string, fromID: string, toID: string): RegExp {
  let out = "";
  let from = 0;
  for (const m of body.matchAll(BLOCK_REF)) {
    if (m[1] !== fromID) continue;
    out += escapeRegExp(body.slice(from, m.index));
    const anchor = m[2];
    out += anchor?.startsWith('"')
      ? escapeRegExp(`((${toID} ${anchor}))`)
      : `\\(\\(${toID}(?: '[^']*')?\\)\\)`;
    from = m.index + m[0].length;
  }
  return new RegExp(`^${out}${escapeRegExp(body.slice(from))}$`);
}

/**
 * `body` with each reference to `fromID` re-pointed at `toID`: a static anchor kept, a dynamic one
 * showing `dynamicText` (the write preview's "after"; the kernel renders the target's ref text).
 */
export function transferredText(
  body: string,
  fromID: string,
  toID: string,
  dynamicText: string,
): string {
  return body.replace(BLOCK_REF, (m, id: string, anchor?: string) =>
    id !== fromID
      ? m
      : anchor?.startsWith('"')
        ? `((${toID} ${anchor}))`
        : `((${toID} '${dynamicText}'))`,
  );
}

/** The blocks the refs index lists as referencing `fromID` (after a flush), at most one more than the limit. */
export async function referringBlockIds(ctx: Pick<ToolContext, "kernel">, fromID: string) {
  await ctx.kernel.flush();
  const rows = await ctx.kernel.sql(
    `SELECT DISTINCT block_id FROM refs WHERE def_block_id = '${fromID}' ORDER BY block_id LIMIT ${TRANSFER_MANIFEST_MAX_BLOCKS + 1}`,
  );
  return rows.map((r) => String(r["block_id"]));
}

interface Manifest {
  readonly target: BlockSnapshot;
  readonly blocks: readonly BlockSnapshot[];
}

/** The blocks the refs index lists as referencing `fromID`, each read live and kept when it does. */
async function readManifest(ctx: ToolContext, a: TransferArgs): Promise<Manifest> {
  const [target, ids] = await Promise.all([
    readBlockState(ctx.kernel, a.toID),
    referringBlockIds(ctx, a.fromID),
  ]);
  if (!target.exists) throw notFound("target block", a.toID);
  if (ids.length > TRANSFER_MANIFEST_MAX_BLOCKS) {
    throw new ToolError(
      "invalid_arguments",
      `more than ${TRANSFER_MANIFEST_MAX_BLOCKS} blocks reference ${a.fromID}: move them in smaller steps with block.replace`,
      { fromID: a.fromID, max: TRANSFER_MANIFEST_MAX_BLOCKS },
    );
  }
  const blocks = ids.length === 0 ? [] : (await readBlockStates(ctx.kernel, ids)).snapshots;
  return {
    target,
    blocks: blocks.filter((b) => b.exists && referencesTo(b.body, a.fromID) > 0),
  };
}

const manifestState = (a: TransferArgs, m: Manifest): unknown => ({
  fromID: a.fromID,
  toID: a.toID,
  target: m.target.state,
  blocks: m.blocks.map((b) => b.state),
});

const referenceCount = (a: TransferArgs, m: Manifest): number =>
  m.blocks.reduce((n, b) => n + referencesTo(b.body, a.fromID), 0);

/** block.transfer_references (see the module comment). */
export const transferReferences: MutationHandler<TransferArgs, Manifest, number> = {
  probeUnlikeResult: true,
  targets: (a) => [a.fromID, a.toID],
  async probe(ctx, a) {
    if (a.fromID === a.toID) {
      throw new ToolError(
        "invalid_arguments",
        "fromID and toID are the same block: there is nothing to transfer",
        { fromID: a.fromID, reason: "same_block" },
      );
    }
    const m = await readManifest(ctx, a);
    return {
      state: manifestState(a, m),
      notebooks: await notebooksOfBlocks(ctx, [a.toID, ...m.blocks.map((b) => b.id)]),
      snapshot: m,
      current: currentOf(m.blocks),
      preflightNotes: { blockCount: m.blocks.length, referenceCount: referenceCount(a, m) },
    };
  },
  async execute(ctx, a, before) {
    const ids = before.snapshot.blocks.map((b) => b.id);
    if (ids.length > 0) await ctx.write.transferBlockRef(a.fromID, a.toID, ids);
    return ids.length;
  },
  async readback(ctx, a, before, count): Promise<ReadbackResult> {
    await ctx.kernel.flush();
    const { blocks } = before.snapshot;
    const afters =
      blocks.length === 0
        ? []
        : (
            await readBlockStates(
              ctx.kernel,
              blocks.map((b) => b.id),
            )
          ).snapshots;
    const target = await readBlockState(ctx.kernel, a.toID);
    const state = manifestState(a, { target, blocks: afters });
    const receipt = { blockCount: count, referenceCount: referenceCount(a, before.snapshot) };
    for (const [i, after] of afters.entries()) {
      const prior = blocks[i] as BlockSnapshot;
      if (!after.exists) {
        return {
          state,
          verdict: "mismatch",
          reason: `block ${after.id} no longer exists`,
          receipt,
        };
      }
      if (!transferredPattern(prior.body, a.fromID, a.toID).test(after.body)) {
        return {
          state,
          verdict: "mismatch",
          reason: `block ${after.id} does not show its references to ${a.fromID} pointing at ${a.toID}`,
          receipt,
        };
      }
    }
    return { state, verdict: count === 0 ? "unchanged" : "applied", receipt };
  },
};
