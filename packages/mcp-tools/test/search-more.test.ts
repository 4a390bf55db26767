/**
 * search.refs, search.asset_content and search.semantic against the sandbox kernel over loopback:
 * SiYuan's `((` reference search (the referencing block and its document left out), the text of
 * asset files, and semantic search answering `unsupported` while SiYuan's embedding is off; other
 * notebooks' blocks and the workspace's assets withheld by permission.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { embeddingOn } from "../src/tools/search-more.js";
import { errorCode, useHarness } from "./harness.js";

const h = useHarness();

let fx: { doc: string; heading: string; para: string; other: string; elsewhere: string };

beforeAll(async () => {
  const x = h.sandbox.control.external;
  const doc = x.createDoc(
    h.notebook,
    "/Quokka notes",
    "# Quokka heading\n\nA quokka paragraph\n\nOther text",
  );
  const [heading, para, other] = (await h.client.block.getChildBlocks({ id: doc })).map(
    (c) => c.id,
  ) as [string, string, string];
  const nb = x.createNotebook("Quokka elsewhere");
  const elsewhere = x.createDoc(nb, "/Hidden", "a private quokka");
  await h.client.file.putFile({
    path: "/data/assets/wombat-notes-20240101000000-abcdefg.txt",
    file: "Quarterly wombat report\nsecond line names the wombat again\n",
  });
  await h.client.flush();
  fx = { doc, heading, para, other, elsewhere };
});

type Hit = { id: string; snippet: string; refText?: string; docID: string };
const hits = (r: { structuredContent: Record<string, unknown> }) =>
  r.structuredContent["hits"] as Hit[];

describe("search.refs", () => {
  it("answers the blocks a reference could point to, ranked as the editor ranks them", async () => {
    h.permissions = { default: "delete" };
    const r = await h.call("search", { action: "refs", keyword: "quokka", id: fx.other });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    const mine = hits(r).filter((b) => b.docID === fx.doc);
    expect(mine.map((b) => b.id)).toEqual([fx.heading, fx.para]);
    expect(mine[0]).toMatchObject({
      type: "NodeHeading",
      snippet: "Quokka heading",
      refText: "Quokka heading",
      hpath: `${h.notebookName}/Quokka notes`,
    });
    expect(hits(r).some((b) => b.docID === fx.elsewhere)).toBe(true);
  });

  it("leaves out the referencing block itself", async () => {
    h.permissions = { default: "delete" };
    const r = await h.call("search", { action: "refs", keyword: "quokka", id: fx.para });
    expect(hits(r).map((b) => b.id)).not.toContain(fx.para);
    expect(hits(r).map((b) => b.id)).toContain(fx.heading);
  });

  it("refuses an unknown referencing block and withholds other notebooks' blocks", async () => {
    h.permissions = { default: "delete" };
    expect(
      errorCode(
        await h.call("search", { action: "refs", keyword: "x", id: "20200101000000-zzzzzzz" }),
      ),
    ).toBe("not_found");
    h.permissions = { default: "none", notebooks: { [h.notebook]: "read" } };
    const r = await h.call("search", { action: "refs", keyword: "quokka" });
    expect(hits(r).some((b) => b.docID === fx.elsewhere)).toBe(false);
    expect(r.structuredContent["withheld"]).toBe(1);
    h.permissions = { default: "delete" };
  });
});

describe("search.asset_content", () => {
  it("finds the text inside an asset file, any case, paged", async () => {
    h.permissions = { default: "delete" };
    const r = await h.call("search", { action: "asset_content", query: "WOMBAT" });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    expect(r.structuredContent).toMatchObject({
      hits: [
        {
          path: "assets/wombat-notes-20240101000000-abcdefg.txt",
          name: "wombat-notes.txt",
          ext: ".txt",
          size: 59,
          updated: expect.any(Number),
          snippet: "Quarterly wombat report\nsecond line names the wombat again\n",
        },
      ],
      page: 1,
      pageCount: 1,
      matched: 1,
    });
    const page2 = await h.call("search", {
      action: "asset_content",
      query: "wombat",
      page: 2,
      pageSize: 1,
    });
    expect(page2.structuredContent).toMatchObject({ hits: [], matched: 1, pageCount: 1 });
    const none = await h.call("search", { action: "asset_content", query: "zzqqy" });
    expect(none.structuredContent).toMatchObject({ hits: [], matched: 0 });
  });

  it("withholds the workspace's assets without the default read permission", async () => {
    h.permissions = { default: "none", notebooks: { [h.notebook]: "read" } };
    const r = await h.call("search", { action: "asset_content", query: "wombat" });
    expect(r.structuredContent).toMatchObject({ hits: [], withheld: 1 });
    h.permissions = { default: "delete" };
  });
});

describe("search.semantic", () => {
  it("answers unsupported while SiYuan's embedding is off, without a search call", async () => {
    h.permissions = { default: "delete" };
    const before = h.sandbox.control.count("/api/search/semanticSearchBlock");
    const r = await h.call("search", { action: "semantic", query: "marsupials" });
    expect(errorCode(r)).toBe("unsupported");
    expect(r.structuredContent["error"]).toMatchObject({ reason: "embedding_off" });
    expect(h.sandbox.control.count("/api/search/semanticSearchBlock")).toBe(before);
  });

  it("counts the embedding on only when it is enabled with an API key", () => {
    const conf = (embedding: unknown) => ({ ai: { embedding } });
    expect(embeddingOn(conf({ enabled: true, apiKey: "k" }))).toBe(true);
    expect(embeddingOn(conf({ enabled: true, apiKey: "" }))).toBe(false);
    expect(embeddingOn(conf({ enabled: false, apiKey: "k" }))).toBe(false);
    expect(embeddingOn({})).toBe(false);
  });
});
