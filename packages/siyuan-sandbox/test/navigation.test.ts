import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_IDS as I, type Sandbox } from "../src/index.js";
import { flush, kramdown, ok, post, start } from "./helpers.js";

let sb: Sandbox;
beforeAll(async () => {
  // deterministic: the clock starts 2026-01-01T12:00:00Z, so the daily-note path is known
  sb = await start({ flushIntervalMs: 60_000, deterministic: true });
});
afterAll(() => sb.stop());

const PANIC = { code: 0, msg: "", data: null };

describe("/api/search/searchTag", () => {
  it("lists distinct inline and doc-attribute tags, byte-sorted; marks hits of k", async () => {
    expect(await ok(sb, "/api/search/searchTag", { k: "" })).toEqual({
      tags: ["decision", "demo", "planning"],
      k: "",
    });
    expect(await ok(sb, "/api/search/searchTag", { k: "plan" })).toEqual({
      tags: ["<mark>plan</mark>ning"],
      k: "plan",
    });
    expect(await ok(sb, "/api/search/searchTag", { k: "de ci" })).toEqual({
      tags: ["<mark>de</mark><mark>ci</mark>sion"],
      k: "de ci",
    });
    expect((await post(sb, "/api/search/searchTag", {})).body).toEqual(PANIC);
  });
});

describe("/api/filetree/listDocTree", () => {
  it("reads the folder by ID order, nested children, null tree when empty", async () => {
    expect(
      await ok(sb, "/api/filetree/listDocTree", { notebook: I.notebookResearch, path: "/" }),
    ).toEqual({
      tree: [{ id: I.docPlan, children: [{ id: I.docMilestones }] }, { id: I.docMeeting }],
    });
    expect(
      await ok(sb, "/api/filetree/listDocTree", {
        notebook: I.notebookResearch,
        path: `/${I.docPlan}.sy`,
      }),
    ).toEqual({ tree: [{ id: I.docMilestones }] });
    const empty = await ok<{ notebook: { id: string } }>(sb, "/api/notebook/createNotebook", {
      name: "Empty",
    });
    expect(
      await ok(sb, "/api/filetree/listDocTree", { notebook: empty.notebook.id, path: "/" }),
    ).toEqual({ tree: null });
  });

  it("errors: leaf doc, '..', bad notebook ID, missing fields", async () => {
    const leaf = await post(sb, "/api/filetree/listDocTree", {
      notebook: I.notebookResearch,
      path: `/${I.docMeeting}`,
    });
    expect(leaf.body.code).toBe(-1);
    expect(leaf.body.msg).toMatch(
      new RegExp(`^open .*/data/${I.notebookResearch}/${I.docMeeting}: no such file or directory$`),
    );
    expect(
      (await post(sb, "/api/filetree/listDocTree", { notebook: I.notebookResearch, path: "/../x" }))
        .body,
    ).toMatchObject({ code: -1, msg: "path must not contain '..'" });
    expect(
      (await post(sb, "/api/filetree/listDocTree", { notebook: "nope", path: "/" })).body,
    ).toMatchObject({ code: -1, msg: "invalid ID argument" });
    expect((await post(sb, "/api/filetree/listDocTree", { path: "/" })).body).toEqual(PANIC);
  });
});

