/**
 * fs: documents addressed by path `/<notebook name>/<title>/<title>…`.
 * ls, read, tree (reads); write (additive when new, state with `overwrite`); rm (state);
 * mv, reorder (structure).
 */
import type { MutationHandler, RunHandler, ToolContext, ToolHandlers } from "../handler.js";
import { notFound, ToolError } from "../handler.js";
import {
  childFolder,
  type DocParent,
  listChildren,
  locateDoc,
  normalizeHpath,
  readDocContent,
  requireDoc,
} from "../state/doc-state.js";
import { splitOwnIal } from "../state/ial.js";
import { documentShows } from "../state/readback.js";
import { createdDocReadback, listTree, probeNotebookOpen, removedDocReadback } from "./document.js";
import { reorderHandler } from "./reorder.js";

/** A parsed fs path. */
interface FsPath {
  readonly notebookName: string;
  /** `/` for the notebook root, else `/<title>/…`. */
  readonly hpath: string;
}

function parsePath(path: string): FsPath {
  const parts = path.split("/").filter((p) => p !== "");
  return { notebookName: parts[0] as string, hpath: `/${parts.slice(1).join("/")}` };
}

function dirname(hpath: string): string {
  const cut = hpath.lastIndexOf("/");
  return cut <= 0 ? "/" : hpath.slice(0, cut);
}

function basename(hpath: string): string {
  return hpath.slice(hpath.lastIndexOf("/") + 1);
}

/** Resolves a notebook by name (1 call); names must be unique. */
async function notebookByName(ctx: ToolContext, name: string): Promise<string> {
  const rows = (await ctx.kernel.lsNotebooks()).filter((r) => r.name === name);
  if (rows.length === 0) throw notFound("notebook", name);
  if (rows.length > 1) {
    throw new ToolError(
      "ambiguous_path",
      `${rows.length} notebooks are named ${name}`,
      "Use the document tool with IDs instead.",
      {
        notebooks: rows.map((r) => r.id),
      },
    );
  }
  const row = rows[0]!;
  if (row.closed)
    throw new ToolError(
      "notebook_closed",
      `notebook ${name} is closed`,
      "Open it with notebook.set_open_state first.",
    );
  return row.id;
}

/** Resolves an hpath to a document ID; `null` when nothing is there. Several matches are ambiguous. */
async function docAt(ctx: ToolContext, notebook: string, hpath: string): Promise<string | null> {
  const ids = await ctx.kernel.getIDsByHPath(notebook, normalizeHpath(hpath));
  if (ids.length > 1) {
    throw new ToolError(
      "ambiguous_path",
      `${ids.length} documents have the path ${hpath}`,
      "Use the document tool with one of these IDs.",
      { ids },
    );
  }
  return ids[0] ?? null;
}

/** Resolves a path to a parent folder: the notebook root or a document. */
async function parentAt(ctx: ToolContext, path: string): Promise<DocParent> {
  const p = parsePath(path);
  const notebook = await notebookByName(ctx, p.notebookName);
  if (p.hpath === "/") return { id: notebook, notebook, path: "/", isNotebook: true };
  const id = await docAt(ctx, notebook, p.hpath);
  if (!id) throw notFound("path", path);
  const loc = await requireDoc(ctx, id);
  return { id, notebook, path: loc.path, isNotebook: false };
}

/** Resolves a document path's notebook and hpath; a bare notebook path is refused. */
async function docPath(
  ctx: ToolContext,
  path: string,
): Promise<{ notebook: string; hpath: string }> {
  const p = parsePath(path);
  if (p.hpath === "/") {
    throw new ToolError(
      "invalid_arguments",
      "the path names a notebook, not a document",
      "Add the document title to the path.",
    );
  }
  return { notebook: await notebookByName(ctx, p.notebookName), hpath: p.hpath };
}

async function requireDocAt(
  ctx: ToolContext,
  path: string,
): Promise<{ id: string; notebook: string }> {
  const { notebook, hpath } = await docPath(ctx, path);
  const id = await docAt(ctx, notebook, hpath);
  if (!id) throw notFound("path", path);
  return { id, notebook };
}

// ---------------------------------------------------------------- write

