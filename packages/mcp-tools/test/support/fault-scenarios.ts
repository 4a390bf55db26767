/**
 * The fault matrix's scenario registry: at least one scenario per strict mutation of the catalog
 * (keyed `tool.action`; the matrix fails when a mutation has none). Each scenario builds its own
 * fixture in an empty kernel, names the request, and says how the live state — read straight from
 * the sandbox's tree or with a client outside the fault path — shows that request.
 *
 * Every request differs from the state before it, so `no_change` is never a right answer here.
 */
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import {
  differ,
  docBlocks,
  type Env,
  type Fixture,
  fixtureDoc,
  type LiveBlock,
  type Scenario,
} from "./fault-matrix.js";

const NOTEBOOK = "Work";

async function notebook(env: Env, name = NOTEBOOK): Promise<string> {
  const id = env.sandbox.control.external.createNotebook(name);
  await env.sandbox.control.flush();
  return id;
}

/** Bodies of a document's blocks, or why they cannot be read. */
function bodies(env: Env, docId: string): string[] | string {
  const blocks = docBlocks(env, docId);
  return blocks === null ? `document ${docId} does not exist` : blocks.map((b) => b.body);
}

function sameBodies(env: Env, docId: string, expected: readonly string[]): string | undefined {
  const b = bodies(env, docId);
  return typeof b === "string" ? b : differ(`blocks of ${docId}`, b, expected);
}

function block(env: Env, docId: string, id: string): LiveBlock | undefined {
  return docBlocks(env, docId)?.find((b) => b.id === id);
}

/** The block's attributes include every pair of `wanted`. */
function keepsAttrs(
  env: Env,
  id: string,
  wanted: Readonly<Record<string, string>>,
): string | undefined {
  const attrs = env.sandbox.control.attrs(id);
  if (attrs === null) return `block ${id} does not exist`;
  const picked = Object.fromEntries(Object.keys(wanted).map((k) => [k, attrs[k] ?? null]));
  return differ(`attributes of ${id}`, picked, wanted);
}

const first = (...checks: (string | undefined)[]) => checks.find((c) => c !== undefined);

/** Documents at an hpath, read from the kernel. */
async function idsAt(env: Env, notebookId: string, hpath: string): Promise<string[]> {
  return (await env.verify.filetree.getIDsByHPath({ notebook: notebookId, path: hpath })) ?? [];
}

/** The single document at an hpath whose blocks are exactly `expected`. */
async function docAtShows(
  env: Env,
  notebookId: string,
  hpath: string,
  expected: readonly string[],
): Promise<string | undefined> {
  const ids = await idsAt(env, notebookId, hpath);
  if (ids.length !== 1) return `${ids.length} documents at ${hpath}`;
  return sameBodies(env, ids[0] as string, expected);
}

/** The template `name` holds `text` (read with a client outside the fault path). */
async function templateHolds(env: Env, name: string, text: string): Promise<string | undefined> {
  const file = await env.verify.file.getFile({ path: `/data/templates/${name}` });
  return differ(`template ${name}`, file && Buffer.from(file.bytes).toString("utf8"), text);
}

/** Exactly one file under data/assets/ holds `bytes` (read with a client outside the fault path). */
async function assetsHolding(env: Env, bytes: Uint8Array): Promise<string | undefined> {
  const entries = (await env.verify.file.readDir({ path: "/data/assets" })) ?? [];
  let holding = 0;
  for (const e of entries.filter((x) => !x.isDir)) {
    const file = await env.verify.file.getFile({ path: `/data/assets/${e.name}` });
    if (file && Buffer.from(file.bytes).equals(Buffer.from(bytes))) holding++;
  }
  return holding === 1 ? undefined : `${holding} assets hold the uploaded bytes`;
}

/** The names of the assets the kernel lists unused, sorted. */
async function unusedNames(env: Env): Promise<string[]> {
  return ((await env.verify.asset.getUnusedAssets()) ?? []).map((a) => a.name).sort();
}

async function notebookRow(env: Env, id: string) {
  return (await env.verify.notebook.lsNotebooks()).notebooks.find((n) => n.id === id);
}

/** A parent document with children A, B, C (custom order A, B, C) in a fresh notebook. */
async function fixtureTree(env: Env) {
  const nb = await notebook(env);
  const parent = env.sandbox.control.external.createDoc(nb, "/Parent", "parent");
  const children = ["A", "B", "C"].map((t) =>
    env.sandbox.control.external.createDoc(nb, `/Parent/${t}`, t.toLowerCase()),
  );
  await env.sandbox.control.flush();
  return { nb, parent, children };
}

/** The effective listing under `parent` equals `ids`, and the notebook sorts custom (mode 6). */
async function orderShows(
  env: Env,
  nb: string,
  parent: string,
  ids: readonly string[],
): Promise<string | undefined> {
  const path = await env.verify.filetree.getPathByID({ id: parent });
  const listed = await env.verify.filetree.listDocsByPath({
    notebook: nb,
    path: path.path,
    maxListCount: 0,
    ignoreMaxListHint: true,
  });
  const conf = await env.verify.notebook.getNotebookConf({ notebook: nb });
  return first(
    differ(
      "order",
      listed.files.map((f) => f.id),
      ids,
    ),
    differ("notebook sortMode", conf.conf.sortMode, 6),
  );
}

const PARAGRAPHS = ["alpha one", "beta two", "gamma three"];

