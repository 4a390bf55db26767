/**
 * The workspace model: notebooks, the document tree, block trees and their operations.
 * Every operation applies immediately; the write queue (queue.ts) decides when block
 * transactions reach this model. Failures throw `kernelError(code, msg, data)`.
 */
import { type Block, CONTAINER_TYPES, cloneBlock, headingLevel, newBlock, walk } from "./block.js";
import { type IdIssuer, isValidNodeId } from "./clock.js";
import { DEFAULT_NOTEBOOK_SORT_MODE, MAX_DOC_DEPTH_LEVELS, MAX_TITLE_CHARS } from "./constants.js";
import { kernelError } from "./errors.js";
import { inlineRefs, parseMarkdown } from "./markdown.js";

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

/** Anchor of an insert: priority nextID > previousID > parentID. */
export interface InsertAnchor {
  nextID?: string;
  previousID?: string;
  parentID?: string;
}

/** A new notebook conf with the kernel's defaults. */
export function defaultBoxConf(name: string): BoxConf {
  return {
    name,
    sort: 0,
    icon: "",
    closed: true,
    refCreateSaveBox: "",
    refCreateSavePath: "",
    docCreateSaveBox: "",
    docCreateSavePath: "",
    dailyNoteSavePath: '/daily note/{{now | date "2006/01"}}/{{now | date "2006-01-02"}}',
    dailyNoteTemplatePath: "",
    sortMode: DEFAULT_NOTEBOOK_SORT_MODE,
    encrypted: false,
    boxCrypt: null,
  };
}

/** Title normalization of createDoc/renameDoc: drops `/`, newlines, tabs, trims, cuts to 512. */
export function normalizeTitle(title: string): string {
  return [...title.replace(/[/\n\r\t]/g, "").trim()].slice(0, MAX_TITLE_CHARS).join("");
}

const treeNotFound = () => kernelError(-1, "tree not found", { closeTimeout: 7000 });

/** The whole in-memory workspace. */
export class Workspace {
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
  private readonly index = new Map<string, { block: Block; parent: Block | null; docId: string }>();
  private readonly docBlockIds = new Map<string, string[]>();

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

  // ---------------------------------------------------------------- index

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

  // ---------------------------------------------------------------- notebooks

  /** Notebooks sorted by `sort` ascending (custom workspace order), all of them. */
  listNotebooks(): Notebook[] {
    return [...this.notebooks.values()].sort((a, b) => a.conf.sort - b.conf.sort);
  }

  /** The notebook, or -1 "Query notebook failed" when unknown or closed. */
  openBox(id: string): Notebook {
    const box = this.notebooks.get(id);
    if (!box || box.conf.closed) {
      throw kernelError(-1, "Query notebook failed", { closeTimeout: 7000 });
    }
    return box;
  }

  /** Creates an open notebook listed first (sort 0), renumbering the others 1..n. */
  createNotebook(name: string, id: string = this.newId()): Notebook {
    if ([...name].length > MAX_TITLE_CHARS) {
      throw kernelError(-1, "Maximum length is limited to 512 characters", { closeTimeout: 5000 });
    }
    this.listNotebooks().forEach((b, i) => {
      b.conf.sort = i + 1;
      this.dirtyBoxes.add(b.id);
    });
    const conf = defaultBoxConf(name);
    conf.closed = false;
    const box: Notebook = { id, conf, sortMap: {} };
    this.notebooks.set(id, box);
    this.dirtyBoxes.add(id);
    this.version++;
    return box;
  }

  /** Removes a notebook and every document in it. */
  removeNotebook(id: string): void {
    if (!this.notebooks.has(id)) return;
    for (const doc of [...this.docs.values()]) if (doc.box === id) this.dropDoc(doc.id);
    this.notebooks.delete(id);
    this.removedBoxes.add(id);
    this.dirtyBoxes.delete(id);
    this.version++;
  }

  /** Opens or closes a notebook; closing drops its SQL rows, opening re-indexes them. */
  setClosed(id: string, closed: boolean): void {
    const box = this.notebooks.get(id);
    if (!box) return;
    box.conf.closed = closed;
    for (const doc of this.docs.values()) {
      if (doc.box !== id) continue;
      if (closed) this.removedDocs.add(doc.id);
      else this.dirtyDocs.add(doc.id);
    }
    this.dirtyBoxes.add(id);
    this.version++;
  }

