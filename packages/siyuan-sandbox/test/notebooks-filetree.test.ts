import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_IDS as I, type Sandbox } from "../src/index.js";
import { ok, post, start } from "./helpers.js";

const UNKNOWN = "20200101000000-zzzzzzz";
interface Box {
  id: string;
  name: string;
  sort: number;
  closed: boolean;
  sortMode: number;
}
interface FileEntry {
  id: string;
  name: string;
  path: string;
  sort: number;
  subFileCount: number;
  mtime: number;
  ctime: number;
}

let sb: Sandbox;
beforeAll(async () => {
  sb = await start({ deterministic: true });
});
afterAll(() => sb.stop());

const notebooks = async () =>
  (await ok<{ notebooks: Box[] }>(sb, "/api/notebook/lsNotebooks", {})).notebooks;
const list = async (notebook: string, path: string, extra: Record<string, unknown> = {}) =>
  (
    await ok<{ files: FileEntry[] }>(sb, "/api/filetree/listDocsByPath", {
      notebook,
      path,
      ...extra,
    })
  ).files;

describe("notebooks", () => {
  it("lsNotebooks lists every notebook with the Box fields, sorted by sort", async () => {
    const nbs = await notebooks();
    expect(nbs.map((b) => b.name)).toEqual(["Research", "Personal"]);
    expect(Object.keys(nbs[0]!).sort()).toEqual(
      [
        "closed",
        "dueFlashcardCount",
        "encrypted",
        "flashcardCount",
        "icon",
        "id",
        "name",
        "newFlashcardCount",
        "sort",
        "sortMode",
        "subFileCount",
        "unlocked",
      ].sort(),
    );
  });

  it("createNotebook lists the new one first and renumbers the others", async () => {
    const r = await ok<{ notebook: Box }>(sb, "/api/notebook/createNotebook", { name: "Inbox" });
    expect(r.notebook).toMatchObject({ name: "Inbox", sort: 0, closed: false, sortMode: 15 });
    const nbs = await notebooks();
    expect(nbs.map((b) => [b.name, b.sort])).toEqual([
      ["Inbox", 0],
      ["Research", 1],
      ["Personal", 2],
    ]);
    await ok(sb, "/api/notebook/renameNotebook", { notebook: r.notebook.id, name: "Inbox 2" });
    expect((await notebooks())[0]!.name).toBe("Inbox 2");
    await ok(sb, "/api/notebook/changeSortNotebook", {
      notebooks: [I.notebookPersonal, r.notebook.id, I.notebookResearch],
    });
    expect((await notebooks()).map((b) => b.name)).toEqual(["Personal", "Inbox 2", "Research"]);
    await ok(sb, "/api/notebook/removeNotebook", { notebook: r.notebook.id });
    expect((await notebooks()).map((b) => b.name)).toEqual(["Personal", "Research"]);
  });

  it("closeNotebook keeps it listed (closed) and hides its blocks; openNotebook restores", async () => {
    await ok(sb, "/api/notebook/closeNotebook", { notebook: I.notebookPersonal });
    expect((await notebooks()).find((b) => b.id === I.notebookPersonal)!.closed).toBe(true);
    expect(await ok(sb, "/api/block/checkBlockExist", { id: I.paragraphJournal })).toBe(false);
    const rn = await post(sb, "/api/notebook/renameNotebook", {
      notebook: I.notebookPersonal,
      name: "x",
    });
    // a rename's toast stays 5 s (kernel-probes notebook.open-close-rename)
    expect(rn.body).toEqual({
      code: -1,
      msg: "Query notebook failed",
      data: { closeTimeout: 5000 },
    });
    await ok(sb, "/api/notebook/openNotebook", { notebook: I.notebookPersonal });
    expect(await ok(sb, "/api/block/checkBlockExist", { id: I.paragraphJournal })).toBe(true);
    const missing = await post(sb, "/api/notebook/openNotebook", {});
    expect(missing.body).toMatchObject({ code: -1, msg: "Field [notebook] is required" });
  });

  it("getNotebookConf / setNotebookConf merge and normalise", async () => {
    const c = await ok<{ box: string; name: string; conf: Record<string, unknown> }>(
      sb,
      "/api/notebook/getNotebookConf",
      { notebook: I.notebookResearch },
    );
    expect(c.box).toBe(I.notebookResearch);
    expect(c.conf).toMatchObject({ name: "Research", sortMode: 15, closed: false });
    const saved = await ok<Record<string, unknown>>(sb, "/api/notebook/setNotebookConf", {
      notebook: I.notebookResearch,
      conf: { dailyNoteTemplatePath: "tpl/daily", encrypted: true },
    });
    expect(saved.dailyNoteTemplatePath).toBe("/tpl/daily.md");
    expect(saved.encrypted).toBe(false);
    expect(saved.name).toBe("Research");
    const bad = await post(sb, "/api/notebook/setNotebookConf", {
      notebook: I.notebookResearch,
      conf: { dailyNoteSavePath: "/" },
    });
    expect(bad.body.code).toBe(-1);
    const unknown = await post(sb, "/api/notebook/getNotebookConf", { notebook: UNKNOWN });
    expect(unknown.body).toMatchObject({ code: -1, msg: `notebook [${UNKNOWN}] not found` });
  });
});

