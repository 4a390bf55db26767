/**
 * The reads behind the write previews, in a person's terms: a block's first line and where it is
 * (`/<notebook>/<path of titles>`), a document's title, path and size, the neighbours of a place in
 * a document. Every read checks the caller's read permission on the notebook it touches (databases,
 * templates and assets live in the workspace: the default permission); nothing here writes, leases
 * or hashes.
 */
import { notFound } from "../errors.js";
import type { ToolContext } from "../handler.js";
import type { KernelReads, NotebookRow } from "../kernel.js";
import { type PermissionMap, requirePermission } from "../permissions.js";
import { splitOwnIal } from "../state/attributes.js";
import { type FormBlock, formOfMarkdown } from "../state/content-form.js";

/** The longest line a preview quotes; longer ones end in `…`. */
export const PREVIEW_LINE_CHARS = 80;
/** The most documents a subtree count visits; past it the count is given as "at least". */
export const PREVIEW_COUNT_MAX_DOCS = 256;
/** The "notebook" of what lives outside every notebook (databases, templates, assets). */
export const WORKSPACE = "(workspace)";

const BLOCK_IAL_ID = /\{:[^}\n]*\bid="\d{14}-[0-9a-z]{7}"/g;

/** Cuts a line to {@link PREVIEW_LINE_CHARS}. */
export function cut(line: string): string {
  return line.length > PREVIEW_LINE_CHARS ? `${line.slice(0, PREVIEW_LINE_CHARS - 1)}…` : line;
}

/** The first non-empty line of some Markdown or Kramdown, IALs left out, cut to length. */
export function firstLine(markdown: string): string {
  for (const raw of markdown.split("\n")) {
    const line = raw.replace(/\{:[^}\n]*\}/g, "").trim();
    if (line !== "") return cut(line);
  }
  return "(empty)";
}

/** How many blocks a Kramdown holds (each names its ID in an IAL). */
export function blockCount(kramdown: string): number {
  return kramdown.match(BLOCK_IAL_ID)?.length ?? 0;
}

/** A block as a person recognises it. */
export interface BlockView {
  readonly id: string;
  /** The block's first line (Markdown, its IAL left out). */
  readonly line: string;
  /** Its Kramdown without its own IAL line. */
  readonly body: string;
  /** Blocks it holds, itself included. */
  readonly blocks: number;
  readonly docId: string;
  /** Its document as `/<notebook>/<titles>`. */
  readonly where: string;
  readonly notebook: string;
}

/** A document as a person recognises it. */
export interface DocView {
  readonly id: string;
  readonly title: string;
  /** `/<notebook>/<titles>`. */
  readonly path: string;
  readonly notebook: string;
  /** Storage path `/…/<id>.sy`. */
  readonly storagePath: string;
}

/** One end of a place in a document: the blocks on either side. */
export interface Place {
  /** The document (`/<notebook>/<titles>`). */
  readonly where: string;
  /** The container it is inside, when not the document itself (its first line). */
  readonly inside: string | null;
  readonly previous: string | null;
  readonly next: string | null;
}

/** A place in words: `in /Nb/Doc, between “a” and “b”` (`to /Nb/Doc, …` for where something goes). */
export function placeText(p: Place, preposition: "in" | "to" = "in"): string {
  const q = (s: string) => `“${s}”`;
  const around =
    p.previous !== null && p.next !== null
      ? `between ${q(p.previous)} and ${q(p.next)}`
      : p.previous !== null
        ? `last, after ${q(p.previous)}`
        : p.next !== null
          ? `first, before ${q(p.next)}`
          : "the only block";
  return `${preposition} ${p.where}${p.inside === null ? "" : ` inside ${q(p.inside)}`}, ${around}`;
}

interface Found {
  readonly parent: FormBlock | null;
  readonly siblings: readonly FormBlock[];
  readonly index: number;
}

