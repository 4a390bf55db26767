/** fs.rm and fs.mv (both dangerous). */
import { notFound, ToolError } from "../../errors.js";
import type { ArgsOf, MutationHandler } from "../../handler.js";
import {
  childFolder,
  type DocParent,
  listChildren,
  locateDoc,
  normalizeHpath,
  readDocBody,
  requireDoc,
} from "../../state/doc-state.js";
import { removedDocReadback } from "../document/meta-mutations.js";
import { basename, dirname, docAt, parentAt, parsePath, requireDocAt } from "./paths.js";

/** fs.rm (dangerous): the document at `path`. */
export const rm: MutationHandler<ArgsOf<"fs", "rm">, { id: string }, null> = {
  targets: (a) => [a.path],
  async probe(ctx, a) {
    const { id, notebook } = await requireDocAt(ctx, a.path);
    const doc = await readDocBody(ctx, id);
    if (!doc) throw notFound("path", a.path);
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

/** fs.mv (dangerous): moves and/or renames the document at `from` to `to`. */
export const mv: MutationHandler<ArgsOf<"fs", "mv">, MvSnapshot, null> = {
  targets: (a) => [a.from, a.to],
  async probe(ctx, a) {
    const src = await requireDocAt(ctx, a.from);
    const to = parsePath(a.to);
    if (to.hpath === "/")
      throw new ToolError(
        "invalid_arguments",
        "the destination must name the document: end `to` with the document title",
        { to: a.to },
      );
    const target = await parentAt(ctx, `/${to.notebookName}${dirname(to.hpath)}`);
    if ((await docAt(ctx, target.notebook, to.hpath)) !== null) {
      throw new ToolError(
        "already_exists",
        `${a.to} exists: choose another destination or remove it first`,
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
        "a document cannot move under itself: pick another destination",
        { from: a.from, to: a.to },
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
