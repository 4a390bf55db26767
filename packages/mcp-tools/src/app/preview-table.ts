/**
 * The preview table: for every strict mutation of the catalog, what a person checks before
 * confirming it, in their terms. Entries are grouped by what the preview shows — a content change,
 * an attributes change, a removal, a placement (a move or a new block's place), a creation, a
 * rename, an order — and each is one line naming its group's reader with the arguments that pick
 * the target. A new mutation needs one entry here; `test/previews.test.ts` fails for any catalog
 * mutation without one.
 */
import { utf8Decode } from "@sisyphus/core-hash";
import { normalizeIcon, SORT_MODE_NAMES } from "../args.js";
import type { ActionName, Catalog, ToolName } from "../catalog.js";
import { notFound, ToolError } from "../errors.js";
import type { ArgsOf } from "../handler.js";
import { splitOwnIal } from "../state/attributes.js";
import { avKey, avKeys, cellState, primaryKey, rowIds, valuesOf } from "../state/av-state.js";
import { formOfMarkdown, markdownOfForm } from "../state/content-form.js";
import { assetNotebook } from "../tools/assets.js";
import { storedAvName } from "../tools/av/create.js";
import { plainCell } from "../tools/av/reads.js";
import { replacedText } from "../tools/block/replace.js";
import { referencesTo, referringBlockIds, transferredText } from "../tools/block/transfer-refs.js";
import { findToday } from "../tools/document/daily-note.js";
import { planDocToHeading, planHeadingToDoc } from "../tools/document/heading.js";
import { BUILTIN_DECK_ID } from "../tools/flashcard.js";
import { basename, dirname, docAt, parentAt, parsePath, requireDocAt } from "../tools/fs/paths.js";
import { leafBlocks } from "../tools/fs/replace.js";
import { docForm, pointForm } from "../tools/history.js";
import { requireEverywhere, requireRepoKey, storedMemo } from "../tools/history-snapshots.js";
import { TEMPLATES_DIR } from "../tools/templates.js";
import { diffWords, movedItems } from "./diff.js";
import type { ContentChange, OrderItem, PreviewChange, PreviewKind } from "./preview.js";
import {
  cut,
  type DocView,
  firstLine,
  type Place,
  type PreviewReads,
  placeText,
  WORKSPACE,
} from "./preview-reads.js";

/** What one entry reads for its preview (the shared fields are added by `previewWrite`). */
export interface PreviewBody {
  /** The group, when this call's differs from its entry's (fs.write creating rather than replacing). */
  readonly shows?: PreviewKind;
  readonly target: Record<string, unknown>;
  /** One sentence: what the write will do, in a person's words. */
  readonly summary: string;
  readonly changes: readonly PreviewChange[];
  readonly content?: readonly ContentChange[];
  readonly order?: { readonly before: readonly OrderItem[]; readonly after: readonly OrderItem[] };
  readonly omitted?: number;
}

/** One entry: the group it shows and its reader. */
export interface PreviewEntry<A> {
  readonly shows: PreviewKind;
  readonly read: (r: PreviewReads, a: A) => Promise<PreviewBody>;
}

/** The most blocks one content preview shows (an update carries at most 64). */
export const MAX_PREVIEW_BLOCKS = 16;

const q = (s: string) => `“${s}”`;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A content change of one text, with its word diff. */
function contentChange(id: string, document: string, before: string, after: string): ContentChange {
  return { id, document, before, after, diff: diffWords(before, after) };
}

/** Kramdown as clean Markdown (no IALs), as `history.get` and `document.get` readers see it. */
const readable = (kramdown: string) =>
  markdownOfForm(formOfMarkdown(splitOwnIal(kramdown).body)).replace(/\s+$/, "");

/** A block's content as a person compares it: its own IAL line left out, trailing space trimmed. */
const shown = (markdown: string) => splitOwnIal(markdown).body.replace(/\s+$/, "");

// ------------------------------------------------------------------ content

/** A content change of some blocks: each block's text now, and what it becomes. */
function blockContents<A>(
  items: (
    r: PreviewReads,
    a: A,
  ) => Promise<ReadonlyArray<{ id: string; after: (before: string) => string; dom?: boolean }>>,
  say: (n: number, where: string, a: A) => string,
  extra: (a: A) => readonly PreviewChange[] = () => [],
): PreviewEntry<A> {
  return {
    shows: "content",
    async read(r, a) {
      const all = await items(r, a);
      const picked = all.slice(0, MAX_PREVIEW_BLOCKS);
      const blocks = await Promise.all(
        picked.map(async (item) => {
          const b = await r.block(item.id);
          const before = item.dom ? ((await r.kernel.getBlockDOM(item.id)) ?? "") : b.body;
          return { b, change: contentChange(item.id, b.where, before, item.after(before)) };
        }),
      );
      const first = blocks[0]?.b;
      return {
        target: {
          ids: all.map((i) => i.id),
          ...(first === undefined ? {} : { notebook: first.notebook, document: first.where }),
        },
        summary: say(all.length, first?.where ?? "", a),
        changes: [
          ...extra(a),
          ...blocks.map(({ b, change }) => ({
            what: "block",
            id: b.id,
            where: b.where,
            before: firstLine(change.before),
            after: firstLine(change.after),
          })),
        ],
        content: blocks.map((x) => x.change),
        ...(all.length > picked.length ? { omitted: all.length - picked.length } : {}),
      };
    },
  };
}

/** The blocks holding `#label#` (the SQL index after a flush, as the tag tool finds them). */
async function tagged(r: PreviewReads, label: string): Promise<string[]> {
  await r.kernel.flush();
  const tag = `'#${label.replaceAll("'", "''")}#'`;
  const rows = await r.kernel.sql(
    `SELECT DISTINCT id, box FROM blocks WHERE type != 'd' AND instr(markdown, ${tag}) > 0 ORDER BY id LIMIT 65`,
  );
  for (const row of rows) r.canRead(String(row["box"]));
  return rows.map((row) => String(row["id"]));
}

function retag<A>(labels: (a: A) => { from: string; to: string | null }): PreviewEntry<A> {
  return blockContents(
    async (r, a) => {
      const { from, to } = labels(a);
      return (await tagged(r, from)).map((id) => ({
        id,
        after: (before: string) => before.replaceAll(`#${from}#`, to === null ? "" : `#${to}#`),
      }));
    },
    (n, _where, a) => {
      const { from, to } = labels(a);
      if (n === 0) return `No block carries #${from}#: nothing changes`;
      return to === null
        ? `Removes the tag #${from}# from ${plural(n, "block")}`
        : `Renames the tag #${from}# to #${to}# in ${plural(n, "block")}`;
    },
    (a) => {
      const { from, to } = labels(a);
      return [{ what: "tag", before: `#${from}#`, after: to === null ? null : `#${to}#` }];
    },
  );
}