/** A document of three paragraphs; the first carries user attributes. */
async function fixtureParagraphs(env: Env, attrs: Record<string, string> = {}) {
  const nb = await notebook(env);
  const d = await fixtureDoc(env, nb, "/Doc", PARAGRAPHS);
  if (Object.keys(attrs).length > 0) {
    env.sandbox.control.external.setBlockAttrs(d.blocks[0] as string, attrs);
    await env.sandbox.control.flush();
  }
  return { nb, doc: d.id, blocks: d.blocks as [string, string, string] };
}

/** SiYuan's built-in deck: a card write makes it, so a fixture needs no deck of its own. */
const FIXTURE_DECK = "20230218211946-2kw8jgx";

/** Cards of `blockIds` in the fixture deck, made outside the fault path. */
async function cardsOf(env: Env, blockIds: readonly string[]): Promise<void> {
  await env.verify.riff.addRiffCards({ deckID: FIXTURE_DECK, blockIDs: blockIds });
}

/** Whether the fixture deck holds cards of exactly `blockIds`. */
async function deckShows(env: Env, blockIds: readonly string[]): Promise<string | undefined> {
  const page = await env.verify.riff.getRiffCards({ id: FIXTURE_DECK, page: 1 });
  const carded = page.blocks.filter((b) => b.riffCardID !== "").map((b) => b.id);
  return differ("blocks with a card in the deck", [...carded].sort(), [...blockIds].sort());
}

const OWNER = { "custom-owner": "ana" };
const OWNER_ALIAS = { "custom-owner": "ana", alias: "status" };

type Paragraphs = Awaited<ReturnType<typeof fixtureParagraphs>>;
type ParagraphsRequest = (env: Env, f: Paragraphs) => Fixture;

/** A scenario on a fresh document of three paragraphs, the first carrying `attrs` when given. */
function onParagraphs(key: string, name: string, request: ParagraphsRequest): Scenario;
function onParagraphs(
  key: string,
  name: string,
  attrs: Record<string, string>,
  request: ParagraphsRequest,
): Scenario;
function onParagraphs(
  key: string,
  name: string,
  ...rest: [ParagraphsRequest] | [Record<string, string>, ParagraphsRequest]
): Scenario {
  const [attrs, request] = rest.length === 1 ? [{}, rest[0]] : rest;
  return { key, name, setup: async (env) => request(env, await fixtureParagraphs(env, attrs)) };
}

/** A database file as the verify client reads it. */
interface AvJson {
  name?: string;
  keyValues: Array<{
    key: { id: string; name: string } & Record<string, unknown>;
    values?: Array<{ blockID: string } & Record<string, unknown>>;
  }>;
}

/** Two databases made straight in the kernel (contract §4.7 step by step); the first has rows. */
interface Database {
  readonly av: string;
  readonly other: string;
  /** A text column of `av`. */
  readonly key: string;
  /** Detached rows "one" and "two". */
  readonly rows: readonly string[];
}

async function database(env: Env, doc: string, avID: string): Promise<void> {
  const block = `<div data-type="NodeAttributeView" data-av-id="${avID}" data-av-type="table"></div>`;
  const made = await env.verify.block.appendBlock({
    dataType: "markdown",
    data: block,
    parentID: doc,
  });
  const blockID = (made[0]?.doOperations?.[0] as { id?: string } | undefined)?.id ?? "";
  await env.sandbox.control.flush();
  await env.verify.av.renderAttributeView({ id: avID, blockID, createIfNotExist: true });
}

/** A scenario on two fresh databases. */
function onDatabase(
  key: string,
  name: string,
  request: (env: Env, db: Database) => Fixture,
): Scenario {
  return {
    key,
    name,
    async setup(env) {
      const nb = await notebook(env);
      const doc = await fixtureDoc(env, nb, "/Databases", ["intro"]);
      const db: Database = {
        av: "20260101120000-avfixa1",
        other: "20260101120000-avfixb1",
        key: "20260101120000-keyfix1",
        rows: ["20260101120000-rowfix1", "20260101120000-rowfix2"],
      };
      await database(env, doc.id, db.av);
      await database(env, doc.id, db.other);
      await env.verify.av.addAttributeViewKey({
        avID: db.av,
        keyID: db.key,
        keyName: "Note",
        keyType: "text",
        keyIcon: "",
        previousKeyID: "",
      });
      await env.verify.av.addAttributeViewBlocks({
        avID: db.av,
        srcs: db.rows.map((itemID, i) => ({
          id: "",
          isDetached: true,
          content: i === 0 ? "one" : "two",
          itemID,
        })),
      });
      await env.sandbox.control.flush();
      return request(env, db);
    },
  };
}

/** The primary-key texts of a database's rows, sorted. */
async function avRowTexts(env: Env, avID: string): Promise<string[] | string> {
  const av = (await env.verify.av.getAttributeView({ id: avID })).av as AvJson | null;
  if (av === null) return `database ${avID} has no file`;
  const pk = av.keyValues.find((kv) => kv.key["type"] === "block");
  return (pk?.values ?? [])
    .map((v) => String((v["block"] as { content?: string } | undefined)?.content ?? ""))
    .sort();
}

/** A scenario in a fresh notebook. */
function inNotebook(
  key: string,
  name: string,
  request: (env: Env, nb: string) => Fixture,
): Scenario {
  return { key, name, setup: async (env) => request(env, await notebook(env)) };
}

