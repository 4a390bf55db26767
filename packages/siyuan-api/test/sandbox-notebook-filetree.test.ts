/** Notebook and file-tree methods against the sandbox: happy paths, unknown IDs, malformed arguments. */
import { describe, expect, it } from "vitest";
import { NODE_ID_PATTERN } from "../src/index.js";
import {
  failure,
  DEMO_IDS as I,
  MALFORMED_ID,
  sharedDemoClient,
  UNKNOWN_ID,
} from "./support/sandbox.js";

const shared = sharedDemoClient();

describe("notebook", () => {
  it("lsNotebooks lists the seeded notebooks with typed fields", async () => {
    const r = await shared.client.notebook.lsNotebooks();
    const ids = r.notebooks.map((b) => b.id);
    expect(ids).toContain(I.notebookResearch);
    expect(ids).toContain(I.notebookPersonal);
    const research = r.notebooks.find((b) => b.id === I.notebookResearch)!;
    expect(research.name).toBe("Research");
    expect(research.closed).toBe(false);
  });

  it("create, rename, conf, close/open, sort and remove a notebook", async () => {
    const box = await shared.client.notebook.createNotebook({ name: "Scratch" });
    expect(box.id).toMatch(NODE_ID_PATTERN);
    expect(box.name).toBe("Scratch");
    await shared.client.notebook.renameNotebook({ notebook: box.id, name: "Scratch 2" });
    const conf = await shared.client.notebook.getNotebookConf({ notebook: box.id });
    expect(conf.box).toBe(box.id);
    expect(conf.name).toBe("Scratch 2");
    const saved = await shared.client.notebook.setNotebookConf({
      notebook: box.id,
      conf: { dailyNoteSavePath: '/daily/{{now | date "2006"}}' },
    });
    expect(saved.dailyNoteSavePath).toBe('/daily/{{now | date "2006"}}');
    await shared.client.notebook.closeNotebook({ notebook: box.id });
    expect(
      (await shared.client.notebook.lsNotebooks()).notebooks.find((b) => b.id === box.id)?.closed,
    ).toBe(true);
    await shared.client.notebook.openNotebook({ notebook: box.id });
    expect(
      (await shared.client.notebook.lsNotebooks()).notebooks.find((b) => b.id === box.id)?.closed,
    ).toBe(false);
    await shared.client.notebook.changeSortNotebook({
      notebooks: [I.notebookPersonal, box.id, I.notebookResearch],
    });
    const order = (await shared.client.notebook.lsNotebooks()).notebooks.map((b) => b.id);
    expect(order.indexOf(I.notebookPersonal)).toBeLessThan(order.indexOf(box.id));
    expect(order.indexOf(box.id)).toBeLessThan(order.indexOf(I.notebookResearch));
    await shared.client.notebook.removeNotebook({ notebook: box.id });
    expect(
      (await shared.client.notebook.lsNotebooks()).notebooks.some((b) => b.id === box.id),
    ).toBe(false);
  });

  it("unknown and malformed notebook IDs are kernel_rejected", async () => {
    const a = await failure(shared.client.notebook.getNotebookConf({ notebook: UNKNOWN_ID }));
    expect(a.code).toBe("kernel_rejected");
    expect(a.details.kernelCode).toBe(-1);
    expect(a.details.kernelMessage).toContain(UNKNOWN_ID);
    expect(
      (await failure(shared.client.notebook.renameNotebook({ notebook: UNKNOWN_ID, name: "x" })))
        .code,
    ).toBe("kernel_rejected");
    const m = await failure(shared.client.notebook.openNotebook({ notebook: MALFORMED_ID }));
    expect(m.code).toBe("kernel_rejected");
    expect(m.writeDispatched).toBe(true);
  });
});

