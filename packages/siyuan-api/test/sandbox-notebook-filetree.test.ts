/** Notebook and file-tree methods against the sandbox: happy paths, unknown IDs, malformed arguments. */
import type { Sandbox } from "@sisyphus/siyuan-sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NODE_ID_PATTERN, type SiyuanClient } from "../src/index.js";
import {
  failure,
  DEMO_IDS as I,
  MALFORMED_ID,
  startDemoSandbox,
  UNKNOWN_ID,
  undiciClientFor,
} from "./support/sandbox.js";

let sb: Sandbox;
let client: SiyuanClient;
beforeAll(async () => {
  sb = await startDemoSandbox();
  client = undiciClientFor(sb);
});
afterAll(async () => {
  await client.close();
  await sb.stop();
});

describe("notebook", () => {
  it("lsNotebooks lists the seeded notebooks with typed fields", async () => {
    const r = await client.notebook.lsNotebooks();
    const ids = r.notebooks.map((b) => b.id);
    expect(ids).toContain(I.notebookResearch);
    expect(ids).toContain(I.notebookPersonal);
    const research = r.notebooks.find((b) => b.id === I.notebookResearch)!;
    expect(research.name).toBe("Research");
    expect(research.closed).toBe(false);
  });

  it("create, rename, conf, close/open, sort and remove a notebook", async () => {
    const box = await client.notebook.createNotebook({ name: "Scratch" });
    expect(box.id).toMatch(NODE_ID_PATTERN);
    expect(box.name).toBe("Scratch");
    await client.notebook.renameNotebook({ notebook: box.id, name: "Scratch 2" });
    const conf = await client.notebook.getNotebookConf({ notebook: box.id });
    expect(conf.box).toBe(box.id);
    expect(conf.name).toBe("Scratch 2");
    const saved = await client.notebook.setNotebookConf({
      notebook: box.id,
      conf: { dailyNoteSavePath: '/daily/{{now | date "2006"}}' },
    });
    expect(saved.dailyNoteSavePath).toBe('/daily/{{now | date "2006"}}');
    await client.notebook.closeNotebook({ notebook: box.id });
    expect(
      (await client.notebook.lsNotebooks()).notebooks.find((b) => b.id === box.id)?.closed,
    ).toBe(true);
    await client.notebook.openNotebook({ notebook: box.id });
    expect(
      (await client.notebook.lsNotebooks()).notebooks.find((b) => b.id === box.id)?.closed,
    ).toBe(false);
    await client.notebook.changeSortNotebook({
      notebooks: [I.notebookPersonal, box.id, I.notebookResearch],
    });
    const order = (await client.notebook.lsNotebooks()).notebooks.map((b) => b.id);
    expect(order.indexOf(I.notebookPersonal)).toBeLessThan(order.indexOf(box.id));
    expect(order.indexOf(box.id)).toBeLessThan(order.indexOf(I.notebookResearch));
    await client.notebook.removeNotebook({ notebook: box.id });
    expect((await client.notebook.lsNotebooks()).notebooks.some((b) => b.id === box.id)).toBe(
      false,
    );
  });

  it("unknown and malformed notebook IDs are kernel_rejected", async () => {
    const a = await failure(client.notebook.getNotebookConf({ notebook: UNKNOWN_ID }));
    expect(a.code).toBe("kernel_rejected");
    expect(a.details.kernelCode).toBe(-1);
    expect(a.details.kernelMessage).toContain(UNKNOWN_ID);
    expect(
      (await failure(client.notebook.renameNotebook({ notebook: UNKNOWN_ID, name: "x" }))).code,
    ).toBe("kernel_rejected");
    const m = await failure(client.notebook.openNotebook({ notebook: MALFORMED_ID }));
    expect(m.code).toBe("kernel_rejected");
    expect(m.writeDispatched).toBe(true);
  });
});

