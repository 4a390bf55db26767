/**
 * The write previews of every strict mutation (the App's `write_preview`, and its text for hosts
 * without Apps): the catalog has no strict mutation without one, and each group — content,
 * attributes, removal, placement, creation, rename, order — shows the exact before and after a
 * person checks, read from the sandbox kernel over loopback HTTP, under read permission only, and
 * writing nothing.
 */
import { describe, expect, it } from "vitest";
import { previewText, previewWrite, type WritePreview } from "../src/app/preview.js";
import { PREVIEWS, type PreviewTable, previewEntryOf } from "../src/app/preview-table.js";
import { ACTIONS } from "../src/catalog.js";
import { kernelFromClient } from "../src/index.js";
import { FULL_ACCESS, type PermissionMap } from "../src/permissions.js";
import { useHarness } from "./harness.js";

const h = useHarness();

let seq = 0;
/** A new document under the demo notebook; its top-level block IDs in order. */
async function doc(
  markdown: string,
  parent = "",
): Promise<{ id: string; title: string; kids: string[] }> {
  const title = `Pv ${++seq}`;
  const id = h.sandbox.control.external.createDoc(h.notebook, `${parent}/${title}`, markdown);
  await h.client.flush();
  const kids = (await h.client.block.getChildBlocks({ id })).map((k) => k.id);
  return { id, title, kids };
}

async function preview(
  tool: string,
  args: Record<string, unknown>,
  permissions: PermissionMap = FULL_ACCESS,
): Promise<WritePreview> {
  return previewWrite(kernelFromClient(h.client).reads, permissions, tool, {
    ...args,
    validateOnly: true,
  });
}

/** The kernel paths a preview may call: reads only. */
const READ_PATH =
  /^\/api\/(block\/(getBlock(Info|Kramdown|Kramdowns|DOM|DOMs)|checkBlockExist)|attr\/getBlockAttrs|filetree\/(getHPathByID|getPathByID|getIDsByHPath|listDocsByPath)|notebook\/(lsNotebooks|getNotebookConf)|riff\/(getRiffDecks|getRiffCards)|query\/sql|sqlite\/flushTransaction|system\/currentTime|file\/getFile|history\/getDocHistoryContent|av\/getAttributeView)$/;

describe("the preview table", () => {
  it("has a preview for every strict mutation of the catalog", () => {
    const missing = ACTIONS.filter((a) => a.policy.kind === "mutation")
      .map((a) => `${a.tool}.${a.action}`)
      .filter((key) => {
        const [tool, action] = key.split(".") as [string, string];
        return previewEntryOf(tool, action) === undefined;
      });
    // A new strict mutation needs one line in PREVIEWS (src/app/preview-table.ts).
    expect(missing).toEqual([]);
  });

  it("names only strict mutations of the catalog", () => {
    const mutations = new Set(
      ACTIONS.filter((a) => a.policy.kind === "mutation").map((a) => `${a.tool}.${a.action}`),
    );
    const table: PreviewTable = PREVIEWS;
    const named = Object.entries(table).flatMap(([tool, actions]) =>
      Object.keys(actions ?? {}).map((action) => `${tool}.${action}`),
    );
    expect(named.filter((key) => !mutations.has(key))).toEqual([]);
    expect(named.length).toBe(mutations.size);
  });
});

