/**
 * document.snapshot: a notebook or a document subtree as Markdown, with a manifest of full SHA-256
 * digests and a cursor, paged so every page fits one read budget (128 kernel calls, 8 MiB).
 *
 * - `scopeHash` covers the scope definition (notebook, subtree root);
 * - `inventoryHash` the document list: each document's ID, storage path and hpath;
 * - `metadataHash` every document's attributes, except `id` and `updated` (the inventory and the
 *   content already cover them) and `scroll` (where SiYuan's UI last showed the document);
 * - `contentHash` per document is the SHA-256 of its Markdown file's UTF-8 bytes (so a saved file
 *   can be checked with any sha256 tool); overall, the digest of every document's.
 *
 * A page costs three fixed calls (notebook list, flush, one SQL inventory) and two per document
 * (`exportMdContent`, `getBlockAttrs`). With a cursor the same documents are read, but only the
 * added and changed ones are returned, and the last page lists the removed IDs. Each page re-reads
 * the inventory; if it changed since the first page the token is refused and the snapshot starts
 * again (content edits between pages do not change the inventory and are simply read as they are).
 */
import { digestHex, sha256Hex, stateHash, utf8ByteLength } from "@sisyphus/core-hash";
import { notFound, ToolError } from "../errors.js";
import type { ArgsOf, RunHandler, ToolContext } from "../handler.js";
import {
  cursorSeal,
  decodeCursor,
  decodePageToken,
  encodeCursor,
  encodePageToken,
  type SnapshotCursor,
} from "./snapshot-codec.js";

type SnapshotArgs = ArgsOf<"document", "snapshot">;

/** The most documents one scope may hold (the inventory is one SQL answer on every page). */
export const SNAPSHOT_MAX_DOCUMENTS = 8192;
/** A page stops adding documents once their Markdown passes this many bytes (one always fits). */
export const SNAPSHOT_PAGE_BYTES = 3 * 1024 * 1024;

/** One document of the scope, as the index lists it. */
interface InventoryRow {
  readonly id: string;
  readonly path: string;
  readonly hpath: string;
}

/** One document as a page returns it. */
interface SnapshotDoc {
  readonly id: string;
  readonly hpath: string;
  readonly path: string;
  readonly change?: "added" | "changed";
  readonly contentHash: string;
  readonly metadataHash: string;
  readonly attrs: Record<string, string>;
  readonly markdown: string;
}

/** SHA-256 of `value`'s canonical JSON, hashed in chunks (the text of a large scope is never one string). */
const digestOf = (value: unknown): string => digestHex(stateHash(value));

/** The digest of a scope definition: what a cursor belongs to. */
export function scopeHashOf(notebook: string, root: string | null): string {
  return digestOf({ kind: "sisyphus.snapshot.scope", v: 1, notebook, root });
}

/** The front matter the kernel puts before every exported document (`yfm`): metadata, not content. */
const FRONT_MATTER = /^---\n[\s\S]*?\n---\n\n?/;

/** The document's Markdown without the kernel's front matter (its title and dates are metadata). */
export function markdownBody(exported: string): string {
  return exported.startsWith("---\n") ? exported.replace(FRONT_MATTER, "") : exported;
}

/** Attributes the metadata digest leaves out: covered elsewhere, or the UI's reading position. */
const NOT_METADATA = ["id", "updated", "scroll"];

/** The attributes the metadata digest covers. */
function metadataOf(attrs: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(attrs)) if (!NOT_METADATA.includes(k)) out[k] = attrs[k] as string;
  return out;
}

async function requireOpenNotebook(ctx: ToolContext, notebook: string): Promise<void> {
  const row = (await ctx.kernel.lsNotebooks()).find((n) => n.id === notebook);
  if (row === undefined) throw notFound("notebook", notebook);
  if (row.closed)
    throw new ToolError("notebook_closed", `notebook ${notebook} is closed`, { notebook });
}

/** The scope's documents from the index (after a flush), sorted by ID. */
async function inventory(ctx: ToolContext, notebook: string, root: string | null) {
  await ctx.kernel.flush();
  const within = root === null ? "" : ` AND (id = '${root}' OR path LIKE '%/${root}/%')`;
  // DISTINCT: the kernel's index may hold a document's rows twice (see document/find.ts)
  const rows = await ctx.kernel.sql(
    `SELECT DISTINCT id, path, hpath FROM blocks WHERE type = 'd' AND box = '${notebook}'${within} ORDER BY id LIMIT ${SNAPSHOT_MAX_DOCUMENTS + 1}`,
  );
  if (rows.length > SNAPSHOT_MAX_DOCUMENTS) {
    throw new ToolError(
      "invalid_arguments",
      `the scope holds more than ${SNAPSHOT_MAX_DOCUMENTS} documents: snapshot its subtrees one by one (id)`,
      { reason: "scope_too_large", limit: SNAPSHOT_MAX_DOCUMENTS },
    );
  }
  const docs: InventoryRow[] = rows.map((r) => ({
    id: String(r["id"]),
    path: String(r["path"]),
    hpath: String(r["hpath"]),
  }));
  if (root !== null && !docs.some((d) => d.id === root)) {
    throw new ToolError("not_found", `document ${root} is not in notebook ${notebook}`, {
      id: root,
    });
  }
  return { docs, inventoryHash: digestOf(docs.map((d) => [d.id, d.path, d.hpath])) };
}

/** What a delta compares for one document. */
function entryHash(row: InventoryRow, contentHash: string, metadataHash: string): string {
  return digestOf([row.path, row.hpath, contentHash, metadataHash]);
}

