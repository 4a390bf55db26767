/**
 * The workspace model the kernel state holds: `Workspace` is the block layer (insert, update,
 * delete, move, fold, attributes, references) on top of the document, notebook and index layers
 * (see `workspace-index.ts`). Every operation applies immediately; the kernel's write queue
 * (`Kernel` in `kernel.ts`) decides when block transactions reach this model. Failures throw
 * `kernelError(code, msg, data)`.
 */
import { type Block, CONTAINER_TYPES, cloneBlock, headingLevel, newBlock, walk } from "./block.js";
import { kernelError } from "./errors.js";
import { inlineRefs } from "./markdown.js";
import { cleanTags, WorkspaceDocuments } from "./workspace-documents.js";
import { type BlockLocation, type DocEntry, treeNotFound } from "./workspace-index.js";

/** Anchor of an insert: priority nextID > previousID > parentID. */
export interface InsertAnchor {
  nextID?: string;
  previousID?: string;
  parentID?: string;
}

/**
 * The kernel's refusal of a leaf block as a parent (insert, append, prepend, move): a heading's
 * message says how to place a block below it (kernel-probes block.insertBlock, block.moveBlock).
 */
export function leafParent(id: string, type: string): Error {
  return kernelError(
    -1,
    type === "h"
      ? `heading [${id}] is a leaf block and cannot have children; to place a block below this heading, pass previousID=<heading id> or previousID=<last block below the heading> instead of parentID`
      : `block [${id}] type "${type}" is a leaf block and cannot have children; use previousID to place the block as its sibling instead`,
  );
}

/** The whole in-memory workspace. */
export class Workspace extends WorkspaceDocuments {
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
    // the kernel's `doUpdate` keeps the data's first block only: any further block is dropped
    // (kernel-probes block.updateBlock; the reply's DOM still shows them all)
    const [first] = repl;
    if (!first || !parent) throw kernelError(-1, "parse tree failed");
    const { id: _oldId, updated: _oldUpdated, ...kept } = first.attrs;
    const replaced: Block = {
      ...first,
      id,
      attrs: { id, updated: now, ...kept },
      subtype: block.type === "i" && first.type === "i" ? block.subtype : first.subtype,
    };
    const at = parent.children.indexOf(block);
    parent.children.splice(at, 1, replaced);
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
      throw leafParent(parentID ?? "", target.block.type);
    }
    if (target.block.type === "i" && loc.block.type === "i") {
      throw kernelError(
        -1,
        "a list-item cannot directly contain another list-item; to nest, first create a list (NodeList) under the outer list-item, then add the inner list-items to that list",
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

  /**
   * foldBlock / unfoldBlock. Folding a heading (`doFoldHeading`) also gives every block under it,
   * and every block inside those, `fold="1"` and `heading-fold="1"`; unfolding removes both
   * everywhere there, the heading's `heading-fold` included.
   */
  setFold(id: string, fold: boolean): void {
    const loc = this.locate(id);
    if (!loc) throw kernelError(-1, `block tree not found [id=${id}]`);
    if (loc.block.type === "d") {
      throw kernelError(-1, fold ? "document can not be folded" : "document can not be unfolded");
    }
    if (fold) loc.block.attrs.fold = "1";
    else delete loc.block.attrs.fold;
    if (loc.block.type === "h" && loc.parent) {
      if (!fold) delete loc.block.attrs["heading-fold"];
      for (const c of this.headingChildren(loc.block, loc.parent)) {
        walk(c, (n) => {
          if (fold) {
            n.attrs.fold = "1";
            n.attrs["heading-fold"] = "1";
          } else {
            delete n.attrs.fold;
            delete n.attrs["heading-fold"];
          }
        });
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
}
