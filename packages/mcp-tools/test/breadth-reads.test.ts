/**
 * The reads of issue 34 against the sandbox kernel over loopback: block.batch_kramdown,
 * block.word_count, block.recent_updated, file.list_templates, file.doc_assets and
 * system.current_time. Named blocks in a notebook the caller may not read refuse the call; the
 * workspace-wide list withholds them.
 */
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { errorCode, useHarness } from "./harness.js";

const UNKNOWN = "20200101000000-zzzzzzz";

const h = useHarness();

let fx: {
  other: string;
  doc: string;
  counted: string;
  second: string;
  withAssets: string;
  otherDoc: string;
  otherBlock: string;
};

beforeAll(async () => {
  const x = h.sandbox.control.external;
  const other = x.createNotebook("Elsewhere reads");
  const doc = x.createDoc(
    h.notebook,
    "/Breadth reads",
    "Hello world 你好 [link](https://x.y)\n\nSecond `code` #tag#",
  );
  const withAssets = x.createDoc(
    h.notebook,
    "/Breadth assets",
    "![i](assets/x.png) and [f](assets/doc.pdf?p=1) and [web](https://x.y/a.png)\n\n[again](assets/x.png)",
  );
  const otherDoc = x.createDoc(other, "/Private reads", "private text");
  await h.client.flush();
  const [counted, second] = await h.client.block.getChildBlocks({ id: doc });
  const [otherBlock] = await h.client.block.getChildBlocks({ id: otherDoc });
  fx = {
    other,
    doc,
    counted: counted?.id as string,
    second: second?.id as string,
    withAssets,
    otherDoc,
    otherBlock: otherBlock?.id as string,
  };
});

afterEach(() => {
  h.permissions = { default: "delete" };
});

const denyOther = () => {
  h.permissions = { default: "delete", notebooks: { [fx.other]: "none" } };
};

describe("block.batch_kramdown", () => {
  it("answers each block's Kramdown by ID, in the order asked, and lists unknown IDs", async () => {
    const r = await h.call("block", {
      action: "batch_kramdown",
      ids: [fx.second, fx.counted, UNKNOWN, fx.second],
    });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    const k = r.structuredContent["kramdowns"] as Record<string, string>;
    expect(Object.keys(k)).toEqual([fx.second, fx.counted]);
    expect(k[fx.counted]).toContain("Hello world 你好 [link](https://x.y)");
    expect(k[fx.counted]).toContain(`{: id="${fx.counted}"`);
    expect(k[fx.second]).toContain("Second `code` #tag#");
    expect(r.structuredContent["missing"]).toEqual([UNKNOWN]);
  });

  it("leaves missing out when every block exists", async () => {
    const r = await h.call("block", { action: "batch_kramdown", ids: [fx.doc] });
    expect(Object.keys(r.structuredContent["kramdowns"] as object)).toEqual([fx.doc]);
    expect(r.structuredContent).not.toHaveProperty("missing");
  });

  it("refuses when one block is in a notebook the caller may not read", async () => {
    denyOther();
    const r = await h.call("block", { action: "batch_kramdown", ids: [fx.counted, fx.otherBlock] });
    expect(errorCode(r)).toBe("permission_denied");
    expect(JSON.stringify(r.structuredContent)).not.toContain("private");
  });

  it("refuses no IDs, more than 64 and malformed ones before any kernel call", async () => {
    const before = h.sandbox.control.count("/api/block/getBlockKramdowns");
    for (const ids of [[], Array.from({ length: 65 }, () => fx.counted), ["nope"]]) {
      const r = await h.call("block", { action: "batch_kramdown", ids });
      expect(errorCode(r), JSON.stringify(ids).slice(0, 40)).toBe("invalid_arguments");
    }
    expect(h.sandbox.control.count("/api/block/getBlockKramdowns")).toBe(before);
  });
});