/** Every strict mutation's scenarios. */
export const SCENARIOS: readonly Scenario[] = [
  // ------------------------------------------------------------------ block
  onParagraphs("block.insert", "block.insert after a paragraph", (env, f) => ({
    args: { action: "insert", data: "inserted", previousID: f.blocks[0] },
    shows: async () => sameBodies(env, f.doc, ["alpha one", "inserted", "beta two", "gamma three"]),
  })),
  onParagraphs("block.prepend", "block.prepend into a document", (env, f) => ({
    args: { action: "prepend", parentID: f.doc, data: "first" },
    shows: async () => sameBodies(env, f.doc, ["first", ...PARAGRAPHS]),
  })),
  onParagraphs("block.append", "block.append to a document", (env, f) => ({
    args: { action: "append", parentID: f.doc, data: "last" },
    shows: async () => sameBodies(env, f.doc, [...PARAGRAPHS, "last"]),
  })),
  onParagraphs(
    "block.update",
    "block.update single block with a user attribute",
    OWNER,
    (env, f) => ({
      args: { action: "update", id: f.blocks[0], data: "alpha changed" },
      shows: async () =>
        first(
          sameBodies(env, f.doc, ["alpha changed", "beta two", "gamma three"]),
          keepsAttrs(env, f.blocks[0], OWNER),
        ),
    }),
  ),
  onParagraphs(
    "block.update",
    "block.update formatting only (alpha one → **alpha one**)",
    (env, f) => ({
      args: { action: "update", id: f.blocks[0], data: "**alpha one**" },
      shows: async () => sameBodies(env, f.doc, ["**alpha one**", "beta two", "gamma three"]),
    }),
  ),
  onParagraphs(
    "block.update",
    "block.update to a heading on a block with custom-owner and alias",
    OWNER_ALIAS,
    (env, f) => ({
      args: { action: "update", id: f.blocks[0], data: "## one" },
      shows: async () =>
        first(
          sameBodies(env, f.doc, ["## one", "beta two", "gamma three"]),
          differ("first block", block(env, f.doc, f.blocks[0])?.body, "## one"),
          keepsAttrs(env, f.blocks[0], OWNER_ALIAS),
        ),
    }),
  ),
  onParagraphs(
    "block.update",
    "block.update two steps: a quote that cannot carry the attributes, then setBlockAttrs",
    OWNER_ALIAS,
    (env, f) => ({
      args: { action: "update", id: f.blocks[0], data: "> quoted" },
      shows: async () =>
        first(
          // A quote's kramdown also carries its inner paragraph's IAL line.
          differ(
            "first block's first line",
            block(env, f.doc, f.blocks[0])?.body.split("\n")[0],
            "> quoted",
          ),
          keepsAttrs(env, f.blocks[0], OWNER_ALIAS),
        ),
    }),
  ),
  onParagraphs(
    "block.update",
    "block.update batch items (two blocks, one with a user attribute)",
    OWNER,
    (env, f) => ({
      args: {
        action: "update",
        items: [
          { id: f.blocks[0], data: "alpha new" },
          { id: f.blocks[1], data: "beta new" },
        ],
      },
      shows: async () =>
        first(
          sameBodies(env, f.doc, ["alpha new", "beta new", "gamma three"]),
          keepsAttrs(env, f.blocks[0], OWNER),
        ),
    }),
  ),
  onParagraphs(
    "block.replace",
    "block.replace text inside a paragraph with a user attribute",
    OWNER,
    (env, f) => ({
      args: { action: "replace", id: f.blocks[0], find: "one", replacement: "**uno**" },
      shows: async () =>
        first(
          sameBodies(env, f.doc, ["alpha **uno**", "beta two", "gamma three"]),
          keepsAttrs(env, f.blocks[0], OWNER),
        ),
    }),
  ),
  onParagraphs(
    "block.find_replace",
    "block.find_replace across three paragraphs (two match, one with a user attribute)",
    OWNER,
    (env, f) => ({
      args: { action: "find_replace", ids: f.blocks, find: "o", replacement: "0" },
      shows: async () =>
        first(
          sameBodies(env, f.doc, ["alpha 0ne", "beta tw0", "gamma three"]),
          keepsAttrs(env, f.blocks[0], OWNER),
        ),
    }),
  ),
  onParagraphs("block.set_attrs", "block.set_attrs on a paragraph", OWNER, (env, f) => ({
    args: { action: "set_attrs", id: f.blocks[0], attrs: { "custom-status": "done" } },
    shows: async () => keepsAttrs(env, f.blocks[0], { ...OWNER, "custom-status": "done" }),
  })),
  onParagraphs("block.delete", "block.delete a paragraph", (env, f) => ({
    args: { action: "delete", id: f.blocks[2] },
    shows: async () => sameBodies(env, f.doc, ["alpha one", "beta two"]),
  })),
  onParagraphs("block.move", "block.move a paragraph after another", (env, f) => ({
    args: { action: "move", id: f.blocks[0], previousID: f.blocks[2] },
    shows: async () =>
      differ(
        "block order",
        docBlocks(env, f.doc)?.map((b) => b.id),
        [f.blocks[1], f.blocks[2], f.blocks[0]],
      ),
  })),
  onParagraphs("block.move", 'block.move a paragraph to the end (position "last")', (env, f) => ({
    args: { action: "move", id: f.blocks[0], parentID: f.doc, position: "last" },
    shows: async () =>
      differ(
        "block order",
        docBlocks(env, f.doc)?.map((b) => b.id),
        [f.blocks[1], f.blocks[2], f.blocks[0]],
      ),
  })),
  onParagraphs(
    "block.set_fold_state",
    "block.set_fold_state folds a paragraph",
    OWNER,
    (env, f) => ({
      args: { action: "set_fold_state", id: f.blocks[0], folded: true },
      shows: async () =>
        first(
          keepsAttrs(env, f.blocks[0], { ...OWNER, fold: "1" }),
          sameBodies(env, f.doc, PARAGRAPHS),
        ),
    }),
  ),
  onParagraphs(
    "block.transfer_references",
    "block.transfer_references from one paragraph to another",
    (env, f) => {
      const holder = env.sandbox.control.external.createDoc(
        f.nb,
        "/Holder",
        `see ((${f.blocks[0]} 'alpha one')) and ((${f.blocks[0]} "kept"))`,
      );
      return {
        args: { action: "transfer_references", fromID: f.blocks[0], toID: f.blocks[1] },
        shows: async () =>
          first(
            sameBodies(env, holder, [
              `see ((${f.blocks[1]} 'beta two')) and ((${f.blocks[1]} "kept"))`,
            ]),
            sameBodies(env, f.doc, PARAGRAPHS),
          ),
      };
    },
  ),
  inNotebook(
    "block.add_to_daily_note",
    "block.add_to_daily_note appends to today's note",
    (env, nb) => ({
      args: { action: "add_to_daily_note", notebook: nb, data: "daily entry" },
      shows: async () => {
        await env.sandbox.control.flush();
        const notes = env.sandbox.control.sql(
          `SELECT block_id FROM attributes WHERE name LIKE 'custom-dailynote-%' AND box = '${nb}'`,
        );
        if (notes.length !== 1) return `${notes.length} daily notes in the notebook`;
        const b = bodies(env, String(notes[0]?.["block_id"]));
        if (typeof b === "string") return b;
        const added = b.filter((x) => x === "daily entry").length;
        return added === 1 && b.at(-1) === "daily entry"
          ? undefined
          : `today's note holds ${JSON.stringify(b)}`;
      },
    }),
  ),
  // ------------------------------------------------------------------ document
  inNotebook("document.create", "document.create at the notebook root", (env, nb) => ({
    args: { action: "create", notebook: nb, hpath: "/Created", markdown: "hello" },
    shows: () => docAtShows(env, nb, "/Created", ["hello"]),
  })),
  inNotebook("document.create_daily_note", "document.create_daily_note", (env, nb) => ({
    args: { action: "create_daily_note", notebook: nb },
    shows: async () => {
      await env.sandbox.control.flush();
      const notes = env.sandbox.control.sql(
        `SELECT block_id FROM attributes WHERE name LIKE 'custom-dailynote-%' AND box = '${nb}'`,
      );
      return notes.length === 1 ? undefined : `${notes.length} daily notes in the notebook`;
    },
  })),
  onParagraphs("document.duplicate", "document.duplicate beside the source", OWNER, (env, f) => ({
    args: { action: "duplicate", id: f.doc },
    shows: async () => {
      const listed = await env.verify.filetree.listDocsByPath({ notebook: f.nb, path: "/" });
      const copies = listed.files.filter((d) => d.id !== f.doc);
      if (copies.length !== 1) return `${copies.length} copies beside the source`;
      const copy = copies[0]?.id as string;
      const blocks = docBlocks(env, copy) ?? [];
      return first(
        sameBodies(env, copy, PARAGRAPHS),
        sameBodies(env, f.doc, PARAGRAPHS),
        blocks.some((b) => f.blocks.includes(b.id)) ? "the copy shares block IDs" : undefined,
        keepsAttrs(env, blocks[0]?.id ?? "", OWNER),
      );
    },
  })),
  onParagraphs("document.rename", "document.rename", (env, f) => ({
    args: { action: "rename", id: f.doc, title: "Renamed" },
    shows: async () => differ("title", env.sandbox.control.attrs(f.doc)?.["title"], "Renamed"),
  })),
  onParagraphs("document.set_attrs", "document.set_attrs", (env, f) => ({
    args: { action: "set_attrs", id: f.doc, attrs: { "custom-kind": "note" } },
    shows: async () =>
      differ("custom-kind", env.sandbox.control.attrs(f.doc)?.["custom-kind"], "note"),
  })),
  onParagraphs("document.set_icon", "document.set_icon an emoji", (env, f) => ({
    args: { action: "set_icon", id: f.doc, icon: "📔" },
    shows: async () => differ("icon", env.sandbox.control.attrs(f.doc)?.["icon"], "1f4d4"),
  })),
  inNotebook(
    "document.set_child_sort_mode",
    "document.set_child_sort_mode created_desc",
    (env, nb) => ({
      args: { action: "set_child_sort_mode", notebook: nb, mode: "created_desc" },
      shows: async () => differ("sortMode", (await notebookRow(env, nb))?.sortMode, 10),
    }),
  ),
  onParagraphs("document.remove", "document.remove", (env, f) => ({
    args: { action: "remove", id: f.doc },
    shows: async () =>
      env.sandbox.control.kramdown(f.doc) === null ? undefined : `document ${f.doc} exists`,
  })),
  {
    key: "document.move",
    name: "document.move under another document",
    async setup(env) {
      const nb = await notebook(env);
      const moved = await fixtureDoc(env, nb, "/Moved", ["m"]);
      await fixtureDoc(env, nb, "/Target", ["t"]);
      const target = (await idsAt(env, nb, "/Target"))[0] as string;
      return {
        args: { action: "move", ids: [moved.id], toID: target },
        shows: async () =>
          differ(
            "hpath",
            await env.verify.filetree.getHPathByID({ id: moved.id }),
            "/Target/Moved",
          ),
      };
    },
  },
  {
    key: "document.heading_to_doc",
    name: "document.heading_to_doc under its document",
    async setup(env) {
      const nb = await notebook(env);
      const doc = env.sandbox.control.external.createDoc(
        nb,
        "/Sections",
        "intro\n\n## Part\n\npart body\n\n## Next\n\nnext body",
      );
      await env.sandbox.control.flush();
      const ids = (await env.verify.block.getChildBlocks({ id: doc })).map((b) => b.id);
      const [intro, head, body, next, nextBody] = ids as [string, string, string, string, string];
      return {
        args: { action: "heading_to_doc", id: head },
        shows: async () => {
          const moved = await env.verify.block.getChildBlocks({ id: head });
          const rest = await env.verify.block.getChildBlocks({ id: doc });
          return first(
            differ("new document's blocks", moved.map((b) => b.id).join(","), body),
            differ(
              "source's blocks",
              rest.map((b) => b.id).join(","),
              [intro, next, nextBody].join(","),
            ),
            differ("hpath", await env.verify.filetree.getHPathByID({ id: head }), "/Sections/Part"),
          );
        },
      };
    },
  },
  {
    key: "document.doc_to_heading",
    name: "document.doc_to_heading after a paragraph of another document",
    async setup(env) {
      const nb = await notebook(env);
      const target = env.sandbox.control.external.createDoc(nb, "/Target", "first\n\nsecond");
      const moved = env.sandbox.control.external.createDoc(nb, "/Moved", "moved body");
      await env.sandbox.control.flush();
      const [p1, p2] = (await env.verify.block.getChildBlocks({ id: target })).map((b) => b.id);
      const [body] = (await env.verify.block.getChildBlocks({ id: moved })).map((b) => b.id);
      return {
        args: { action: "doc_to_heading", id: moved, targetID: p1, after: true },
        shows: async () => {
          const blocks = await env.verify.block.getChildBlocks({ id: target });
          return first(
            differ(
              "target's blocks",
              blocks.map((b) => b.id).join(","),
              [p1, moved, body, p2].join(","),
            ),
            differ("heading", blocks[1]?.subType, "h1"),
            differ("listed", (await idsAt(env, nb, "/Moved")).length, 0),
          );
        },
      };
    },
  },
  {
    key: "document.reorder",
    name: "document.reorder three children (notebook not yet custom-sorted)",
    async setup(env) {
      const t = await fixtureTree(env);
      const order = [...t.children].reverse();
      return {
        args: { action: "reorder", parentID: t.parent, orderedIDs: order },
        shows: () => orderShows(env, t.nb, t.parent, order),
      };
    },
  },
  // ------------------------------------------------------------------ fs
  inNotebook("fs.write", "fs.write a new document", (env, nb) => ({
    args: { action: "write", path: `/${NOTEBOOK}/Fresh`, markdown: "fresh content" },
    shows: () => docAtShows(env, nb, "/Fresh", ["fresh content"]),
  })),
  onParagraphs("fs.write", "fs.write overwrite an existing document", (env, f) => ({
    args: {
      action: "write",
      path: `/${NOTEBOOK}/Doc`,
      markdown: "replaced body",
      overwrite: true,
    },
    shows: async () => sameBodies(env, f.doc, ["replaced body"]),
  })),
  onParagraphs("history.create_point", "history.create_point of a document", (env, f) => ({
    args: { action: "create_point", id: f.doc },
    shows: async () => {
      const listed = await env.verify.history.searchHistory({ query: f.doc, type: 3 });
      return differ("history times of the document", listed.totalCount, 1);
    },
  })),
  {
    key: "history.rollback_document",
    name: "history.rollback_document to a point before an append",
    async setup(env) {
      const f = await fixtureParagraphs(env, {});
      await env.verify.history.createDocHistory({ id: f.doc });
      // a real kernel lists the point a few seconds later (history index flushed every 3 s)
      const created = await waitFor(
        async () =>
          (await env.verify.history.searchHistory({ query: f.doc, type: 3 })).histories[0],
        { timeoutMs: 15_000, what: "the point listed" },
      );
      const [item] = await env.verify.history.getHistoryItems({ created, query: f.doc, type: 3 });
      await env.verify.block.appendBlock({
        parentID: f.doc,
        dataType: "markdown",
        data: "appended after the point",
      });
      await env.sandbox.control.flush();
      return {
        args: { action: "rollback_document", id: f.doc, historyPath: item?.path },
        shows: async () => sameBodies(env, f.doc, PARAGRAPHS),
      };
    },
  },
  {
    key: "history.snapshot_create",
    name: "history.snapshot_create after a new document",
    async setup(env) {
      // the snapshot actions' own scenario: its /api/repo/* calls are this action's (suite audit)
      env.sandbox.control.expectSnapshotActions();
      env.sandbox.control.setRepoKey();
      await fixtureParagraphs(env, {});
      const memo = "fault matrix restore point";
      const before = (await env.verify.repo.getRepoSnapshots({ page: 1 })).totalCount;
      return {
        args: { action: "snapshot_create", memo },
        shows: async () => {
          const listed = await env.verify.repo.getRepoSnapshots({ page: 1 });
          return first(
            differ("snapshots listed", listed.totalCount, before + 1),
            differ("the newest snapshot's memo", listed.snapshots[0]?.memo, memo),
          );
        },
      };
    },
  },
  // ------------------------------------------------------------------ flashcard
  onParagraphs("flashcard.add_cards", "flashcard.add_cards two paragraphs to a deck", (env, f) => ({
    args: { action: "add_cards", deckId: FIXTURE_DECK, ids: [f.blocks[0], f.blocks[1]] },
    shows: async () => deckShows(env, [f.blocks[0], f.blocks[1]]),
  })),
  {
    key: "flashcard.remove_cards",
    name: "flashcard.remove_cards one of two cards",
    async setup(env) {
      const f = await fixtureParagraphs(env, {});
      await cardsOf(env, [f.blocks[0], f.blocks[1]]);
      return {
        args: { action: "remove_cards", deckId: FIXTURE_DECK, ids: [f.blocks[1]] },
        shows: async () => deckShows(env, [f.blocks[0]]),
      };
    },
  },
  {
    key: "flashcard.review",
    name: "flashcard.review a new card Good",
    async setup(env) {
      const f = await fixtureParagraphs(env, {});
      await cardsOf(env, [f.blocks[0]]);
      const due = await env.verify.riff.getRiffDueCards({ deckID: FIXTURE_DECK });
      return {
        args: { action: "review", deckId: FIXTURE_DECK, cardId: due.cards[0]?.cardID, rating: 3 },
        shows: async () => {
          const page = await env.verify.riff.getRiffCards({ id: FIXTURE_DECK, page: 1 });
          return differ("reps of the reviewed card", page.blocks[0]?.riffCard?.reps, 1);
        },
      };
    },
  },
  onParagraphs("fs.rm", "fs.rm a document", (env, f) => ({
    args: { action: "rm", path: `/${NOTEBOOK}/Doc` },
    shows: async () =>
      env.sandbox.control.kramdown(f.doc) === null ? undefined : `document ${f.doc} exists`,
  })),
  onParagraphs(
    "fs.replace",
    "fs.replace in a document of three paragraphs (two match, one with a user attribute)",
    OWNER,
    (env, f) => ({
      args: { action: "replace", path: `/${NOTEBOOK}/Doc`, find: "o", replacement: "0" },
      shows: async () =>
        first(
          sameBodies(env, f.doc, ["alpha 0ne", "beta tw0", "gamma three"]),
          keepsAttrs(env, f.blocks[0], OWNER),
        ),
    }),
  ),
  {
    key: "fs.mv",
    name: "fs.mv move and rename (two writes)",
    async setup(env) {
      const nb = await notebook(env);
      const src = await fixtureDoc(env, nb, "/Src", ["s"]);
      await fixtureDoc(env, nb, "/Target", ["t"]);
      return {
        args: { action: "mv", from: `/${NOTEBOOK}/Src`, to: `/${NOTEBOOK}/Target/Moved` },
        shows: async () =>
          differ("hpath", await env.verify.filetree.getHPathByID({ id: src.id }), "/Target/Moved"),
      };
    },
  },
  {
    key: "fs.reorder",
    name: "fs.reorder three children (notebook not yet custom-sorted)",
    async setup(env) {
      const t = await fixtureTree(env);
      return {
        args: { action: "reorder", path: `/${NOTEBOOK}/Parent`, order: ["C", "B", "A"] },
        shows: () => orderShows(env, t.nb, t.parent, [...t.children].reverse()),
      };
    },
  },
  // ------------------------------------------------------------------ file
  {
    key: "file.upload_asset",
    name: "file.upload_asset a staged file",
    async setup(env) {
      const bytes = new TextEncoder().encode("asset bytes\n");
      const uploadSource = env.stage("notes.txt", bytes);
      return {
        args: { action: "upload_asset", uploadSource },
        shows: () => assetsHolding(env, bytes),
      };
    },
  },
  {
    key: "file.create_template",
    name: "file.create_template a new template",
    async setup(env) {
      return {
        args: { action: "create_template", name: "weekly.md", content: "# Weekly\n" },
        shows: () => templateHolds(env, "weekly.md", "# Weekly\n"),
      };
    },
  },
  {
    key: "file.create_template",
    name: "file.create_template overwrite an existing template",
    async setup(env) {
      await env.verify.file.putFile({ path: "/data/templates/daily.md", file: "old" });
      return {
        args: { action: "create_template", name: "daily.md", content: "new", overwrite: true },
        shows: () => templateHolds(env, "daily.md", "new"),
      };
    },
  },
  {
    key: "file.update_template",
    name: "file.update_template",
    async setup(env) {
      await env.verify.file.putFile({ path: "/data/templates/meeting.md", file: "agenda v1" });
      return {
        args: { action: "update_template", name: "meeting.md", content: "agenda v2" },
        shows: () => templateHolds(env, "meeting.md", "agenda v2"),
      };
    },
  },
  {
    key: "file.save_doc_as_template",
    name: "file.save_doc_as_template a document",
    async setup(env) {
      const nb = await notebook(env);
      const doc = env.sandbox.control.external.createDoc(nb, "/Weekly", "# Wins");
      await env.sandbox.control.flush();
      return {
        args: { action: "save_doc_as_template", id: doc, name: "weekly.md" },
        shows: async () => {
          const file = await env.verify.file.getFile({ path: "/data/templates/weekly.md" });
          const text = file === null ? "" : Buffer.from(file.bytes).toString("utf8");
          return text.startsWith("# Wins") && text.trimEnd().endsWith('title="Weekly" type="doc"}')
            ? undefined
            : `template weekly.md holds ${JSON.stringify(text)}`;
        },
      };
    },
  },
  {
    key: "file.delete_template",
    name: "file.delete_template",
    async setup(env) {
      await env.verify.file.putFile({ path: "/data/templates/old.md", file: "old" });
      return {
        args: { action: "delete_template", name: "old.md" },
        shows: async () =>
          (await env.verify.file.getFile({ path: "/data/templates/old.md" })) === null
            ? undefined
            : "template old.md exists",
      };
    },
  },
  {
    key: "file.delete_asset",
    name: "file.delete_asset an unused file",
    async setup(env) {
      await env.verify.file.putFile({ path: "/data/assets/unused.png", file: "unused" });
      await env.verify.file.putFile({ path: "/data/assets/other.png", file: "other" });
      return {
        args: { action: "delete_asset", path: "assets/unused.png" },
        shows: async () => differ("unused assets", await unusedNames(env), ["other.png"]),
      };
    },
  },
  {
    key: "file.rename_asset",
    name: "file.rename_asset a linked image",
    async setup(env) {
      const nb = await notebook(env);
      await env.verify.file.putFile({ path: "/data/assets/cat.png", file: "cat" });
      const doc = env.sandbox.control.external.createDoc(nb, "/Pets", "![c](assets/cat.png)");
      await env.sandbox.control.flush();
      return {
        args: { action: "rename_asset", path: "assets/cat.png", newName: "dog" },
        shows: async () => {
          const links = ((await env.verify.asset.getDocAssets({ id: doc })) ?? []) as string[];
          const link = links[0] ?? "";
          const file = await env.verify.file.getFile({ path: `/data/${link}` });
          return first(
            /^assets\/dog-\d{14}-[a-z0-9]{7}\.png$/.test(link)
              ? undefined
              : `the document links ${JSON.stringify(links)}`,
            file !== null && Buffer.from(file.bytes).toString("utf8") === "cat"
              ? undefined
              : `${link} does not hold the asset`,
          );
        },
      };
    },
  },
  {
    key: "file.remove_unused_assets",
    name: "file.remove_unused_assets two files and a folder, a linked one kept",
    async setup(env) {
      const nb = await notebook(env);
      for (const p of ["a.png", "dir/b.png", "linked.png"]) {
        await env.verify.file.putFile({ path: `/data/assets/${p}`, file: p });
      }
      env.sandbox.control.external.createDoc(nb, "/Doc", "![l](assets/linked.png)");
      await env.sandbox.control.flush();
      return {
        args: { action: "remove_unused_assets" },
        shows: async () =>
          first(
            differ("unused assets", await unusedNames(env), []),
            (await env.verify.file.getFile({ path: "/data/assets/linked.png" })) === null
              ? "linked.png is gone"
              : undefined,
          ),
      };
    },
  },
  // ------------------------------------------------------------------ notebook
  inNotebook("notebook.create", "notebook.create", (env) => ({
    args: { action: "create", name: "Made" },
    shows: async () => {
      const n = (await env.verify.notebook.lsNotebooks()).notebooks.filter(
        (b) => b.name === "Made",
      ).length;
      return n === 1 ? undefined : `${n} notebooks named Made`;
    },
  })),
  inNotebook("notebook.rename", "notebook.rename", (env, nb) => ({
    args: { action: "rename", notebook: nb, name: "Renamed NB" },
    shows: async () => differ("name", (await notebookRow(env, nb))?.name, "Renamed NB"),
  })),
  inNotebook("notebook.set_conf", "notebook.set_conf sortMode 6", (env, nb) => ({
    args: { action: "set_conf", notebook: nb, conf: { sortMode: 6 } },
    shows: async () =>
      differ(
        "sortMode",
        (await env.verify.notebook.getNotebookConf({ notebook: nb })).conf.sortMode,
        6,
      ),
  })),
  inNotebook("notebook.set_icon", "notebook.set_icon 1f4d4", (env, nb) => ({
    args: { action: "set_icon", notebook: nb, icon: "1f4d4" },
    shows: async () => differ("icon", (await notebookRow(env, nb))?.icon, "1f4d4"),
  })),
  inNotebook("notebook.set_open_state", "notebook.set_open_state close", (env, nb) => ({
    args: { action: "set_open_state", notebook: nb, open: false },
    shows: async () => differ("closed", (await notebookRow(env, nb))?.closed, true),
  })),
  {
    key: "notebook.remove",
    name: "notebook.remove",
    async setup(env) {
      const nb = await notebook(env);
      await notebook(env, "Other");
      return {
        args: { action: "remove", notebook: nb },
        shows: async () =>
          (await notebookRow(env, nb)) === undefined ? undefined : `notebook ${nb} is listed`,
      };
    },
  },
  // ------------------------------------------------------------------ av
  onParagraphs("av.create", "av.create named, with one template column", (env, f) => ({
    args: {
      action: "create",
      previousID: f.blocks[0],
      name: "Tasks",
      columns: [{ name: "Status", type: "select" }],
    },
    shows: async () => {
      await env.sandbox.control.flush();
      const blocks = env.sandbox.control.sql(
        `SELECT id FROM blocks WHERE type = 'av' AND root_id = '${f.doc}'`,
      );
      const files = env.sandbox.control.avLog().filter((e) => e.kind === "created");
      if (blocks.length !== 1 || files.length !== 1)
        return `${blocks.length} database blocks and ${files.length} database files`;
      const av = env.sandbox.control.av(files[0]?.avID as string);
      return first(
        differ("carrier", env.sandbox.control.avBlocks(av?.id ?? ""), [blocks[0]?.["id"]]),
        differ("name", av?.name, "Tasks"),
        differ(
          "columns",
          av?.keyValues.map((kv) => `${kv.key.name}:${kv.key.type}`),
          ["Primary Key:block", "Status:select"],
        ),
      );
    },
  })),
  // ------------------------------------------------------------------ av edits
  onDatabase("av.add_rows", "av.add_rows one detached row", (env, db) => ({
    args: { action: "add_rows", id: db.av, detached: ["three"] },
    shows: async () => differ("rows", await avRowTexts(env, db.av), ["one", "three", "two"]),
  })),
  onDatabase("av.remove_rows", "av.remove_rows one of two rows", (env, db) => ({
    args: { action: "remove_rows", id: db.av, rowIDs: [db.rows[0]] },
    shows: async () => differ("rows", await avRowTexts(env, db.av), ["two"]),
  })),
  onDatabase("av.set_cells", "av.set_cells one text cell", (env, db) => ({
    args: {
      action: "set_cells",
      id: db.av,
      cells: [{ rowID: db.rows[0], keyID: db.key, value: "new" }],
    },
    shows: async () => {
      const av = (await env.verify.av.getAttributeView({ id: db.av })).av as AvJson | null;
      const cell = av?.keyValues
        .find((kv) => kv.key.id === db.key)
        ?.values?.find((v) => v.blockID === db.rows[0]);
      return differ("cell", (cell?.["text"] as { content?: string } | undefined)?.content, "new");
    },
  })),
  onDatabase("av.add_column", "av.add_column two-way relation to a second database", (env, db) => ({
    args: {
      action: "add_column",
      id: db.av,
      name: "Link",
      type: "relation",
      relation: { avID: db.other, twoWay: true, backName: "Back" },
    },
    shows: async () => {
      await env.sandbox.control.flush();
      const src = (await env.verify.av.getAttributeView({ id: db.av })).av as AvJson | null;
      const dest = (await env.verify.av.getAttributeView({ id: db.other })).av as AvJson | null;
      const links = src?.keyValues.filter((kv) => kv.key.name === "Link") ?? [];
      const backs = dest?.keyValues.filter((kv) => kv.key.name === "Back") ?? [];
      return first(
        differ("relation columns", links.length, 1),
        differ("back keys", backs.length, 1),
        differ("relation", links[0]?.key["relation"], {
          avID: db.other,
          isTwoWay: true,
          backKeyID: backs[0]?.key.id,
        }),
      );
    },
  })),
  onDatabase("av.remove_column", "av.remove_column a text column", (env, db) => ({
    args: { action: "remove_column", id: db.av, keyID: db.key },
    shows: async () => {
      const keys = await env.verify.av.getAttributeViewKeysByAvID({ avID: db.av });
      return differ(
        "columns",
        keys.map((k) => k.name),
        ["Primary Key", "Select"],
      );
    },
  })),
  onDatabase("av.rename", "av.rename a database", (env, db) => ({
    args: { action: "rename", id: db.av, name: "Renamed DB" },
    shows: async () => {
      await env.sandbox.control.flush();
      const av = (await env.verify.av.getAttributeView({ id: db.av })).av as AvJson | null;
      return differ("name", av?.name, "Renamed DB");
    },
  })),
  onDatabase("av.duplicate", "av.duplicate a database with two rows", (env, db) => ({
    args: { action: "duplicate", id: db.av },
    shows: async () => {
      await env.sandbox.control.flush();
      // every database block's database but the fixture's two: exactly the one copy
      const copies = env.sandbox.control
        .sql("SELECT markdown FROM blocks WHERE type = 'av'")
        .map((r) => /data-av-id="([^"]*)"/.exec(String(r["markdown"]))?.[1] ?? "")
        .filter((id) => id !== db.av && id !== db.other);
      const [copy] = copies;
      return first(
        differ("copies", copies.length, 1),
        copy === undefined
          ? undefined
          : differ("rows", await avRowTexts(env, copy), ["one", "two"]),
      );
    },
  })),
  // ------------------------------------------------------------------ tag
  {
    key: "tag.rename",
    name: "tag.rename on two blocks (one with a user attribute)",
    async setup(env) {
      const nb = await notebook(env);
      const d = await fixtureDoc(env, nb, "/Tagged", ["alpha #t1# one", "beta #t1# two", "plain"]);
      env.sandbox.control.external.setBlockAttrs(d.blocks[0] as string, OWNER);
      await env.sandbox.control.flush();
      return {
        args: { action: "rename", oldLabel: "t1", newLabel: "t2" },
        shows: async () =>
          first(
            sameBodies(env, d.id, ["alpha #t2# one", "beta #t2# two", "plain"]),
            keepsAttrs(env, d.blocks[0] as string, OWNER),
          ),
      };
    },
  },
  {
    key: "tag.remove",
    name: "tag.remove on two blocks (one with a user attribute)",
    async setup(env) {
      const nb = await notebook(env);
      const d = await fixtureDoc(env, nb, "/Tagged", ["alpha #r1# one", "beta #r1# two", "plain"]);
      env.sandbox.control.external.setBlockAttrs(d.blocks[0] as string, OWNER);
      await env.sandbox.control.flush();
      return {
        args: { action: "remove", label: "r1" },
        shows: async () => {
          const b = bodies(env, d.id);
          if (typeof b === "string") return b;
          return first(
            differ(
              "blocks (whitespace collapsed)",
              b.map((x) => x.replace(/\s+/g, " ")),
              ["alpha one", "beta two", "plain"],
            ),
            keepsAttrs(env, d.blocks[0] as string, OWNER),
          );
        },
      };
    },
  },
];
