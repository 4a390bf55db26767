/** document reads: get, list_tree, find, lookup. */
import { notFound, ToolError } from "../../errors.js";
import { type ArgsOf, readAction, type ToolContext, type ToolHandlers } from "../../handler.js";
import { locateDoc, normalizeHpath, requireDoc, resolveParent } from "../../state/doc-state.js";
import { docByTitle, docsByTitles, findDocs } from "./find.js";
import { listTree } from "./tree.js";

/** A document as `get` answers it, but the notebook's name; null when `id` is no document. */
async function readDoc(ctx: ToolContext, id: string) {
  const [loc, kramdown, hpath] = await Promise.all([
    locateDoc(ctx, id),
    ctx.kernel.getBlockKramdown(id),
    ctx.kernel.getHPathByID(id),
  ]);
  if (!loc || kramdown === null) return null;
  return { id, notebook: loc.notebook, hpath, kramdown };
}

/** `doc` with its notebook's name, so a caller need not list the notebooks (D-292). */
function withNotebookName(
  doc: NonNullable<Awaited<ReturnType<typeof readDoc>>>,
  notebooks: ReadonlyArray<{ id: string; name: string }>,
) {
  const notebookName = notebooks.find((n) => n.id === doc.notebook)?.name ?? "";
  return {
    id: doc.id,
    notebook: doc.notebook,
    notebookName,
    hpath: doc.hpath,
    kramdown: doc.kramdown,
  };
}

/**
 * `document.get(ids|titles)`: several documents in one answer, in the order asked, each read once;
 * `missing` lists what names no document, `ambiguous` the titles naming several (with candidates to
 * get by ID). `not_found` only when nothing was found or ambiguous.
 */
async function getMany(ctx: ToolContext, a: ArgsOf<"document", "get">) {
  const byTitle = a.titles === undefined ? null : await docsByTitles(ctx, a.titles);
  const ids = byTitle ? byTitle.docs.map((d) => d.id) : [...new Set(a.ids)];
  const [docs, notebooks] = await Promise.all([
    Promise.all(ids.map((id) => readDoc(ctx, id))),
    ctx.kernel.lsNotebooks(),
  ]);
  const documents = docs.flatMap((d) => (d ? [withNotebookName(d, notebooks)] : []));
  const missing = [...(byTitle?.missing ?? []), ...ids.filter((_, i) => docs[i] === null)];
  const ambiguous = byTitle?.ambiguous ?? [];
  if (documents.length === 0 && ambiguous.length === 0) {
    throw new ToolError("not_found", "none of these names a document", {
      missing,
      hint: "document.find matches part of a title",
    });
  }
  return {
    documents,
    ...(missing.length > 0 ? { missing } : {}),
    ...(ambiguous.length > 0
      ? { ambiguous, hint: "get an ambiguous title's document by its id" }
      : {}),
  };
}

/** The document tool's reads. */
export const documentReads = {
  get: readAction({
    run: async (ctx, a) => {
      if (a.ids !== undefined || a.titles !== undefined) return getMany(ctx, a);
      const id = a.id ?? (await docByTitle(ctx, a.title as string)).id;
      const [doc, notebooks] = await Promise.all([readDoc(ctx, id), ctx.kernel.lsNotebooks()]);
      if (!doc) throw notFound("document", id);
      return withNotebookName(doc, notebooks);
    },
    notebooks: async (ctx, a) => {
      if (a.id !== undefined) return [(await requireDoc(ctx, a.id)).notebook];
      if (a.title !== undefined) return [(await docByTitle(ctx, a.title)).notebook];
      // Several: every named document the caller may read (D-272); titles only count readable ones.
      if (a.titles !== undefined)
        return (await docsByTitles(ctx, a.titles)).docs.map((d) => d.notebook);
      const locs = await Promise.all([...new Set(a.ids)].map((id) => locateDoc(ctx, id)));
      return locs.flatMap((l) => (l ? [l.notebook] : []));
    },
  }),
  list_tree: readAction({
    run: async (ctx, a) => {
      const parent = await resolveParent(ctx, a.id ?? a.notebook);
      if (parent.notebook !== a.notebook) {
        throw new ToolError(
          "invalid_arguments",
          `document ${a.id} is not in notebook ${a.notebook}: pass the document's own notebook`,
          { id: a.id, notebook: parent.notebook },
        );
      }
      return {
        notebook: a.notebook,
        root: a.id ?? "/",
        ...(await listTree(ctx, parent, a.depth)),
      };
    },
    notebooks: async (_ctx, a) => [a.notebook],
  }),
  find: readAction({
    run: findDocs,
    notebooks: async (_ctx, a) => (a.notebook === undefined ? [] : [a.notebook]),
  }),
  lookup: readAction({
    run: async (ctx, a) => {
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
    notebooks: async (ctx, a) =>
      a.id ? [(await requireDoc(ctx, a.id)).notebook] : [a.notebook as string],
  }),
} satisfies Pick<ToolHandlers<"document">, "get" | "list_tree" | "find" | "lookup">;