describe("block.word_count", () => {
  it("answers SiYuan's counts of one block", async () => {
    const r = await h.call("block", { action: "word_count", ids: [fx.counted] });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    // Hello(5) world(5) 你好(2) link(4): 16 runes; 你 and 好 are a word each
    expect(r.structuredContent).toEqual({
      runeCount: 16,
      wordCount: 5,
      linkCount: 1,
      imageCount: 0,
      refCount: 0,
      blocks: 1,
    });
  });

  it("sums a document's blocks, counts a repeated ID once and lists unknown IDs", async () => {
    const one = await h.call("block", { action: "word_count", ids: [fx.doc] });
    const again = await h.call("block", {
      action: "word_count",
      ids: [fx.doc, fx.doc, UNKNOWN],
    });
    // the second paragraph as Lute counts it: Second(6) code(4) tag(3), a zero-width space after
    // the code and the tag
    expect(one.structuredContent).toMatchObject({ runeCount: 16 + 6 + 5 + 4, blocks: 1 });
    const { missing, ...counts } = again.structuredContent;
    expect(counts).toEqual(one.structuredContent);
    expect(missing).toEqual([UNKNOWN]);
  });

  it("answers not_found when no block exists, sending no count", async () => {
    const before = h.sandbox.control.count("/api/block/getBlocksWordCount");
    const r = await h.call("block", { action: "word_count", ids: [UNKNOWN] });
    expect(errorCode(r)).toBe("not_found");
    expect(h.sandbox.control.count("/api/block/getBlocksWordCount")).toBe(before);
  });

  it("refuses a block in a notebook the caller may not read", async () => {
    denyOther();
    const r = await h.call("block", { action: "word_count", ids: [fx.otherDoc] });
    expect(errorCode(r)).toBe("permission_denied");
  });
});

describe("block.recent_updated", () => {
  let fresh: { doc: string; block: string };
  beforeAll(async () => {
    // `updated` has one-second steps and the list stops at 16: the paragraph written in a second
    // of its own comes first, whatever the seed wrote
    const second = Math.floor((await h.client.system.currentTime()) / 1000);
    await waitFor(async () => Math.floor((await h.client.system.currentTime()) / 1000) > second, {
      what: "the kernel's clock in the next second",
    });
    const doc = h.sandbox.control.external.createDoc(fx.other, "/Fresh", "private a < b text");
    await h.client.flush();
    const [block] = await h.client.block.getChildBlocks({ id: doc });
    fresh = { doc, block: block?.id as string };
  });

  it("lists the paragraphs updated last, compact, with their documents", async () => {
    const r = await h.call("block", { action: "recent_updated" });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    const blocks = r.structuredContent["blocks"] as Array<Record<string, unknown>>;
    expect(blocks.length).toBeGreaterThan(0);
    expect(blocks.length).toBeLessThanOrEqual(16);
    expect(new Set(blocks.map((b) => b["id"])).size).toBe(blocks.length);
    expect(blocks[0]).toEqual({
      id: fresh.block,
      docID: fresh.doc,
      notebook: fx.other,
      hpath: "/Fresh",
      snippet: "private a < b text",
      updated: expect.stringMatching(/^\d{14}$/),
    });
    expect(r.structuredContent).not.toHaveProperty("withheld");
  });

  it("withholds paragraphs of notebooks the caller may not read", async () => {
    denyOther();
    const r = await h.call("block", { action: "recent_updated" });
    const blocks = r.structuredContent["blocks"] as Array<Record<string, unknown>>;
    expect(blocks.some((b) => b["notebook"] === fx.other)).toBe(false);
    expect(r.structuredContent["withheld"]).toBeGreaterThan(0);
    expect(JSON.stringify(r.structuredContent)).not.toContain("private");
  });
});

describe("file.list_templates", () => {
  beforeAll(async () => {
    for (const [path, text] of [
      ["/data/templates/weekly review.md", "# Week"],
      ["/data/templates/daily.md", "# Day"],
      ["/data/templates/notes.txt", "not a template"],
      ["/data/templates/projects/kickoff.md", "# Kickoff"],
    ] as const) {
      await h.client.file.putFile({ path, file: text });
    }
  });

  it("names every template under data/templates/ without the kernel's absolute paths", async () => {
    const r = await h.call("file", { action: "list_templates" });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    const names = r.structuredContent["templates"] as string[];
    expect([...names].sort()).toEqual(["daily.md", "projects/kickoff.md", "weekly review.md"]);
    expect(JSON.stringify(r.structuredContent)).not.toContain("/siyuan/workspace");
  });

  it("keeps the templates whose path holds every word of the keyword", async () => {
    const week = await h.call("file", { action: "list_templates", keyword: "WEEK review" });
    expect(week.structuredContent["templates"]).toEqual(["weekly review.md"]);
    const folder = await h.call("file", { action: "list_templates", keyword: "projects" });
    expect(folder.structuredContent["templates"]).toEqual(["projects/kickoff.md"]);
    const none = await h.call("file", { action: "list_templates", keyword: "nothing" });
    expect(none.structuredContent["templates"]).toEqual([]);
  });
});