describe("content previews", () => {
  it("block.update over several blocks: each block's word diff and first line", async () => {
    const d = await doc("alpha one\n\nbeta two");
    const p = await preview("block", {
      action: "update",
      items: [
        { id: d.kids[0], data: "alpha uno" },
        { id: d.kids[1], data: "beta two three" },
      ],
    });
    expect(p.shows).toBe("content");
    expect(p.summary).toBe("Changes the content of 2 blocks");
    expect(p.changes).toEqual([
      {
        what: "block",
        id: d.kids[0],
        where: `/Research/${d.title}`,
        before: "alpha one",
        after: "alpha uno",
      },
      {
        what: "block",
        id: d.kids[1],
        where: `/Research/${d.title}`,
        before: "beta two",
        after: "beta two three",
      },
    ]);
    expect(p.content?.map((c) => c.diff)).toEqual([
      [
        { op: "eq", text: "alpha " },
        { op: "del", text: "one" },
        { op: "ins", text: "uno" },
      ],
      [
        { op: "eq", text: "beta two" },
        { op: "ins", text: " three" },
      ],
    ]);
  });

  it("tag.rename: every tagged block before and after", async () => {
    const d = await doc("one #pvtag# here\n\nuntagged\n\ntwo #pvtag#");
    const p = await preview("tag", { action: "rename", oldLabel: "pvtag", newLabel: "pvdone" });
    expect(p.summary).toBe("Renames the tag #pvtag# to #pvdone# in 2 blocks");
    expect(p.changes).toEqual([
      { what: "tag", before: "#pvtag#", after: "#pvdone#" },
      ...[
        [d.kids[0], "one #pvtag# here", "one #pvdone# here"],
        [d.kids[2], "two #pvtag#", "two #pvdone#"],
      ]
        .sort((x, y) => ((x[0] as string) < (y[0] as string) ? -1 : 1))
        .map(([id, before, after]) => ({
          what: "block",
          id,
          where: `/Research/${d.title}`,
          before,
          after,
        })),
    ]);
    const text = previewText(p);
    expect(text).toContain("one [-#pvtag#-]{+#pvdone#+} here");
    expect(text).toContain("precondition: manifest, the preflight's expectedManifestHash");
  });

  it("history.rollback_document: the document now against the restore point", async () => {
    const d = await doc("kept line\n\nold words");
    const point = await h.write("history", { action: "create_point", id: d.id });
    const historyPath = point.commit.structuredContent["historyPath"] as string;
    h.sandbox.control.external.updateBlock(d.kids[1] as string, "new words");
    await h.client.flush();
    const p = await preview("history", { action: "rollback_document", id: d.id, historyPath });
    expect(p.shows).toBe("content");
    expect(p.summary).toMatch(
      new RegExp(
        `^Replaces the content of “${d.title}” \\(/Research/${d.title}\\) with its restore point of \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}; the current content is not kept as a point$`,
      ),
    );
    expect(p.changes).toEqual([
      {
        what: "document",
        id: d.id,
        where: `/Research/${d.title}`,
        before: "2 blocks: kept line",
        after: "2 blocks: kept line",
      },
    ]);
    expect(p.content?.[0]?.before).toBe("kept line\n\nnew words");
    expect(p.content?.[0]?.after).toBe("kept line\n\nold words");
    expect(p.content?.[0]?.diff).toEqual([
      { op: "eq", text: "kept line\n\n" },
      { op: "del", text: "new" },
      { op: "ins", text: "old" },
      { op: "eq", text: " words" },
    ]);
  });

  it("fs.write with overwrite: the document's Markdown before and after; without: a creation", async () => {
    const d = await doc("first\n\nsecond");
    const p = await preview("fs", {
      action: "write",
      path: `/Research/${d.title}`,
      markdown: "first\n\nsecond changed\n\nthird",
      overwrite: true,
    });
    expect(p.shows).toBe("content");
    expect(p.summary).toBe(`Replaces the content of “${d.title}” (/Research/${d.title})`);
    expect(p.changes).toEqual([
      {
        what: "document",
        id: d.id,
        where: `/Research/${d.title}`,
        before: "2 blocks: first",
        after: "3 blocks: first",
      },
    ]);
    expect(p.content?.[0]?.diff).toEqual([
      { op: "eq", text: "first\n\nsecond" },
      { op: "ins", text: " changed\n\nthird" },
    ]);
    const made = await preview("fs", {
      action: "write",
      path: `/Research/${d.title}/Child`,
      markdown: "hi",
    });
    expect(made.shows).toBe("creation");
    expect(made.summary).toBe(`Creates the document “Child” at /Research/${d.title}/Child`);
    expect(made.changes).toEqual([
      { what: "document", where: `/Research/${d.title}`, before: null, after: "Child" },
    ]);
  });

  it("file.update_template: the template's text before and after", async () => {
    await h.write("file", {
      action: "create_template",
      name: "pv-weekly.md",
      content: "Week {{date}}\n\ntodo",
    });
    const p = await preview("file", {
      action: "update_template",
      name: "pv-weekly.md",
      content: "Week {{date}}\n\ndone",
    });
    expect(p.summary).toBe("Replaces the text of the template pv-weekly.md");
    expect(p.changes).toEqual([
      {
        what: "template",
        where: "/data/templates/pv-weekly.md",
        before: "Week {{date}}",
        after: "Week {{date}}",
      },
    ]);
    expect(p.content?.[0]?.diff).toEqual([
      { op: "eq", text: "Week {{date}}\n\n" },
      { op: "del", text: "todo" },
      { op: "ins", text: "done" },
    ]);
  });
});

