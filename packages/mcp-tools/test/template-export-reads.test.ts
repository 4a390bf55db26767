/**
 * file.read_template and file.export_md against the sandbox kernel over loopback: a template's
 * stored Markdown by the name file.list_templates answers (folders included), and a document as
 * SiYuan exports it to Markdown — whole documents only, on a notebook the caller may read.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { errorCode, useHarness } from "./harness.js";

const h = useHarness();

const TEMPLATE = '# Week {{.title}}\n\n- [ ] {{now | date "2006-01-02"}}\n';

let fx: { other: string; doc: string; paragraph: string; otherDoc: string };

beforeAll(async () => {
  const x = h.sandbox.control.external;
  await h.client.file.putFile({ path: "/data/templates/zr weekly.md", file: TEMPLATE });
  await h.client.file.putFile({ path: "/data/templates/zrfold/inner.md", file: "inner {{.id}}" });
  const other = x.createNotebook("Elsewhere exports");
  const doc = x.createDoc(h.notebook, "/Exported", "first **bold**\n\nsecond");
  const otherDoc = x.createDoc(other, "/Private export", "private");
  await h.client.flush();
  const [p] = await h.client.block.getChildBlocks({ id: doc });
  fx = { other, doc, paragraph: p?.id as string, otherDoc };
});

describe("file.read_template", () => {
  it("reads a template by the name list_templates gives it, folders included, unrendered", async () => {
    h.permissions = { default: "delete" };
    const listed = await h.call("file", { action: "list_templates", keyword: "zr" });
    const names = listed.structuredContent["templates"] as string[];
    expect(names).toContain("zrfold/inner.md");
    expect(names).toContain("zr weekly.md");
    const r = await h.call("file", { action: "read_template", name: "zr weekly.md" });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    expect(r.structuredContent).toEqual({ name: "zr weekly.md", content: TEMPLATE });
    const inner = await h.call("file", { action: "read_template", name: "zrfold/inner.md" });
    expect(inner.structuredContent).toEqual({ name: "zrfold/inner.md", content: "inner {{.id}}" });
  });

  it("answers not_found for a template that does not exist", async () => {
    const r = await h.call("file", { action: "read_template", name: "zr missing.md" });
    expect(errorCode(r)).toBe("not_found");
  });

  it("refuses a name that leaves the templates folder or is not a .md file, before any kernel call", async () => {
    h.sandbox.control.resetLog();
    for (const name of [
      "../conf/conf.json",
      "../../conf/x.md",
      "/abs.md",
      ".hidden.md",
      "a//b.md",
    ]) {
      const r = await h.call("file", { action: "read_template", name });
      expect(errorCode(r), name).toBe("invalid_arguments");
    }
    expect(h.sandbox.control.count("/api/file/getFile")).toBe(0);
  });
});

describe("file.export_md", () => {
  it("answers a document as SiYuan exports it: front matter, title, Markdown without IALs", async () => {
    h.permissions = { default: "delete" };
    const r = await h.call("file", { action: "export_md", id: fx.doc });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    const { id, hpath, markdown } = r.structuredContent as Record<string, string>;
    expect({ id, hpath }).toEqual({ id: fx.doc, hpath: "/Exported" });
    expect(markdown).toMatch(/^---\ntitle: Exported\n/);
    expect(markdown).toContain("# Exported\n\nfirst **bold**\n\nsecond\n");
    expect(markdown).not.toContain("{:");
    const direct = await h.client.export.exportMdContent({ id: fx.doc });
    expect(markdown).toBe(direct.content);
  });

  it("refuses a block inside a document, naming the document, and an unknown ID", async () => {
    h.permissions = { default: "delete" };
    const para = await h.call("file", { action: "export_md", id: fx.paragraph });
    expect(errorCode(para)).toBe("invalid_arguments");
    expect(para.structuredContent["error"]).toMatchObject({ docID: fx.doc });
    const unknown = await h.call("file", { action: "export_md", id: "20200101000000-zzzzzzz" });
    expect(errorCode(unknown)).toBe("not_found");
  });

  it("refuses a document in a notebook the caller may not read", async () => {
    h.permissions = { default: "delete", notebooks: { [fx.other]: "none" } };
    const r = await h.call("file", { action: "export_md", id: fx.otherDoc });
    expect(errorCode(r)).toBe("permission_denied");
    h.permissions = { default: "delete" };
  });
});