describe("file.doc_assets", () => {
  it("lists the document's asset links once each, in order, for any of its blocks", async () => {
    const r = await h.call("file", { action: "doc_assets", id: fx.withAssets });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    expect(r.structuredContent).toEqual({
      id: fx.withAssets,
      assets: ["assets/x.png", "assets/doc.pdf?p=1"],
    });
    const none = await h.call("file", { action: "doc_assets", id: fx.doc });
    expect(none.structuredContent).toEqual({ id: fx.doc, assets: [] });
  });

  it("answers not_found for an unknown ID and refuses another notebook's document", async () => {
    const r = await h.call("file", { action: "doc_assets", id: UNKNOWN });
    expect(errorCode(r)).toBe("not_found");
    denyOther();
    const denied = await h.call("file", { action: "doc_assets", id: fx.otherDoc });
    expect(errorCode(denied)).toBe("permission_denied");
  });
});

describe("file.list_unused_assets", () => {
  beforeAll(async () => {
    for (const path of [
      "/data/assets/unused-linked.png",
      "/data/assets/unused-alone.png",
      `/data/${fx.other}/assets/unused-private.png`,
    ]) {
      await h.client.file.putFile({ path, file: path });
    }
    h.sandbox.control.external.createDoc(
      h.notebook,
      "/Links one",
      "![l](assets/unused-linked.png)",
    );
    await h.client.flush();
  });

  const paths = (r: { structuredContent: Record<string, unknown> }) =>
    (r.structuredContent["assets"] as Array<{ path: string }>).map((a) => a.path);

  it("lists the assets no document links, a notebook's by its notebook folder", async () => {
    const r = await h.call("file", { action: "list_unused_assets", pageSize: 64 });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    const all = paths(r);
    expect(all).toContain("assets/unused-alone.png");
    expect(all).toContain(`${fx.other}/assets/unused-private.png`);
    expect(all).not.toContain("assets/unused-linked.png");
    expect(r.structuredContent["assets"]).toContainEqual({
      path: "assets/unused-alone.png",
      name: "unused-alone.png",
    });
    expect(r.structuredContent).toMatchObject({ page: 1, pageSize: 64, total: all.length });
    expect(r.structuredContent).not.toHaveProperty("capped");
  });

  it("pages the list", async () => {
    const all = paths(await h.call("file", { action: "list_unused_assets", pageSize: 64 }));
    const p2 = await h.call("file", { action: "list_unused_assets", pageSize: 1, page: 2 });
    expect(paths(p2)).toEqual([all[1]]);
    expect(p2.structuredContent).toMatchObject({ pageCount: all.length, total: all.length });
  });

  it("withholds the assets of notebooks the caller may not read", async () => {
    denyOther();
    const r = await h.call("file", { action: "list_unused_assets", pageSize: 64 });
    expect(paths(r)).toContain("assets/unused-alone.png");
    expect(paths(r).some((p) => p.startsWith(fx.other))).toBe(false);
    expect(r.structuredContent).toMatchObject({ withheld: 1 });
  });
});

describe("system.current_time", () => {
  it("answers the kernel's clock in Unix milliseconds and as ISO 8601", async () => {
    const before = await h.client.system.currentTime();
    const r = await h.call("system", { action: "current_time" });
    const after = await h.client.system.currentTime();
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    const { unixMs, iso } = r.structuredContent as { unixMs: number; iso: string };
    expect(unixMs).toBeGreaterThanOrEqual(before);
    expect(unixMs).toBeLessThanOrEqual(after);
    expect(iso).toBe(new Date(unixMs).toISOString());
  });
});