/** A whole document's content before and after (the current text and what replaces it). */
function docContent<A>(
  read: (r: PreviewReads, a: A) => Promise<{ doc: DocView; before: string; after: string }>,
  say: (doc: DocView, a: A) => string,
): PreviewEntry<A> {
  return {
    shows: "content",
    async read(r, a) {
      const x = await read(r, a);
      return {
        target: { id: x.doc.id, notebook: x.doc.notebook, document: x.doc.path },
        summary: say(x.doc, a),
        changes: [
          {
            what: "document",
            id: x.doc.id,
            where: x.doc.path,
            before: `${plural(blockCountOf(x.before), "block")}: ${firstLine(x.before)}`,
            after: `${plural(blockCountOf(x.after), "block")}: ${firstLine(x.after)}`,
          },
        ],
        content: [contentChange(x.doc.id, x.doc.path, x.before, x.after)],
      };
    },
  };
}

/** Top-level blocks of some Markdown, as a person counts paragraphs, headings and lists. */
const blockCountOf = (markdown: string) => formOfMarkdown(markdown).length;

/** A template's text before (`null`: no such template) and after. */
function templateContent<A extends { name: string; content: string }>(): PreviewEntry<A> {
  return {
    shows: "content",
    async read(r, a) {
      r.canRead(WORKSPACE);
      const bytes = await r.kernel.getFile(`${TEMPLATES_DIR}${a.name}`);
      const before = bytes === null ? null : utf8Decode(bytes);
      const path = `${TEMPLATES_DIR}${a.name}`;
      return {
        target: { template: a.name, path },
        summary:
          before === null
            ? `Creates the template ${a.name}`
            : `Replaces the text of the template ${a.name}`,
        changes: [
          {
            what: "template",
            where: path,
            before: before === null ? null : firstLine(before),
            after: firstLine(a.content),
          },
        ],
        content: [contentChange(a.name, path, before ?? "", a.content)],
      };
    },
  };
}

// ------------------------------------------------------------------ attributes

/** Values before and after, one row per name set (`null` before: not set; after: removed). */
function attributes<A>(
  read: (
    r: PreviewReads,
    a: A,
  ) => Promise<{
    target: Record<string, unknown>;
    subject: string;
    where?: string;
    id?: string;
    rows: ReadonlyArray<{ name: string; before: string | null; after: string | null }>;
  }>,
): PreviewEntry<A> {
  return {
    shows: "attributes",
    async read(r, a) {
      const x = await read(r, a);
      const changed = x.rows.filter((row) => row.before !== row.after).length;
      return {
        target: x.target,
        summary: `Sets ${plural(x.rows.length, "value")} of ${x.subject} (${changed} changed)`,
        changes: x.rows.map((row) => ({
          what: row.name,
          ...(x.id === undefined ? {} : { id: x.id }),
          ...(x.where === undefined ? {} : { where: x.where }),
          before: row.before,
          after: row.after,
        })),
      };
    },
  };
}

function attrRows(
  now: Readonly<Record<string, string>>,
  set: Readonly<Record<string, string | null>>,
) {
  return Object.entries(set).map(([name, v]) => ({ name, before: now[name] ?? null, after: v }));
}

/** An icon as a person sees it: a stored hex code as its emoji beside it, "" as none. */
function shownIcon(icon: string | undefined): string | null {
  if (icon === undefined || icon === "") return null;
  if (!/^[0-9a-f]{2,6}(?:-[0-9a-f]{2,6})*$/.test(icon)) return icon;
  const points = icon.split("-").map((h) => Number.parseInt(h, 16));
  return points.every((p) => p <= 0x10ffff) ? `${String.fromCodePoint(...points)} (${icon})` : icon;
}

const shownValue = (v: unknown): string | null =>
  v === null || v === undefined
    ? null
    : typeof v === "string"
      ? v
      : Array.isArray(v) && v.length === 0
        ? null
        : JSON.stringify(v);

// ------------------------------------------------------------------ removal

/** What a removal loses: one row per thing, its content shown as removed text where it has some. */
function removal<A>(
  read: (r: PreviewReads, a: A) => Promise<Omit<PreviewBody, "content"> & { lost?: ContentChange }>,
): PreviewEntry<A> {
  return {
    shows: "removal",
    async read(r, a) {
      const { lost, ...body } = await read(r, a);
      return { ...body, ...(lost === undefined ? {} : { content: [lost] }) };
    },
  };
}

async function docRemoval(r: PreviewReads, id: string): Promise<Omit<PreviewBody, "content">> {
  const doc = await r.doc(id);
  const [blocks, subs] = await Promise.all([
    r.docBlocks(id),
    r.subdocs(doc.notebook, doc.storagePath),
  ]);
  const subText =
    subs.n === 0 ? "" : ` and ${subs.atLeast ? "at least " : ""}${plural(subs.n, "subdocument")}`;
  return {
    target: { id, notebook: doc.notebook, document: doc.path },
    summary: `Removes the document ${q(doc.title)} (${doc.path}) with its ${plural(blocks, "block")}${subText}`,
    changes: [
      { what: "document", id, where: doc.path, before: doc.title, after: null },
      { what: "blocks", where: doc.path, before: String(blocks), after: null },
      ...(subs.n === 0
        ? []
        : [
            {
              what: "subdocuments",
              where: doc.path,
              before: `${subs.atLeast ? "≥" : ""}${subs.n}`,
              after: null,
            },
          ]),
    ],
  };
}

// ------------------------------------------------------------------ placement

/** A block's place before (`null`: a new block) and after, with its neighbours. */
function placement<A>(
  read: (
    r: PreviewReads,
    a: A,
  ) => Promise<{
    what: string;
    id?: string;
    line: string;
    from: Place | null;
    to: Place;
    content?: ContentChange;
    extra?: readonly PreviewChange[];
  }>,
): PreviewEntry<A> {
  return {
    shows: "placement",
    async read(r, a) {
      const x = await read(r, a);
      const moved = x.from !== null;
      return {
        target: { ...(x.id === undefined ? {} : { id: x.id }), document: x.to.where },
        summary: moved
          ? (x.from as Place).where === x.to.where
            ? `Moves ${q(x.line)} ${placeText(x.to)}`
            : `Moves ${q(x.line)} from ${(x.from as Place).where} ${placeText(x.to, "to")}`
          : `Adds ${x.what} ${q(x.line)} ${placeText(x.to)}`,
        changes: [
          // A moved block keeps its content: only its place changes.
          ...(moved ? [] : [{ what: x.what, before: null, after: x.line }]),
          {
            what: moved ? `place of ${q(x.line)}` : "place",
            ...(x.id === undefined ? {} : { id: x.id }),
            before: x.from === null ? null : placeText(x.from),
            after: placeText(x.to),
          },
          ...(x.extra ?? []),
        ],
        ...(x.content === undefined ? {} : { content: [x.content] }),
      };
    },
  };
}

