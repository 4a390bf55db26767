/**
 * document: get, list_tree, lookup (reads); create (additive); rename, set_attr, remove (state);
 * move, reorder (structure).
 */
import type {
  MutationHandler,
  ReadbackResult,
  RunHandler,
  ToolContext,
  ToolHandlers,
} from "../handler.js";
import { notFound, ToolError } from "../handler.js";
import type { DocFile } from "../kernel.js";
import {
  childFolder,
  type DocLocation,
  type DocParent,
  listChildren,
  locateDoc,
  normalizeHpath,
  readDocMeta,
  requireDoc,
  resolveParent,
} from "../state/doc-state.js";
import { attrsMatch } from "../state/ial.js";
import { reorderHandler } from "./reorder.js";

/** At most this many documents in one list_tree answer. */
export const LIST_TREE_MAX_NODES = 512;

interface TreeNode {
  readonly id: string;
  readonly title: string;
  readonly children?: TreeNode[];
}

/** Lists a document tree breadth-first down to `depth` levels, capped at {@link LIST_TREE_MAX_NODES}. */
export async function listTree(
  ctx: ToolContext,
  parent: DocParent,
  depth: number,
): Promise<{ tree: TreeNode[]; truncated: boolean }> {
  let budget = LIST_TREE_MAX_NODES;
  let truncated = false;
  const walk = async (p: DocParent, level: number): Promise<TreeNode[]> => {
    const files: DocFile[] = await listChildren(ctx, p);
    const nodes: TreeNode[] = [];
    for (const f of files) {
      if (budget-- <= 0) {
        truncated = true;
        break;
      }
      const node: TreeNode =
        level < depth && f.subFileCount > 0
          ? {
              id: f.id,
              title: f.name,
              children: await walk(
                { id: f.id, notebook: p.notebook, path: f.path, isNotebook: false },
                level + 1,
              ),
            }
          : { id: f.id, title: f.name };
      nodes.push(node);
    }
    return nodes;
  };
  return { tree: await walk(parent, 1), truncated };
}

// ---------------------------------------------------------------- additive create

interface CreateArgs {
  readonly notebook: string;
  readonly hpath: string;
  readonly markdown: string;
}

/** Probe of a document creation: the notebook must exist and be open. */
export async function probeNotebookOpen(ctx: ToolContext, notebook: string) {
  const rows = await ctx.kernel.lsNotebooks();
  const row = rows.find((r) => r.id === notebook);
  if (!row) throw notFound("notebook", notebook);
  if (row.closed)
    throw new ToolError(
      "notebook_closed",
      `notebook ${notebook} is closed`,
      "Open it with notebook.set_open_state first.",
    );
  return { state: { notebook }, notebooks: [notebook], snapshot: null };
}

/** Readback of a created document: it exists live, at the requested hpath. */
export async function createdDocReadback(
  ctx: ToolContext,
  id: string,
  hpath: string,
): Promise<ReadbackResult> {
  await ctx.kernel.flush();
  const [loc, actual] = await Promise.all([locateDoc(ctx, id), ctx.kernel.getHPathByID(id)]);
  const state = { id, location: loc, hpath: actual };
  if (!loc)
    return {
      state,
      verdict: "mismatch",
      reason: `document ${id} does not exist after the write`,
      receipt: { id },
    };
  if (actual !== normalizeHpath(hpath)) {
    return {
      state,
      verdict: "mismatch",
      reason: `document ${id} is at ${actual}, not ${normalizeHpath(hpath)}`,
      receipt: { id },
    };
  }
  return { state, verdict: "applied", receipt: { id, hpath: actual } };
}

const create: MutationHandler<CreateArgs, null, string> = {
  targets: (a) => [a.notebook],
  probe: (ctx, a) => probeNotebookOpen(ctx, a.notebook),
  execute: (ctx, a) => ctx.write.createDocWithMd(a.notebook, normalizeHpath(a.hpath), a.markdown),
  readback: (ctx, a, _before, id) => createdDocReadback(ctx, id, a.hpath),
};

// ---------------------------------------------------------------- state mutations

interface RenameArgs {
  readonly id: string;
  readonly title: string;
}
interface SetAttrArgs {
  readonly id: string;
  readonly attrs: Readonly<Record<string, string | null>>;
}

type Meta = Awaited<ReturnType<typeof readDocMeta>>;

async function probeMeta(ctx: ToolContext, id: string) {
  const meta = await readDocMeta(ctx, id);
  if (!meta.location) throw notFound("document", id);
  return { state: meta.state, notebooks: [meta.location.notebook], snapshot: meta };
}

const normalizeTitle = (t: string) => t.replace(/[/\n\t]/g, "").trim();

const rename: MutationHandler<RenameArgs, Meta, null> = {
  targets: (a) => [a.id],
  probe: (ctx, a) => probeMeta(ctx, a.id),
  async execute(ctx, a) {
    await ctx.write.renameDocByID(a.id, a.title);
    return null;
  },
  async readback(ctx, a, before) {
    await ctx.kernel.flush();
    const after = await readDocMeta(ctx, a.id);
    if (after.attrs["title"] !== normalizeTitle(a.title)) {
      return {
        state: after.state,
        verdict: "mismatch",
        reason: "the document does not show the new title",
      };
    }
    return {
      state: after.state,
      verdict: before.snapshot.attrs["title"] === normalizeTitle(a.title) ? "unchanged" : "applied",
    };
  },
};

