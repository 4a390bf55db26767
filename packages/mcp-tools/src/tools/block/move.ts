/**
 * block.move: a structure precondition over the moved block and the full Kramdown of its document
 * and the anchor's; the readback requires the block at the requested place. `position: "last"`
 * under `parentID` is resolved by the probe to "after the parent's last other child" (as first
 * child when it has none), from the state the precondition hashes: the commit moves it there. Dangerous (the user
 * confirms) only when the block and the anchor are in different documents: the digest covers both
 * documents' IDs, so the commit's re-probe decides the same as the preflight's.
 */
import { notFound, ToolError } from "../../errors.js";
import type { ArgsOf, MutationHandler, ToolContext } from "../../handler.js";
import { normalizeKramdown, splitOwnIal } from "../../state/attributes.js";
import { childrenOf, formOfMarkdown, placementOf } from "../../state/content-form.js";
import { type MoveRequest, placedAsRequested } from "../../state/readback.js";
import { checkMove } from "./checks.js";

type MoveArgs = ArgsOf<"block", "move">;

/** Where the kernel is asked to put the block: after a sibling, or first under a parent. */
type Placement = Pick<MoveRequest, "previousID" | "parentID">;

interface MoveSnapshot {
  readonly rootIds: readonly string[];
  readonly to: Placement;
}

type Docs = ReadonlyArray<{ readonly id: string; readonly kramdown: string }>;

/** The move's place in these documents' Kramdown: `position: "last"` becomes a `previousID`. */
function placement(a: MoveArgs, docs: Docs): Placement {
  if (a.previousID !== undefined) return { previousID: a.previousID };
  if (a.position === "last") {
    for (const doc of docs) {
      const tree = formOfMarkdown(splitOwnIal(doc.kramdown).body);
      const children = a.parentID === doc.id ? tree : childrenOf(tree, a.parentID as string);
      if (children === undefined) continue;
      const others = children.filter((c) => c.id !== a.id);
      const last = others[others.length - 1]?.id;
      if (last !== undefined) return { previousID: last };
    }
  }
  return { parentID: a.parentID };
}

/**
 * Where the moved block is, as read back: its document and the sibling right before it (`null`:
 * it is the first among its siblings), so the answer shows the place without another read.
 */
function landed(docs: Docs, id: string): { receipt: Record<string, unknown> } | undefined {
  for (const doc of docs) {
    const at = placementOf(formOfMarkdown(splitOwnIal(doc.kramdown).body), id);
    if (at)
      return { receipt: { documentID: doc.id, previousID: at.siblings[at.index - 1]?.id ?? null } };
  }
  return undefined;
}

const docsOf = (state: unknown): Docs =>
  (state as { docs: { id: string; kramdown: string }[] }).docs ?? [];

/** Structure of a move: the moved block, and the full kramdown of its document and the target's. */
async function moveStructure(
  ctx: ToolContext,
  a: MoveArgs,
): Promise<{ state: unknown; rootIds: string[]; notebooks: string[] }> {
  const anchor = (a.previousID ?? a.parentID) as string;
  const [info, anchorInfo] = await Promise.all([
    ctx.kernel.getBlockInfo(a.id),
    ctx.kernel.getBlockInfo(anchor),
  ]);
  if (!info) throw notFound("block", a.id);
  if (!anchorInfo) throw notFound("anchor block", anchor);
  const rootIds = [...new Set([info.rootID, anchorInfo.rootID])].sort();
  const docs = await Promise.all(rootIds.map((r) => ctx.kernel.getBlockKramdown(r)));
  return {
    state: {
      id: a.id,
      docs: rootIds.map((r, i) => ({ id: r, kramdown: normalizeKramdown(docs[i] ?? "") })),
    },
    rootIds,
    notebooks: [...new Set([info.box, anchorInfo.box])],
  };
}

/** block.move: right after `previousID`, or as the first (or last) child of `parentID`. */
export const move: MutationHandler<MoveArgs, MoveSnapshot, null> = {
  targets: (a) => [a.id, (a.previousID ?? a.parentID) as string],
  async probe(ctx, a) {
    if (a.id === a.previousID || a.id === a.parentID) {
      throw new ToolError(
        "invalid_arguments",
        "a block cannot be moved next to or into itself: pick another anchor",
        { id: a.id },
      );
    }
    await checkMove(ctx, a);
    const s = await moveStructure(ctx, a);
    return {
      state: s.state,
      notebooks: s.notebooks,
      snapshot: { rootIds: s.rootIds, to: placement(a, docsOf(s.state)) },
      dangerous: s.rootIds.length > 1,
    };
  },
  async execute(ctx, a, before) {
    const to = before.snapshot.to;
    await ctx.write.moveBlock(a.id, {
      previousID: to.previousID,
      parentID: to.previousID ? undefined : to.parentID,
    });
    return null;
  },
  async readback(ctx, a, before) {
    await ctx.kernel.flush();
    const s = await moveStructure(ctx, a);
    const to = before.snapshot.to;
    const request = { id: a.id, ...to };
    if (!placedAsRequested(docsOf(s.state), request)) {
      return {
        state: s.state,
        verdict: "mismatch",
        reason: a.previousID
          ? "the block is not right after previousID"
          : to.previousID
            ? "the block is not the last child of parentID"
            : "the block is not the first child of parentID",
      };
    }
    // A move to where the block already was asks for nothing: decided from the before-state.
    const noOp = placedAsRequested(docsOf(before.state), request);
    return {
      state: s.state,
      verdict: noOp ? "unchanged" : "applied",
      ...(landed(docsOf(s.state), a.id) ?? {}),
    };
  },
};