describe("file tree", () => {
  it("listDocsByPath follows the custom order of sort.json and fills File fields", async () => {
    const files = await list(I.notebookResearch, "/");
    expect(files.map((f) => f.name)).toEqual(["Meeting Notes", "Project Plan"]);
    expect(files.map((f) => f.sort)).toEqual([1, 2]);
    const plan = files[1]!;
    expect(plan).toMatchObject({ id: I.docPlan, path: `/${I.docPlan}.sy`, subFileCount: 1 });
    expect(plan.ctime).toBe(Date.UTC(2026, 0, 1, 12, 1, 0) / 1000);
    const kids = await list(I.notebookResearch, `/${I.docPlan}.sy`);
    expect(kids.map((f) => f.name)).toEqual(["Milestones"]);
    expect(await list(I.notebookResearch, `/${I.docPlan}/${I.docMilestones}.sy`)).toEqual([]);
  });

  it("listDocsByPath sort modes: name asc/desc, created asc/desc; sort only filled in custom mode", async () => {
    expect((await list(I.notebookResearch, "/", { sort: 0 })).map((f) => f.name)).toEqual([
      "Meeting Notes",
      "Project Plan",
    ]);
    expect((await list(I.notebookResearch, "/", { sort: 1 })).map((f) => f.name)).toEqual([
      "Project Plan",
      "Meeting Notes",
    ]);
    expect((await list(I.notebookResearch, "/", { sort: 9 })).map((f) => f.id)).toEqual([
      I.docPlan,
      I.docMeeting,
    ]);
    expect((await list(I.notebookResearch, "/", { sort: 10 })).map((f) => f.id)).toEqual([
      I.docMeeting,
      I.docPlan,
    ]);
    expect((await list(I.notebookResearch, "/", { sort: 9 })).every((f) => f.sort === 0)).toBe(
      true,
    );
    const bad = await post(sb, "/api/filetree/listDocsByPath", { notebook: UNKNOWN, path: "/" });
    expect(bad.body).toMatchObject({ code: -1, msg: "Query notebook failed" });
    const dots = await post(sb, "/api/filetree/listDocsByPath", {
      notebook: I.notebookResearch,
      path: "/../x",
    });
    expect(dots.body.code).toBe(-1);
  });

  it("createDocWithMd is not idempotent and creates missing parents", async () => {
    const a = await ok<string>(sb, "/api/filetree/createDocWithMd", {
      notebook: I.notebookPersonal,
      path: "/Trips/Rome",
      markdown: "# Day 1",
    });
    const b = await ok<string>(sb, "/api/filetree/createDocWithMd", {
      notebook: I.notebookPersonal,
      path: "/Trips/Rome",
      markdown: "",
    });
    expect(a).not.toBe(b);
    const ids = await ok<string[]>(sb, "/api/filetree/getIDsByHPath", {
      notebook: I.notebookPersonal,
      path: "/Trips/Rome",
    });
    expect(ids.sort()).toEqual([a, b].sort());
    expect(
      (
        await ok<string[]>(sb, "/api/filetree/getIDsByHPath", {
          notebook: I.notebookPersonal,
          path: "/Trips",
        })
      ).length,
    ).toBe(1);
    expect(await ok(sb, "/api/filetree/getHPathByID", { id: a })).toBe("/Trips/Rome");
    const p = await ok<{ path: string; notebook: string }>(sb, "/api/filetree/getPathByID", {
      id: a,
    });
    expect(p.notebook).toBe(I.notebookPersonal);
    expect(p.path).toMatch(new RegExp(`^/\\d{14}-[a-z0-9]{7}/${a}\\.sy$`));
    expect(
      await ok(sb, "/api/filetree/getHPathByPath", { notebook: I.notebookPersonal, path: p.path }),
    ).toBe("/Trips/Rome");
    const attrs = await ok<Record<string, string>>(sb, "/api/attr/getBlockAttrs", { id: a });
    expect(attrs).toMatchObject({ id: a, title: "Rome", type: "doc", updated: a.slice(0, 14) });
    const emptyKids = await ok<unknown[]>(sb, "/api/block/getChildBlocks", { id: b });
    expect(emptyKids).toHaveLength(1);
    const closed = await post(sb, "/api/filetree/createDocWithMd", {
      notebook: UNKNOWN,
      path: "/x",
      markdown: "",
    });
    expect(closed.body).toMatchObject({ code: -1, msg: "Query notebook failed" });
    expect(
      await ok(sb, "/api/filetree/getIDsByHPath", { notebook: I.notebookPersonal }),
    ).toBeNull();
  });

  it("createDoc at a storage path: duplicate and missing parent errors", async () => {
    const id = "20260102120000-newdoc1";
    const r = await ok<{ id: string }>(sb, "/api/filetree/createDoc", {
      notebook: I.notebookPersonal,
      path: `/${I.docJournal}/${id}.sy`,
      title: "Child",
      md: "hello",
    });
    expect(r.id).toBe(id);
    expect(await ok(sb, "/api/filetree/getHPathByID", { id })).toBe("/Journal/Child");
    const dup = await post(sb, "/api/filetree/createDoc", {
      notebook: I.notebookPersonal,
      path: `/${id}.sy`,
      title: "x",
      md: "",
    });
    expect(dup.body).toMatchObject({ code: -1, msg: "Duplicated filename" });
    const orphan = await post(sb, "/api/filetree/createDoc", {
      notebook: I.notebookPersonal,
      path: `/${UNKNOWN}/20260102120000-newdoc2.sy`,
      title: "x",
      md: "",
    });
    expect(orphan.body).toMatchObject({ code: -1, msg: "block not found" });
  });

  it("a new doc gets the last sibling's sort + 1; changeSort rewrites sort.json", async () => {
    const id = await ok<string>(sb, "/api/filetree/createDocWithMd", {
      notebook: I.notebookResearch,
      path: "/Zeta",
      markdown: "z",
    });
    let files = await list(I.notebookResearch, "/");
    expect(files.map((f) => f.id)).toEqual([I.docMeeting, I.docPlan, id]);
    expect(files[2]!.sort).toBe(3);
    await ok(sb, "/api/filetree/changeSort", {
      notebook: I.notebookResearch,
      paths: [`/${id}.sy`, `/${I.docPlan}.sy`],
    });
    files = await list(I.notebookResearch, "/");
    expect(files.map((f) => [f.id, f.sort])).toEqual([
      [id, 1],
      [I.docPlan, 2],
      [I.docMeeting, 3],
    ]);
    await ok(sb, "/api/filetree/removeDocByID", { id });
  });

  it("renameDocByID, renameDoc: titles normalized; unknown → -1 tree not found", async () => {
    await ok(sb, "/api/filetree/renameDocByID", { id: I.docReading, title: " Books/Papers\t" });
    expect(await ok(sb, "/api/filetree/getHPathByID", { id: I.listReading })).toBe("/BooksPapers");
    await ok(sb, "/api/filetree/renameDoc", {
      notebook: I.notebookPersonal,
      path: `/${I.docReading}.sy`,
      title: "Reading List",
    });
    expect(await ok(sb, "/api/filetree/getHPathByID", { id: I.docReading })).toBe("/Reading List");
    const r = await post(sb, "/api/filetree/renameDocByID", { id: UNKNOWN, title: "x" });
    expect(r.body).toEqual({ code: -1, msg: "tree not found", data: { closeTimeout: 7000 } });
    expect((await post(sb, "/api/filetree/renameDocByID", { title: "x" })).body).toEqual({
      code: 0,
      msg: "",
      data: null,
    });
    expect((await post(sb, "/api/filetree/getHPathByID", { id: UNKNOWN })).body).toMatchObject({
      code: -1,
      msg: "tree not found",
    });
    expect((await post(sb, "/api/filetree/getPathByID", { id: UNKNOWN })).body).toMatchObject({
      code: -1,
      msg: "tree not found",
    });
    expect(
      (
        await post(sb, "/api/filetree/getHPathByPath", {
          notebook: I.notebookPersonal,
          path: `/${UNKNOWN}.sy`,
        })
      ).body.msg,
    ).toBe("block not found");
    expect(
      await ok(sb, "/api/filetree/getHPathByPath", { notebook: I.notebookPersonal, path: "/" }),
    ).toBe("/");
  });

  it("moveDocsByID to a doc and to a notebook root; errors", async () => {
    await ok(sb, "/api/filetree/moveDocsByID", { fromIDs: [I.docMilestones], toID: I.docMeeting });
    expect(await ok(sb, "/api/filetree/getHPathByID", { id: I.docMilestones })).toBe(
      "/Meeting Notes/Milestones",
    );
    await ok(sb, "/api/filetree/moveDocsByID", {
      fromIDs: [I.docMilestones],
      toID: I.notebookPersonal,
    });
    const p = await ok<{ path: string; notebook: string }>(sb, "/api/filetree/getPathByID", {
      id: I.paragraphMilestones,
    });
    expect(p).toEqual({ path: `/${I.docMilestones}.sy`, notebook: I.notebookPersonal });
    await ok(sb, "/api/filetree/moveDocs", {
      fromPaths: [`/${I.docMilestones}.sy`],
      toNotebook: I.notebookResearch,
      toPath: `/${I.docPlan}.sy`,
    });
    expect(await ok(sb, "/api/filetree/getHPathByID", { id: I.docMilestones })).toBe(
      "/Project Plan/Milestones",
    );
    expect(
      (await post(sb, "/api/filetree/moveDocsByID", { fromIDs: [UNKNOWN], toID: I.docPlan })).body
        .msg,
    ).toBe("tree not found");
    expect(
      (await post(sb, "/api/filetree/moveDocsByID", { fromIDs: [I.docMilestones], toID: UNKNOWN }))
        .body.msg,
    ).toBe(`can't found box or tree by id [${UNKNOWN}]`);
  });

  it("removeDoc removes the subtree; errors for unknown path and notebook", async () => {
    const parent = await ok<string>(sb, "/api/filetree/createDocWithMd", {
      notebook: I.notebookPersonal,
      path: "/Old/Child",
      markdown: "c",
    });
    const oldId = (
      await ok<string[]>(sb, "/api/filetree/getIDsByHPath", {
        notebook: I.notebookPersonal,
        path: "/Old",
      })
    )[0]!;
    await ok(sb, "/api/filetree/removeDoc", { notebook: I.notebookPersonal, path: `/${oldId}.sy` });
    expect(await ok(sb, "/api/block/checkBlockExist", { id: parent })).toBe(false);
    expect(
      (
        await post(sb, "/api/filetree/removeDoc", {
          notebook: I.notebookPersonal,
          path: `/${oldId}.sy`,
        })
      ).body.msg,
    ).toBe("block not found");
    expect(
      (await post(sb, "/api/filetree/removeDoc", { notebook: UNKNOWN, path: "/x.sy" })).body.msg,
    ).toBe("notebook not found");
    expect((await post(sb, "/api/filetree/removeDocByID", { id: UNKNOWN })).body).toEqual({
      code: -1,
      msg: "tree not found",
      data: { closeTimeout: 7000 },
    });
  });

  it("getDoc flushes first and answers code 1 for unknown IDs", async () => {
    const d = await ok<{ rootID: string; content: string; box: string }>(
      sb,
      "/api/filetree/getDoc",
      { id: I.docJournal },
    );
    expect(d.rootID).toBe(I.docJournal);
    expect(d.content).toContain(`data-node-id="${I.headingJournal}"`);
    const r = await post(sb, "/api/filetree/getDoc", { id: UNKNOWN });
    // SiYuan 3.7.3: "tree not found", code 1 (kernel-probes filetree.getDoc)
    expect(r.body).toMatchObject({ code: 1, msg: "tree not found", data: null });
  });

  it("deterministic mode gives reproducible IDs", async () => {
    const other = await start({ deterministic: true });
    try {
      const a = await ok<string>(other, "/api/filetree/createDocWithMd", {
        notebook: I.notebookResearch,
        path: "/Det",
        markdown: "x",
      });
      const again = await start({ deterministic: true });
      try {
        const b = await ok<string>(again, "/api/filetree/createDocWithMd", {
          notebook: I.notebookResearch,
          path: "/Det",
          markdown: "x",
        });
        expect(a).toBe(b);
      } finally {
        await again.stop();
      }
    } finally {
      await other.stop();
    }
  });
});
