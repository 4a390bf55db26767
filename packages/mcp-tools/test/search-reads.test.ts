/**
 * search.invalid_refs and search.assets against the sandbox kernel over loopback: SiYuan's own
 * lists (`listInvalidBlockRefs`, `searchAsset`), compact, paged where the list can grow, and
 * withheld by permission (other notebooks' blocks; the workspace's assets need the default
 * permission).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { useHarness } from "./harness.js";

const h = useHarness();

let fx: { other: string; target: string; doc: string; otherDoc: string };

beforeAll(async () => {
  const x = h.sandbox.control.external;
  const other = x.createNotebook("Elsewhere refs");
  const target = x.createDoc(h.notebook, "/Ref target", "still here");
  const doc = x.createDoc(
    h.notebook,
    "/Dead refs",
    [
      `live ((${target} "ok")) only`,
      `soon dead ((${target} "target"))`,
      'gone ((20200101000000-aaaaaaa "lost")) here',
      "link [x](siyuan://blocks/20200101000000-bbbbbbb?focus=1)",
      "plain text",
    ].join("\n\n"),
  );
  const otherDoc = x.createDoc(other, "/Private refs", "private ((20200101000000-ccccccc))");
  for (const path of [
    "/data/assets/zs Cat-20240101120000-abcdefg.png",
    "/data/assets/zs-cat-notes.pdf",
    "/data/assets/zs-cat.png.sya",
    "/data/assets/zsdir/zs-inner.PNG",
  ]) {
    await h.client.file.putFile({ path, file: path });
  }
  await h.client.flush();
  fx = { other, target, doc, otherDoc };
});

type Row = { id: string; docID: string; notebook: string; hpath: string; snippet: string };
const rows = (r: { structuredContent: Record<string, unknown> }) =>
  r.structuredContent["blocks"] as Row[];

describe("search.invalid_refs", () => {
  it("lists the blocks whose reference or siyuan:// link names a missing block, compact", async () => {
    h.permissions = { default: "delete" };
    const r = await h.call("search", { action: "invalid_refs", pageSize: 64 });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    const mine = rows(r).filter((b) => b.docID === fx.doc);
    expect(mine.map((b) => b.snippet).sort()).toEqual([
      "gone lost here",
      "link x siyuan://blocks/20200101000000-bbbbbbb?focus=1",
    ]);
    expect(mine[0]).toEqual({
      id: expect.stringMatching(/^\d{14}-[a-z0-9]{7}$/),
      docID: fx.doc,
      notebook: h.notebook,
      hpath: "/Dead refs",
      snippet: expect.any(String),
    });
    expect(rows(r).some((b) => b.docID === fx.otherDoc)).toBe(true);
    expect(r.structuredContent).toMatchObject({ page: 1, pageSize: 64, total: rows(r).length });
    expect(r.structuredContent).not.toHaveProperty("withheld");
  });

  it("lists a block once the block it references is deleted", async () => {
    h.permissions = { default: "delete" };
    h.sandbox.control.external.removeDoc(fx.target);
    await h.client.flush();
    const r = await h.call("search", { action: "invalid_refs", pageSize: 64 });
    const snippets = rows(r).map((b) => b.snippet);
    expect(snippets).toContain("soon dead target");
    expect(snippets).toContain("live ok only");
  });

  it("pages the list, sorted by block ID as SiYuan sorts it", async () => {
    h.permissions = { default: "delete" };
    const all = rows(await h.call("search", { action: "invalid_refs", pageSize: 64 }));
    expect(all.map((b) => b.id)).toEqual(all.map((b) => b.id).sort());
    const p2 = await h.call("search", { action: "invalid_refs", page: 2, pageSize: 1 });
    expect(rows(p2)).toEqual([all[1]]);
    expect(p2.structuredContent).toMatchObject({ pageCount: all.length, total: all.length });
  });

  it("withholds the blocks of notebooks the caller may not read, and counts them", async () => {
    h.permissions = { default: "delete", notebooks: { [fx.other]: "none" } };
    const r = await h.call("search", { action: "invalid_refs", pageSize: 64 });
    expect(r.isError).toBeUndefined();
    expect(rows(r).some((b) => b.notebook === fx.other)).toBe(false);
    expect(r.structuredContent).toMatchObject({ withheld: 1, total: rows(r).length });
  });
});

describe("search.assets", () => {
  const found = (r: { structuredContent: Record<string, unknown> }) =>
    r.structuredContent["assets"] as Array<{ path: string; name: string }>;

  it("finds files of data/assets by name or path, names without their ID or marks", async () => {
    h.permissions = { default: "delete" };
    const r = await h.call("search", { action: "assets", keyword: "cat" });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    expect(found(r)).toEqual([
      { path: "assets/zs Cat-20240101120000-abcdefg.png", name: "zs Cat.png" },
      { path: "assets/zs-cat-notes.pdf", name: "zs-cat-notes.pdf" },
    ]);
    const dir = await h.call("search", { action: "assets", keyword: "zsdir" });
    expect(found(dir)).toEqual([{ path: "assets/zsdir/zs-inner.PNG", name: "zs-inner.PNG" }]);
  });

  it("filters by extension, with or without its dot, in any case", async () => {
    h.permissions = { default: "delete" };
    for (const exts of [["png"], [".PNG"]]) {
      const r = await h.call("search", { action: "assets", keyword: "zs", exts });
      expect(
        found(r)
          .map((a) => a.path)
          .sort(),
      ).toEqual(["assets/zs Cat-20240101120000-abcdefg.png", "assets/zsdir/zs-inner.PNG"]);
    }
  });

  it("answers an empty list when nothing matches", async () => {
    h.permissions = { default: "delete" };
    const r = await h.call("search", { action: "assets", keyword: "zs-nothing" });
    expect(r.structuredContent).toEqual({ assets: [] });
  });

  it("withholds the workspace's assets from a caller without the default permission", async () => {
    h.permissions = { default: "none", notebooks: { [h.notebook]: "read" } };
    const r = await h.call("search", { action: "assets", keyword: "cat" });
    expect(r.isError).toBeUndefined();
    expect(r.structuredContent).toMatchObject({ assets: [], withheld: 2 });
    h.permissions = { default: "delete" };
  });
});

describe("search.fulltext and closed notebooks", () => {
  it("names the closed notebooks it could not search, and only those the caller may read", async () => {
    h.permissions = { default: "delete" };
    const x = h.sandbox.control.external;
    const shut = x.createNotebook("Shut away");
    const hidden = x.createNotebook("Shut and private");
    x.createDoc(shut, "/Locked note", "zqxclosedword in a closed notebook");
    x.createDoc(h.notebook, "/Open note", "zqxclosedword in an open one");
    await h.client.flush();
    const open = await h.call("search", { action: "fulltext", query: "zqxclosedword" });
    expect(open.structuredContent).not.toHaveProperty("closedNotebooks");
    expect((open.structuredContent["hits"] as unknown[]).length).toBe(2);

    await h.client.notebook.closeNotebook({ notebook: shut });
    await h.client.notebook.closeNotebook({ notebook: hidden });
    await h.client.flush();
    const r = await h.call("search", { action: "fulltext", query: "zqxclosedword" });
    const hits = r.structuredContent["hits"] as Array<{ notebook: string }>;
    expect(hits.map((b) => b.notebook)).toEqual([h.notebook]);
    const closed = r.structuredContent["closedNotebooks"] as Array<{ id: string; name: string }>;
    expect(closed).toEqual(
      expect.arrayContaining([
        { id: shut, name: "Shut away" },
        { id: hidden, name: "Shut and private" },
      ]),
    );
    h.permissions = { default: "delete", notebooks: { [hidden]: "none" } };
    const limited = await h.call("search", { action: "fulltext", query: "zqxclosedword" });
    const names = (limited.structuredContent["closedNotebooks"] as Array<{ id: string }>).map(
      (n) => n.id,
    );
    expect(names).toContain(shut);
    expect(names).not.toContain(hidden);
    await h.client.notebook.openNotebook({ notebook: shut });
    await h.client.notebook.openNotebook({ notebook: hidden });
    await h.client.flush();
  });
});