describe("filetree", () => {
  it("createDocWithMd, then every path lookup agrees", async () => {
    const id = await shared.client.filetree.createDocWithMd({
      notebook: I.notebookPersonal,
      path: "/Api Test Doc",
      markdown: "hello **api**",
    });
    expect(id).toMatch(NODE_ID_PATTERN);
    expect(await shared.client.filetree.getHPathByID({ id })).toBe("/Api Test Doc");
    const where = await shared.client.filetree.getPathByID({ id });
    expect(where).toEqual({ path: `/${id}.sy`, notebook: I.notebookPersonal });
    expect(
      await shared.client.filetree.getHPathByPath({
        notebook: I.notebookPersonal,
        path: where.path,
      }),
    ).toBe("/Api Test Doc");
    expect(
      await shared.client.filetree.getIDsByHPath({
        notebook: I.notebookPersonal,
        path: "/Api Test Doc",
      }),
    ).toEqual([id]);
    const list = await shared.client.filetree.listDocsByPath({
      notebook: I.notebookPersonal,
      path: "/",
    });
    expect(list.box).toBe(I.notebookPersonal);
    expect(list.files.find((f) => f.id === id)?.name).toBe("Api Test Doc");
    const doc = await shared.client.filetree.getDoc({ id });
    expect(doc?.rootID).toBe(id);
    expect(doc?.content).toContain("api");
  });

  it("rename, move, sort and remove documents", async () => {
    const a = await shared.client.filetree.createDocWithMd({
      notebook: I.notebookPersonal,
      path: "/Move A",
      markdown: "a",
    });
    const b = await shared.client.filetree.createDocWithMd({
      notebook: I.notebookPersonal,
      path: "/Move B",
      markdown: "b",
    });
    await shared.client.filetree.renameDocByID({ id: a, title: "Moved A" });
    expect(await shared.client.filetree.getHPathByID({ id: a })).toBe("/Moved A");
    await shared.client.filetree.renameDoc({
      notebook: I.notebookPersonal,
      path: `/${b}.sy`,
      title: "Moved B",
    });
    expect(await shared.client.filetree.getHPathByID({ id: b })).toBe("/Moved B");

    await shared.client.filetree.moveDocsByID({ fromIDs: [a], toID: b });
    expect(await shared.client.filetree.getHPathByID({ id: a })).toBe("/Moved B/Moved A");
    await shared.client.filetree.moveDocs({
      fromPaths: [`/${b}/${a}.sy`],
      toNotebook: I.notebookResearch,
      toPath: "/",
    });
    expect(await shared.client.filetree.getPathByID({ id: a })).toEqual({
      path: `/${a}.sy`,
      notebook: I.notebookResearch,
    });

    await shared.client.filetree.changeSort({
      notebook: I.notebookResearch,
      paths: [`/${a}.sy`, `/${I.docPlan}.sy`, `/${I.docMeeting}.sy`],
    });
    const listed = await shared.client.filetree.listDocsByPath({
      notebook: I.notebookResearch,
      path: "/",
      sort: 6,
    });
    expect(listed.files.map((f) => f.id).slice(0, 3)).toEqual([a, I.docPlan, I.docMeeting]);

    await shared.client.filetree.removeDocByID({ id: a });
    expect((await failure(shared.client.filetree.getHPathByID({ id: a }))).code).toBe(
      "kernel_rejected",
    );
    await shared.client.filetree.removeDoc({ notebook: I.notebookPersonal, path: `/${b}.sy` });
    expect(
      await shared.client.filetree.getIDsByHPath({
        notebook: I.notebookPersonal,
        path: "/Moved B",
      }),
    ).toEqual([]);
  });

  it("unknown IDs: explicit null or empty where the kernel says 'nothing', kernel_rejected where it errs", async () => {
    expect(await shared.client.filetree.getDoc({ id: UNKNOWN_ID })).toBeNull();
    expect(
      await shared.client.filetree.getIDsByHPath({
        notebook: I.notebookResearch,
        path: "/No Such Doc",
      }),
    ).toEqual([]);
    for (const call of [
      () => shared.client.filetree.getHPathByID({ id: UNKNOWN_ID }),
      () => shared.client.filetree.getPathByID({ id: UNKNOWN_ID }),
      () => shared.client.filetree.renameDocByID({ id: UNKNOWN_ID, title: "x" }),
      () => shared.client.filetree.removeDocByID({ id: UNKNOWN_ID }),
      () =>
        shared.client.filetree.moveDocsByID({ fromIDs: [UNKNOWN_ID], toID: I.notebookResearch }),
      () =>
        shared.client.filetree.getHPathByPath({
          notebook: I.notebookResearch,
          path: `/${UNKNOWN_ID}.sy`,
        }),
      () => shared.client.filetree.listDocsByPath({ notebook: UNKNOWN_ID, path: "/" }),
      () =>
        shared.client.filetree.createDocWithMd({ notebook: UNKNOWN_ID, path: "/x", markdown: "" }),
      () =>
        shared.client.filetree.removeDoc({
          notebook: I.notebookResearch,
          path: `/${UNKNOWN_ID}.sy`,
        }),
    ]) {
      const e = await failure(call());
      expect(e.code).toBe("kernel_rejected");
      expect(e.details.kernelCode).not.toBe(0);
    }
  });

  it("malformed arguments are kernel_rejected with the kernel's message", async () => {
    const e = await failure(shared.client.filetree.getHPathByID({ id: MALFORMED_ID }));
    expect(e.code).toBe("kernel_rejected");
    expect(e.details.kernelMessage).toBe("invalid ID argument");
    const d = await failure(
      shared.client.filetree.listDocsByPath({ notebook: I.notebookResearch, path: "/../x" }),
    );
    expect(d.code).toBe("kernel_rejected");
  });
});
