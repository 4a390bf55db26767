/**
 * document.duplicate (additive): SiYuan's `duplicateDoc`, a copy of one document beside it. The
 * readback follows the new ID the kernel answers and proves the copy holds the source's content
 * (block for block, references to the source's own blocks re-pointed to their copies) under new
 * block IDs, in the source's folder and notebook, titled as the kernel titles copies.
 */
import { notFound, ToolError } from "../../errors.js";
import type { ArgsOf, MutationHandler, ReadbackResult, ToolContext } from "../../handler.js";
import { splitOwnIal } from "../../state/attributes.js";
import { canonicalForm, formOfMarkdown } from "../../state/content-form.js";
import { type DocLocation, locateDoc } from "../../state/doc-state.js";

type DuplicateArgs = ArgsOf<"document", "duplicate">;

/**
 * Attributes SiYuan 3.7.3 drops from every block of a copy (`model.DuplicateDoc`): database
 * bindings and flashcard decks; from the document also `scroll`.
 */
const DROPPED_ATTR = /^(?:custom-avs|av-names|custom-sy-av-s-text.*|custom-riff-decks)$/;
const DROPPED_IN_IAL =
  /\s(?:custom-avs|av-names|custom-sy-av-s-text[\w-]*|custom-riff-decks)="[^"]*"/g;

/** Block IDs in a body's IALs, in document order. */
function blockIdsOf(body: string): string[] {
  return [...body.matchAll(/\bid="(\d{14}-[0-9a-z]{7})"/g)].map((m) => m[1] as string);
}

/** `YYYY-MM-DD HH:MM:SS` of a node ID's time, as the kernel writes it into a copy's title. */
function timeOfId(id: string): string {
  const t = id.slice(0, 14);
  return `${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)} ${t.slice(8, 10)}:${t.slice(10, 12)}:${t.slice(12, 14)}`;
}

/** The folder of a storage path (`/a/b.sy` → `/a`). */
const folderOf = (path: string) => path.slice(0, path.lastIndexOf("/"));

interface DuplicateSnapshot {
  readonly source: DocLocation;
  /** The source's Kramdown at the commit's probe (kept in memory only). */
  readonly kramdown: string;
}

/** Locates the source document; a block ID is refused with the way to its document. */
async function requireSourceDoc(ctx: ToolContext, id: string): Promise<DocLocation> {
  const loc = await locateDoc(ctx, id);
  if (loc) return loc;
  const info = await ctx.kernel.getBlockInfo(id);
  if (info === null) throw notFound("document", id);
  throw new ToolError(
    "invalid_arguments",
    `${id} is a block, not a document: document.duplicate copies a whole document; pass its document's ID (${info.rootID})`,
    { id, rootID: info.rootID },
  );
}

/**
 * Why the copy does not hold the source's content, or `undefined` when it does: the same blocks
 * under new IDs (none shared with the source), the source's references to its own blocks pointing
 * at their copies, every attribute kept but those the kernel drops, and the document's attributes
 * kept with the title suffixed ` (Duplicated <the copy ID's time>)` (or unchanged for "Untitled").
 */
export function copyMismatch(
  sourceId: string,
  sourceKramdown: string,
  copyId: string,
  copyKramdown: string,
): string | undefined {
  const src = splitOwnIal(sourceKramdown);
  const copy = splitOwnIal(copyKramdown);
  const srcIds = blockIdsOf(src.body);
  const copyIds = blockIdsOf(copy.body);
  if (srcIds.length !== copyIds.length)
    return `copy ${copyId} has ${copyIds.length} blocks, the source ${srcIds.length}`;
  const shared = copyIds.filter((id) => srcIds.includes(id) || id === sourceId);
  if (shared.length > 0) return `copy ${copyId} shares block IDs with the source (${shared[0]})`;
  const renamed = new Map(srcIds.map((id, i) => [id, copyIds[i] as string]));
  const expected = src.body
    .replace(DROPPED_IN_IAL, "")
    .replace(/\(\((\d{14}-[0-9a-z]{7})(?=[\s)])/g, (m, ref: string) => {
      const to = renamed.get(ref);
      return to === undefined ? m : `((${to}`;
    });
  const key = (body: string) => canonicalForm(formOfMarkdown(body), { ownAttrs: "compare" });
  if (key(expected) !== key(copy.body))
    return `copy ${copyId} does not hold the content of document ${sourceId}`;
  const title = src.attrs["title"] ?? "";
  const titled = `${title} (Duplicated ${timeOfId(copyId)})`;
  if (copy.attrs["title"] !== titled && copy.attrs["title"] !== title)
    return `copy ${copyId} is titled ${JSON.stringify(copy.attrs["title"])}, not ${JSON.stringify(titled)}`;
  const ignored = (k: string) =>
    k === "id" || k === "title" || k === "updated" || k === "scroll" || DROPPED_ATTR.test(k);
  const rest = (attrs: Record<string, string>) =>
    JSON.stringify(
      Object.entries(attrs)
        .filter(([k]) => !ignored(k))
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    );
  if (rest(src.attrs) !== rest(copy.attrs))
    return `copy ${copyId} does not keep the attributes of document ${sourceId}`;
  return undefined;
}

/** document.duplicate: `duplicateDoc`, read back by the new ID the kernel answers. */
export const duplicate: MutationHandler<
  DuplicateArgs,
  DuplicateSnapshot,
  { readonly id: string; readonly path: string }
> = {
  targets: (a) => [a.id],
  async probe(ctx, a) {
    const source = await requireSourceDoc(ctx, a.id);
    const kramdown = await ctx.kernel.getBlockKramdown(a.id);
    if (kramdown === null) throw notFound("document", a.id);
    return {
      state: { id: a.id, notebook: source.notebook, path: source.path },
      notebooks: [source.notebook],
      snapshot: { source, kramdown },
    };
  },
  execute: (ctx, a) => ctx.write.duplicateDoc(a.id),
  async readback(ctx, a, before, made): Promise<ReadbackResult> {
    await ctx.kernel.flush();
    const { source, kramdown } = before.snapshot;
    const [loc, copy] = await Promise.all([
      locateDoc(ctx, made.id),
      ctx.kernel.getBlockKramdown(made.id),
    ]);
    const receipt = { id: made.id, sourceID: a.id };
    const state = { id: made.id, location: loc, sourceID: a.id };
    const fail = (reason: string): ReadbackResult => ({
      state,
      verdict: "mismatch",
      reason,
      receipt,
    });
    if (!loc || copy === null) return fail(`copy ${made.id} does not exist after the write`);
    if (loc.notebook !== source.notebook || folderOf(loc.path) !== folderOf(source.path))
      return fail(`copy ${made.id} is at ${loc.path}, not beside ${source.path}`);
    const why = copyMismatch(a.id, kramdown, made.id, copy);
    if (why !== undefined) return fail(why);
    return {
      state,
      verdict: "applied",
      receipt: {
        ...receipt,
        notebook: loc.notebook,
        path: loc.path,
        title: splitOwnIal(copy).attrs["title"] ?? "",
      },
    };
  },
};