  /** Renames an open notebook. */
  renameNotebook(id: string, name: string): void {
    const box = this.openBox(id);
    if ([...name].length > MAX_TITLE_CHARS) {
      throw kernelError(-1, "Maximum length is limited to 512 characters", { closeTimeout: 5000 });
    }
    box.conf.name = name;
    this.dirtyBoxes.add(id);
    this.version++;
  }

  // ---------------------------------------------------------------- documents

  /** Child documents of a parent (null = notebook root), unsorted. */
  childDocs(box: string, parentId: string | null): DocEntry[] {
    const out: DocEntry[] = [];
    for (const d of this.docs.values()) if (d.box === box && d.parentId === parentId) out.push(d);
    return out;
  }

  /** IDs from the top-level ancestor down to the document itself. */
  docChain(docId: string): string[] {
    const chain: string[] = [];
    let cur: DocEntry | undefined = this.docs.get(docId);
    while (cur) {
      chain.unshift(cur.id);
      cur = cur.parentId ? this.docs.get(cur.parentId) : undefined;
    }
    return chain;
  }

  /** Storage path `/<A>/<B>/<id>.sy`. */
  docPath(docId: string): string {
    return `/${this.docChain(docId).join("/")}.sy`;
  }

  /** Human path `/Title A/Title B`. */
  hpath(docId: string): string {
    return `/${this.docChain(docId)
      .map((id) => this.docs.get(id)?.root.attrs.title ?? "")
      .join("/")}`;
  }

  /** Document addressed by a storage path (`/a/b.sy` or `/a/b`) in a notebook. */
  docByPath(box: string, path: string): DocEntry | null {
    const last = path.replace(/\.sy$/, "").split("/").filter(Boolean).pop();
    if (!last) return null;
    const doc = this.docs.get(last);
    if (!doc || doc.box !== box) return null;
    return this.docPath(doc.id) === `${path.replace(/\.sy$/, "")}.sy` ? doc : null;
  }

  /** Documents whose hpath equals `hpath` in a notebook, in creation order. */
  docsByHPath(box: string, hpath: string): DocEntry[] {
    const out: DocEntry[] = [];
    for (const d of this.docs.values())
      if (d.box === box && this.hpath(d.id) === hpath) out.push(d);
    return out;
  }

  /** The document and all its descendants (parents first). */
  subtree(docId: string): DocEntry[] {
    const out: DocEntry[] = [];
    const visit = (id: string): void => {
      const d = this.docs.get(id);
      if (!d) return;
      out.push(d);
      for (const c of this.childDocs(d.box, d.id)) visit(c.id);
    };
    visit(docId);
    return out;
  }

  /** Turns parsed blocks into blocks with IDs and `updated` (valid unused IAL IDs are kept). */
  materialize(blocks: Block[], opts: { forceUpdated?: string } = {}): Block[] {
    const seen = new Set<string>();
    for (const top of blocks) {
      walk(top, (node) => {
        const { id: wanted, updated, ...rest } = node.attrs;
        const id =
          wanted && isValidNodeId(wanted) && !this.isTaken(wanted) && !seen.has(wanted)
            ? wanted
            : this.ids.newId((x) => this.isTaken(x) || seen.has(x));
        seen.add(id);
        node.id = id;
        node.attrs = { id, updated: opts.forceUpdated ?? updated ?? id.slice(0, 14), ...rest };
      });
    }
    return blocks;
  }

  /** Parses Markdown (one empty paragraph for empty input) into blocks with IDs. */
  blocksFromMarkdown(md: string): Block[] {
    const parsed = parseMarkdown(md);
    const blocks = parsed.blocks.length > 0 ? parsed.blocks : [newBlock("p")];
    return this.materialize(blocks);
  }