describe("attribute previews", () => {
  it("block.set_attrs: each attribute's value before and after (null: not set / removed)", async () => {
    const d = await doc("styled paragraph");
    h.sandbox.control.external.setBlockAttrs(d.kids[0] as string, {
      "custom-status": "draft",
      "custom-old": "x",
    });
    await h.client.flush();
    const p = await preview("block", {
      action: "set_attrs",
      id: d.kids[0],
      attrs: { "custom-status": "final", "custom-old": null, "custom-new": "1" },
    });
    expect(p.shows).toBe("attributes");
    expect(p.summary).toBe("Sets 3 values of the block “styled paragraph” (3 changed)");
    const where = `/Research/${d.title}`;
    expect(p.changes).toEqual([
      { what: "custom-status", id: d.kids[0], where, before: "draft", after: "final" },
      { what: "custom-old", id: d.kids[0], where, before: "x", after: null },
      { what: "custom-new", id: d.kids[0], where, before: null, after: "1" },
    ]);
    expect(previewText(p)).toContain(`custom-old ${d.kids[0]} in ${where}: x → (none)`);
  });

  it("block.set_fold_state, transfer_references and add_to_daily_note: fold before/after, each referring block re-pointed, the added block", async () => {
    const d = await doc("## Section\n\nunder it");
    const fold = await preview("block", { action: "set_fold_state", id: d.kids[0], folded: true });
    expect(fold.shows).toBe("attributes");
    expect(fold.summary).toBe(
      "Sets 1 value of the block “## Section” (its section folds with it) (1 changed)",
    );
    expect(fold.changes).toEqual([
      { what: "fold", id: d.kids[0], where: `/Research/${d.title}`, before: null, after: "1" },
    ]);

    const holder = await doc(`see ((${d.kids[1]} 'under it')) and ((${d.kids[1]} "kept"))`);
    const moved = await preview("block", {
      action: "transfer_references",
      fromID: d.kids[1],
      toID: d.kids[0],
    });
    expect(moved.summary).toBe(`Points the references to ${d.kids[1]} in 1 block at ${d.kids[0]}`);
    expect(moved.content?.[0]).toMatchObject({
      id: holder.kids[0],
      after: `see ((${d.kids[0]} 'Section')) and ((${d.kids[0]} "kept"))`,
    });

    const added = await preview("block", {
      action: "add_to_daily_note",
      notebook: h.notebook,
      data: "a thought",
    });
    expect(added.shows).toBe("creation");
    expect(added.summary).toMatch(
      /^Adds “a thought” at the end of today's note \/Research\/daily note\//,
    );
    expect(added.content?.[0]).toMatchObject({ before: "", after: "a thought" });
  });

  it("notebook.set_open_state and set_conf: the notebook's values before and after", async () => {
    const nb = h.sandbox.control.external.createNotebook("Pv open");
    await h.client.flush();
    const open = await preview("notebook", { action: "set_open_state", notebook: nb, open: false });
    expect(open.summary).toBe("Sets 1 value of the notebook “Pv open” (1 changed)");
    expect(open.changes).toEqual([{ what: "state", id: nb, before: "open", after: "closed" }]);
    const conf = await preview("notebook", {
      action: "set_conf",
      notebook: nb,
      conf: { dailyNoteSavePath: '/journal/{{now | date "2006-01-02"}}' },
    });
    expect(conf.changes).toEqual([
      {
        what: "dailyNoteSavePath",
        id: nb,
        before: '/daily note/{{now | date "2006/01"}}/{{now | date "2006-01-02"}}',
        after: '/journal/{{now | date "2006-01-02"}}',
      },
    ]);
  });
});