describe("backlinks and mentions", () => {
  it("getBacklink2: one Path per referencing doc, mentions by title, string sorts", async () => {
    sb.control.external.appendBlock(I.docJournal, "Notes from the Meeting Notes session.");
    const data = await ok<Record<string, unknown>>(sb, "/api/ref/getBacklink2", {
      id: I.docMeeting,
      k: "",
      mk: "",
    });
    expect(data).toMatchObject({
      linkRefsCount: 1,
      mentionsCount: 1,
      k: "",
      mk: "",
      box: I.notebookResearch,
    });
    expect(data.backlinks).toEqual([
      {
        id: I.docPlan,
        box: I.notebookResearch,
        name: "Project Plan",
        hPath: "Research/Project Plan",
        type: "backlink",
        nodeType: "NodeDocument",
        subType: "",
        depth: 0,
        count: 1,
        folded: false,
        updated: I.docPlan.slice(0, 14),
        created: I.docPlan.slice(0, 14),
      },
    ]);
    expect(data.backmentions).toMatchObject([{ id: I.docJournal, count: 1, type: "backlink" }]);
    // containChildren false: the ref points at a paragraph, not at the doc
    expect(
      await ok(sb, "/api/ref/getBacklink2", {
        id: I.docMeeting,
        k: "",
        mk: "",
        containChildren: false,
      }),
    ).toMatchObject({ backlinks: [], linkRefsCount: 0 });
    // a keyword that the referencing block lacks filters it out
    expect(
      await ok(sb, "/api/ref/getBacklink2", { id: I.docMeeting, k: "zebra", mk: "" }),
    ).toMatchObject({ linkRefsCount: 0 });
    // a JSON number as sort: the kernel's recovered panic
    expect(
      (await post(sb, "/api/ref/getBacklink2", { id: I.docMeeting, k: "", mk: "", sort: 3 })).body,
    ).toEqual(PANIC);
    expect(
      await ok(sb, "/api/ref/getBacklink2", { id: "20990101000000-unknown", k: "", mk: "" }),
    ).toMatchObject({ backlinks: [], backmentions: [], box: "" });
  });

  it("getBacklinkDoc: DOM of each referencing block, breadcrumb when under a heading, marks", async () => {
    const data = await ok<{
      backlinks: Array<{ dom: string; blockPaths: Array<{ id: string }>; expand: boolean }>;
      keywords: string[];
    }>(sb, "/api/ref/getBacklinkDoc", {
      defID: I.docMeeting,
      refTreeID: I.docPlan,
      keyword: "sandbox",
    });
    expect(data.keywords).toEqual(["sandbox"]);
    expect(data.backlinks).toHaveLength(1);
    const item = data.backlinks[0]!;
    expect(item.dom).toContain(`data-node-id="${I.paragraphGoals}"`);
    expect(item.dom).toContain('<span data-type="search-mark">sandbox</span>');
    expect(item.blockPaths.map((p) => p.id)).toEqual([I.docPlan, I.headingGoals, I.paragraphGoals]);
    expect(item.expand).toBe(true);
    expect(
      await ok(sb, "/api/ref/getBacklinkDoc", {
        defID: "20990101000000-unknown",
        refTreeID: I.docPlan,
        keyword: "",
      }),
    ).toEqual({ backlinks: [], keywords: [] });
    // a ref paragraph that opens a list item: the whole item is shown; an item with a sub-list
    // and text besides the ref is not expanded; one level under the root shows no breadcrumb
    sb.control.external.appendBlock(
      I.docReading,
      `- see ((${I.paragraphDecision} "decision"))\n  - nested point`,
    );
    const inList = await ok<{
      backlinks: Array<{ dom: string; blockPaths: unknown[]; expand: boolean }>;
    }>(sb, "/api/ref/getBacklinkDoc", {
      defID: I.docMeeting,
      refTreeID: I.docReading,
      keyword: "",
    });
    expect(inList.backlinks).toHaveLength(1);
    expect(inList.backlinks[0]!.dom).toMatch(
      /^<div data-marker="\*" data-subtype="u" data-node-id="[^"]+" data-type="NodeListItem"/,
    );
    expect(inList.backlinks[0]!.dom).toContain("nested point");
    expect(inList.backlinks[0]!.expand).toBe(false);
    expect(inList.backlinks[0]!.blockPaths).toEqual([]);
    // refs from two docs now; a keyword matching either block keeps both (keywords are ORed)
    expect(
      await ok(sb, "/api/ref/getBacklink2", { id: I.docMeeting, k: "zebra nested", mk: "" }),
    ).toMatchObject({ linkRefsCount: 1, backlinks: [{ id: I.docReading }] });
    expect(
      await ok(sb, "/api/ref/getBacklink2", { id: I.docMeeting, k: "sandbox nested", mk: "" }),
    ).toMatchObject({ linkRefsCount: 2 });
    const mentions = await ok<{ backmentions: Array<{ dom: string }>; keywords: string[] }>(
      sb,
      "/api/ref/getBackmentionDoc",
      { defID: I.docMeeting, refTreeID: I.docJournal, keyword: "" },
    );
    expect(mentions.backmentions).toHaveLength(1);
    expect(mentions.backmentions[0]!.dom).toContain(
      '<span data-type="search-mark">Meeting Notes</span>',
    );
    expect(mentions.keywords).toEqual(["Meeting Notes"]);
  });
});

