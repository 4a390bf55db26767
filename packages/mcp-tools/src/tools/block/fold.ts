/**
 * block.set_fold_state: folds or unfolds a block (SiYuan 3.7.3 `foldBlock` / `unfoldBlock`). State
 * class on the block's own state; the readback requires its `fold` attribute as asked. A heading's
 * fold also marks every block of its section (`fold`, `heading-fold`): the kernel's way of hiding
 * them, which the preflight says.
 *
 * Refused before any lease (`invalid_arguments`, reason `not_foldable` or `hidden_by_heading`):
 * a document (the kernel refuses it), a thematic break and, to fold, a list item holding nothing
 * but its first line (SiYuan's editor folds neither: there is nothing under them to hide), and
 * unfolding a block hidden under a folded heading (the kernel would remove its `fold` but leave it
 * hidden: unfold the heading).
 */
import { ToolError } from "../../errors.js";
import type { ArgsOf, MutationHandler, ToolContext } from "../../handler.js";
import { notebooksOfBlocks } from "../../permissions.js";
import {
  type BlockSnapshot,
  currentOf,
  readBlockState,
  requireBlock,
} from "../../state/block-state.js";

type FoldArgs = ArgsOf<"block", "set_fold_state">;

/** Whether a block's attributes show it folded (the kernel writes `fold="1"`). */
export const isFolded = (attrs: Readonly<Record<string, string>>): boolean => attrs["fold"] === "1";

/** The Lute node type a block's normalised DOM names on its outer element. */
function nodeTypeOfSnapshot(snap: BlockSnapshot): string | undefined {
  if (snap.attrs["type"] === "doc") return "NodeDocument";
  const dom = "dom" in snap.state ? snap.state.dom : "";
  return /^\s*<div\b[^>]*\sdata-type="([^"]*)"/.exec(dom)?.[1];
}

function refuse(a: FoldArgs, reason: string, message: string, extra = {}): ToolError {
  return new ToolError("invalid_arguments", message, { id: a.id, reason, ...extra });
}

/** The refusals of the action's contract (see the module comment); returns the node type. */
async function checkFoldable(ctx: ToolContext, a: FoldArgs, snap: BlockSnapshot): Promise<string> {
  const type = nodeTypeOfSnapshot(snap) ?? "block of unknown type";
  if (type === "NodeDocument") {
    throw refuse(a, "not_foldable", `${a.id} is a document, which cannot be folded`, {
      nodeType: type,
    });
  }
  if (type === "NodeThematicBreak") {
    throw refuse(a, "not_foldable", `block ${a.id} is a thematic break, with nothing to fold`, {
      nodeType: type,
    });
  }
  if (a.folded && type === "NodeListItem" && (await ctx.kernel.getChildBlocks(a.id)).length < 2) {
    throw refuse(
      a,
      "not_foldable",
      `list item ${a.id} holds only its first line, with nothing under it to fold`,
      { nodeType: type },
    );
  }
  if (!a.folded && snap.attrs["heading-fold"] === "1") {
    throw refuse(
      a,
      "hidden_by_heading",
      `block ${a.id} lies under a folded heading and stays hidden whatever its own fold: unfold that heading (block.breadcrumb names it)`,
      { nodeType: type },
    );
  }
  return type;
}

/** block.set_fold_state: `folded` true folds, false unfolds; already so answers `no_change`. */
export const setFoldState: MutationHandler<FoldArgs, BlockSnapshot, boolean> = {
  targets: (a) => [a.id],
  async probe(ctx, a) {
    const snap = await requireBlock(ctx, a.id);
    // At commit the arguments passed at preflight; a changed block changes the digest.
    const type = ctx.phase === "commit" ? undefined : await checkFoldable(ctx, a, snap);
    const noOp = isFolded(snap.attrs) === a.folded;
    return {
      state: snap.state,
      notebooks: await notebooksOfBlocks(ctx, [a.id]),
      snapshot: snap,
      current: currentOf([snap]),
      ...(noOp
        ? { preflightNotes: { note: `already ${a.folded ? "folded" : "unfolded"}: no_change` } }
        : type === "NodeHeading"
          ? {
              preflightNotes: {
                note: `the blocks under the heading get ${a.folded ? "" : "no "}fold and heading-fold attributes too`,
              },
            }
          : {}),
    };
  },
  async execute(ctx, a, before) {
    if (isFolded(before.snapshot.attrs) === a.folded) return false;
    await ctx.write.setFold(a.id, a.folded);
    return true;
  },
  async readback(ctx, a, _before, wrote) {
    await ctx.kernel.flush();
    const after = await readBlockState(ctx.kernel, a.id);
    if (!after.exists) {
      return { state: after.state, verdict: "mismatch", reason: `block ${a.id} no longer exists` };
    }
    if (isFolded(after.attrs) !== a.folded) {
      return {
        state: after.state,
        verdict: "mismatch",
        reason: `block ${a.id} shows fold=${JSON.stringify(after.attrs["fold"] ?? "")}, not ${a.folded ? '"1"' : "none"}`,
      };
    }
    return {
      state: after.state,
      verdict: wrote ? "applied" : "unchanged",
      receipt: { id: a.id, folded: a.folded },
    };
  },
};