describe("removal previews", () => {
  it("block.delete: the block's first line, its document, what is inside it, its text as removed", async () => {
    const d = await doc("keep me\n\n- item one\n- item two");
    const p = await preview("block", { action: "delete", id: d.kids[1] });
    expect(p.shows).toBe("removal");
    expect(p.summary).toBe(`Deletes “- item one” and 4 blocks inside it from /Research/${d.title}`);
    expect(p.changes).toEqual([
      {
        what: "block",
        id: d.kids[1],
        where: `/Research/${d.title}`,
        before: "- item one",
        after: null,
      },
    ]);
    expect(p.content?.[0]?.diff).toEqual([{ op: "del", text: "* item one\n* item two" }]);
  });

  it("document.remove: the title, the path, how many blocks and subdocuments go", async () => {
    const d = await doc("a\n\nb\n\nc");
    await doc("child one", `/${d.title}`);
    const grand = await doc("child two", `/${d.title}`);
    await doc("grandchild", `/${d.title}/${grand.title}`);
    const p = await preview("document", { action: "remove", id: d.id });
    expect(p.summary).toBe(
      `Removes the document “${d.title}” (/Research/${d.title}) with its 3 blocks and 3 subdocuments`,
    );
    expect(p.changes).toEqual([
      { what: "document", id: d.id, where: `/Research/${d.title}`, before: d.title, after: null },
      { what: "blocks", where: `/Research/${d.title}`, before: "3", after: null },
      { what: "subdocuments", where: `/Research/${d.title}`, before: "3", after: null },
    ]);
    // fs.rm of the same path shows the same.
    const rm = await preview("fs", { action: "rm", path: `/Research/${d.title}` });
    expect(rm.changes).toEqual(p.changes);
  });

  it("av.remove_rows and av.remove_column: the rows' primary values, the column and its filled cells", async () => {
    const d = await doc("intro");
    const made = (
      await h.write("av", {
        action: "create",
        parentID: d.id,
        name: "Pv books",
        columns: [{ name: "Pages", type: "number" }],
      })
    ).commit.structuredContent;
    const avID = made["avID"] as string;
    const pages = (made["columns"] as Array<{ id: string; name: string }>).find(
      (c) => c.name === "Pages",
    )?.id;
    const rows = (
      (await h.write("av", { action: "add_rows", id: avID, detached: ["Dune", "Emma"] })).commit
        .structuredContent["rows"] as Array<{ rowID: string }>
    ).map((r) => r.rowID);
    await h.write("av", {
      action: "set_cells",
      id: avID,
      cells: [{ rowID: rows[0], keyID: pages, value: 412 }],
    });

    const cells = await preview("av", {
      action: "set_cells",
      id: avID,
      cells: [
        { rowID: rows[0], keyID: pages, value: 500 },
        { rowID: rows[1], keyID: pages, value: 320 },
      ],
    });
    expect(cells.shows).toBe("attributes");
    expect(cells.changes).toEqual([
      { what: "Pages of “Dune”", where: "Pv books", before: "412", after: "500" },
      { what: "Pages of “Emma”", where: "Pv books", before: null, after: "320" },
    ]);

    const p = await preview("av", { action: "remove_rows", id: avID, rowIDs: [rows[1]] });
    expect(p.summary).toBe("Removes 1 row from the database “Pv books”");
    expect(p.changes).toEqual([
      { what: "row", id: rows[1], where: "Pv books", before: "Emma", after: null },
    ]);

    const col = await preview("av", { action: "remove_column", id: avID, keyID: pages });
    expect(col.summary).toBe(
      "Removes the column “Pages” and its 1 filled cell from the database “Pv books”",
    );
    expect(col.changes).toEqual([
      { what: "column", id: pages, where: "Pv books", before: "Pages (number)", after: null },
      { what: "filled cells", where: "Pv books", before: "1", after: null },
    ]);
  });

  it("notebook.remove: its name and how many documents go", async () => {
    const nb = h.sandbox.control.external.createNotebook("Pv gone");
    h.sandbox.control.external.createDoc(nb, "/One", "1");
    h.sandbox.control.external.createDoc(nb, "/One/Two", "2");
    await h.client.flush();
    const p = await preview("notebook", { action: "remove", notebook: nb });
    expect(p.summary).toBe("Removes the notebook “Pv gone” with its 2 documents");
    expect(p.changes).toEqual([
      { what: "notebook", id: nb, before: "Pv gone", after: null },
      { what: "documents", where: "/Pv gone", before: "2", after: null },
    ]);
  });
});