/** A new block's content: all of it inserted. */
function newBlock(where: string, data: string): ContentChange {
  return contentChange("(new)", where, "", data.replace(/\s+$/, ""));
}

/** The place of a block.insert-like anchor (`nextID` before it, `previousID` after it, `parentID` first). */
function anchorPlace(
  r: PreviewReads,
  a: {
    nextID?: string | undefined;
    previousID?: string | undefined;
    parentID?: string | undefined;
  },
): Promise<Place> {
  if (a.nextID !== undefined) return r.place(a.nextID, "before");
  if (a.previousID !== undefined) return r.place(a.previousID, "after");
  return r.place(a.parentID as string, "first");
}

/** Documents moving to another folder: each one's path before and after. */
function docMoves<A>(
  read: (
    r: PreviewReads,
    a: A,
  ) => Promise<{ moves: ReadonlyArray<{ doc: DocView; to: string }>; toText: string }>,
): PreviewEntry<A> {
  return {
    shows: "placement",
    async read(r, a) {
      const { moves, toText } = await read(r, a);
      return {
        target: { ids: moves.map((m) => m.doc.id), to: toText },
        summary: `Moves ${plural(moves.length, "document")} to ${toText}`,
        changes: moves.map((m) => ({
          what: "document",
          id: m.doc.id,
          before: m.doc.path,
          after: m.to,
        })),
      };
    },
  };
}

// ------------------------------------------------------------------ creation

/** Something new: what it is, where it goes, and its content when it has some. */
function creation<A>(
  read: (
    r: PreviewReads,
    a: A,
  ) => Promise<{
    target: Record<string, unknown>;
    summary: string;
    changes: readonly PreviewChange[];
    content?: string;
    where?: string;
  }>,
): PreviewEntry<A> {
  return {
    shows: "creation",
    async read(r, a) {
      const { content, where, ...body } = await read(r, a);
      return {
        ...body,
        ...(content === undefined || content.trim() === ""
          ? {}
          : { content: [newBlock(where ?? "", content)] }),
      };
    },
  };
}

/** A new document at `/<notebook><hpath>` (what is there now, the parent it lands under). */
async function newDoc(r: PreviewReads, notebook: string, hpath: string, markdown: string) {
  const parts = hpath
    .split("/")
    .map((p) => p.trim())
    .filter((p) => p !== "");
  const title = parts[parts.length - 1] ?? "";
  const parentHpath = `/${parts.slice(0, -1).join("/")}`;
  const [existing, parentIds] = await Promise.all([
    r.kernel.getIDsByHPath(notebook, `/${parts.join("/")}`),
    parentHpath === "/"
      ? Promise.resolve(["(notebook)"])
      : r.kernel.getIDsByHPath(notebook, parentHpath),
  ]);
  const path = await r.pathOf(notebook, `/${parts.join("/")}`);
  const parentPath = await r.pathOf(notebook, parentHpath);
  return {
    target: { notebook, document: path },
    summary: `Creates the document ${q(title)} at ${path}${parentIds.length === 0 ? ` (no document is at ${parentPath} yet)` : ""}`,
    changes: [
      { what: "document", where: parentPath, before: null, after: title },
      ...(existing.length > 0
        ? [
            {
              what: "same path",
              where: path,
              before: `${plural(existing.length, "document")} already`,
              after: "one more",
            },
          ]
        : []),
    ],
    content: markdown,
    where: path,
  };
}

// ------------------------------------------------------------------ rename

function rename<A>(
  read: (
    r: PreviewReads,
    a: A,
  ) => Promise<{
    what: string;
    id: string;
    where?: string;
    before: string;
    after: string;
    extra?: readonly PreviewChange[];
  }>,
): PreviewEntry<A> {
  return {
    shows: "rename",
    async read(r, a) {
      const x = await read(r, a);
      return {
        target: { id: x.id, ...(x.where === undefined ? {} : { where: x.where }) },
        summary: `Renames the ${x.what} ${q(x.before)} to ${q(x.after)}`,
        changes: [
          {
            what: x.what,
            id: x.id,
            ...(x.where === undefined ? {} : { where: x.where }),
            before: x.before,
            after: x.after,
          },
          ...(x.extra ?? []),
        ],
      };
    },
  };
}

// ------------------------------------------------------------------ order

/** A folder's child documents in their order now and in the requested one. */
function order<A>(
  read: (
    r: PreviewReads,
    a: A,
  ) => Promise<{
    parentID: string;
    folder: string;
    notebook: string;
    storagePath: string;
    ordered: (titles: Map<string, string>) => string[];
  }>,
): PreviewEntry<A> {
  return {
    shows: "order",
    async read(r, a) {
      const x = await read(r, a);
      const list = await r.kernel.listDocsByPath(x.notebook, x.storagePath);
      if (list === null) throw notFound("document folder", x.parentID);
      const titles = new Map(list.files.map((f) => [f.id, titleOf(f.name)]));
      const beforeIds = list.files.map((f) => f.id);
      const afterIds = x.ordered(titles);
      const moved = movedItems(beforeIds, afterIds);
      const item = (id: string): OrderItem => ({
        id,
        title: titles.get(id) ?? id,
        moved: moved.has(id),
      });
      return {
        target: { parentID: x.parentID, notebook: x.notebook, parent: x.folder },
        summary:
          moved.size === 0
            ? `Keeps the order of the documents in ${x.folder}`
            : `Reorders the documents in ${x.folder}: moves ${[...moved].map((id) => q(titles.get(id) ?? id)).join(", ")}`,
        changes: afterIds.flatMap((id, i) =>
          moved.has(id)
            ? [
                {
                  what: "document",
                  id,
                  where: x.folder,
                  before: `#${beforeIds.indexOf(id) + 1}`,
                  after: `#${i + 1}`,
                },
              ]
            : [],
        ),
        order: { before: beforeIds.map(item), after: afterIds.map(item) },
      };
    },
  };
}

function titleOf(name: string): string {
  return name.endsWith(".sy") ? name.slice(0, -".sy".length) : name;
}