  /** Creates one document (no hpath lookup). Returns it. */
  createDoc(
    box: string,
    parentId: string | null,
    title: string,
    markdown: string,
    opts: { id?: string; attrs?: Record<string, string> } = {},
  ): DocEntry {
    const nb = this.openBox(box);
    const depth = parentId ? this.docChain(parentId).length + 1 : 1;
    if (depth > MAX_DOC_DEPTH_LEVELS) {
      throw kernelError(
        -1,
        "The current settings do not allow the creation of sub-documents under a document 7 levels deep",
        { closeTimeout: 7000 },
      );
    }
    let t = normalizeTitle(title);
    const extra: Record<string, string> = { ...(opts.attrs ?? {}) };
    if (t === "") {
      t = "Untitled";
      extra["custom-sy-title-empty"] = "true";
    }
    const id = opts.id && !this.isTaken(opts.id) ? opts.id : this.newId();
    const root = newBlock("d", {
      id,
      attrs: { id, title: t, type: "doc", updated: id.slice(0, 14), ...extra },
    });
    root.children = this.blocksFromMarkdown(markdown);
    const doc: DocEntry = { id, box, parentId, root };
    const siblings = this.childDocs(box, parentId);
    const max = siblings.reduce((m, s) => Math.max(m, nb.sortMap[s.id] ?? 0), 0);
    nb.sortMap[id] = max + 1;
    this.docs.set(id, doc);
    this.reindexDoc(id);
    this.touchDoc(id);
    return doc;
  }

  /** createDocWithMd: find or create the parent chain by hpath; the last segment is always new. */
  createDocWithMd(
    box: string,
    hpath: string,
    markdown: string,
    opts: { parentID?: string; id?: string; tags?: string } = {},
  ): DocEntry {
    this.openBox(box);
    const segs = hpath.split("/").filter((s) => s !== "");
    const title = segs.pop() ?? "";
    let parentId: string | null = null;
    if (opts.parentID) {
      const p = this.docs.get(opts.parentID);
      if (!p || p.box !== box) throw kernelError(-1, "block not found", { closeTimeout: 7000 });
      parentId = p.id;
    } else {
      let prefix = "";
      for (const seg of segs) {
        prefix += `/${seg}`;
        const found = this.docsByHPath(box, prefix)[0];
        parentId = found ? found.id : this.createDoc(box, parentId, seg, "").id;
      }
    }
    const attrs: Record<string, string> = {};
    if (opts.tags) attrs.tags = cleanTags(opts.tags);
    return this.createDoc(box, parentId, title, markdown, {
      ...(opts.id === undefined ? {} : { id: opts.id }),
      attrs,
    });
  }

  /** Renames a document (updated = now when the title changes). */
  renameDoc(docId: string, title: string): void {
    const doc = this.docs.get(docId);
    if (!doc) throw treeNotFound();
    let t = normalizeTitle(title);
    if (t === "") t = "Untitled";
    if (doc.root.attrs.title === t) return;
    doc.root.attrs.title = t;
    doc.root.attrs.updated = this.ids.timestamp();
    for (const d of this.subtree(docId)) this.touchDoc(d.id);
  }