interface WriteArgs {
  readonly path: string;
  readonly markdown: string;
  readonly overwrite: boolean;
}
interface WriteSnapshot {
  readonly notebook: string;
  readonly hpath: string;
  readonly existing: string | null;
  readonly before: string;
}

const write: MutationHandler<WriteArgs, WriteSnapshot, string> = {
  targets: (a) => [a.path],
  async probe(ctx, a) {
    const p = await docPath(ctx, a.path);
    const notebook = p.notebook;
    const existing = await docAt(ctx, notebook, p.hpath);
    if (!a.overwrite) {
      if (existing) {
        throw new ToolError(
          "already_exists",
          `${a.path} exists`,
          "Read it with fs.read; to replace its content, preflight fs.write with overwrite:true.",
          {
            id: existing,
          },
        );
      }
      const open = await probeNotebookOpen(ctx, notebook);
      return { ...open, snapshot: { notebook, hpath: p.hpath, existing: null, before: "" } };
    }
    if (!existing) throw notFound("path", a.path);
    const doc = await readDocContent(ctx, existing);
    if (!doc.location) throw notFound("path", a.path);
    return {
      state: doc.state,
      notebooks: [notebook],
      snapshot: { notebook, hpath: p.hpath, existing, before: splitOwnIal(doc.kramdown).body },
    };
  },
  async execute(ctx, a, before) {
    const s = before.snapshot;
    if (s.existing === null)
      return ctx.write.createDocWithMd(s.notebook, normalizeHpath(s.hpath), a.markdown);
    // Updating a document ID replaces all of its children with the new content.
    await ctx.write.updateBlock(s.existing, "markdown", a.markdown);
    return s.existing;
  },
  async readback(ctx, a, before, id) {
    if (before.snapshot.existing === null)
      return createdDocReadback(ctx, id, before.snapshot.hpath);
    await ctx.kernel.flush();
    // Existence first (live, by ID), then the block tree.
    if (!(await ctx.kernel.checkBlockExist(id)))
      return {
        state: { id, missing: true },
        verdict: "mismatch",
        reason: `document ${id} no longer exists`,
      };
    const doc = await readDocContent(ctx, id);
    const body = splitOwnIal(doc.kramdown).body;
    if (!documentShows(body, a.markdown)) {
      return {
        state: doc.state,
        verdict: "mismatch",
        reason: "the document does not show the written content",
      };
    }
    // `unchanged` is decided from the request and the before-state, never from the readback.
    const same = documentShows(before.snapshot.before, a.markdown);
    if (!same && JSON.stringify(doc.state) === JSON.stringify(before.state)) {
      return {
        state: doc.state,
        verdict: "mismatch",
        reason: "the document still shows its previous content although the request changes it",
      };
    }
    return { state: doc.state, verdict: same ? "unchanged" : "applied", receipt: { id } };
  },
};

// ---------------------------------------------------------------- rm, mv

const rm: MutationHandler<{ path: string }, { id: string }, null> = {
  targets: (a) => [a.path],
  async probe(ctx, a) {
    const { id, notebook } = await requireDocAt(ctx, a.path);
    const doc = await readDocContent(ctx, id);
    if (!doc.location) throw notFound("path", a.path);
    return { state: doc.state, notebooks: [notebook], snapshot: { id } };
  },
  async execute(ctx, _a, before) {
    await ctx.write.removeDocByID(before.snapshot.id);
    return null;
  },
  readback: (ctx, _a, before) => removedDocReadback(ctx, before.snapshot.id),
};

interface MvSnapshot {
  readonly id: string;
  readonly target: DocParent;
  readonly title: string;
  readonly hpath: string;
  readonly move: boolean;
  readonly rename: boolean;
}

