/**
 * The workspace data (notebooks, documents and their block trees), the block index over it and the
 * marks that tell the SQL index and persistence what changed. The lowest of the workspace layers:
 * `WorkspaceIndex` ← `WorkspaceNotebooks` (`workspace-notebooks.ts`) ← `WorkspaceDocuments`
 * (`workspace-documents.ts`) ← `Workspace` (`workspace.ts`, block operations); each layer uses only
 * the ones below it. Failures throw `kernelError(code, msg, data)`.
 */
import { type Block, walk } from "./block.js";
import type { IdIssuer } from "./clock.js";
import { kernelError } from "./errors.js";

/** Notebook config as stored in `.siyuan/conf.json` (contract §4.1). */
export interface BoxConf {
  name: string;
  sort: number;
  icon: string;
  closed: boolean;
  refCreateSaveBox: string;
  refCreateSavePath: string;
  docCreateSaveBox: string;
  docCreateSavePath: string;
  dailyNoteSavePath: string;
  dailyNoteTemplatePath: string;
  sortMode: number;
  encrypted: boolean;
  boxCrypt: unknown;
  [extra: string]: unknown;
}

/** A notebook: its conf and its flat custom-order map (sort.json). */
export interface Notebook {
  id: string;
  conf: BoxConf;
  sortMap: Record<string, number>;
}

/** A document file: its block tree and its place in the file tree. */
export interface DocEntry {
  id: string;
  box: string;
  parentId: string | null;
  root: Block;
}

/** Where a block lives. */
export interface BlockLocation {
  block: Block;
  parent: Block | null;
  doc: DocEntry;
}

/** The kernel's answer for a document or block tree that does not exist. */
export const treeNotFound = () => kernelError(-1, "tree not found", { closeTimeout: 7000 });

/** The workspace data and the block index over it: the base of `Workspace`. */
export class WorkspaceIndex {
  readonly notebooks = new Map<string, Notebook>();
  readonly docs = new Map<string, DocEntry>();
  /** Docs whose SQL rows / files must be rewritten. */
  readonly dirtyDocs = new Set<string>();
  /** Docs whose SQL rows must be dropped. */
  readonly removedDocs = new Set<string>();
  /** Notebooks whose files must be rewritten. */
  readonly dirtyBoxes = new Set<string>();
  /** Notebooks whose directories must be deleted. */
  readonly removedBoxes = new Set<string>();
  /** Bumped on every change. */
  version = 0;
  protected readonly index = new Map<
    string,
    { block: Block; parent: Block | null; docId: string }
  >();
  protected readonly docBlockIds = new Map<string, string[]>();

  constructor(readonly ids: IdIssuer) {}

  /** IDs reserved elsewhere (blocks of still-queued transactions); set by the kernel. */
  reserved: (id: string) => boolean = () => false;

  /** True when the ID is used by a block, document or notebook, or reserved. */
  isTaken = (id: string): boolean =>
    this.index.has(id) || this.notebooks.has(id) || this.reserved(id);

  /** A fresh, unused node ID. */
  newId(): string {
    return this.ids.newId(this.isTaken);
  }

  /** Rebuilds the block index of one document. */
  reindexDoc(docId: string): void {
    for (const id of this.docBlockIds.get(docId) ?? []) {
      if (this.index.get(id)?.docId === docId) this.index.delete(id);
    }
    const doc = this.docs.get(docId);
    if (!doc) {
      this.docBlockIds.delete(docId);
      return;
    }
    const ids: string[] = [];
    walk(doc.root, (node, parent) => {
      ids.push(node.id);
      this.index.set(node.id, { block: node, parent, docId });
    });
    this.docBlockIds.set(docId, ids);
  }

  /** Marks a document changed (SQL index + persistence). */
  touchDoc(docId: string): void {
    const doc = this.docs.get(docId);
    this.dirtyDocs.add(docId);
    if (doc) this.dirtyBoxes.add(doc.box);
    this.version++;
  }

  /** Finds a block (documents included) in an open notebook. */
  locate(id: string): BlockLocation | null {
    const e = this.index.get(id);
    if (!e) return null;
    const doc = this.docs.get(e.docId);
    if (!doc) return null;
    const box = this.notebooks.get(doc.box);
    if (!box || box.conf.closed) return null;
    return { block: e.block, parent: e.parent, doc };
  }

  /** The document entry of an ID that is a document. */
  docOf(id: string): DocEntry | null {
    const loc = this.locate(id);
    return loc && loc.block.type === "d" ? loc.doc : null;
  }

  /** Drops one document (not its subtree) from the maps, the index and its notebook's sort order. */
  protected dropDoc(docId: string): void {
    const doc = this.docs.get(docId);
    if (!doc) return;
    this.docs.delete(docId);
    this.reindexDoc(docId);
    const nb = this.notebooks.get(doc.box);
    if (nb) delete nb.sortMap[docId];
    this.removedDocs.add(docId);
    this.dirtyDocs.delete(docId);
    this.dirtyBoxes.add(doc.box);
    this.version++;
  }
}
