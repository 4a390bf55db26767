/** Document-tree operations of the workspace: paths, create, rename, move, remove, custom sort. */
import { type Block, cloneBlock, headingLevel, newBlock, walk } from "./block.js";
import { isValidNodeId } from "./clock.js";
import { MAX_DOC_DEPTH_LEVELS, MAX_TITLE_CHARS } from "./constants.js";
import { kernelError } from "./errors.js";
import { parseMarkdown } from "./markdown.js";
import { plainContent } from "./render.js";
import { type DocEntry, treeNotFound } from "./workspace-index.js";
import { WorkspaceNotebooks } from "./workspace-notebooks.js";

/** Title normalization of createDoc/renameDoc: drops `/`, newlines, tabs, trims, cuts to 512. */
export function normalizeTitle(title: string): string {
  return [...title.replace(/[/\n\r\t]/g, "").trim()].slice(0, MAX_TITLE_CHARS).join("");
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

/** Attributes duplicateDoc drops from every block: database bindings and flashcard decks. */
const DUPLICATE_DROPPED_ATTR = /^(?:custom-avs|av-names|custom-sy-av-s-text.*|custom-riff-decks)$/;

/** The document layer of `Workspace`. */
export class WorkspaceDocuments extends WorkspaceNotebooks {
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
        // Lute gives a database block without a valid AV ID a fresh one
        if (node.type === "av" && !isValidNodeId(node.text))
          node.text = this.ids.newId((x) => this.isTaken(x) || seen.has(x));
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

  /**
   * duplicateDoc (SiYuan 3.7.3 `model.DuplicateDoc`, kernel-probes `filetree.duplicateDoc`): a copy
   * of the document (not of its child documents) beside it, with a new ID for it and every block,
   * `updated` kept, the title suffixed ` (Duplicated <the new ID's time>)` (none for "Untitled"),
   * references to its own blocks re-targeted to their copies, and `scroll`, database bindings
   * (`custom-avs`, `av-names`, `custom-sy-av-s-text*`) and `custom-riff-decks` dropped. Returns the
   * copy and the kernel's answer's `hPath` (the source's hpath, a space, then the suffix with its
   * own leading space). The caller places it in the sort order.
   */
  duplicateDoc(docId: string): { doc: DocEntry; hPath: string } {
    const src = this.docs.get(docId);
    if (!src) throw treeNotFound();
    const root = cloneBlock(src.root);
    const renamed = new Map<string, string>();
    walk(root, (node) => {
      const id = this.ids.newId((x) => this.isTaken(x) || renamed.has(x));
      renamed.set(node.id, id);
      node.id = id;
      node.attrs.id = id;
      if (node !== root) {
        for (const k of Object.keys(node.attrs)) {
          if (DUPLICATE_DROPPED_ATTR.test(k)) delete node.attrs[k];
        }
      }
    });
    const newId = root.id;
    const title = src.root.attrs.title ?? "";
    const t = newId.slice(0, 14);
    const suffix =
      title === "Untitled"
        ? ""
        : ` (Duplicated ${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)} ${t.slice(8, 10)}:${t.slice(10, 12)}:${t.slice(12, 14)})`;
    for (const k of Object.keys(root.attrs)) {
      if (k === "scroll" || DUPLICATE_DROPPED_ATTR.test(k)) delete root.attrs[k];
    }
    root.attrs.title = title + suffix;
    walk(root, (node) => {
      if (node.type !== "p" && node.type !== "h") return;
      node.text = node.text.replace(/\(\((\d{14}-[0-9a-z]{7})(?=[\s)])/g, (m, ref: string) => {
        const to = renamed.get(ref);
        return to === undefined || ref === docId ? m : `((${to}`;
      });
    });
    const hPath = `${this.hpath(docId)} ${suffix}`;
    const doc: DocEntry = { id: newId, box: src.box, parentId: src.parentId, root };
    this.docs.set(newId, doc);
    this.reindexDoc(newId);
    this.touchDoc(newId);
    return { doc, hPath };
  }

  /**
   * heading2Doc (SiYuan 3.7.3 `model.Heading2Doc`, kernel-probes `filetree.heading2Doc`): the
   * heading and the blocks under it (its following siblings up to the next heading of its level or
   * higher) become a document with the heading's ID and attributes (`fold`/`heading-fold` dropped
   * everywhere in it), titled the heading's plain text with `/` as `_` (at most 96 characters);
   * its top-level headings are re-levelled so the highest is h2. The source keeps the rest (an
   * empty paragraph when nothing is left). The new document goes last among its siblings.
   */
  heading2Doc(headingId: string, box: string, parentId: string | null): DocEntry {
    const loc = this.locate(headingId);
    if (!loc?.parent) throw kernelError(-1, "block not found", { closeTimeout: 5000 });
    const { block: heading, parent, doc: src } = loc;
    const nb = this.openBox(box);
    const at = parent.children.indexOf(heading);
    const level = headingLevel(heading);
    let end = at + 1;
    if (heading.type === "h") {
      while (end < parent.children.length) {
        const b = parent.children[end] as Block;
        if (b.type === "h" && headingLevel(b) <= level) break;
        end++;
      }
    }
    const section = parent.children.splice(at, end - at).slice(1);
    if (src.root.children.length === 0) src.root.children = this.materialize([newBlock("p")]);
    for (const top of [heading, ...section]) {
      walk(top, (n) => {
        delete n.attrs.fold;
        delete n.attrs["heading-fold"];
      });
    }
    const tops = section.filter((b) => b.type === "h").map(headingLevel);
    const topLevel = tops.length > 0 ? Math.min(...tops) : 0;
    for (const b of section) {
      if (b.type === "h") b.subtype = `h${Math.min(6, headingLevel(b) - topLevel + 2)}`;
    }
    const title = [...plainContent(heading).replaceAll("/", "_")].slice(0, 96).join("");
    const now = this.ids.timestamp();
    const { "custom-hidden": _hidden, ...attrs } = heading.attrs;
    const root = newBlock("d", {
      id: headingId,
      attrs: { ...attrs, id: headingId, type: "doc", title, updated: now },
      children: section,
    });
    src.root.attrs.updated = now;
    const doc: DocEntry = { id: headingId, box, parentId, root };
    const siblings = this.childDocs(box, parentId);
    // `addMaxSort`: one past the last sibling's sort value, 0 for the first child
    nb.sortMap[headingId] =
      siblings.length === 0
        ? 0
        : siblings.reduce((m, x) => Math.max(m, nb.sortMap[x.id] ?? 0), 0) + 1;
    this.dirtyBoxes.add(box);
    this.reindexDoc(src.id);
    this.touchDoc(src.id);
    this.docs.set(headingId, doc);
    this.reindexDoc(headingId);
    this.touchDoc(headingId);
    return doc;
  }

  /**
   * doc2Heading (SiYuan 3.7.3 `model.Doc2Heading`, kernel-probes `filetree.doc2Heading`): the
   * document becomes a heading with its ID and attributes (`title`, `type`, `scroll`, `tags`
   * dropped; its tags as a paragraph of `#tag#`s first under it), its blocks following, inserted
   * before `targetId` (or, `after`, after it and, for a heading, after the blocks under it). The
   * heading's level is the target heading's, or one below the heading the target block is under;
   * the document's headings shift with it (at most h6). The document file is removed. A target
   * inside the source itself is not modelled (the product refuses it).
   */
  doc2Heading(srcId: string, targetId: string, after: boolean): void {
    const src = this.docs.get(srcId);
    const loc = this.locate(targetId);
    if (!src || !loc?.parent) return;
    const { block: pivot, parent, doc: target } = loc;
    const sibs = parent.children;
    let at = sibs.indexOf(pivot);
    let pivotLevel = 0;
    for (let i = at; i >= 0; i--) {
      const b = sibs[i] as Block;
      if (b.type === "h") {
        pivotLevel = headingLevel(b);
        break;
      }
    }
    const tops = src.root.children.filter((b) => b.type === "h").map(headingLevel);
    const topLevel = tops.length > 0 ? Math.min(...tops) : 0;
    let level = pivotLevel;
    let delta = pivotLevel - topLevel + 1;
    if (pivot.type === "h") {
      if (after) {
        let end = at + 1;
        while (end < sibs.length) {
          const b = sibs[end] as Block;
          if (b.type === "h" && headingLevel(b) <= pivotLevel) break;
          end++;
        }
        at = end - 1;
      }
    } else {
      level++;
      delta++;
    }
    const now = this.ids.timestamp();
    const { title = "", type: _t, scroll: _s, tags = "", ...attrs } = src.root.attrs;
    const heading = newBlock("h", {
      id: srcId,
      subtype: `h${Math.min(6, level)}`,
      attrs: { ...attrs, id: srcId, updated: now },
      text: title,
    });
    const body = src.root.children;
    const tagList = tags.split(",").filter((t) => t !== "");
    if (tagList.length > 0) {
      const [para] = this.materialize([
        newBlock("p", { text: tagList.map((t) => `#${t}#`).join(" ") }),
      ]);
      for (const n of [para as Block]) n.attrs.updated = now;
      body.unshift(para as Block);
    }
    for (const b of body)
      if (b.type === "h") b.subtype = `h${Math.min(6, headingLevel(b) + delta)}`;
    sibs.splice(after ? at + 1 : at, 0, heading, ...body);
    target.root.attrs.updated = now;
    this.dropDoc(srcId);
    this.reindexDoc(target.id);
    this.touchDoc(target.id);
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
    // into itself or one of its own descendants: the kernel drops the path and does nothing
    if (toParentId && this.docChain(toParentId).includes(docId)) return;
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

  /** Loads a document tree as is (persistence, seed). */
  addLoadedDoc(doc: DocEntry): void {
    this.docs.set(doc.id, doc);
    this.reindexDoc(doc.id);
    this.dirtyDocs.add(doc.id);
  }
}