/** One document read: its Markdown and attributes (two calls). */
async function readDoc(ctx: ToolContext, row: InventoryRow) {
  const [exported, attrs] = await Promise.all([
    ctx.kernel.exportMdContent(row.id),
    ctx.kernel.getBlockAttrs(row.id),
  ]);
  if (exported === null || attrs === null) {
    throw new ToolError(
      "invalid_arguments",
      `document ${row.id} was removed while the snapshot was read: start it again without pageToken`,
      { reason: "scope_changed", id: row.id },
    );
  }
  const markdown = markdownBody(exported.content);
  const meta = metadataOf(attrs);
  return { markdown, attrs: meta, contentHash: sha256Hex(markdown), metadataHash: digestOf(meta) };
}

function staleToken(): ToolError {
  return new ToolError(
    "invalid_arguments",
    "documents of the scope were added, removed, moved or renamed since the first page: start the snapshot again without pageToken (same cursor)",
    { name: "pageToken", reason: "scope_changed" },
  );
}

/** Whether a page holding `count` documents of `bytes` Markdown takes no more (one always fits). */
function pageFull(count: number, bytes: number, docsPerPage: number): boolean {
  return count >= docsPerPage || (count > 0 && bytes >= SNAPSHOT_PAGE_BYTES);
}

type ReadEntry = readonly [id: string, contentHash: string, metadataHash: string];

/**
 * Reads the page that starts after `earlier`: every document's hashes go into `read`; only those
 * that differ from the base cursor (all of them without one) are returned.
 */
async function readPage(
  ctx: ToolContext,
  docs: readonly InventoryRow[],
  earlier: readonly ReadEntry[],
  base: SnapshotCursor | null,
  docsPerPage: number,
) {
  const baseEntries = new Map(base?.docs ?? []);
  const read: ReadEntry[] = [...earlier];
  const documents: SnapshotDoc[] = [];
  let unchanged = 0;
  let bytes = 0;
  for (let i = earlier.length; i < docs.length; i++) {
    if (pageFull(read.length - earlier.length, bytes, docsPerPage)) break;
    const row = docs[i] as InventoryRow;
    const doc = await readDoc(ctx, row);
    bytes += utf8ByteLength(doc.markdown);
    read.push([row.id, doc.contentHash, doc.metadataHash]);
    const was = baseEntries.get(row.id);
    if (base !== null && was === entryHash(row, doc.contentHash, doc.metadataHash)) {
      unchanged++;
      continue;
    }
    const change = base === null ? undefined : was === undefined ? "added" : "changed";
    documents.push({
      id: row.id,
      hpath: row.hpath,
      path: row.path,
      ...(change ? { change } : {}),
      ...doc,
    });
  }
  return { read, documents, unchanged };
}

export const snapshot: RunHandler<SnapshotArgs> = {
  notebooks: async (_ctx, a) => [a.notebook],
  async run(ctx, a) {
    const root = a.id ?? null;
    const scopeHash = scopeHashOf(a.notebook, root);
    const base = a.cursor === undefined ? null : decodeCursor(a.cursor, scopeHash);
    const baseSeal = a.cursor === undefined ? null : cursorSeal(a.cursor);
    const token =
      a.pageToken === undefined ? null : decodePageToken(a.pageToken, scopeHash, baseSeal);
    await requireOpenNotebook(ctx, a.notebook);
    const inv = await inventory(ctx, a.notebook, root);
    if (
      token !== null &&
      (token.inventoryHash !== inv.inventoryHash || token.offset > inv.docs.length)
    ) {
      throw staleToken();
    }
    const earlier = token?.docs ?? [];
    const { read, documents, unchanged } = await readPage(
      ctx,
      inv.docs,
      earlier,
      base,
      a.docsPerPage,
    );
    const page = {
      scope: { notebook: a.notebook, id: root },
      scopeHash,
      inventoryHash: inv.inventoryHash,
      total: inv.docs.length,
      offset: earlier.length,
      documents,
      ...(base === null ? {} : { unchanged }),
    };
    if (read.length === inv.docs.length) {
      return { ...page, nextPageToken: null, ...finish(scopeHash, inv, read, base) };
    }
    const nextPageToken = encodePageToken({
      scopeHash,
      inventoryHash: inv.inventoryHash,
      base: baseSeal,
      offset: read.length,
      docs: read,
    });
    return { ...page, nextPageToken };
  },
};

/** The last page's manifest, cursor and (with a base cursor) removed IDs. */
function finish(
  scopeHash: string,
  inv: { docs: readonly InventoryRow[]; inventoryHash: string },
  read: readonly ReadEntry[],
  base: SnapshotCursor | null,
) {
  const metadataHash = digestOf(read.map(([id, , m]) => [id, m]));
  const contentHash = digestOf(read.map(([id, c]) => [id, c]));
  const cursor = encodeCursor({
    scopeHash,
    inventoryHash: inv.inventoryHash,
    metadataHash,
    contentHash,
    docs: read.map(([id, c, m], i) => [id, entryHash(inv.docs[i] as InventoryRow, c, m)] as const),
  });
  const present = new Set(inv.docs.map((d) => d.id));
  return {
    manifest: {
      scopeHash,
      inventoryHash: inv.inventoryHash,
      metadataHash,
      contentHash,
      documentCount: inv.docs.length,
    },
    cursor,
    ...(base === null
      ? {}
      : { removed: base.docs.map(([id]) => id).filter((id) => !present.has(id)) }),
  };
}