/** A reorder's parent (a notebook or a document) as a folder. */
async function folderOf(r: PreviewReads, parentID: string) {
  const nb = (await r.notebookRows()).find((n) => n.id === parentID);
  if (nb !== undefined) {
    r.canRead(nb.id);
    return { notebook: nb.id, storagePath: "/", folder: `/${nb.name}` };
  }
  const doc = await r.doc(parentID);
  return {
    notebook: doc.notebook,
    storagePath: doc.storagePath.replace(/\.sy$/, ""),
    folder: doc.path,
  };
}

/** The folder a path names (`/<notebook>` or a document), resolved as the fs tool resolves it. */
async function fsFolder(r: PreviewReads, path: string) {
  const parent = await parentAt(r.context(), path);
  return { parentID: parent.id, ...(await folderOf(r, parent.id)) };
}

/** The document a path names, as the fs tool resolves it. */
async function fsDoc(r: PreviewReads, path: string): Promise<DocView> {
  return r.doc((await requireDocAt(r.context(), path)).id);
}

// ------------------------------------------------------------------ the table

/** The mutation actions of one tool. */
type MutationsOf<T extends ToolName> = {
  [A in ActionName<T>]: Catalog[T][A] extends { readonly policy: { readonly kind: "mutation" } }
    ? A
    : never;
}[ActionName<T>];

// ------------------------------------------------------------------ flashcards

/** A rating's name (1 again … 4 easy). */
const ratingName = (rating: number) =>
  ["again", "hard", "good", "easy"][rating - 1] ?? String(rating);

/** A deck's name as SiYuan shows it (the built-in deck has no entry in the kernel's list). */
async function deckName(r: PreviewReads, deckId: string): Promise<string> {
  if (deckId === BUILTIN_DECK_ID) return "the built-in deck";
  const deck = (await r.kernel.riffDecks()).find((d) => d.id === deckId);
  if (deck === undefined) throw notFound("deck", deckId);
  return `the deck ${q(deck.name)}`;
}

/** The blocks of a card change, each as a person recognises it (at most {@link MAX_PREVIEW_BLOCKS}). */
async function cardBlocks(r: PreviewReads, ids: readonly string[]) {
  const shown = [...new Set(ids)].slice(0, MAX_PREVIEW_BLOCKS);
  return {
    blocks: await Promise.all(shown.map((id) => r.block(id))),
    omitted: new Set(ids).size - shown.length,
  };
}

/** The card `cardId` of a deck, by paging its listing (at most 64 pages of 64). */
async function cardOf(r: PreviewReads, deckId: string, cardId: string) {
  for (let page = 1; page <= 64; page++) {
    const p = await r.kernel.riffCards(deckId, page, 64);
    const card = p.cards.find((c) => c.cardId === cardId);
    if (card !== undefined) return card;
    if (page >= p.pageCount || p.cards.length === 0) break;
  }
  throw notFound("card", cardId);
}

/** A block the write adds at a place: its first line, the place, its text as added. */
function addedBlock<A extends { data: string }>(
  at: (r: PreviewReads, a: A) => Promise<Awaited<ReturnType<PreviewReads["place"]>>>,
): PreviewEntry<A> {
  return placement(async (r, a) => {
    const to = await at(r, a);
    return {
      what: "block",
      line: firstLine(a.data),
      from: null,
      to,
      content: newBlock(to.where, a.data),
    };
  });
}

/** The table's type: by tool, then mutation action, an entry over the action's parsed arguments. */
export type PreviewTable = {
  readonly [T in ToolName]?: { readonly [A in MutationsOf<T>]?: PreviewEntry<ArgsOf<T, A>> };
};

