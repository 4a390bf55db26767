import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_IDS as I, type Sandbox } from "../src/index.js";
import { flush, ok, post, start, TOKEN } from "./helpers.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await start({ flushIntervalMs: 60_000 });
});
afterAll(() => sb.stop());

describe("/api/query/sql", () => {
  it("blocks table has the kernel's columns", async () => {
    const rows = await ok<Array<Record<string, unknown>>>(sb, "/api/query/sql", {
      stmt: `SELECT * FROM blocks WHERE id='${I.paragraphStatus}'`,
    });
    expect(rows).toHaveLength(1);
    expect(Object.keys(rows[0]!)).toEqual([
      "id",
      "parent_id",
      "root_id",
      "hash",
      "box",
      "path",
      "hpath",
      "name",
      "alias",
      "memo",
      "tag",
      "content",
      "fcontent",
      "markdown",
      "length",
      "type",
      "subtype",
      "ial",
      "sort",
      "created",
      "updated",
    ]);
    expect(rows[0]).toMatchObject({
      // a block under a heading has the heading as its parent (kernel `HeadingParent`)
      parent_id: I.headingTasks,
      root_id: I.docPlan,
      box: I.notebookResearch,
      path: `/${I.docPlan}.sy`,
      hpath: "/Project Plan",
      tag: "#planning#",
      type: "p",
      created: "20260101120109",
      updated: "20260101120109",
    });
    expect(String(rows[0]!.ial)).toContain('custom-status="draft"');
  });

  it("adds LIMIT 64 when the statement has none", async () => {
    for (let i = 0; i < 70; i++) sb.control.external.appendBlock(I.docReading, `filler ${i}`);
    await flush(sb);
    expect(
      await ok<unknown[]>(sb, "/api/query/sql", { stmt: "SELECT id FROM blocks" }),
    ).toHaveLength(64);
    expect(
      await ok<unknown[]>(sb, "/api/query/sql", { stmt: "SELECT id FROM blocks;" }),
    ).toHaveLength(64);
    expect(
      (await ok<unknown[]>(sb, "/api/query/sql", { stmt: "SELECT id FROM blocks LIMIT 100" }))
        .length,
    ).toBeGreaterThan(64);
  });

  it("SQL errors answer code 1; bad mode and multi-statements -1", async () => {
    const e = await post(sb, "/api/query/sql", { stmt: "SELECT nope FROM nowhere" });
    expect(e.status).toBe(200);
    expect(e.body.code).toBe(1);
    expect(e.body.msg).toContain("no such table");
    expect((await post(sb, "/api/query/sql", { stmt: "SELECT 1", mode: "x" })).body).toMatchObject({
      code: -1,
      msg: "unknown [mode]",
    });
    expect((await post(sb, "/api/query/sql", { stmt: "SELECT 1; SELECT 2" })).body.code).toBe(-1);
    expect(
      (await post(sb, "/api/query/sql", { stmt: "DELETE FROM refs", mode: "readonly" })).body.code,
    ).toBe(-1);
    expect(
      await ok(sb, "/api/query/sql", { stmt: "SELECT 1 AS a; SELECT 2 AS a", mode: "multiple" }),
    ).toEqual([{ a: 2 }]);
  });

  it("attributes and refs tables", async () => {
    const attrs = await ok(sb, "/api/query/sql", {
      stmt: `SELECT name, value FROM attributes WHERE block_id='${I.paragraphStatus}' ORDER BY name`,
    });
    expect(attrs).toEqual([
      { name: "custom-owner", value: "ana" },
      { name: "custom-status", value: "draft" },
    ]);
    const refs = await ok(sb, "/api/query/sql", {
      stmt: `SELECT def_block_id, def_block_root_id, block_id, content FROM refs WHERE block_id='${I.paragraphGoals}'`,
    });
    expect(refs).toEqual([
      {
        def_block_id: I.paragraphDecision,
        def_block_root_id: I.docMeeting,
        block_id: I.paragraphGoals,
        content: "the decision",
      },
    ]);
  });
});

describe("search, export, notification", () => {
  it("fullTextSearchBlock keyword search with <mark> and the result shape", async () => {
    const r = await ok<{
      blocks: Array<Record<string, unknown>>;
      matchedBlockCount: number;
      matchedRootCount: number;
      pageCount: number;
    }>(sb, "/api/search/fullTextSearchBlock", { query: "faithful" });
    expect(r.matchedBlockCount).toBe(2);
    expect(r.matchedRootCount).toBe(2);
    expect(r.pageCount).toBe(1);
    const goals = r.blocks.find((b) => b.id === I.paragraphGoals)!;
    expect(goals).toMatchObject({
      type: "NodeParagraph",
      rootID: I.docPlan,
      hPath: "/Project Plan",
      box: I.notebookResearch,
    });
    expect(goals.content).toContain("<mark>faithful</mark>");
    const onlyHeadings = await ok<{ blocks: unknown[] }>(sb, "/api/search/fullTextSearchBlock", {
      query: "goals",
      types: { heading: true },
    });
    expect(onlyHeadings.blocks).toHaveLength(1);
  });

  it("exportMdContent: Markdown without IALs, with front matter by default", async () => {
    const e = await ok<{ hPath: string; content: string }>(sb, "/api/export/exportMdContent", {
      id: I.docMeeting,
    });
    expect(e.hPath).toBe("/Meeting Notes");
    expect(e.content.startsWith("---\ntitle: Meeting Notes\n")).toBe(true);
    expect(e.content).toContain("Decided to use **sql.js** for the index. #decision#");
    expect(e.content).not.toContain("{:");
    const noYfm = await ok<{ content: string }>(sb, "/api/export/exportMdContent", {
      id: I.docMeeting,
      yfm: false,
    });
    // the document's title comes first (`addTitle`, on in a new workspace)
    expect(noYfm.content.startsWith("# Meeting Notes\n\nDecided")).toBe(true);
    const plain = await ok<{ content: string }>(sb, "/api/export/exportMdContent", {
      id: I.docMeeting,
      yfm: false,
      addTitle: false,
    });
    expect(plain.content.startsWith("Decided")).toBe(true);
    expect((await post(sb, "/api/export/exportMdContent", { id: "bad" })).body.msg).toBe(
      "invalid ID argument",
    );
  });

  it("pushMsg / pushErrMsg answer an id and are recorded", async () => {
    const m = await ok<{ id: string }>(sb, "/api/notification/pushMsg", { msg: "hello" });
    expect(m.id).toMatch(/^[a-z0-9]{7}$/);
    await ok(sb, "/api/notification/pushErrMsg", { msg: "bad", timeout: 1000 });
    expect(
      sb.control
        .messages()
        .slice(-2)
        .map((x) => [x.msg, x.error]),
    ).toEqual([
      ["hello", false],
      ["bad", true],
    ]);
    expect((await post(sb, "/api/notification/pushMsg", { msg: "" })).body.code).toBe(-1);
  });
});