describe("filetree", () => {
  it("createDocWithMd, then every path lookup agrees", async () => {
    const id = await client.filetree.createDocWithMd({
      notebook: I.notebookPersonal,
      path: "/Api Test Doc",
      markdown: "hello **api**",
    });
    expect(id).toMatch(NODE_ID_PATTERN);
    expect(await client.filetree.getHPathByID({ id })).toBe("/Api Test Doc");
    const where = await client.filetree.getPathByID({ id });
    expect(where).toEqual({ path: `/${id}.sy`, notebook: I.notebookPersonal });
    expect(
      await client.filetree.getHPathByPath({ notebook: I.notebookPersonal, path: where.path }),
    ).toBe("/Api Test Doc");
    expect(
      await client.filetree.getIDsByHPath({ notebook: I.notebookPersonal, path: "/Api Test Doc" }),
    ).toEqual([id]);
    const list = await client.filetree.listDocsByPath({ notebook: I.notebookPersonal, path: "/" });
    expect(list.box).toBe(I.notebookPersonal);
    expect(list.files.find((f) => f.id === id)?.name).toBe("Api Test Doc");
    const doc = await client.filetree.getDoc({ id });
    expect(doc?.rootID).toBe(id);
    expect(doc?.content).toContain("api");
  });

  it("rename, move, sort and remove documents", async () => {
    const a = await client.filetree.createDocWithMd({
      notebook: I.notebookPersonal,
      path: "/Move A",
      markdown: "a",
    });
    const b = await client.filetree.createDocWithMd({
      notebook: I.notebookPersonal,
      path: "/Move B",
      markdown: "b",
    });
    await client.filetree.renameDocByID({ id: a, title: "Moved A" });
    expect(await client.filetree.getHPathByID({ id: a })).toBe("/Moved A");
    await client.filetree.renameDoc({
      notebook: I.notebookPersonal,
      path: `/${b}.sy`,
      title: "Moved B",
    });
    expect(await client.filetree.getHPathByID({ id: b })).toBe("/Moved B");

    await client.filetree.moveDocsByID({ fromIDs: [a], toID: b });
    expect(await client.filetree.getHPathByID({ id: a })).toBe("/Moved B/Moved A");
    await client.filetree.moveDocs({
      fromPaths: [`/${b}/${a}.sy`],
      toNotebook: I.notebookResearch,
      toPath: "/",
    });
    expect(await client.filetree.getPathByID({ id: a })).toEqual({
      path: `/${a}.sy`,
      notebook: I.notebookResearch,
    });

    await client.filetree.changeSort({
      notebook: I.notebookResearch,
      paths: [`/${a}.sy`, `/${I.docPlan}.sy`, `/${I.docMeeting}.sy`],
    });
    const listed = await client.filetree.listDocsByPath({
      notebook: I.notebookResearch,
      path: "/",
      sort: 6,
    });
    expect(listed.files.map((f) => f.id).slice(0, 3)).toEqual([a, I.docPlan, I.docMeeting]);

    await client.filetree.removeDocByID({ id: a });
    expect((await failure(client.filetree.getHPathByID({ id: a }))).code).toBe("kernel_rejected");
    await client.filetree.removeDoc({ notebook: I.notebookPersonal, path: `/${b}.sy` });
    expect(
      await client.filetree.getIDsByHPath({ notebook: I.notebookPersonal, path: "/Moved B" }),
    ).toEqual([]);
  });

  it("unknown IDs: explicit null or empty where the kernel says 'nothing', kernel_rejected where it errs", async () => {
    expect(await client.filetree.getDoc({ id: UNKNOWN_ID })).toBeNull();
    expect(
      await client.filetree.getIDsByHPath({ notebook: I.notebookResearch, path: "/No Such Doc" }),
    ).toEqual([]);
    for (const call of [
      () => client.filetree.getHPathByID({ id: UNKNOWN_ID }),
      () => client.filetree.getPathByID({ id: UNKNOWN_ID }),
      () => client.filetree.renameDocByID({ id: UNKNOWN_ID, title: "x" }),
      () => client.filetree.removeDocByID({ id: UNKNOWN_ID }),
      () => client.filetree.moveDocsByID({ fromIDs: [UNKNOWN_ID], toID: I.notebookResearch }),
      () =>
        client.filetree.getHPathByPath({ notebook: I.notebookResearch, path: `/${UNKNOWN_ID}.sy` }),
      () => client.filetree.listDocsByPath({ notebook: UNKNOWN_ID, path: "/" }),
      () => client.filetree.createDocWithMd({ notebook: UNKNOWN_ID, path: "/x", markdown: "" }),
      () => client.filetree.removeDoc({ notebook: I.notebookResearch, path: `/${UNKNOWN_ID}.sy` }),
    ]) {
      const e = await failure(call());
      expect(e.code).toBe("kernel_rejected");
      expect(e.details.kernelCode).not.toBe(0);
    }
  });

  it("malformed arguments are kernel_rejected with the kernel's message", async () => {
    const e = await failure(client.filetree.getHPathByID({ id: MALFORMED_ID }));
    expect(e.code).toBe("kernel_rejected");
    expect(e.details.kernelMessage).toBe("invalid ID argument");
    const d = await failure(
      client.filetree.listDocsByPath({ notebook: I.notebookResearch, path: "/../x" }),
    );
    expect(d.code).toBe("kernel_rejected");
  });
});