describe("placement previews", () => {
  it("block.move: the place before and after, with the neighbours on each side", async () => {
    const from = await doc("mover\n\nstays");
    const to = await doc("alpha\n\nbeta");
    const p = await preview("block", { action: "move", id: from.kids[0], previousID: to.kids[0] });
    expect(p.shows).toBe("placement");
    expect(p.summary).toBe(
      `Moves “mover” from /Research/${from.title} to /Research/${to.title}, between “alpha” and “beta”`,
    );
    expect(p.changes).toEqual([
      {
        what: "place of “mover”",
        id: from.kids[0],
        before: `in /Research/${from.title}, first, before “stays”`,
        after: `in /Research/${to.title}, between “alpha” and “beta”`,
      },
    ]);
    const last = await preview("block", {
      action: "move",
      id: from.kids[0],
      parentID: from.id,
      position: "last",
    });
    expect(last.summary).toBe(`Moves “mover” in /Research/${from.title}, last, after “stays”`);
    expect(last.changes[0]?.after).toBe(`in /Research/${from.title}, last, after “stays”`);
  });

  it("block.insert and block.append: the new block, its neighbours, its text as added", async () => {
    const d = await doc("one\n\n- a\n- b\n\nthree");
    const p = await preview("block", { action: "insert", data: "two", previousID: d.kids[0] });
    expect(p.summary).toBe(`Adds block “two” in /Research/${d.title}, between “one” and “- a”`);
    expect(p.changes).toEqual([
      { what: "block", before: null, after: "two" },
      { what: "place", before: null, after: `in /Research/${d.title}, between “one” and “- a”` },
    ]);
    expect(p.content?.[0]?.diff).toEqual([{ op: "ins", text: "two" }]);
    const item = await preview("block", { action: "append", data: "- c", parentID: d.kids[1] });
    expect(item.changes[1]?.after).toBe(`in /Research/${d.title} inside “- a”, last, after “- b”`);
  });

  it("document.move and fs.mv: each document's path before and after", async () => {
    const d = await doc("moving");
    const target = await doc("target");
    const p = await preview("document", { action: "move", ids: [d.id], toID: target.id });
    expect(p.summary).toBe(`Moves 1 document to /Research/${target.title}`);
    expect(p.changes).toEqual([
      {
        what: "document",
        id: d.id,
        before: `/Research/${d.title}`,
        after: `/Research/${target.title}/${d.title}`,
      },
    ]);
    const mv = await preview("fs", {
      action: "mv",
      from: `/Research/${d.title}`,
      to: `/Research/${target.title}/Renamed`,
    });
    expect(mv.changes).toEqual([
      {
        what: "document",
        id: d.id,
        before: `/Research/${d.title}`,
        after: `/Research/${target.title}/Renamed`,
      },
    ]);
  });
});