/** Every strict mutation's preview, by tool then action. */
export const PREVIEWS = {
  block: {
    update: blockContents(
      async (_r, a) =>
        (a.items ?? [{ id: a.id as string, data: a.data as string, dataType: a.dataType }]).map(
          (i) => ({
            id: i.id,
            dom: i.dataType === "dom",
            after: () => (i.dataType === "dom" ? i.data : shown(i.data)),
          }),
        ),
      (n, where) => `Changes the content of ${plural(n, "block")}${n === 1 ? ` in ${where}` : ""}`,
    ),
    replace: blockContents(
      async (_r, a) => [{ id: a.id, after: (before: string) => replacedText(a, before) }],
      (_n, where, a) =>
        `Replaces ${a.all === true ? "every" : "the"} ${q(a.find)} with ${q(a.replacement)} in a block of ${where}`,
    ),
    find_replace: blockContents(
      async (r, a) => {
        const matched: string[] = [];
        for (const id of new Set(a.ids))
          if ((await r.block(id)).body.includes(a.find)) matched.push(id);
        return matched.map((id) => ({
          id,
          after: (before: string) => replacedText({ ...a, id, all: true }, before),
        }));
      },
      (n, _where, a) =>
        n === 0
          ? `None of the ${plural(a.ids.length, "block")} contains ${q(a.find)}: refused, nothing changes`
          : `Replaces every ${q(a.find)} with ${q(a.replacement)} in ${plural(n, "block")}`,
    ),
    set_attrs: attributes(async (r, a) => {
      const b = await r.block(a.id);
      const now = (await r.kernel.getBlockAttrs(a.id)) ?? {};
      return {
        target: { id: a.id, document: b.where },
        subject: `the block ${q(b.line)}`,
        id: a.id,
        where: b.where,
        rows: attrRows(now, a.attrs),
      };
    }),
    delete: removal(async (r, a) => {
      const b = await r.block(a.id);
      const inside = b.blocks - 1;
      return {
        target: { id: a.id, notebook: b.notebook, document: b.where },
        summary: `Deletes ${q(b.line)}${inside > 0 ? ` and ${plural(inside, "block")} inside it` : ""} from ${b.where}`,
        changes: [{ what: "block", id: a.id, where: b.where, before: b.line, after: null }],
        lost: contentChange(a.id, b.where, readable(b.body), ""),
      };
    }),
    move: placement(async (r, a) => {
      const b = await r.block(a.id);
      const to =
        a.previousID !== undefined
          ? await r.place(a.previousID, "after", a.id)
          : await r.place(a.parentID as string, a.position ?? "first", a.id);
      return { what: "block", id: a.id, line: b.line, from: await r.placeOf(a.id), to };
    }),
    set_fold_state: attributes(async (r, a) => {
      const b = await r.block(a.id);
      const now = (await r.kernel.getBlockAttrs(a.id)) ?? {};
      return {
        target: { id: a.id, document: b.where },
        subject: `the block ${q(b.line)}${/^#{1,6}\s/.test(b.body) ? " (its section folds with it)" : ""}`,
        id: a.id,
        where: b.where,
        rows: [{ name: "fold", before: now["fold"] ?? null, after: a.folded ? "1" : null }],
      };
    }),
    transfer_references: blockContents(
      async (r, a) => {
        const target = await r.block(a.toID);
        const ids = await referringBlockIds(r, a.fromID);
        const bodies = await Promise.all(ids.map(async (id) => (await r.block(id)).body));
        return ids
          .filter((_id, i) => referencesTo(bodies[i] as string, a.fromID) > 0)
          .map((id) => ({
            id,
            after: (before: string) =>
              transferredText(before, a.fromID, a.toID, target.line.replace(/^#{1,6}\s+/, "")),
          }));
      },
      (n, _where, a) =>
        n === 0
          ? `No block references ${a.fromID}: nothing changes`
          : `Points the references to ${a.fromID} in ${plural(n, "block")} at ${a.toID}`,
    ),
    add_to_daily_note: creation(async (r, a) => {
      await r.notebook(a.notebook);
      const today = await findToday(r.context(), a.notebook);
      const path = await r.pathOf(a.notebook, today.hpath);
      const end = a.position === "prepend" ? "start" : "end";
      return {
        target: { notebook: a.notebook, document: path },
        summary: `Adds ${q(firstLine(a.data))} at the ${end} of today's note ${path}${today.id === null ? " (created first)" : ""}`,
        changes: [{ what: "block", where: path, before: null, after: firstLine(a.data) }],
        content: a.data,
        where: path,
      };
    }),
    insert: addedBlock((r, a) => anchorPlace(r, a)),
    prepend: addedBlock((r, a) => r.place(a.parentID, "first")),
    append: addedBlock((r, a) => r.place(a.parentID, "last")),
  },
  document: {
    create: creation((r, a) => newDoc(r, a.notebook, a.hpath, a.markdown)),
    duplicate: creation(async (r, a) => {
      const doc = await r.doc(a.id);
      return {
        target: { id: a.id, notebook: doc.notebook, document: doc.path },
        summary: `Creates a copy of ${q(doc.title)} (its blocks under new IDs) right after it in ${doc.path.slice(0, doc.path.lastIndexOf("/")) || "/"}`,
        changes: [
          { what: "document", where: doc.path, before: null, after: `${doc.title} (Duplicated …)` },
        ],
      };
    }),
    create_daily_note: creation(async (r, a) => {
      await r.notebook(a.notebook);
      const today = await findToday(r.context(), a.notebook);
      const path = await r.pathOf(a.notebook, today.hpath);
      return {
        target: { notebook: a.notebook, document: path },
        summary:
          today.id === null
            ? `Creates today's note ${path}`
            : `Today's note ${path} exists: nothing is created`,
        changes: [
          {
            what: "daily note",
            where: path,
            before: today.id === null ? null : today.date,
            after: today.date,
          },
        ],
      };
    }),
    rename: rename(async (r, a) => {
      const doc = await r.doc(a.id);
      const to = `${doc.path.slice(0, doc.path.lastIndexOf("/"))}/${a.title}`;
      return {
        what: "document",
        id: a.id,
        where: doc.path,
        before: doc.title,
        after: a.title,
        extra: [{ what: "path", id: a.id, before: doc.path, after: to }],
      };
    }),
    set_attrs: attributes(async (r, a) => {
      const doc = await r.doc(a.id);
      const now = (await r.kernel.getBlockAttrs(a.id)) ?? {};
      return {
        target: { id: a.id, document: doc.path },
        subject: `the document ${q(doc.title)}`,
        id: a.id,
        where: doc.path,
        rows: attrRows(now, a.attrs),
      };
    }),
    heading_to_doc: creation(async (r, a) => {
      const plan = await planHeadingToDoc(r.context(), a);
      const doc = await r.doc(plan.source.id);
      const folder = plan.parent.isNotebook
        ? `/${(await r.notebook(plan.parent.id)).name}`
        : (await r.doc(plan.parent.id)).path;
      const n = plan.section.length;
      return {
        target: { id: a.id, document: doc.path, parentID: plan.parent.id },
        summary: `Turns the heading ${q(plan.title)} and the ${plural(n, "block")} under it into the document ${folder}/${plan.title}; they leave ${doc.path}, every block keeps its ID`,
        changes: [
          { what: "document", id: a.id, where: folder, before: null, after: plan.title },
          { what: "heading", id: a.id, where: doc.path, before: plan.title, after: null },
          { what: "blocks", where: doc.path, before: String(n), after: "0" },
        ],
      };
    }),
    doc_to_heading: removal(async (r, a) => {
      const plan = await planDocToHeading(r.context(), a);
      const [doc, target] = await Promise.all([r.doc(a.id), r.doc(plan.target.id)]);
      const n = plan.moved.length;
      const next = plan.targetBlocks[plan.at];
      return {
        target: { id: a.id, document: doc.path, targetID: a.targetID },
        summary: `Removes the document ${doc.path} and puts its title as an h${plan.level} heading with its ${plural(n, "block")} into ${target.path} (${next === undefined ? "at the end" : `before block ${next.id}`}); every block keeps its ID`,
        changes: [
          { what: "document", id: a.id, where: doc.path, before: doc.title, after: null },
          { what: "heading", id: a.id, where: target.path, before: null, after: plan.title },
          {
            what: "blocks",
            where: target.path,
            before: String(plan.targetBlocks.length),
            after: String(plan.targetBlocks.length + 1 + n + (plan.tagged ? 1 : 0)),
          },
        ],
      };
    }),
    set_icon: attributes(async (r, a) => {
      const doc = await r.doc(a.id);
      const now = (await r.kernel.getBlockAttrs(a.id)) ?? {};
      return {
        target: { id: a.id, document: doc.path },
        subject: `the document ${q(doc.title)}`,
        id: a.id,
        where: doc.path,
        rows: [
          { name: "icon", before: shownIcon(now["icon"]), after: shownIcon(normalizeIcon(a.icon)) },
        ],
      };
    }),
    set_child_sort_mode: attributes(async (r, a) => {
      const nb = await r.notebook(a.notebook);
      return {
        target: { notebook: a.notebook, name: nb.name },
        subject: `the notebook ${q(nb.name)} (every level of it)`,
        id: a.notebook,
        rows: [
          {
            name: "child sort mode",
            before: SORT_MODE_NAMES[nb.sortMode] ?? String(nb.sortMode),
            after: a.mode,
          },
        ],
      };
    }),
    remove: removal((r, a) => docRemoval(r, a.id)),
    move: docMoves(async (r, a) => {
      const to = await folderOf(r, a.toID);
      const docs = await Promise.all(a.ids.map((id) => r.doc(id)));
      return {
        moves: docs.map((doc) => ({ doc, to: `${to.folder}/${doc.title}` })),
        toText: to.folder,
      };
    }),
    reorder: order(async (r, a) => ({
      parentID: a.parentID,
      ...(await folderOf(r, a.parentID)),
      ordered: () => a.orderedIDs,
    })),
  },
  fs: {
    write: {
      shows: "content",
      async read(r, a) {
        if (!a.overwrite) {
          const p = parsePath(a.path);
          const notebook = (await r.notebookRows()).find((n) => n.name === p.notebookName);
          if (notebook === undefined) throw notFound("notebook", p.notebookName);
          r.canRead(notebook.id);
          const made = await creation((rr) => newDoc(rr, notebook.id, p.hpath, a.markdown)).read(
            r,
            a,
          );
          return { ...made, shows: "creation" };
        }
        return docContent(
          async (rr, aa: typeof a) => {
            const doc = await fsDoc(rr, aa.path);
            const kramdown = (await rr.kernel.getBlockKramdown(doc.id)) ?? "";
            return {
              doc,
              before: readable(kramdown),
              after: readable(aa.markdown),
            };
          },
          (doc) => `Replaces the content of ${q(doc.title)} (${doc.path})`,
        ).read(r, a);
      },
    },
    rm: removal(async (r, a) => docRemoval(r, (await fsDoc(r, a.path)).id)),
    replace: blockContents(
      async (r, a) => {
        const ids = await leafBlocks(r.context(), (await fsDoc(r, a.path)).id);
        const kramdowns = ids.length === 0 ? {} : await r.kernel.getBlockKramdowns(ids);
        return ids
          .filter((id) => splitOwnIal(kramdowns[id] ?? "").body.includes(a.find))
          .map((id) => ({
            id,
            after: (before: string) => replacedText({ ...a, id, all: true }, before),
          }));
      },
      (n, _where, a) =>
        n === 0
          ? `No block of ${a.path} contains ${q(a.find)}: refused, nothing changes`
          : `Replaces every ${q(a.find)} with ${q(a.replacement)} in ${plural(n, "block")} of ${a.path}`,
    ),
    mv: docMoves(async (r, a) => {
      const doc = await fsDoc(r, a.from);
      const to = parsePath(a.to);
      const folder = await fsFolder(r, `/${to.notebookName}${dirname(to.hpath)}`);
      const existing = await docAt(r.context(), folder.notebook, to.hpath);
      if (existing !== null)
        throw new ToolError("already_exists", `${a.to} exists: choose another destination`);
      return {
        moves: [{ doc, to: `${folder.folder}/${basename(to.hpath)}` }],
        toText: folder.folder,
      };
    }),
    reorder: order(async (r, a) => {
      const folder = await fsFolder(r, a.path);
      return {
        ...folder,
        ordered: (titles) =>
          a.order.map((title) => [...titles].find(([, t]) => t === title)?.[0] ?? title),
      };
    }),
  },
  file: {
    upload_asset: creation(async (r, a) => {
      r.canRead(WORKSPACE);
      const name = basename((a.localFilePath ?? a.uploadSource ?? "").replaceAll("\\", "/"));
      return {
        target: { assetsDirPath: a.assetsDirPath },
        summary: `Uploads ${q(name)} into ${a.assetsDirPath} (the kernel names the stored file)`,
        changes: [{ what: "asset", where: a.assetsDirPath, before: null, after: name }],
      };
    }),
    create_template: templateContent(),
    update_template: templateContent(),
    save_doc_as_template: creation(async (r, a) => {
      r.canRead(WORKSPACE);
      const doc = await r.doc(a.id);
      const path = `${TEMPLATES_DIR}${a.name}`;
      const bytes = await r.kernel.getFile(path);
      const before = bytes === null ? null : firstLine(utf8Decode(bytes));
      return {
        target: { id: a.id, template: a.name, path },
        summary: `${bytes === null ? "Creates" : "Replaces"} the template ${a.name} from the document ${q(doc.title)} (${doc.path}), as SiYuan renders it`,
        changes: [{ what: "template", where: path, before, after: `document ${doc.title}` }],
      };
    }),
    delete_template: removal(async (r, a) => {
      r.canRead(WORKSPACE);
      const path = `${TEMPLATES_DIR}${a.name}`;
      const bytes = await r.kernel.getFile(path);
      if (bytes === null) throw notFound("template", a.name);
      const text = utf8Decode(bytes);
      return {
        target: { template: a.name, path },
        summary: `Removes the template ${a.name} (${bytes.length} bytes); SiYuan keeps no copy`,
        changes: [{ what: "template", where: path, before: firstLine(text), after: null }],
        lost: contentChange(a.name, path, text, ""),
      };
    }),
    delete_asset: removal(async (r, a) => {
      r.canRead(assetNotebook(a.path) ?? WORKSPACE);
      const bytes = await r.kernel.getFile(`/data/${a.path}`).catch(() => null);
      return {
        target: { path: a.path },
        summary: `Removes the unused asset ${a.path}${bytes === null ? "" : ` (${bytes.length} bytes)`}; SiYuan keeps a copy in its history`,
        changes: [{ what: "asset", where: a.path, before: basename(a.path), after: null }],
      };
    }),
    rename_asset: rename(async (r, a) => {
      r.canRead(WORKSPACE);
      const name = a.path.slice(a.path.lastIndexOf("/") + 1);
      const ext = /\.[^./]*$/.exec(name)?.[0] ?? "";
      const dir = a.path.slice(0, a.path.length - name.length);
      const linking = await r.kernel.sql(
        `SELECT COUNT(DISTINCT root_id) AS n FROM blocks WHERE instr(markdown, '${name.replaceAll("'", "''")}') > 0`,
      );
      const docs = Number(linking[0]?.["n"] ?? 0);
      return {
        what: "asset",
        id: a.path,
        before: a.path,
        after: `${dir}${a.newName}-<new ID>${ext}`,
        extra: [{ what: "documents rewritten", before: String(docs), after: String(docs) }],
      };
    }),
    remove_unused_assets: removal(async (r) => {
      const all = await r.kernel.getUnusedAssets();
      for (const x of all) r.canRead(assetNotebook(x.path) ?? WORKSPACE);
      const shown = all.slice(0, MAX_PREVIEW_BLOCKS);
      return {
        target: {},
        summary: `Removes ${plural(all.length, "unused asset")}; SiYuan keeps copies in its history`,
        changes: shown.map((x) => ({ what: "asset", where: x.path, before: x.name, after: null })),
        ...(all.length > shown.length ? { omitted: all.length - shown.length } : {}),
      };
    }),
  },
  notebook: {
    create: creation(async (r, a) => {
      const same = (await r.notebookRows()).filter((n) => n.name === a.name).length;
      return {
        target: { name: a.name },
        summary: `Creates the notebook ${q(a.name)}${same > 0 ? ` (${plural(same, "notebook")} already carry this name)` : ""}`,
        changes: [{ what: "notebook", before: null, after: a.name }],
      };
    }),
    rename: rename(async (r, a) => {
      const nb = await r.notebook(a.notebook);
      return { what: "notebook", id: a.notebook, before: nb.name, after: a.name };
    }),
    set_conf: attributes(async (r, a) => {
      const nb = await r.notebook(a.notebook);
      const conf = (await r.kernel.getNotebookConf(a.notebook)) ?? {};
      const now = Object.fromEntries(Object.entries(conf).map(([k, v]) => [k, String(v)]));
      const set = Object.fromEntries(Object.entries(a.conf).map(([k, v]) => [k, String(v)]));
      return {
        target: { notebook: a.notebook, name: nb.name },
        subject: `the notebook ${q(nb.name)}`,
        id: a.notebook,
        rows: attrRows(now, set),
      };
    }),
    set_open_state: attributes(async (r, a) => {
      const nb = await r.notebook(a.notebook);
      return {
        target: { notebook: a.notebook, name: nb.name },
        subject: `the notebook ${q(nb.name)}`,
        id: a.notebook,
        rows: [
          {
            name: "state",
            before: nb.closed ? "closed" : "open",
            after: a.open ? "open" : "closed",
          },
        ],
      };
    }),
    set_icon: attributes(async (r, a) => {
      const nb = await r.notebook(a.notebook);
      return {
        target: { notebook: a.notebook, name: nb.name },
        subject: `the notebook ${q(nb.name)}`,
        id: a.notebook,
        rows: [
          { name: "icon", before: shownIcon(nb.icon), after: shownIcon(normalizeIcon(a.icon)) },
        ],
      };
    }),
    remove: removal(async (r, a) => {
      const nb = await r.notebook(a.notebook);
      const docs = await r.subdocs(a.notebook, "/");
      return {
        target: { notebook: a.notebook, name: nb.name },
        summary: `Removes the notebook ${q(nb.name)} with its ${docs.atLeast ? "at least " : ""}${plural(docs.n, "document")}`,
        changes: [
          { what: "notebook", id: a.notebook, before: nb.name, after: null },
          {
            what: "documents",
            where: `/${nb.name}`,
            before: `${docs.atLeast ? "≥" : ""}${docs.n}`,
            after: null,
          },
        ],
      };
    }),
  },
  tag: {
    rename: retag((a) => ({ from: a.oldLabel, to: a.newLabel })),
    remove: retag((a) => ({ from: a.label, to: null })),
  },
  av: {
    create: placement(async (r, a) => {
      const to = await anchorPlace(r, a);
      const columns = (a.columns ?? [{ name: "Select" }]).map((c) => c.name);
      return {
        what: "database",
        line: a.name ?? "(no name)",
        from: null,
        to,
        extra: [{ what: "columns", before: null, after: ["Primary Key", ...columns].join(", ") }],
      };
    }),
    add_rows: creation(async (r, a) => {
      const av = await database(r, a.id);
      for (const id of a.blockIDs ?? []) await r.block(id);
      const lines = await r.lines(a.blockIDs ?? []);
      const rows = [
        ...(a.blockIDs ?? []).map((id) => ({
          what: "row",
          id,
          where: dbName(av),
          before: null,
          after: `${lines.get(id) ?? id} (bound block)`,
        })),
        ...(a.detached ?? []).map((text) => ({
          what: "row",
          where: dbName(av),
          before: null,
          after: cut(text),
        })),
      ];
      return {
        target: { id: a.id, database: dbName(av) },
        summary: `Adds ${plural(rows.length, "row")} to the database ${q(dbName(av))}`,
        changes: rows,
      };
    }),
    remove_rows: removal(async (r, a) => {
      const av = await database(r, a.id);
      const pk = primaryKey(av);
      const values = pk === undefined ? new Map() : valuesOf(av, pk.id);
      const known = new Set(rowIds(av));
      const rows = a.rowIDs.map((id) => {
        const cell = cellState(values.get(id)) as {
          content?: string;
          bound?: string | null;
        } | null;
        return {
          what: cell?.bound ? "row (its bound block is kept)" : "row",
          id,
          where: dbName(av),
          before: known.has(id) ? cut(cell?.content ?? "") : "(no such row)",
          after: null,
        };
      });
      return {
        target: { id: a.id, database: dbName(av) },
        summary: `Removes ${plural(rows.length, "row")} from the database ${q(dbName(av))}`,
        changes: rows,
      };
    }),
    set_cells: attributes(async (r, a) => {
      const av = await database(r, a.id);
      const pk = primaryKey(av);
      const names = pk === undefined ? new Map() : valuesOf(av, pk.id);
      return {
        target: { id: a.id, database: dbName(av) },
        subject: `the database ${q(dbName(av))}`,
        where: dbName(av),
        rows: a.cells.map((c) => {
          const row =
            (cellState(names.get(c.rowID)) as { content?: string } | null)?.content ?? c.rowID;
          const column = avKey(av, c.keyID)?.name ?? c.keyID;
          return {
            name: `${column} of ${q(cut(row))}`,
            before: shownValue(plainCell(valuesOf(av, c.keyID).get(c.rowID) ?? null)),
            after: shownValue(c.value),
          };
        }),
      };
    }),
    add_column: creation(async (r, a) => {
      const av = await database(r, a.id);
      const keys = avKeys(av);
      const after =
        a.previousKeyID === undefined ? keys[keys.length - 1] : avKey(av, a.previousKeyID);
      return {
        target: { id: a.id, database: dbName(av) },
        summary: `Adds the column ${q(a.name)} (${a.type}) to the database ${q(dbName(av))}`,
        changes: [
          { what: "column", where: dbName(av), before: null, after: `${a.name} (${a.type})` },
          {
            what: "place",
            where: dbName(av),
            before: null,
            after: after === undefined ? "first" : `after ${q(after.name)}`,
          },
        ],
      };
    }),
    remove_column: removal(async (r, a) => {
      const av = await database(r, a.id);
      const k = avKey(av, a.keyID);
      if (k === undefined) throw notFound("column", a.keyID);
      const filled = [...valuesOf(av, a.keyID).values()].filter(
        (v) => shownValue(plainCell(v)) !== null,
      ).length;
      return {
        target: { id: a.id, database: dbName(av), keyID: a.keyID },
        summary: `Removes the column ${q(k.name)} and its ${plural(filled, "filled cell")} from the database ${q(dbName(av))}`,
        changes: [
          {
            what: "column",
            id: a.keyID,
            where: dbName(av),
            before: `${k.name} (${k.type})`,
            after: null,
          },
          { what: "filled cells", where: dbName(av), before: String(filled), after: null },
        ],
      };
    }),
    rename: rename(async (r, a) => {
      const av = await database(r, a.id);
      return { what: "database", id: a.id, before: av.name ?? "", after: storedAvName(a.name) };
    }),
    duplicate: creation(async (r, a) => {
      const av = await database(r, a.id);
      const name = av.name ? `${av.name} (Duplicated <time>)` : "(no name)";
      const rows = rowIds(av).length;
      return {
        target: { id: a.id, database: dbName(av) },
        summary: `Copies the database ${q(dbName(av))} (${plural(avKeys(av).length, "column")}, ${plural(rows, "row")}) into a new one`,
        changes: [
          { what: "database", before: null, after: name },
          {
            what: "place",
            where: dbName(av),
            before: null,
            after: a.blockID === undefined ? "after its first block" : `after block ${a.blockID}`,
          },
        ],
      };
    }),
  },
  flashcard: {
    add_cards: creation(async (r, a) => {
      const [deck, { blocks, omitted }] = await Promise.all([
        deckName(r, a.deckId),
        cardBlocks(r, a.ids),
      ]);
      return {
        target: { deckId: a.deckId, ids: a.ids },
        summary: `Makes ${plural(new Set(a.ids).size, "block")} flashcards in ${deck} (a block that is a card already stays as it is)`,
        changes: blocks.map((b) => ({
          what: "card",
          id: b.id,
          where: b.where,
          before: null,
          after: b.line,
        })),
        ...(omitted > 0 ? { omitted } : {}),
      };
    }),
    remove_cards: removal(async (r, a) => {
      const [deck, { blocks, omitted }] = await Promise.all([
        deckName(r, a.deckId),
        cardBlocks(r, a.ids),
      ]);
      return {
        target: { deckId: a.deckId, ids: a.ids },
        summary: `Removes the cards of ${plural(new Set(a.ids).size, "block")} from ${deck}, with their review history; the blocks stay`,
        changes: blocks.map((b) => ({
          what: "card",
          id: b.id,
          where: b.where,
          before: b.line,
          after: null,
        })),
        ...(omitted > 0 ? { omitted } : {}),
      };
    }),
    review: {
      shows: "attributes",
      async read(r, a) {
        const [deck, card] = await Promise.all([
          deckName(r, a.deckId),
          cardOf(r, a.deckId, a.cardId),
        ]);
        const b = await r.block(card.blockId);
        return {
          target: { deckId: a.deckId, cardId: a.cardId, id: b.id, document: b.where },
          summary: `Rates the card ${q(b.line)} of ${deck} as ${ratingName(a.rating)} (${a.rating})`,
          changes: [
            {
              what: "reviews",
              id: b.id,
              where: b.where,
              before: String(card.reps),
              after: String(card.reps + 1),
            },
            { what: "rating", id: b.id, where: b.where, before: null, after: ratingName(a.rating) },
          ],
        };
      },
    },
  },
  history: {
    create_point: creation(async (r, a) => {
      const doc = await r.doc(a.id);
      const blocks = await r.docBlocks(a.id);
      return {
        target: { id: a.id, document: doc.path },
        summary: `Saves a restore point of ${q(doc.title)} (${doc.path}) as it is now`,
        changes: [
          {
            what: "restore point",
            id: a.id,
            where: doc.path,
            before: null,
            after: `${plural(blocks, "block")} as they are now`,
          },
        ],
      };
    }),
    rollback_document: docContent(
      async (r, a) => {
        const doc = await r.doc(a.id);
        // The point's own notebook (`/history/<time>-<op>/<notebook>/…`) is read too.
        r.canRead(a.historyPath.split("/")[3] ?? "");
        const ctx = r.context();
        const [now, point] = await Promise.all([docForm(ctx, a.id), pointForm(ctx, a.historyPath)]);
        if (now === null) throw notFound("document", a.id);
        if (point === null) throw notFound("history point", a.historyPath);
        return {
          doc,
          before: markdownOfForm(now).replace(/\s+$/, ""),
          after: markdownOfForm(point).replace(/\s+$/, ""),
        };
      },
      (doc, a) =>
        `Replaces the content of ${q(doc.title)} (${doc.path}) with its restore point of ${pointTime(a.historyPath)}; the current content is not kept as a point`,
    ),
    snapshot_create: creation(async (r, a) => {
      // the snapshot's own reads (the key's yes/no, the latest snapshot), as its preflight does
      const ctx = r.context();
      requireEverywhere(ctx, "read");
      await requireRepoKey(ctx);
      const latest = (await r.kernel.repoSnapshots(1)).snapshots[0];
      const memo = storedMemo(a.memo);
      const notebooks = (await r.notebookRows()).length;
      const at = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace("T", " ");
      return {
        target: { memo },
        summary: `Saves a snapshot of the whole workspace (${plural(notebooks, "notebook")}) as ${q(memo)}; none when nothing changed since the latest`,
        changes: [
          {
            what: "snapshot",
            where: WORKSPACE,
            before: latest === undefined ? null : `${latest.memo} (${at(latest.created)} UTC)`,
            after: `${memo} (now)`,
          },
        ],
      };
    }),
  },
} satisfies PreviewTable;

/** A database, readable (databases live in the workspace), or `not_found`. */
async function database(r: PreviewReads, id: string) {
  r.canRead(WORKSPACE);
  const av = await r.kernel.getAttributeView(id);
  if (av === null) throw notFound("database", id);
  return av;
}

const dbName = (av: { id: string; name?: string | undefined }) =>
  av.name === undefined || av.name === "" ? av.id : av.name;

/** `/history/2026-12-02-101500-update/…` → `2026-12-02 10:15:00`. */
function pointTime(historyPath: string): string {
  const m = /^\/history\/(\d{4}-\d{2}-\d{2})-(\d{2})(\d{2})(\d{2})-/.exec(historyPath);
  return m === null ? historyPath : `${m[1]} ${m[2]}:${m[3]}:${m[4]}`;
}

/**
 * The preview entry of `tool.action`, or `undefined` when the table has none. Its reader takes the
 * arguments as that action's catalog schema parsed them (`resolveAction`), which is the type the
 * table checked the entry against.
 */
export function previewEntryOf(
  tool: string,
  action: string,
): PreviewEntry<Record<string, unknown>> | undefined {
  const byTool = (
    PREVIEWS as unknown as Record<
      string,
      Record<string, PreviewEntry<Record<string, unknown>>> | undefined
    >
  )[tool];
  return byTool?.[action];
}
