/**
 * document.move and reorder: structure mutations whose precondition is the target folder's
 * children (move) or every sibling and the notebook's sort mode (reorder).
 */
import { ToolError } from "../../errors.js";
import type { ArgsOf, MutationHandler, ToolContext } from "../../handler.js";
import {
  childFolder,
  type DocLocation,
  type DocParent,
  listChildren,
  locateDoc,
  requireDoc,
  resolveParent,
} from "../../state/doc-state.js";
import { reorderHandler } from "../reorder.js";

type MoveArgs = ArgsOf<"document", "move">;
interface MoveSnapshot {
  readonly target: DocParent;
  readonly docs: readonly DocLocation[];
}

async function moveStructure(ctx: ToolContext, a: MoveArgs) {
  const [target, ...docs] = await Promise.all([
    resolveParent(ctx, a.toID),
    ...a.ids.map((id) => requireDoc(ctx, id)),
  ]);
  const siblings = await listChildren(ctx, target as DocParent);
  return {
    target: target as DocParent,
    docs: docs as DocLocation[],
    state: {
      target: {
        id: a.toID,
        notebook: (target as DocParent).notebook,
        path: (target as DocParent).path,
      },
      targetChildren: siblings.map((f) => f.id),
      docs: (docs as DocLocation[]).map((d) => ({ id: d.id, notebook: d.notebook, path: d.path })),
    },
  };
}

/** document.move (dangerous): documents under `toID` (a document or a notebook). */
export const move: MutationHandler<MoveArgs, MoveSnapshot, null> = {
  probeUnlikeResult: true,
  targets: (a) => [...a.ids, a.toID],
  async probe(ctx, a) {
    if (a.ids.includes(a.toID))
      throw new ToolError(
        "invalid_arguments",
        "a document cannot move into itself: pick another target",
        { toID: a.toID },
      );
    const s = await moveStructure(ctx, a);
    for (const d of s.docs) {
      if (!s.target.isNotebook && s.target.path.startsWith(d.path.slice(0, -".sy".length) + "/")) {
        throw new ToolError(
          "invalid_arguments",
          `document ${d.id} cannot move under its own descendant: pick another target`,
          { id: d.id, toID: a.toID },
        );
      }
    }
    return {
      state: s.state,
      notebooks: [...new Set([s.target.notebook, ...s.docs.map((d) => d.notebook)])],
      snapshot: s,
    };
  },
  async execute(ctx, a) {
    await ctx.write.moveDocsByID(a.ids, a.toID);
    return null;
  },
  async readback(ctx, a, before) {
    await ctx.kernel.flush();
    const folder = childFolder(before.snapshot.target);
    const locs = await Promise.all(a.ids.map((id) => locateDoc(ctx, id)));
    const state = { docs: locs };
    for (const [i, loc] of locs.entries()) {
      const id = a.ids[i] as string;
      if (
        !loc ||
        loc.notebook !== before.snapshot.target.notebook ||
        loc.path !== `${folder}${id}.sy`
      ) {
        return { state, verdict: "mismatch", reason: `document ${id} is not under ${a.toID}` };
      }
    }
    // Decided from the request and the before-state: every document already was under toID.
    const unchanged = before.snapshot.docs.every(
      (d) => d.notebook === before.snapshot.target.notebook && d.path === `${folder}${d.id}.sy`,
    );
    return { state, verdict: unchanged ? "unchanged" : "applied" };
  },
};

/** document.reorder: the children of `parentID` in the given order. */
export const reorder = reorderHandler<ArgsOf<"document", "reorder">>(
  async (ctx, a) => ({ parent: await resolveParent(ctx, a.parentID), orderedIds: a.orderedIDs }),
  (a) => [a.parentID, ...a.orderedIDs],
);
