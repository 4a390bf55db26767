/**
 * The reorder engine shared by document.reorder and fs.reorder: a structure precondition over the
 * parent, the notebook configuration and every visible child; `changeSort` with the children's storage
 * paths in the requested order, plus custom sort mode (6) when it is not already in force; readback
 * requires the exact requested order in the effective listing and the notebook's sort mode custom.
 */
import { ToolError } from "../errors.js";
import type {
  MutationHandler,
  Probed,
  ReadbackResult,
  ToolContext,
  WriteContext,
} from "../handler.js";
import { type DocParent, readSiblingStructure } from "../state/doc-state.js";

/** Custom document order (`sort.json`). */
export const CUSTOM_SORT_MODE = 6;

/** What a reorder probe keeps for the executor. */
export interface ReorderSnapshot {
  readonly parent: DocParent;
  readonly orderedIds: readonly string[];
  readonly pathsInOrder: readonly string[];
  readonly setCustomMode: boolean;
  readonly alreadyOrdered: boolean;
}

/**
 * The preflight's warning when the commit will switch the notebook to custom sort: the mode is a
 * notebook setting, so every folder of the notebook will list its documents in custom order.
 */
function sortModeSwitchNote(from: number | undefined): Record<string, unknown> {
  const was =
    from === undefined
      ? "an unknown mode"
      : from === 15
        ? "15 (follow the workspace file-tree setting)"
        : String(from);
  return {
    switchesSortMode: { from: from ?? null, to: CUSTOM_SORT_MODE },
    note: `The commit also switches this notebook's sort mode from ${was} to ${CUSTOM_SORT_MODE} (custom order): every folder of the notebook will then list its documents in custom order, not only this one.`,
  };
}

/** Probes a reorder of `parent`'s children into `orderedIds` (which must list each visible child once). */
export async function probeReorder(
  ctx: ToolContext,
  parent: DocParent,
  orderedIds: readonly string[],
): Promise<Probed<ReorderSnapshot>> {
  const s = await readSiblingStructure(ctx, parent);
  const childIds = s.children.map((c) => c.id);
  const wanted = new Set(orderedIds);
  const complete =
    wanted.size === orderedIds.length &&
    wanted.size === childIds.length &&
    childIds.every((id) => wanted.has(id));
  if (!complete && ctx.phase !== "commit") {
    throw new ToolError(
      "invalid_arguments",
      "the order must list every visible child document exactly once: read the children with document.list_tree (or fs.ls), then send all of them in the new order",
      { children: childIds },
    );
  }
  const pathOf = new Map(s.children.map((c) => [c.id, c.path]));
  const mode =
    typeof s.conf?.["sortMode"] === "number" ? (s.conf["sortMode"] as number) : undefined;
  const setCustomMode = mode !== CUSTOM_SORT_MODE;
  return {
    state: s.state,
    notebooks: [parent.notebook],
    ...(setCustomMode ? { preflightNotes: sortModeSwitchNote(mode) } : {}),
    snapshot: {
      parent,
      orderedIds,
      pathsInOrder: orderedIds.map((id) => pathOf.get(id) ?? ""),
      setCustomMode,
      alreadyOrdered:
        mode === CUSTOM_SORT_MODE && s.effectiveOrder.every((id, i) => id === orderedIds[i]),
    },
  };
}

/** Executes a probed reorder: one `changeSort`, plus `setNotebookConf` when the mode is not custom. */
export async function executeReorder(ctx: WriteContext, snap: ReorderSnapshot): Promise<null> {
  await ctx.write.changeSort(snap.parent.notebook, snap.pathsInOrder);
  if (snap.setCustomMode)
    await ctx.write.setNotebookConf(snap.parent.notebook, { sortMode: CUSTOM_SORT_MODE });
  return null;
}

/** Reads back a reorder: exactly the requested order in the listing, under custom sort (6). */
export async function readbackReorder(
  ctx: ToolContext,
  snap: ReorderSnapshot,
): Promise<ReadbackResult> {
  const s = await readSiblingStructure(ctx, snap.parent);
  const exact =
    s.effectiveOrder.length === snap.orderedIds.length &&
    s.effectiveOrder.every((id, i) => id === snap.orderedIds[i]);
  if (!exact)
    return {
      state: s.state,
      verdict: "mismatch",
      reason: "the listing does not show the requested order",
    };
  // The order only holds under custom sorting: a notebook that follows the workspace setting (15)
  // or sorts otherwise may list the same order today by accident, and another order tomorrow.
  const mode = s.conf?.["sortMode"];
  if (mode !== CUSTOM_SORT_MODE)
    return {
      state: s.state,
      verdict: "mismatch",
      reason: `the notebook's sort mode is ${JSON.stringify(mode ?? null)}, not custom (${CUSTOM_SORT_MODE})`,
    };
  return {
    state: s.state,
    verdict: snap.alreadyOrdered ? "unchanged" : "applied",
    receipt: { order: s.effectiveOrder },
  };
}

/** Builds a reorder handler from a parent/order resolver. */
export function reorderHandler<A>(
  resolve: (ctx: ToolContext, args: A) => Promise<{ parent: DocParent; orderedIds: string[] }>,
  targets: (args: A) => readonly string[],
): MutationHandler<A, ReorderSnapshot, null> {
  return {
    targets,
    async probe(ctx, a) {
      const { parent, orderedIds } = await resolve(ctx, a);
      return probeReorder(ctx, parent, orderedIds);
    },
    execute: (ctx, _a, before) => executeReorder(ctx, before.snapshot),
    readback: (ctx, _a, before) => readbackReorder(ctx, before.snapshot),
  };
}
