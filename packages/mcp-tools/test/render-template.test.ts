/**
 * file.render_template against the sandbox kernel over loopback: SiYuan runs a template for a
 * block (`.action{…}` actions, the block's title, ID, name and alias) and the action answers the
 * result as Markdown an agent can append, saving nothing; a missing template or block is
 * `not_found`, a template that does not parse is `kernel_error` with Go's words, and because a
 * template's SQL functions read every notebook the call needs read on all of them.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { errorCode, useHarness } from "./harness.js";

const h = useHarness();

const MEETING = [
  "# .action{.title}",
  "",
  "- [ ] agenda for .action{.id}",
  "- notes",
  "",
  'Held on .action{toDate "2006-01-02" "2026-03-04" | date "Monday, Jan 2 2006"}, **in person**.',
  "",
  "> .action{if .alias}aka .action{.alias}.action{else}no alias.action{end}",
].join("\n");

let fx: { doc: string; paragraph: string; other: string; otherDoc: string };

beforeAll(async () => {
  const x = h.sandbox.control.external;
  await h.client.file.putFile({ path: "/data/templates/zrt meeting.md", file: MEETING });
  await h.client.file.putFile({
    path: "/data/templates/zrt broken.md",
    file: "x .action{nosuch 1} y",
  });
  const doc = x.createDoc(h.notebook, "/Standup", "first paragraph");
  const other = x.createNotebook("Elsewhere templates");
  const otherDoc = x.createDoc(other, "/Private", "private");
  await h.client.flush();
  const [p] = await h.client.block.getChildBlocks({ id: doc });
  const paragraph = p?.id as string;
  await h.client.attr.setBlockAttrs({ id: paragraph, attrs: { name: "kickoff", alias: "ko" } });
  fx = { doc, paragraph, other, otherDoc };
});

describe("file.render_template", () => {
  it("answers the template SiYuan rendered for a document as Markdown, and saves nothing", async () => {
    h.permissions = { default: "delete" };
    h.sandbox.control.resetLog();
    const r = await h.call("file", {
      action: "render_template",
      name: "zrt meeting.md",
      id: fx.doc,
    });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    expect(r.structuredContent).toEqual({
      name: "zrt meeting.md",
      id: fx.doc,
      // as a real 3.7.3 answers it: Lute keeps the task item and the plain one as two lists
      markdown: [
        "# Standup",
        "",
        `* [ ] agenda for ${fx.doc}`,
        "",
        "- notes",
        "",
        "Held on Wednesday, Mar 4 2026, **in person**.",
        "",
        "> no alias",
      ].join("\n"),
      exact: true,
    });
    expect(h.sandbox.control.count("/api/template/render")).toBe(1);
    expect(h.sandbox.control.count("/api/file/putFile")).toBe(0);
    expect(h.sandbox.control.count("/api/transactions")).toBe(0);
  });

  it("gives a block's name as .title and its alias as .alias", async () => {
    h.permissions = { default: "delete" };
    const r = await h.call("file", {
      action: "render_template",
      name: "zrt meeting.md",
      id: fx.paragraph,
    });
    const markdown = r.structuredContent["markdown"] as string;
    expect(markdown.startsWith("# kickoff\n"), markdown).toBe(true);
    expect(markdown).toContain(`agenda for ${fx.paragraph}`);
    expect(markdown).toContain("> aka ko");
  });

  it("answers not_found for a missing template or block, kernel_error with Go's words for a broken one", async () => {
    h.permissions = { default: "delete" };
    const missing = await h.call("file", {
      action: "render_template",
      name: "zrt none.md",
      id: fx.doc,
    });
    expect(errorCode(missing)).toBe("not_found");
    expect(missing.structuredContent["error"]).toMatchObject({ id: "zrt none.md" });
    const noBlock = await h.call("file", {
      action: "render_template",
      name: "zrt meeting.md",
      id: "20200101000000-zzzzzzz",
    });
    expect(errorCode(noBlock)).toBe("not_found");
    expect(noBlock.structuredContent["error"]).toMatchObject({ id: "20200101000000-zzzzzzz" });
    const broken = await h.call("file", {
      action: "render_template",
      name: "zrt broken.md",
      id: fx.doc,
    });
    expect(errorCode(broken)).toBe("kernel_error");
    const message = (broken.structuredContent["error"] as { message: string }).message;
    expect(message).toContain('function "nosuch" not defined');
    expect(message).not.toContain("&#34;");
  });

  it("answers a failing kernel at either of its two calls as a read that wrote nothing", async () => {
    h.permissions = { default: "delete" };
    for (const endpoint of ["/api/system/getWorkspaceInfo", "/api/template/render"]) {
      const fault = h.sandbox.control.armFault({ endpoint, kind: "http5xx", times: "always" });
      const r = await h.call("file", {
        action: "render_template",
        name: "zrt meeting.md",
        id: fx.doc,
      });
      h.sandbox.control.disarmFault(fault);
      expect(errorCode(r), endpoint).toBe("kernel_unavailable");
      expect(r.structuredContent["error"], endpoint).toMatchObject({ writeAttempted: false });
    }
    const again = await h.call("file", {
      action: "render_template",
      name: "zrt meeting.md",
      id: fx.doc,
    });
    expect(again.isError).toBeUndefined();
  });

  it("refuses a name outside the templates folder before any kernel call", async () => {
    h.sandbox.control.resetLog();
    for (const name of ["../conf/conf.json", "../../x.md", "/abs.md", ".hidden.md"]) {
      const r = await h.call("file", { action: "render_template", name, id: fx.doc });
      expect(errorCode(r), name).toBe("invalid_arguments");
    }
    expect(h.sandbox.control.count("/api/template/render")).toBe(0);
  });

  it("needs read on every notebook, since a template's SQL functions read them all", async () => {
    h.permissions = { default: "delete", notebooks: { [fx.other]: "none" } };
    const r = await h.call("file", {
      action: "render_template",
      name: "zrt meeting.md",
      id: fx.doc,
    });
    expect(errorCode(r)).toBe("permission_denied");
    expect(r.structuredContent["error"]).toMatchObject({ notebook: fx.other, needed: "read" });
    h.permissions = { default: "read" };
    const ok = await h.call("file", {
      action: "render_template",
      name: "zrt meeting.md",
      id: fx.doc,
    });
    expect(ok.isError, JSON.stringify(ok.structuredContent)).toBeUndefined();
    h.permissions = { default: "delete" };
  });
});
