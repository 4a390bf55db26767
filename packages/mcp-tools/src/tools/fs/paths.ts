/**
 * fs paths `/<notebook name>/<title>/<title>…`, resolved against the live tree: a notebook by its
 * (unique) name, a document by its hpath; several matches are `ambiguous_path`.
 */
import { notFound, ToolError } from "../../errors.js";
import type { ToolContext } from "../../handler.js";
import { type DocParent, normalizeHpath, requireDoc } from "../../state/doc-state.js";

/** A parsed fs path. */
interface FsPath {
  readonly notebookName: string;
  /** `/` for the notebook root, else `/<title>/…`. */
  readonly hpath: string;
}

/** Splits a path into its notebook name and the hpath below it. */
export function parsePath(path: string): FsPath {
  const parts = path.split("/").filter((p) => p !== "");
  return { notebookName: parts[0] as string, hpath: `/${parts.slice(1).join("/")}` };
}

/** The parent hpath (`/` at the top). */
export function dirname(hpath: string): string {
  const cut = hpath.lastIndexOf("/");
  return cut <= 0 ? "/" : hpath.slice(0, cut);
}

/** The last title of an hpath. */
export function basename(hpath: string): string {
  return hpath.slice(hpath.lastIndexOf("/") + 1);
}

/** Resolves a notebook by name (1 call); names must be unique. */
export async function notebookByName(ctx: ToolContext, name: string): Promise<string> {
  const rows = (await ctx.kernel.lsNotebooks()).filter((r) => r.name === name);
  if (rows.length === 0) throw notFound("notebook", name);
  if (rows.length > 1) {
    throw new ToolError(
      "ambiguous_path",
      `${rows.length} notebooks are named ${name}: use the document tool with IDs instead`,
      { notebooks: rows.map((r) => r.id) },
    );
  }
  const row = rows[0]!;
  if (row.closed)
    throw new ToolError("notebook_closed", `notebook ${name} is closed`, { notebook: row.id });
  return row.id;
}

/** Resolves an hpath to a document ID; `null` when nothing is there. Several matches are ambiguous. */
export async function docAt(
  ctx: ToolContext,
  notebook: string,
  hpath: string,
): Promise<string | null> {
  const ids = await ctx.kernel.getIDsByHPath(notebook, normalizeHpath(hpath));
  if (ids.length > 1) {
    throw new ToolError(
      "ambiguous_path",
      `${ids.length} documents have the path ${hpath}: use the document tool with one of these IDs`,
      { ids },
    );
  }
  return ids[0] ?? null;
}

/** Resolves a path to a parent folder: the notebook root or a document. */
export async function parentAt(ctx: ToolContext, path: string): Promise<DocParent> {
  const p = parsePath(path);
  const notebook = await notebookByName(ctx, p.notebookName);
  if (p.hpath === "/") return { id: notebook, notebook, path: "/", isNotebook: true };
  const id = await docAt(ctx, notebook, p.hpath);
  if (!id) throw notFound("path", path);
  const loc = await requireDoc(ctx, id);
  return { id, notebook, path: loc.path, isNotebook: false };
}

/** Resolves a document path's notebook and hpath; a bare notebook path is refused. */
export async function docPath(
  ctx: ToolContext,
  path: string,
): Promise<{ notebook: string; hpath: string }> {
  const p = parsePath(path);
  if (p.hpath === "/") {
    throw new ToolError(
      "invalid_arguments",
      "the path names a notebook, not a document: add the document title to the path",
      { path },
    );
  }
  return { notebook: await notebookByName(ctx, p.notebookName), hpath: p.hpath };
}

/** The document at a path and its notebook; `not_found` when nothing is there. */
export async function requireDocAt(
  ctx: ToolContext,
  path: string,
): Promise<{ id: string; notebook: string }> {
  const { notebook, hpath } = await docPath(ctx, path);
  const id = await docAt(ctx, notebook, hpath);
  if (!id) throw notFound("path", path);
  return { id, notebook };
}