describe("/api/outline/getDocOutline", () => {
  it("nests headings by level; null without headings; [] for an unknown ID", async () => {
    const outline = await ok<Array<Record<string, unknown>>>(sb, "/api/outline/getDocOutline", {
      id: I.paragraphStatus, // another block selects its doc
    });
    expect(outline).toHaveLength(1);
    expect(outline[0]).toMatchObject({
      id: I.headingGoals,
      box: I.notebookResearch,
      name: "Goals",
      hPath: "",
      type: "outline",
      nodeType: "NodeHeading",
      subType: "h1",
      depth: 0,
      count: 1,
      folded: false,
    });
    expect(outline[0]!.blocks).toMatchObject([
      {
        id: I.headingTasks,
        type: "NodeHeading",
        subType: "h2",
        content: "Tasks",
        depth: 1,
        count: 0,
        children: null,
      },
    ]);
    expect(await ok(sb, "/api/outline/getDocOutline", { id: I.docMeeting })).toBeNull();
    expect(await ok(sb, "/api/outline/getDocOutline", { id: "20990101000000-unknown" })).toEqual(
      [],
    );
    expect((await post(sb, "/api/outline/getDocOutline", { id: "bad" })).body).toMatchObject({
      code: -1,
      msg: "invalid ID argument",
    });
  });
});

describe("/api/block/getBlockBreadcrumb", () => {
  it("doc, the headings above, the ancestors, then the block with an empty name", async () => {
    const doc = {
      id: I.docPlan,
      name: "Research/Project Plan",
      type: "NodeDocument",
      subType: "",
      children: null,
    };
    const goals = {
      id: I.headingGoals,
      name: "Goals",
      type: "NodeHeading",
      subType: "h1",
      children: null,
    };
    const tasks = {
      id: I.headingTasks,
      name: "Tasks",
      type: "NodeHeading",
      subType: "h2",
      children: null,
    };
    expect(await ok(sb, "/api/block/getBlockBreadcrumb", { id: I.paragraphGoals })).toEqual([
      doc,
      goals,
      { id: I.paragraphGoals, name: "", type: "NodeParagraph", subType: "", children: null },
    ]);
    // the list is skipped; the item is named by its first block's text
    expect(await ok(sb, "/api/block/getBlockBreadcrumb", { id: I.itemTaskParser })).toEqual([
      doc,
      goals,
      tasks,
      { id: I.itemTaskParser, name: "", type: "NodeListItem", subType: "t", children: null },
    ]);
    // a paragraph that is its item's only block is left out, even as the block asked for
    expect(await ok(sb, "/api/block/getBlockBreadcrumb", { id: I.paragraphTaskParser })).toEqual([
      doc,
      goals,
      tasks,
      {
        id: I.itemTaskParser,
        name: "Write the parser",
        type: "NodeListItem",
        subType: "t",
        children: null,
      },
    ]);
    // the list itself is listed when it is the block asked for
    expect(
      (
        await ok<Array<{ id: string; name: string }>>(sb, "/api/block/getBlockBreadcrumb", {
          id: I.listTasks,
        })
      ).at(-1),
    ).toMatchObject({ id: I.listTasks, name: "" });
    // a heading lists only the higher-level headings above it
    const crumbs = await ok<Array<{ id: string }>>(sb, "/api/block/getBlockBreadcrumb", {
      id: I.headingTasks,
    });
    expect(crumbs.map((c) => c.id)).toEqual([I.docPlan, I.headingGoals, I.headingTasks]);
    expect(await ok(sb, "/api/block/getBlockBreadcrumb", { id: "20990101000000-unknown" })).toEqual(
      [],
    );
  });
});

describe("recent documents", () => {
  it("empty until the UI endpoints fill recent-doc.json; sorted newest first; deleted docs dropped", async () => {
    const empty = await post(sb, "/api/storage/getRecentDocs", undefined, { rawBody: "" });
    expect(empty.body).toEqual({ code: 0, msg: "", data: [] });
    await ok(sb, "/api/storage/updateRecentDocOpenTime", { rootID: I.docPlan });
    await ok(sb, "/api/storage/updateRecentDocViewTime", { rootID: I.docReading });
    await ok(sb, "/api/storage/updateRecentDocViewTime", { rootID: I.docJournal });
    const viewed = await ok<Array<Record<string, unknown>>>(sb, "/api/storage/getRecentDocs", {});
    expect(viewed.map((d) => d.rootID)).toEqual([I.docJournal, I.docReading]);
    expect(viewed[0]).toMatchObject({ title: "Journal" });
    expect(typeof viewed[0]!.viewedAt).toBe("number");
    expect(viewed[0]).not.toHaveProperty("openAt");
    expect(
      (
        await ok<Array<{ rootID: string }>>(sb, "/api/storage/getRecentDocs", { sortBy: "openAt" })
      ).map((d) => d.rootID),
    ).toEqual([I.docPlan]);
    const byUpdated = await ok<Array<Record<string, unknown>>>(sb, "/api/storage/getRecentDocs", {
      sortBy: "updated",
    });
    expect(byUpdated.length).toBeGreaterThan(3);
    expect(Object.keys(byUpdated[0]!).sort()).toEqual(["rootID", "title"]);
    await ok(sb, "/api/filetree/removeDocByID", { id: I.docReading });
    expect(
      (await ok<Array<{ rootID: string }>>(sb, "/api/storage/getRecentDocs", {})).map(
        (d) => d.rootID,
      ),
    ).toEqual([I.docJournal]);
  });
});