const mv: MutationHandler<{ from: string; to: string }, MvSnapshot, null> = {
  targets: (a) => [a.from, a.to],
  async probe(ctx, a) {
    const src = await requireDocAt(ctx, a.from);
    const to = parsePath(a.to);
    if (to.hpath === "/")
      throw new ToolError(
        "invalid_arguments",
        "the destination must name the document",
        "End `to` with the document title.",
      );
    const target = await parentAt(ctx, `/${to.notebookName}${dirname(to.hpath)}`);
    if ((await docAt(ctx, target.notebook, to.hpath)) !== null) {
      throw new ToolError(
        "already_exists",
        `${a.to} exists`,
        "Choose another destination or remove it first.",
      );
    }
    const [loc, hpath, siblings] = await Promise.all([
      requireDoc(ctx, src.id),
      ctx.kernel.getHPathByID(src.id),
      listChildren(ctx, target),
    ]);
    if (!target.isNotebook && target.path.startsWith(`${loc.path.slice(0, -".sy".length)}/`)) {
      throw new ToolError(
        "invalid_arguments",
        "a document cannot move under itself",
        "Pick another destination.",
      );
    }
    const title = basename(to.hpath);
    const moving = !(
      loc.notebook === target.notebook && loc.path === `${childFolder(target)}${src.id}.sy`
    );
    return {
      state: {
        doc: { id: src.id, notebook: loc.notebook, path: loc.path, hpath },
        target: { id: target.id, path: target.path },
        targetChildren: siblings.map((f) => f.id),
      },
      notebooks: [...new Set([loc.notebook, target.notebook])],
      snapshot: {
        id: src.id,
        target,
        title,
        hpath: to.hpath,
        move: moving,
        rename: basename(hpath ?? "") !== title,
      },
    };
  },
  async execute(ctx, _a, before) {
    const s = before.snapshot;
    if (s.move) await ctx.write.moveDocsByID([s.id], s.target.id);
    if (s.rename) await ctx.write.renameDocByID(s.id, s.title);
    return null;
  },
  async readback(ctx, _a, before) {
    const s = before.snapshot;
    await ctx.kernel.flush();
    const [loc, hpath] = await Promise.all([locateDoc(ctx, s.id), ctx.kernel.getHPathByID(s.id)]);
    const state = { id: s.id, location: loc, hpath };
    if (!loc || loc.notebook !== s.target.notebook || hpath !== normalizeHpath(s.hpath)) {
      return { state, verdict: "mismatch", reason: `document ${s.id} is not at the destination` };
    }
    return { state, verdict: "applied", receipt: { id: s.id, hpath } };
  },
};

const reorder = reorderHandler<{ path: string; order: string[] }>(
  async (ctx, a) => {
    const parent = await parentAt(ctx, a.path);
    const children = await listChildren(ctx, parent);
    const orderedIds = a.order.map((title) => {
      const matches = children.filter((c) => c.name === title);
      if (matches.length !== 1) {
        throw new ToolError(
          matches.length === 0 ? "not_found" : "ambiguous_path",
          `${matches.length === 0 ? "no" : matches.length} child documents titled ${title}`,
          "List the children with fs.ls and use their exact titles (or document.reorder with IDs).",
        );
      }
      return matches[0]!.id;
    });
    return { parent, orderedIds };
  },
  (a) => [a.path],
);

// ---------------------------------------------------------------- reads

/** The fs tool's handlers. */
export const fsHandlers: ToolHandlers = {
  ls: {
    read: {
      run: async (ctx: ToolContext, a: { path: string }) => {
        const parent = await parentAt(ctx, a.path);
        const files = await listChildren(ctx, parent);
        return {
          path: a.path,
          entries: files.map((f) => ({ title: f.name, id: f.id, children: f.subFileCount })),
        };
      },
    } as RunHandler<never>,
  },
  read: {
    read: {
      run: async (ctx: ToolContext, a: { path: string }) => {
        const { id } = await requireDocAt(ctx, a.path);
        const kramdown = await ctx.kernel.getBlockKramdown(id);
        if (kramdown === null) throw notFound("path", a.path);
        return { path: a.path, id, kramdown };
      },
    } as RunHandler<never>,
  },
  tree: {
    read: {
      run: async (ctx: ToolContext, a: { path: string; depth: number }) => {
        const parent = await parentAt(ctx, a.path);
        return { path: a.path, ...(await listTree(ctx, parent, a.depth)) };
      },
    } as RunHandler<never>,
  },
  write: { mutation: write as MutationHandler<never> },
  rm: { mutation: rm as MutationHandler<never> },
  mv: { mutation: mv as MutationHandler<never> },
  reorder: { mutation: reorder as MutationHandler<never> },
};