function locate(form: readonly FormBlock[], id: string, parent: FormBlock | null): Found | null {
  for (const [index, b] of form.entries()) {
    if (b.id === id) return { parent, siblings: form, index };
    const inner = b.children ? locate(b.children, id, b) : null;
    if (inner) return inner;
  }
  return null;
}

/** The reads of one preview, under one caller's read permission. */
export class PreviewReads {
  private notebooks: Promise<NotebookRow[]> | undefined;

  constructor(
    readonly kernel: KernelReads,
    readonly permissions: PermissionMap,
  ) {}

  /**
   * A tool context for the handlers' own read helpers (path resolution, today's daily note, a
   * history point's form): read phase, read permission; it has no write port and no source reader.
   */
  context(): ToolContext {
    return {
      kernel: this.kernel,
      permissions: this.permissions,
      needs: "read",
      phase: "read",
      system: { strict: true, authority: { kind: "preview", epoch: "" }, health: () => ({}) },
      readSource: async () => {
        throw new Error("a preview reads no upload source");
      },
      templateBudgetBytes: 0,
      feedbackUrl: null,
    };
  }

  /** Throws `permission_denied` unless the caller may read `notebook`. */
  canRead(notebook: string): void {
    requirePermission(this.permissions, [notebook], "read");
  }

  async notebookRows(): Promise<NotebookRow[]> {
    this.notebooks ??= this.kernel.lsNotebooks();
    return this.notebooks;
  }

  /** A notebook's row (readable), or `not_found`. */
  async notebook(id: string): Promise<NotebookRow> {
    const row = (await this.notebookRows()).find((n) => n.id === id);
    if (row === undefined) throw notFound("notebook", id);
    this.canRead(id);
    return row;
  }

  /** `/<notebook name><hpath>` (`hpath` `/` for the notebook itself). */
  async pathOf(notebook: string, hpath: string): Promise<string> {
    const name = (await this.notebook(notebook)).name;
    return hpath === "/" ? `/${name}` : `/${name}${hpath}`;
  }

  /** A block, readable, or `not_found`. */
  async block(id: string): Promise<BlockView> {
    const [info, kramdown] = await Promise.all([
      this.kernel.getBlockInfo(id),
      this.kernel.getBlockKramdown(id),
    ]);
    if (info === null || kramdown === null) throw notFound("block", id);
    this.canRead(info.box);
    const body = splitOwnIal(kramdown).body;
    const hpath = (await this.kernel.getHPathByID(info.rootID)) ?? `/${info.rootTitle}`;
    return {
      id,
      line: firstLine(body),
      body: body.replace(/\s+$/, ""),
      blocks: Math.max(1, blockCount(kramdown)),
      docId: info.rootID,
      where: await this.pathOf(info.box, hpath),
      notebook: info.box,
    };
  }

  /** A document, readable, or `not_found`. */
  async doc(id: string): Promise<DocView> {
    const [loc, hpath] = await Promise.all([
      this.kernel.getPathByID(id),
      this.kernel.getHPathByID(id),
    ]);
    if (loc === null || !loc.path.endsWith(`/${id}.sy`) || hpath === null)
      throw notFound("document", id);
    this.canRead(loc.notebook);
    return {
      id,
      title: hpath.slice(hpath.lastIndexOf("/") + 1),
      path: await this.pathOf(loc.notebook, hpath),
      notebook: loc.notebook,
      storagePath: loc.path,
    };
  }

  /** A document's blocks (its own left out), or 0 when it has none. */
  async docBlocks(id: string): Promise<number> {
    const kramdown = await this.kernel.getBlockKramdown(id);
    return kramdown === null ? 0 : blockCount(splitOwnIal(kramdown).body);
  }