describe("daily notes", () => {
  it("createDailyNote creates the doc at the rendered save path once per day", async () => {
    const { id } = await ok<{ id: string }>(sb, "/api/filetree/createDailyNote", {
      notebook: I.notebookPersonal,
    });
    const again = await ok<{ id: string }>(sb, "/api/filetree/createDailyNote", {
      notebook: I.notebookPersonal,
    });
    expect(again.id).toBe(id);
    expect(await ok(sb, "/api/filetree/getHPathByID", { id })).toBe(
      "/daily note/2026/01/2026-01-01",
    );
    expect(await ok(sb, "/api/attr/getBlockAttrs", { id })).toMatchObject({
      "custom-dailynote-20260101": "20260101",
    });
  });

  it("appendDailyNoteBlock appends to today's note; errors for closed notebooks and empty paths", async () => {
    const tx = await ok<Array<{ doOperations: Array<{ parentID: string }> }>>(
      sb,
      "/api/block/appendDailyNoteBlock",
      { notebook: I.notebookPersonal, dataType: "markdown", data: "daily entry" },
    );
    const noteId = tx[0]!.doOperations[0]!.parentID;
    await flush(sb);
    expect(await kramdown(sb, noteId)).toContain("daily entry");
    const nb = await ok<{ notebook: { id: string } }>(sb, "/api/notebook/createNotebook", {
      name: "Closed",
    });
    await ok(sb, "/api/notebook/closeNotebook", { notebook: nb.notebook.id });
    expect(
      (await post(sb, "/api/filetree/createDailyNote", { notebook: nb.notebook.id })).body,
    ).toMatchObject({ code: 1, msg: "notebook not found" });
    expect(
      (
        await post(sb, "/api/block/appendDailyNoteBlock", {
          notebook: nb.notebook.id,
          dataType: "markdown",
          data: "x",
        })
      ).body,
    ).toMatchObject({ code: -1, msg: "create daily note failed: notebook not found" });
    sb.control.external.setNotebookConf(I.notebookResearch, { dailyNoteSavePath: "/" });
    expect(
      (await post(sb, "/api/filetree/createDailyNote", { notebook: I.notebookResearch })).body,
    ).toMatchObject({
      code: -1,
      msg: "Please specify the daily note save path in the Notebook Settings",
    });
    expect((await post(sb, "/api/filetree/createDailyNote", {})).body).toEqual(PANIC);
  });
});

describe("UI reload endpoints", () => {
  it("reloadProtyle answers null but refreshes dynamic anchors in other docs", async () => {
    expect(await kramdown(sb, I.paragraphJournal)).toContain(`((${I.paragraphGoals} 'the goals'))`);
    expect(await ok(sb, "/api/ui/reloadProtyle", { id: I.docPlan })).toBeNull();
    expect(await kramdown(sb, I.paragraphJournal)).toContain(
      `((${I.paragraphGoals} 'Ship the sandbox with faithful behaviour; see the decision.'))`,
    );
    expect((await post(sb, "/api/ui/reloadProtyle", {})).body).toEqual(PANIC);
  });

  it("reloadFiletree / reloadTag answer null with any body; system reloadUI is deprecated", async () => {
    for (const p of ["/api/ui/reloadFiletree", "/api/ui/reloadTag"]) {
      expect((await post(sb, p, undefined, { rawBody: "" })).body).toEqual({
        code: 0,
        msg: "",
        data: null,
      });
    }
    expect((await post(sb, "/api/system/reloadUI", {})).body.code).toBe(-1);
  });

  it("faults and counters apply (http5xx, then counted)", async () => {
    sb.control.resetLog();
    sb.control.armFault({ endpoint: "/api/ui/reloadFiletree", kind: "http5xx" });
    expect((await fetch(`${sb.url}/api/ui/reloadFiletree`, { method: "POST" })).status).toBe(500);
    expect(sb.control.count("/api/ui/reloadFiletree")).toBe(1);
  });
});