const setAttr: MutationHandler<SetAttrArgs, Meta, null> = {
  targets: (a) => [a.id],
  async probe(ctx, a) {
    for (const name of Object.keys(a.attrs)) {
      if (["id", "updated", "title", "type"].includes(name.toLowerCase())) {
        throw new ToolError(
          "invalid_arguments",
          `attribute ${name} is kernel-managed`,
          "Use document.rename for the title; set custom-* attributes.",
        );
      }
    }
    return probeMeta(ctx, a.id);
  },
  async execute(ctx, a) {
    await ctx.write.setBlockAttrs(a.id, { ...a.attrs });
    return null;
  },
  async readback(ctx, a, before) {
    await ctx.kernel.flush();
    const after = await readDocMeta(ctx, a.id);
    if (!attrsMatch(after.attrs, a.attrs))
      return {
        state: after.state,
        verdict: "mismatch",
        reason: "the attributes do not show the requested values",
      };
    return {
      state: after.state,
      verdict: attrsMatch(before.snapshot.attrs, a.attrs) ? "unchanged" : "applied",
    };
  },
};

/**
 * Readback of a document removal: existence is checked live by ID first, so a stale path or SQL
 * index cannot turn a successful deletion into a failure. A failed existence query throws, which
 * leaves the outcome unknown; a network error never proves deletion.
 */
export async function removedDocReadback(ctx: ToolContext, id: string): Promise<ReadbackResult> {
  await ctx.kernel.flush();
  const exists = await ctx.kernel.checkBlockExist(id);
  if (!exists)
    return { state: { id, removed: true }, verdict: "applied", receipt: { removed: id } };
  const loc = await locateDoc(ctx, id);
  return {
    state: { id, location: loc },
    verdict: "mismatch",
    reason: `document ${id} still exists`,
  };
}

const remove: MutationHandler<{ id: string }, Meta, null> = {
  targets: (a) => [a.id],
  probe: (ctx, a) => probeMeta(ctx, a.id),
  async execute(ctx, a) {
    await ctx.write.removeDocByID(a.id);
    return null;
  },
  readback: (ctx, a) => removedDocReadback(ctx, a.id),
};

// ---------------------------------------------------------------- structure mutations

interface MoveArgs {
  readonly ids: readonly string[];
  readonly toID: string;
}
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

const move: MutationHandler<MoveArgs, MoveSnapshot, null> = {
  targets: (a) => [...a.ids, a.toID],
  async probe(ctx, a) {
    if (a.ids.includes(a.toID))
      throw new ToolError(
        "invalid_arguments",
        "a document cannot move into itself",
        "Pick another target.",
      );
    const s = await moveStructure(ctx, a);
    for (const d of s.docs) {
      if (!s.target.isNotebook && s.target.path.startsWith(d.path.slice(0, -".sy".length) + "/")) {
        throw new ToolError(
          "invalid_arguments",
          `document ${d.id} cannot move under its own descendant`,
          "Pick another target.",
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

const reorder = reorderHandler<{ parentID: string; orderedIDs: string[] }>(
  async (ctx, a) => ({ parent: await resolveParent(ctx, a.parentID), orderedIds: a.orderedIDs }),
  (a) => [a.parentID, ...a.orderedIDs],
);

// ---------------------------------------------------------------- reads

/** The document tool's handlers. */
export const documentHandlers: ToolHandlers = {
  get: {
    read: {
      run: async (ctx: ToolContext, a: { id: string }) => {
        const [loc, kramdown, hpath] = await Promise.all([
          locateDoc(ctx, a.id),
          ctx.kernel.getBlockKramdown(a.id),
          ctx.kernel.getHPathByID(a.id),
        ]);
        if (!loc || kramdown === null) throw notFound("document", a.id);
        return { id: a.id, notebook: loc.notebook, hpath, kramdown };
      },
      notebooks: async (ctx: ToolContext, a: { id: string }) => [
        (await requireDoc(ctx, a.id)).notebook,
      ],
    } as RunHandler<never>,
  },
  list_tree: {
    read: {
      run: async (ctx: ToolContext, a: { notebook: string; id?: string; depth: number }) => {
        const parent = await resolveParent(ctx, a.id ?? a.notebook);
        if (parent.notebook !== a.notebook) {
          throw new ToolError(
            "invalid_arguments",
            `document ${a.id} is not in notebook ${a.notebook}`,
            "Pass the document's own notebook.",
          );
        }
        return {
          notebook: a.notebook,
          root: a.id ?? "/",
          ...(await listTree(ctx, parent, a.depth)),
        };
      },
      notebooks: async (_ctx: ToolContext, a: { notebook: string }) => [a.notebook],
    } as RunHandler<never>,
  },
  lookup: {
    read: {
      run: async (ctx: ToolContext, a: { id?: string; notebook?: string; hpath?: string }) => {
        if (a.id) {
          const [loc, hpath] = await Promise.all([
            locateDoc(ctx, a.id),
            ctx.kernel.getHPathByID(a.id),
          ]);
          if (!loc) throw notFound("document", a.id);
          return { id: a.id, notebook: loc.notebook, path: loc.path, hpath };
        }
        const ids = await ctx.kernel.getIDsByHPath(
          a.notebook as string,
          normalizeHpath(a.hpath as string),
        );
        return { notebook: a.notebook, hpath: normalizeHpath(a.hpath as string), ids };
      },
    } as RunHandler<never>,
  },
  create: { mutation: create as MutationHandler<never> },
  rename: { mutation: rename as MutationHandler<never> },
  set_attr: { mutation: setAttr as MutationHandler<never> },
  remove: { mutation: remove as MutationHandler<never> },
  move: { mutation: move as MutationHandler<never> },
  reorder: { mutation: reorder as MutationHandler<never> },
};
