import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEMO_IDS as I } from "../src/index.js";
import { flush, kramdown, ok, start, TOKEN } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "siyuan-sandbox-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("persistence with a data dir", () => {
  it("keeps notebooks, nested docs, blocks, attributes, sort.json and files across stop/start", async () => {
    const first = await start({ dataDir: dir });
    await ok(first, "/api/block/updateBlock", {
      id: I.paragraphGoals,
      dataType: "markdown",
      data: 'Persisted **edit**\n{: custom-kept="yes"}',
    });
    await flush(first);
    const child = await ok<string>(first, "/api/filetree/createDocWithMd", {
      notebook: I.notebookResearch,
      path: "/Project Plan/Deep/Deeper",
      markdown: "deep text",
    });
    await ok(first, "/api/attr/setBlockAttrs", {
      id: I.docMeeting,
      attrs: { "custom-doc": "attr" },
    });
    await ok(first, "/api/filetree/changeSort", {
      notebook: I.notebookResearch,
      paths: [`/${I.docPlan}.sy`, `/${I.docMeeting}.sy`],
    });
    const nb = await ok<{ notebook: { id: string } }>(first, "/api/notebook/createNotebook", {
      name: "Later",
    });
    await ok(first, "/api/filetree/removeDocByID", { id: I.docReading });
    const form = new FormData();
    form.set("path", "/data/storage/petal/p/x.txt");
    form.set("file", new Blob(["kept"]), "x.txt");
    await fetch(`${first.url}/api/file/putFile`, {
      method: "POST",
      headers: { authorization: `Token ${TOKEN}` },
      body: form,
    });
    const path = (await ok<{ path: string }>(first, "/api/filetree/getPathByID", { id: child }))
      .path;
    await first.stop();

    const box = join(dir, "data", I.notebookResearch);
    expect(JSON.parse(readFileSync(join(box, ".siyuan", "conf.json"), "utf8")).name).toBe(
      "Research",
    );
    const sort = JSON.parse(readFileSync(join(box, ".siyuan", "sort.json"), "utf8")) as Record<
      string,
      number
    >;
    expect(sort[I.docPlan]).toBe(1);
    expect(sort[I.docMeeting]).toBe(2);
    expect(existsSync(join(box, `${I.docPlan}.sy`))).toBe(true);
    expect(existsSync(join(box, path))).toBe(true);
    const sy = JSON.parse(readFileSync(join(box, `${I.docPlan}.sy`), "utf8")) as {
      ID: string;
      Type: string;
      Properties: Record<string, string>;
    };
    expect(sy).toMatchObject({
      ID: I.docPlan,
      Type: "NodeDocument",
      Properties: { title: "Project Plan", type: "doc" },
    });
    expect(existsSync(join(dir, "data", I.notebookPersonal, `${I.docReading}.sy`))).toBe(false);

    const second = await start({ dataDir: dir });
    try {
      expect(await kramdown(second, I.paragraphGoals)).toMatch(
        /^Persisted \*\*edit\*\*\n\{: id="20260101120102-pgoals1" updated="\d{14}" custom-kept="yes"\}$/,
      );
      expect(await ok(second, "/api/filetree/getHPathByID", { id: child })).toBe(
        "/Project Plan/Deep/Deeper",
      );
      expect(
        (await ok<Record<string, string>>(second, "/api/attr/getBlockAttrs", { id: I.docMeeting }))[
          "custom-doc"
        ],
      ).toBe("attr");
      const files = (
        await ok<{ files: Array<{ id: string }> }>(second, "/api/filetree/listDocsByPath", {
          notebook: I.notebookResearch,
          path: "/",
        })
      ).files;
      expect(files.map((f) => f.id)).toEqual([I.docPlan, I.docMeeting]);
      const names = (
        await ok<{ notebooks: Array<{ id: string }> }>(second, "/api/notebook/lsNotebooks", {})
      ).notebooks.map((b) => b.id);
      expect(names).toContain(nb.notebook.id);
      expect(await ok(second, "/api/block/checkBlockExist", { id: I.docReading })).toBe(false);
      const rows = await ok<unknown[]>(second, "/api/query/sql", {
        stmt: `SELECT id FROM blocks WHERE id='${I.paragraphGoals}'`,
      });
      expect(rows).toHaveLength(1);
      const got = await fetch(`${second.url}/api/file/getFile`, {
        method: "POST",
        headers: { authorization: `Token ${TOKEN}` },
        body: JSON.stringify({ path: "/data/storage/petal/p/x.txt" }),
      });
      expect(await got.text()).toBe("kept");
    } finally {
      await second.stop();
    }
  });
});