  private dropDoc(docId: string): void {
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

  /** Removes a document and its whole subtree. */
  removeDoc(docId: string): void {
    if (!this.docs.has(docId)) throw treeNotFound();
    for (const d of this.subtree(docId).reverse()) this.dropDoc(d.id);
  }

  /** Moves a document (with its children) under another doc or to a notebook root. */
  moveDoc(docId: string, toBox: string, toParentId: string | null): void {
    const doc = this.docs.get(docId);
    if (!doc) throw treeNotFound();
    if (doc.box === toBox && doc.parentId === toParentId) return;
    if (toParentId && this.docChain(toParentId).includes(docId)) {
      throw kernelError(-1, "Cannot move a document into itself", { closeTimeout: 7000 });
    }
    const subtree = this.subtree(docId);
    const baseDepth = toParentId ? this.docChain(toParentId).length : 0;
    const oldDepth = this.docChain(docId).length;
    const deepest = Math.max(...subtree.map((d) => this.docChain(d.id).length));
    if (baseDepth + 1 + (deepest - oldDepth) > MAX_DOC_DEPTH_LEVELS - 1) {
      throw kernelError(
        -1,
        "The current settings do not allow the creation of sub-documents under a document 7 levels deep",
        { closeTimeout: 7000 },
      );
    }
    const from = this.notebooks.get(doc.box);
    const to = this.openBox(toBox);
    for (const d of subtree) {
      if (from && from.id !== to.id) {
        const s = from.sortMap[d.id];
        delete from.sortMap[d.id];
        if (s !== undefined) to.sortMap[d.id] = s;
        this.dirtyBoxes.add(from.id);
      }
      d.box = toBox;
    }
    doc.parentId = toParentId;
    for (const d of subtree) this.touchDoc(d.id);
  }

  /** changeSort: listed siblings get 1..n, the other siblings n+1.. in directory (ID) order. */
  changeSort(box: string, paths: string[]): void {
    const nb = this.notebooks.get(box);
    if (!nb || paths.length === 0) return;
    const ids = paths.map((p) => p.replace(/\.sy$/, "").split("/").pop() ?? "");
    const first = this.docs.get(ids[0] ?? "");
    const parentId = first ? first.parentId : null;
    let n = 0;
    for (const id of ids) if (this.docs.has(id)) nb.sortMap[id] = ++n;
    const others = this.childDocs(box, parentId)
      .map((d) => d.id)
      .filter((id) => !ids.includes(id))
      .sort();
    for (const id of others) nb.sortMap[id] = ++n;
    this.dirtyBoxes.add(box);
    this.version++;
  }

  // ---------------------------------------------------------------- blocks

  private mustLocate(id: string, msg = "block not found"): BlockLocation {
    const loc = this.locate(id);
    if (!loc) throw kernelError(-1, `${msg} [${id}]`);
    return loc;
  }

  private changed(doc: DocEntry, touchRoot: boolean): void {
    if (touchRoot) doc.root.attrs.updated = this.ids.timestamp();
    this.reindexDoc(doc.id);
    this.touchDoc(doc.id);
  }

  /** Inserts blocks at an anchor (nextID > previousID > parentID: first child). */
  insertBlocks(blocks: Block[], anchor: InsertAnchor): void {
    let parent: Block;
    let at: number;
    let doc: DocEntry;
    if (anchor.nextID) {
      const loc = this.mustLocate(anchor.nextID);
      if (!loc.parent) throw kernelError(-1, `block not found [${anchor.nextID}]`);
      parent = loc.parent;
      at = parent.children.indexOf(loc.block);
      doc = loc.doc;
    } else if (anchor.previousID) {
      const loc = this.mustLocate(anchor.previousID);
      doc = loc.doc;
      if (!loc.parent) {
        parent = loc.block;
        at = 0;
      } else {
        parent = loc.parent;
        at = parent.children.indexOf(loc.block) + 1;
        if (loc.block.type === "h" && loc.block.attrs.fold === "1") {
          at += this.headingChildren(loc.block, parent).length;
        }
      }
    } else if (anchor.parentID) {
      const loc = this.mustLocate(anchor.parentID);
      if (!CONTAINER_TYPES.has(loc.block.type)) {
        throw kernelError(-1, `parent block not found: ${anchor.parentID}`);
      }
      parent = loc.block;
      at = 0;
      doc = loc.doc;
    } else {
      throw kernelError(-1, "no anchor");
    }
    parent.children.splice(at, 0, ...this.fitInto(parent, blocks));
    this.changed(doc, true);
  }

  /** Appends (or prepends) blocks as children of a container. */
  addChildren(blocks: Block[], parentID: string, where: "first" | "last"): void {
    const loc = this.mustLocate(parentID);
    if (!CONTAINER_TYPES.has(loc.block.type)) {
      throw kernelError(-1, `parent block not found: ${parentID}`);
    }
    const fitted = this.fitInto(loc.block, blocks);
    if (where === "first") loc.block.children.unshift(...fitted);
    else loc.block.children.push(...fitted);
    this.changed(loc.doc, true);
  }

  /** Blocks going into a list become its items (a parsed list is unwrapped). */
  fitInto(parent: Block, blocks: Block[]): Block[] {
    if (parent.type !== "l") return blocks;
    const out: Block[] = [];
    for (const b of blocks) {
      if (b.type === "l") {
        for (const it of b.children) out.push({ ...it, subtype: parent.subtype });
      } else if (b.type === "i") {
        out.push(b);
      } else {
        const id = this.newId();
        out.push(
          newBlock("i", {
            id,
            subtype: parent.subtype,
            marker: "*",
            attrs: { id, updated: id.slice(0, 14) },
            children: [b],
          }),
        );
      }
    }
    return out;
  }

  /** The blocks "under" a heading: following siblings up to the next heading of the same or higher level. */
  headingChildren(h: Block, parent: Block): Block[] {
    const level = headingLevel(h);
    const out: Block[] = [];
    const sibs = parent.children;
    for (let i = sibs.indexOf(h) + 1; i < sibs.length; i++) {
      const s = sibs[i]!;
      if (s.type === "h" && headingLevel(s) <= level) break;
      out.push(s);
    }
    return out;
  }

  /**
   * updateBlock: the block keeps its ID, its IAL becomes the one in the new data, `updated`
   * = now. A document loses its children and gets the new blocks. A list item given a
   * list is unwrapped.
   */
  updateBlock(id: string, parsed: Block[], now: string): void {
    const loc = this.locate(id);
    if (!loc) throw kernelError(-1, "get block failed: tree not found");
    const { block, parent, doc } = loc;
    if (block.type === "d") {
      block.children = parsed.length > 0 ? parsed : this.materialize([newBlock("p")]);
      this.changed(doc, true);
      return;
    }
    let repl = parsed.length > 0 ? parsed : [newBlock("p")];
    if (block.type === "i" && repl[0]?.type === "l") repl = repl[0].children;
    const [first, ...rest] = repl;
    if (!first || !parent) throw kernelError(-1, "parse tree failed");
    const { id: _oldId, updated: _oldUpdated, ...kept } = first.attrs;
    const replaced: Block = {
      ...first,
      id,
      attrs: { id, updated: now, ...kept },
      subtype: block.type === "i" && first.type === "i" ? block.subtype : first.subtype,
    };
    const at = parent.children.indexOf(block);
    parent.children.splice(at, 1, replaced, ...rest);
    this.changed(doc, true);
  }

  /** Deletes a block (and an emptied list above it). Documents are refused. */
  deleteBlock(id: string): void {
    const loc = this.mustLocate(id);
    if (!loc.parent) throw kernelError(-1, `block not found [${id}]`);
    this.detach(loc.block, loc.parent, loc.doc);
    this.changed(loc.doc, true);
  }

  private detach(block: Block, parent: Block, doc: DocEntry): void {
    parent.children.splice(parent.children.indexOf(block), 1);
    if ((parent.type === "l" || parent.type === "i") && parent.children.length === 0) {
      const gp = this.findParent(doc.root, parent);
      if (gp) this.detach(parent, gp, doc);
    }
  }

  private findParent(root: Block, target: Block): Block | null {
    let found: Block | null = null;
    walk(root, (n, p) => {
      if (n === target) found = p;
    });
    return found;
  }

  /** Checks a moveBlock request; throws the kernel's -1 errors. */
  validateMove(id: string, previousID: string | undefined, parentID: string | undefined): void {
    const loc = this.locate(id);
    if (!loc?.parent) throw kernelError(-1, `block not found [id=${id}]`);
    if (previousID) {
      const prev = this.locate(previousID);
      if (!prev || prev.block.type === "d") {
        throw kernelError(-1, "`previousID` can not be the ID of a document");
      }
      return;
    }
    const target = parentID ? this.locate(parentID) : null;
    if (!target) throw kernelError(-1, `target block not found [id=${parentID ?? ""}]`);
    if (!CONTAINER_TYPES.has(target.block.type)) {
      throw kernelError(-1, `parent block not found: ${parentID}`);
    }
    if (target.block.type === "i" && loc.block.type === "i") {
      throw kernelError(
        -1,
        "a list-item cannot directly contain another list-item; move it into a list block instead",
      );
    }
  }

  /** moveBlock: after previousID, or as the first child of parentID. */
  moveBlock(id: string, previousID: string | undefined, parentID: string | undefined): void {
    this.validateMove(id, previousID, parentID);
    const loc = this.locate(id)!;
    const block = loc.block;
    if (previousID === id) return;
    const moved = cloneBlock(block);
    this.detach(block, loc.parent!, loc.doc);
    this.reindexDoc(loc.doc.id);
    if (previousID) {
      const prev = this.locate(previousID);
      if (!prev?.parent) throw kernelError(-1, `block not found [${previousID}]`);
      prev.parent.children.splice(prev.parent.children.indexOf(prev.block) + 1, 0, moved);
      this.changed(prev.doc, true);
    } else {
      const target = this.locate(parentID!)!;
      target.block.children.unshift(...this.fitInto(target.block, [moved]));
      this.changed(target.doc, true);
    }
    this.changed(loc.doc, true);
  }

  /** foldBlock / unfoldBlock. Headings fold the blocks under them (`heading-fold`). */
  setFold(id: string, fold: boolean): void {
    const loc = this.locate(id);
    if (!loc) throw kernelError(-1, `block tree not found [id=${id}]`);
    if (loc.block.type === "d") {
      throw kernelError(-1, fold ? "document can not be folded" : "document can not be unfolded");
    }
    if (fold) loc.block.attrs.fold = "1";
    else delete loc.block.attrs.fold;
    if (loc.block.type === "h" && loc.parent) {
      for (const c of this.headingChildren(loc.block, loc.parent)) {
        if (fold) c.attrs["heading-fold"] = "1";
        else delete c.attrs["heading-fold"];
      }
    }
    this.changed(loc.doc, false);
  }

  /**
   * Sets attributes: null or "" deletes, other values are trimmed. `replace` drops every
   * attribute not given (except id). Does not change `updated`.
   */
  setAttrs(id: string, attrs: Record<string, string | null>, replace = false): void {
    const loc = this.locate(id);
    if (!loc) throw treeNotFound();
    const b = loc.block;
    if (replace) b.attrs = { id: b.id };
    for (const [k, v] of Object.entries(attrs)) {
      const name = k.toLowerCase();
      if (name === "id") continue;
      if (v === null || v.trim() === "") delete b.attrs[name];
      else b.attrs[name] = name === "tags" ? cleanTags(v) : v.trim();
      if (loc.block.type === "d" && name === "title" && v) {
        // a renamed doc changes hpaths of the subtree
        for (const d of this.subtree(loc.doc.id)) this.touchDoc(d.id);
      }
    }
    this.reindexDoc(loc.doc.id);
    this.touchDoc(loc.doc.id);
  }

  /**
   * transferBlockRef: every block reference to `fromID` (in `refIDs` blocks only, when given)
   * now points at `toID`; dynamic refs take `toID`'s plain text. Returns the changed block IDs.
   */
  transferRefs(fromID: string, toID: string, refIDs: string[] | null, toText: string): string[] {
    const changed: string[] = [];
    const pattern = new RegExp(`\\(\\(${fromID}(\\s+(?:"[^"]*"|'[^']*'))?\\)\\)`, "g");
    for (const doc of this.docs.values()) {
      let touched = false;
      walk(doc.root, (b) => {
        if ((b.type !== "p" && b.type !== "h") || (refIDs && !refIDs.includes(b.id))) return;
        const next = b.text.replace(pattern, (_m, anchor?: string) => {
          if (anchor?.trim().startsWith('"')) return `((${toID}${anchor}))`;
          return `((${toID} '${toText.replace(/'/g, "&apos;")}'))`;
        });
        if (next !== b.text) {
          b.text = next;
          changed.push(b.id);
          touched = true;
        }
      });
      if (touched) this.touchDoc(doc.id);
    }
    return changed;
  }

  /** Count of block references whose target is inside a document (File.count). */
  refCountOfDoc(docId: string): number {
    const targets = new Set(this.docBlockIds.get(docId) ?? []);
    let n = 0;
    for (const d of this.docs.values()) {
      walk(d.root, (b) => {
        if (b.type === "p" || b.type === "h") {
          for (const r of inlineRefs(b.text)) if (r.refId && targets.has(r.refId)) n++;
        }
      });
    }
    return n;
  }

  /** Loads a document tree as is (persistence, seed). */
  addLoadedDoc(doc: DocEntry): void {
    this.docs.set(doc.id, doc);
    this.reindexDoc(doc.id);
    this.dirtyDocs.add(doc.id);
  }
}

/** tags cleanup: split on `,`, trim, drop empties and duplicates. */
export function cleanTags(v: string): string {
  return [
    ...new Set(
      v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ].join(",");
}
