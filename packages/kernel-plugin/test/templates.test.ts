/**
 * Templates at the kernel authority: the built plugin in the sandbox's plugin host (goja's
 * language level) reads a template and has SiYuan render it for a document, over the official MCP
 * client on its route; rendering saves nothing.
 */
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { describe, expect, it } from "vitest";
import { kernelClient, putWorkspaceFile, sc, useSandboxWithPlugin } from "./harness.js";

const box = useSandboxWithPlugin();

const TEMPLATE = '## .action{.title}\n\n- [ ] review .action{.id}\n\n.action{upper "done"}';

async function putTemplate(name: string, text: string): Promise<void> {
  await putWorkspaceFile(box.current, `/data/templates/${name}`, text);
}

describe("templates at the kernel authority", () => {
  it("reads a template and renders it for a document as Markdown, writing nothing", async () => {
    await putTemplate("weekly review.md", TEMPLATE);
    const client = await kernelClient(box.current);
    const call = async (args: Record<string, unknown>) =>
      sc(await client.callTool({ name: "file", arguments: args }));
    const read = await call({ action: "read_template", name: "weekly review.md" });
    expect(read).toEqual({ name: "weekly review.md", content: TEMPLATE });

    box.current.control.resetLog();
    const rendered = await call({
      action: "render_template",
      name: "weekly review.md",
      id: DEMO_IDS.docPlan,
    });
    expect(rendered).toEqual({
      name: "weekly review.md",
      id: DEMO_IDS.docPlan,
      markdown: `## Project Plan\n\n* [ ] review ${DEMO_IDS.docPlan}\n\nDONE`,
      exact: true,
    });
    expect(box.current.control.count("/api/template/render")).toBe(1);
    expect(box.current.control.count("/api/transactions")).toBe(0);

    const missing = await call({
      action: "render_template",
      name: "nope.md",
      id: DEMO_IDS.docPlan,
    });
    expect(missing["error"]).toMatchObject({ code: "not_found", id: "nope.md" });
    await client.close();
  });
});