  /**
   * The documents under a folder (`/` or a document's storage path), counted through the tree up to
   * {@link PREVIEW_COUNT_MAX_DOCS}; `atLeast` when the count stopped there.
   */
  async subdocs(notebook: string, storagePath: string): Promise<{ n: number; atLeast: boolean }> {
    let n = 0;
    const folders = [storagePath === "/" ? "/" : storagePath.replace(/\.sy$/, "")];
    while (folders.length > 0 && n < PREVIEW_COUNT_MAX_DOCS) {
      const list = await this.kernel.listDocsByPath(notebook, folders.shift() as string);
      for (const f of list?.files ?? []) {
        n++;
        if (f.subFileCount > 0) folders.push(f.path.replace(/\.sy$/, ""));
      }
    }
    return { n: Math.min(n, PREVIEW_COUNT_MAX_DOCS), atLeast: folders.length > 0 };
  }

  /** First lines of some blocks, by ID (one batch read). */
  async lines(ids: readonly string[]): Promise<Map<string, string>> {
    const wanted = [...new Set(ids)];
    if (wanted.length === 0) return new Map();
    const kramdowns = await this.kernel.getBlockKramdowns(wanted);
    return new Map(
      wanted.map((id) => [id, firstLine(splitOwnIal(kramdowns[id] ?? "").body)] as const),
    );
  }

  /** A document's parsed blocks (its own IAL left out). */
  private async form(docId: string): Promise<FormBlock[]> {
    const kramdown = await this.kernel.getBlockKramdown(docId);
    if (kramdown === null) throw notFound("document", docId);
    return formOfMarkdown(splitOwnIal(kramdown).body);
  }

  /**
   * A place in a document: beside `anchor` (`after` it or `before` it), or `first`/`last` among the
   * children of `anchor` (a document or a container); `skip` (the block being moved) is not a
   * neighbour.
   */
  async place(
    anchor: string,
    at: "before" | "after" | "first" | "last",
    skip?: string,
  ): Promise<Place> {
    const anchorBlock = await this.block(anchor);
    const form = await this.form(anchorBlock.docId);
    const keep = (list: readonly FormBlock[]) => list.filter((b) => b.id !== skip);
    let inside: string | null;
    let previous: string | undefined;
    let next: string | undefined;
    if (at === "first" || at === "last") {
      const found = anchor === anchorBlock.docId ? null : locate(form, anchor, null);
      const children = keep(
        anchor === anchorBlock.docId ? form : (found?.siblings[found.index]?.children ?? []),
      );
      inside = anchor === anchorBlock.docId ? null : anchorBlock.id;
      if (at === "first") next = children[0]?.id;
      else previous = children[children.length - 1]?.id;
    } else {
      const found = locate(form, anchor, null);
      const siblings = keep(found?.siblings ?? []);
      const i = siblings.findIndex((b) => b.id === anchor);
      inside = found?.parent?.id ?? null;
      previous = at === "after" ? anchor : siblings[i - 1]?.id;
      next = at === "before" ? anchor : siblings[i + 1]?.id;
    }
    const lines = await this.lines(
      [inside, previous, next].filter((x): x is string => typeof x === "string"),
    );
    const line = (id: string | null | undefined) =>
      id === null || id === undefined ? null : (lines.get(id) ?? id);
    return {
      where: anchorBlock.where,
      inside: line(inside),
      previous: line(previous),
      next: line(next),
    };
  }

  /** Where a block is now: its document and its neighbours. */
  async placeOf(id: string): Promise<Place> {
    const b = await this.block(id);
    const found = locate(await this.form(b.docId), id, null);
    const previous = found?.siblings[found.index - 1]?.id ?? null;
    const next = found?.siblings[found.index + 1]?.id ?? null;
    const inside = found?.parent?.id ?? null;
    const lines = await this.lines(
      [inside, previous, next].filter((x): x is string => typeof x === "string"),
    );
    const line = (x: string | null) => (x === null ? null : (lines.get(x) ?? x));
    return { where: b.where, inside: line(inside), previous: line(previous), next: line(next) };
  }
}