describe("creation previews", () => {
  it("document.create: the title, where it lands, its body as added", async () => {
    const parent = await doc("parent");
    const p = await preview("document", {
      action: "create",
      notebook: h.notebook,
      hpath: `/${parent.title}/Fresh`,
      markdown: "hello world",
    });
    expect(p.shows).toBe("creation");
    expect(p.summary).toBe(`Creates the document “Fresh” at /Research/${parent.title}/Fresh`);
    expect(p.changes).toEqual([
      { what: "document", where: `/Research/${parent.title}`, before: null, after: "Fresh" },
    ]);
    expect(p.content?.[0]?.diff).toEqual([{ op: "ins", text: "hello world" }]);
    const orphan = await preview("document", {
      action: "create",
      notebook: h.notebook,
      hpath: "/Pv nowhere/Leaf",
    });
    expect(orphan.summary).toBe(
      "Creates the document “Leaf” at /Research/Pv nowhere/Leaf (no document is at /Research/Pv nowhere yet)",
    );
  });

  it("av.add_column and history.create_point: what is added and where", async () => {
    const d = await doc("p1\n\np2");
    const point = await preview("history", { action: "create_point", id: d.id });
    expect(point.summary).toBe(
      `Saves a restore point of “${d.title}” (/Research/${d.title}) as it is now`,
    );
    expect(point.changes).toEqual([
      {
        what: "restore point",
        id: d.id,
        where: `/Research/${d.title}`,
        before: null,
        after: "2 blocks as they are now",
      },
    ]);
    const avID = (await h.write("av", { action: "create", parentID: d.id, name: "Pv cols" })).commit
      .structuredContent["avID"] as string;
    const col = await preview("av", { action: "add_column", id: avID, name: "Due", type: "date" });
    expect(col.changes).toEqual([
      { what: "column", where: "Pv cols", before: null, after: "Due (date)" },
      { what: "place", where: "Pv cols", before: null, after: "after “Select”" },
    ]);
  });
});

describe("flashcard previews", () => {
  it("add_cards, remove_cards and review: the cards' blocks, the deck, the rating; reads only", async () => {
    const d = await doc("What is 2+2?\n\nCapital of France?");
    const [a, b] = d.kids as [string, string];
    const deckId = (await h.client.riff.createRiffDeck({ name: "Pv deck" })).id;
    h.sandbox.control.resetLog();
    const add = await preview("flashcard", { action: "add_cards", deckId, ids: [a, b, a] });
    expect(add.shows).toBe("creation");
    expect(add.summary).toBe(
      "Makes 2 blocks flashcards in the deck “Pv deck” (a block that is a card already stays as it is)",
    );
    expect(add.changes.map((c) => [c.id, c.before, c.after])).toEqual([
      [a, null, "What is 2+2?"],
      [b, null, "Capital of France?"],
    ]);
    await h.client.riff.addRiffCards({ deckID: deckId, blockIDs: [a, b] });
    const remove = await preview("flashcard", { action: "remove_cards", deckId, ids: [b] });
    expect(remove.shows).toBe("removal");
    expect(remove.summary).toMatch(
      /^Removes the cards of 1 block from the deck “Pv deck”, with their review history/,
    );
    expect(remove.changes).toEqual([
      {
        what: "card",
        id: b,
        where: `/Research/${d.title}`,
        before: "Capital of France?",
        after: null,
      },
    ]);
    const listed = await h.call("flashcard", { action: "cards", deckId });
    const card = (listed.structuredContent["cards"] as Array<Record<string, string>>).find(
      (c) => c["blockId"] === a,
    );
    const review = await preview("flashcard", {
      action: "review",
      deckId,
      cardId: card?.["cardId"],
      rating: 3,
    });
    expect(review.summary).toBe("Rates the card “What is 2+2?” of the deck “Pv deck” as good (3)");
    expect(review.changes[0]).toMatchObject({ what: "reviews", id: a, before: "0", after: "1" });
    // every path the previews called (the setup's addRiffCards aside) is a read
    const paths = Object.keys(h.sandbox.control.counts()).filter(
      (p) => p !== "/api/riff/addRiffCards",
    );
    expect(paths.filter((p) => !READ_PATH.test(p))).toEqual([]);
  });
});

