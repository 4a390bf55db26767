/**
 * Live document state and document-tree structure, read from the file tree and block APIs (never
 * from the lagging SQL index).
 */
import { notFound, ToolError } from "../errors.js";
import type { ToolContext } from "../handler.js";
import type { DocFile } from "../kernel.js";
import { normalizeAttrs, normalizeKramdown } from "./attributes.js";

/** Where a document lives. */
export interface DocLocation {
  readonly id: string;
  readonly notebook: string;
  /** Storage path, `/…/<id>.sy`. */
  readonly path: string;
}

/** Locates a document by ID (1 call); `null` when the kernel has no such document tree. */
export async function locateDoc(ctx: ToolContext, id: string): Promise<DocLocation | null> {
  const loc = await ctx.kernel.getPathByID(id);
  if (!loc?.path.endsWith(`/${id}.sy`)) return null;
  return { id, notebook: loc.notebook, path: loc.path };
}

/** Locates a document or throws `not_found`. */
export async function requireDoc(ctx: ToolContext, id: string): Promise<DocLocation> {
  const loc = await locateDoc(ctx, id);
  if (!loc) throw notFound("document", id);
  return loc;
}

/** A document's metadata state: location and attributes (2 calls, in parallel). */
export async function readDocMeta(ctx: ToolContext, id: string) {
  const [loc, attrs] = await Promise.all([locateDoc(ctx, id), ctx.kernel.getBlockAttrs(id)]);
  if (!loc || !attrs)
    return { location: null, attrs: {} as Record<string, string>, state: { id, missing: true } };
  return {
    location: loc,
    attrs,
    state: { id, notebook: loc.notebook, path: loc.path, attrs: normalizeAttrs(attrs) },
  };
}

/**
 * The content state of the document a path resolved to (1 call): its ID and its whole Kramdown,
 * read live. Where it is needs no read of its own: the path was just resolved to this ID
 * (`getIDsByHPath` answers document IDs only), and a commit resolves it again, so a document
 * that moved away or was replaced shows as `not_found` or as another ID. A readback reads the
 * same two fields, so an unchanged document hashes as before. `null` when the kernel no longer
 * has it.
 */
export async function readDocBody(ctx: ToolContext, id: string) {
  const kramdown = await ctx.kernel.getBlockKramdown(id);
  if (kramdown === null) return null;
  return { kramdown, state: { id, kramdown: normalizeKramdown(kramdown) } };
}

/** The parent of a set of sibling documents: a notebook root or a document. */
export interface DocParent {
  readonly id: string;
  readonly notebook: string;
  /** `/` for a notebook root, else the parent's storage path. */
  readonly path: string;
  readonly isNotebook: boolean;
}

/** Resolves a notebook ID or a document ID as a parent (1–2 calls). */
export async function resolveParent(ctx: ToolContext, id: string): Promise<DocParent> {
  const notebooks = await ctx.kernel.lsNotebooks();
  const nb = notebooks.find((n) => n.id === id);
  if (nb) {
    if (nb.closed)
      throw new ToolError("notebook_closed", `notebook ${id} is closed`, { notebook: id });
    return { id, notebook: id, path: "/", isNotebook: true };
  }
  const loc = await requireDoc(ctx, id);
  return { id, notebook: loc.notebook, path: loc.path, isNotebook: false };
}

/** Lists a parent's visible direct children in custom-sort listing (1 call). */
export async function listChildren(
  ctx: ToolContext,
  parent: DocParent,
  sort?: number,
): Promise<DocFile[]> {
  const list = await ctx.kernel.listDocsByPath(parent.notebook, parent.path, sort);
  if (!list) throw notFound("document folder", parent.id);
  return [...list.files];
}

/**
 * The structure a reorder or move must not see change: the parent, the notebook configuration, and
 * every visible direct child's ID, storage path, custom sort value and current (effective) order.
 */
export async function readSiblingStructure(ctx: ToolContext, parent: DocParent) {
  const [conf, custom, effective] = await Promise.all([
    ctx.kernel.getNotebookConf(parent.notebook),
    listChildren(ctx, parent, 6),
    listChildren(ctx, parent),
  ]);
  const sortOf = new Map(custom.map((f) => [f.id, f.sort]));
  return {
    conf,
    effectiveOrder: effective.map((f) => f.id),
    children: effective.map((f) => ({ id: f.id, path: f.path, sort: sortOf.get(f.id) ?? 0 })),
    state: {
      parent: { id: parent.id, notebook: parent.notebook, path: parent.path },
      conf,
      children: effective.map((f, order) => ({
        id: f.id,
        path: f.path,
        sort: sortOf.get(f.id) ?? 0,
        order,
      })),
    },
  };
}

/** The storage-path folder of a parent's children (`/` or `/…/<id>/`). */
export function childFolder(parent: DocParent): string {
  return parent.isNotebook ? "/" : `${parent.path.slice(0, -".sy".length)}/`;
}

/** Normalises an hpath as the kernel stores titles (no empty segments, trimmed). */
export function normalizeHpath(hpath: string): string {
  const parts = hpath
    .split("/")
    .map((p) => p.trim())
    .filter((p) => p !== "");
  return `/${parts.join("/")}`;
}
