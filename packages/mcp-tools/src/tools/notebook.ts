/**
 * notebook: list, get_conf (reads); create (additive); rename, set_conf, set_open_state, set_icon,
 * remove (state).
 */
import { normalizeIcon } from "../args.js";
import { notFound } from "../errors.js";
import {
  type ArgsOf,
  type MutationHandler,
  mutationAction,
  type ReadbackResult,
  readAction,
  type ToolContext,
  type ToolHandlers,
  type WriteContext,
} from "../handler.js";
import type { NotebookRow } from "../kernel.js";

/** Arguments that name one notebook. */
interface NotebookArgs {
  readonly notebook: string;
}

/** The hashed state of a notebook: its row (without volatile counters) and its conf. */
export interface NotebookState {
  readonly row: {
    id: string;
    name: string;
    icon: string;
    sort: number;
    sortMode: number;
    closed: boolean;
  } | null;
  readonly conf: Record<string, unknown> | null;
}

function stableRow(row: NotebookRow) {
  return {
    id: row.id,
    name: row.name,
    icon: row.icon,
    sort: row.sort,
    sortMode: row.sortMode,
    closed: row.closed,
  };
}

/** Reads a notebook's row and conf (2 kernel calls, in parallel). */
export async function readNotebookState(
  ctx: ToolContext,
  notebook: string,
): Promise<NotebookState> {
  const [rows, conf] = await Promise.all([
    ctx.kernel.lsNotebooks(),
    ctx.kernel.getNotebookConf(notebook),
  ]);
  const row = rows.find((r) => r.id === notebook);
  return { row: row ? stableRow(row) : null, conf };
}

async function requireNotebook(ctx: ToolContext, notebook: string): Promise<NotebookState> {
  const state = await readNotebookState(ctx, notebook);
  if (!state.row) throw notFound("notebook", notebook);
  return state;
}

/** A state mutation on one notebook whose readback checks `done(after)`. */
function notebookMutation<A extends NotebookArgs>(
  execute: (ctx: WriteContext, a: A) => Promise<void>,
  done: (after: NotebookState, a: A) => boolean,
  isNoOp: (before: NotebookState, a: A) => boolean,
): MutationHandler<A, NotebookState, null> {
  return {
    targets: (a) => [a.notebook],
    async probe(ctx, a) {
      const state = await requireNotebook(ctx, a.notebook);
      return { state, notebooks: [a.notebook], snapshot: state };
    },
    async execute(ctx, a) {
      await execute(ctx, a);
      return null;
    },
    async readback(ctx, a, before): Promise<ReadbackResult> {
      const after = await readNotebookState(ctx, a.notebook);
      if (!done(after, a))
        return {
          state: after,
          verdict: "mismatch",
          reason: "the notebook does not show the change",
        };
      return { state: after, verdict: isNoOp(before.snapshot, a) ? "unchanged" : "applied" };
    },
  };
}

const confMatches = (s: NotebookState, conf: Readonly<Record<string, unknown>>) =>
  s.conf !== null &&
  Object.entries(conf).every(([k, v]) => JSON.stringify(s.conf?.[k]) === JSON.stringify(v));

const create: MutationHandler<ArgsOf<"notebook", "create">, null, NotebookRow> = {
  targets: () => [],
  async probe() {
    return { state: null, notebooks: [], snapshot: null };
  },
  execute: (ctx, a) => ctx.write.createNotebook(a.name),
  async readback(ctx, a, _before, created) {
    const after = await readNotebookState(ctx, created.id);
    if (!after.row || after.row.name !== a.name) {
      return {
        state: after,
        verdict: "mismatch",
        reason: "the new notebook is not listed",
        receipt: { notebook: created.id },
      };
    }
    return { state: after, verdict: "applied", receipt: { notebook: created.id } };
  },
};

const remove: MutationHandler<ArgsOf<"notebook", "remove">, NotebookState, null> = {
  targets: (a) => [a.notebook],
  async probe(ctx, a) {
    const state = await requireNotebook(ctx, a.notebook);
    return { state, notebooks: [a.notebook], snapshot: state };
  },
  async execute(ctx, a) {
    await ctx.write.removeNotebook(a.notebook);
    return null;
  },
  async readback(ctx, a) {
    const rows = await ctx.kernel.lsNotebooks();
    const still = rows.some((r) => r.id === a.notebook);
    return still
      ? { state: { removed: false }, verdict: "mismatch", reason: "the notebook is still listed" }
      : { state: { id: a.notebook, removed: true }, verdict: "applied" };
  },
};

/** The notebook tool's handlers. */
export const notebookHandlers = {
  list: readAction({
    run: async (ctx) => ({ notebooks: (await ctx.kernel.lsNotebooks()).map(stableRow) }),
  }),
  get_conf: readAction({
    run: async (ctx, a) => {
      const conf = await ctx.kernel.getNotebookConf(a.notebook);
      if (conf === null) throw notFound("notebook", a.notebook);
      return { notebook: a.notebook, conf };
    },
    notebooks: async (_ctx, a) => [a.notebook],
  }),
  create: mutationAction(create),
  rename: mutationAction(
    notebookMutation(
      (ctx, a) => ctx.write.renameNotebook(a.notebook, a.name),
      (after, a) => after.row?.name === a.name,
      (before, a) => before.row?.name === a.name,
    ),
  ),
  set_conf: mutationAction(
    notebookMutation(
      (ctx, a) => ctx.write.setNotebookConf(a.notebook, { ...a.conf }),
      (after, a) => confMatches(after, a.conf),
      (before, a) => confMatches(before, a.conf),
    ),
  ),
  set_open_state: mutationAction(
    notebookMutation(
      (ctx, a) =>
        a.open ? ctx.write.openNotebook(a.notebook) : ctx.write.closeNotebook(a.notebook),
      (after, a) => after.row?.closed === !a.open,
      (before, a) => before.row?.closed === !a.open,
    ),
  ),
  // setNotebookIcon checks no notebook (an unknown ID becomes a notebook): the probe's
  // requireNotebook refuses it first; lsNotebooks shows the icon as stored.
  set_icon: mutationAction(
    notebookMutation(
      (ctx, a) => ctx.write.setNotebookIcon(a.notebook, normalizeIcon(a.icon)),
      (after, a) => after.row?.icon === normalizeIcon(a.icon),
      (before, a) => before.row?.icon === normalizeIcon(a.icon),
    ),
  ),
  remove: mutationAction(remove),
} satisfies ToolHandlers<"notebook">;