describe("rename previews", () => {
  it("document.rename and notebook.rename: the name before and after, and the new path", async () => {
    const d = await doc("body");
    const p = await preview("document", { action: "rename", id: d.id, title: "Better title" });
    expect(p.shows).toBe("rename");
    expect(p.summary).toBe(`Renames the document “${d.title}” to “Better title”`);
    expect(p.changes).toEqual([
      {
        what: "document",
        id: d.id,
        where: `/Research/${d.title}`,
        before: d.title,
        after: "Better title",
      },
      { what: "path", id: d.id, before: `/Research/${d.title}`, after: "/Research/Better title" },
    ]);
    const nb = h.sandbox.control.external.createNotebook("Pv name");
    await h.client.flush();
    const n = await preview("notebook", { action: "rename", notebook: nb, name: "Pv name 2" });
    expect(n.changes).toEqual([
      { what: "notebook", id: nb, before: "Pv name", after: "Pv name 2" },
    ]);
  });
});

describe("order previews", () => {
  it("fs.reorder: the titles in their order before and after, the moved ones marked", async () => {
    const parent = await doc("parent");
    const kids = [
      await doc("1", `/${parent.title}`),
      await doc("2", `/${parent.title}`),
      await doc("3", `/${parent.title}`),
    ];
    const p = await preview("fs", {
      action: "reorder",
      path: `/Research/${parent.title}`,
      order: [kids[1]?.title, kids[2]?.title, kids[0]?.title],
    });
    expect(p.shows).toBe("order");
    expect(p.order?.before.map((i) => i.title)).toEqual(kids.map((k) => k.title));
    expect(p.order?.after.map((i) => i.title)).toEqual([
      kids[1]?.title,
      kids[2]?.title,
      kids[0]?.title,
    ]);
    expect(p.changes).toEqual([
      {
        what: "document",
        id: kids[0]?.id,
        where: `/Research/${parent.title}`,
        before: "#1",
        after: "#3",
      },
    ]);
    expect(p.summary).toBe(
      `Reorders the documents in /Research/${parent.title}: moves “${kids[0]?.title}”`,
    );
  });
});

describe("what a preview may do", () => {
  it("reads only: across every group it calls no kernel write", async () => {
    const d = await doc("x\n\ny");
    h.sandbox.control.resetLog();
    await preview("block", { action: "delete", id: d.kids[0] });
    await preview("block", { action: "move", id: d.kids[0], parentID: d.id, position: "last" });
    await preview("document", { action: "remove", id: d.id });
    await preview("document", { action: "rename", id: d.id, title: "y" });
    await preview("tag", { action: "remove", label: "pvnothing" });
    await preview("document", { action: "create_daily_note", notebook: h.notebook });
    const paths = Object.keys(h.sandbox.control.counts());
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.filter((p) => !READ_PATH.test(p))).toEqual([]);
    // The document and its blocks are all still there.
    expect((await h.client.block.getChildBlocks({ id: d.id })).map((k) => k.id)).toEqual(d.kids);
  });

  it("needs read permission on the target's notebook, and no more", async () => {
    const d = await doc("private words");
    const readOnly: PermissionMap = { default: "read" };
    const p = await preview("block", { action: "delete", id: d.kids[0] }, readOnly);
    expect(p.changes[0]?.before).toBe("private words");
    await expect(
      preview("document", { action: "remove", id: d.id }, { default: "none" }),
    ).rejects.toMatchObject({ code: "permission_denied" });
    await expect(
      preview(
        "av",
        { action: "remove_rows", id: "20240101000000-abcdefg", rowIDs: ["20240101000000-abcdefh"] },
        { default: "none" },
      ),
    ).rejects.toMatchObject({ code: "permission_denied" });
  });
});