describe("workspace files", () => {
  it("putFile (multipart) → getFile raw bytes → readDir → removeFile", async () => {
    const form = new FormData();
    form.set("path", "/data/storage/petal/demo/state.json");
    form.set("file", new Blob(['{"a":1}']), "state.json");
    form.set("modTime", String(Date.UTC(2026, 0, 2)));
    const put = await fetch(`${sb.url}/api/file/putFile`, {
      method: "POST",
      headers: { authorization: `Token ${TOKEN}` },
      body: form,
    });
    expect(await put.json()).toEqual({ code: 0, msg: "", data: null });
    const get = await fetch(`${sb.url}/api/file/getFile`, {
      method: "POST",
      headers: { authorization: `Token ${TOKEN}` },
      body: JSON.stringify({ path: "/data/storage/petal/demo/state.json" }),
    });
    expect(get.status).toBe(200);
    expect(get.headers.get("content-type")).toBe("application/json");
    expect(await get.text()).toBe('{"a":1}');
    const dir = await ok<Array<{ name: string; isDir: boolean; updated: number }>>(
      sb,
      "/api/file/readDir",
      { path: "/data/storage/petal/demo" },
    );
    expect(dir).toEqual([
      { name: "state.json", isDir: false, isSymlink: false, updated: Date.UTC(2026, 0, 2) / 1000 },
    ]);
    await ok(sb, "/api/file/removeFile", { path: "/data/storage/petal/demo" });
    expect(
      (await post(sb, "/api/file/readDir", { path: "/data/storage/petal/demo" })).body,
    ).toMatchObject({ code: 404 });
  });

  it("renameFile moves files and directories; errors 404/409", async () => {
    const form = new FormData();
    form.set("path", "/data/storage/petal/r/a/one.txt");
    form.set("file", new Blob(["1"]), "one.txt");
    await fetch(`${sb.url}/api/file/putFile`, {
      method: "POST",
      headers: { authorization: `Token ${TOKEN}` },
      body: form,
    });
    await ok(sb, "/api/file/renameFile", {
      path: "/data/storage/petal/r/a",
      newPath: "/data/storage/petal/r/b",
    });
    expect(await ok(sb, "/api/file/readDir", { path: "/data/storage/petal/r/b" })).toMatchObject([
      { name: "one.txt" },
    ]);
    expect(
      (await post(sb, "/api/file/readDir", { path: "/data/storage/petal/r/a" })).body.code,
    ).toBe(404);
    expect(
      (await post(sb, "/api/file/renameFile", { path: "/data/none", newPath: "/data/x" })).body,
    ).toMatchObject({
      code: 404,
      msg: "Field [path]: path does not exist",
    });
    expect(
      (
        await post(sb, "/api/file/renameFile", {
          path: "/data/storage/petal/r/b",
          newPath: "/data/storage/petal/r/b/c",
        })
      ).body.code,
    ).toBe(409);
  });

  it("getFile errors are HTTP 202 with the envelope", async () => {
    const missing = await post(sb, "/api/file/getFile", { path: "/data/none.txt" });
    expect(missing.status).toBe(202);
    expect(missing.body).toEqual({ code: 404, msg: "file does not exist", data: null });
    const dir = await post(sb, "/api/file/getFile", { path: "/" });
    expect(dir.status).toBe(202);
    expect(dir.body.code).toBe(409);
    const outside = await post(sb, "/api/file/getFile", { path: "/../etc/passwd" });
    expect(outside.status).toBe(202);
    expect(outside.body.code).toBe(403);
  });

  it("putFile validation", async () => {
    const form = new FormData();
    form.set("path", "/data/x.txt");
    const r = await fetch(`${sb.url}/api/file/putFile`, {
      method: "POST",
      headers: { authorization: `Token ${TOKEN}` },
      body: form,
    });
    expect(await r.json()).toMatchObject({ code: 400, msg: "Field [file] must not be empty" });
    const noPath = new FormData();
    noPath.set("file", new Blob(["x"]), "x.txt");
    const r2 = await fetch(`${sb.url}/api/file/putFile`, {
      method: "POST",
      headers: { authorization: `Token ${TOKEN}` },
      body: noPath,
    });
    expect(await r2.json()).toMatchObject({ code: 400, msg: "path must not be empty" });
  });
});
