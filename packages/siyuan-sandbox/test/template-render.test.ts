/**
 * `/api/template/render` and `/api/system/getWorkspaceInfo` over loopback HTTP, as SiYuan 3.7.3
 * answers them (kernel-probes `template.render.*`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../src/index.js";
import { DEMO_IDS } from "../src/seed.js";
import { type Envelope, ok, post, start, TOKEN } from "./helpers.js";

let sb: Sandbox;
let dir: string;
beforeAll(async () => {
  sb = await start();
  dir = (await ok<{ workspaceDir: string }>(sb, "/api/system/getWorkspaceInfo", {})).workspaceDir;
});
afterAll(() => sb.stop());

async function putTemplate(name: string, text: string): Promise<void> {
  const form = new FormData();
  form.set("path", `/data/templates/${name}`);
  form.set("file", new Blob([text]), name);
  const res = await fetch(`${sb.url}/api/file/putFile`, {
    method: "POST",
    headers: { authorization: `Token ${TOKEN}` },
    body: form,
  });
  expect(((await res.json()) as Envelope).code).toBe(0);
}

const render = (body: Record<string, unknown>) =>
  post<{ path: string; content: string } | null>(sb, "/api/template/render", body);

/** The rendered DOM's text with the tags and zero-width spaces taken out. */
const text = (dom: string): string => dom.replace(/<[^>]+>/g, "").replace(/\u200b/g, "");

describe("getWorkspaceInfo", () => {
  it("answers the workspace's absolute path and the kernel version", async () => {
    const r = await post(sb, "/api/system/getWorkspaceInfo", {});
    expect(r.body).toEqual({
      code: 0,
      msg: "",
      data: { workspaceDir: "/siyuan/workspace", siyuanVer: "3.7.3" },
    });
    expect(dir).toBe("/siyuan/workspace");
    // it reads no body
    const raw = await post(sb, "/api/system/getWorkspaceInfo", undefined, { rawBody: "not json" });
    expect(raw.body.code).toBe(0);
  });
});

describe("template/render", () => {
  it("runs the template on the block's data and answers block DOM with fresh IDs", async () => {
    await putTemplate(
      "t-data.md",
      "# .action{.title}\n\nid=.action{.id} x=.action{.nope}\n\n- [x] done",
    );
    const path = `${dir}/data/templates/t-data.md`;
    const r = await render({ id: DEMO_IDS.docPlan, path, preview: true });
    expect(r.body.code).toBe(0);
    expect(r.body.data?.path).toBe(path);
    const dom = r.body.data?.content ?? "";
    expect(text(dom)).toBe(`Project Planid=${DEMO_IDS.docPlan} x=&lt;no value&gt;done`);
    expect(dom).toMatch(
      /^<div data-subtype="h1" data-node-id="\d{14}-[a-z0-9]{7}" data-node-index="1" data-type="NodeHeading" class="h1" updated="\d{14}">/,
    );
    expect(dom).toContain('data-subtype="t" data-task="X" data-node-id=');
    // every block's ID is new
    const ids = [...dom.matchAll(/data-node-id="([^"]+)"/g)].map((m) => m[1]);
    expect(ids).toHaveLength(5);
    expect(new Set(ids).size).toBe(5);
    expect(ids).not.toContain(DEMO_IDS.docPlan);
  });

  it("HTML-unescapes the block's name and alias, not a document's title", async () => {
    await ok(sb, "/api/attr/setBlockAttrs", {
      id: DEMO_IDS.docPlan,
      attrs: { name: 'n<1> "q" &amp; &#65;', alias: "a,b & c" },
    });
    await putTemplate("t-esc.md", ".action{len .name} .action{len .alias} .action{.name}");
    const r = await render({ id: DEMO_IDS.docPlan, path: `${dir}/data/templates/t-esc.md` });
    expect(text(r.body.data?.content ?? "")).toBe("12 7 n&lt;1&gt; &quot;q&quot; &amp; A");
    await ok(sb, "/api/attr/setBlockAttrs", {
      id: DEMO_IDS.docPlan,
      attrs: { name: "", alias: "" },
    });
  });

  it("writes code blocks and inline code as Lute's editor DOM does", async () => {
    await putTemplate("t-code.md", "a `c` b\n\n```js\nlet x = 1 < 2;\n```");
    const r = await render({ id: DEMO_IDS.docPlan, path: `${dir}/data/templates/t-code.md` });
    const dom = r.body.data?.content ?? "";
    expect(dom).toContain('a <span data-type="code">\u200bc</span>\u200b b');
    expect(dom).toContain(
      '<div class="hljs"><div></div><div contenteditable="true" style="flex: 1" spellcheck="false">let x = 1 &lt; 2;\n</div></div>',
    );
    expect(dom).toContain("protyle-action__copy");
    await putTemplate("t-diagram.md", "```mermaid\ngraph TD\n```\n\n```\n```");
    const d = await render({ id: DEMO_IDS.docPlan, path: `${dir}/data/templates/t-diagram.md` });
    const diagram = d.body.data?.content ?? "";
    expect(diagram).toMatch(
      /data-type="NodeCodeBlock" class="render-node" updated="\d{14}" data-content="graph TD" data-subtype="mermaid"><div spin="1"><\/div>/,
    );
    // an empty code block has no final newline
    expect(diagram).toContain('style="flex: 1" spellcheck="false"></div></div>');
  });

  it("reads the output as Lute does where the sandbox's other readers differ", async () => {
    await putTemplate(
      "t-lute.md",
      "   ab &amp; &copy; 'q'\n  cont\n\n3. three\n4. four\n\n> \n\n$$\nx\n$$",
    );
    const r = await render({ id: DEMO_IDS.docPlan, path: `${dir}/data/templates/t-lute.md` });
    const dom = r.body.data?.content ?? "";
    expect(dom).toContain(">   ab &amp; \u00a9 'q'\n  cont</div>");
    expect(dom).toContain('data-marker="3."');
    expect(dom).toContain('data-marker="4."');
    // an empty quote gets an empty paragraph
    expect(dom).toMatch(
      /class="bq" updated="\d{14}"><div data-node-id="[^"]+" data-type="NodeParagraph"/,
    );
    expect(dom).toMatch(
      /class="render-node" updated="\d{14}" data-content="x" data-subtype="math"/,
    );
  });

  it("refuses Markdown it would render differently from Lute, by name", async () => {
    const cases: Array<[string, string]> = [
      ["| a | b |\n|---|---|\n| 1 | 2 |", "a table"],
      ["<div>x</div>", "an HTML block"],
      ["![i](assets/x.png)", "an image"],
      ["#tag#", "a tag"],
      ["a_b_c", "emphasis with underscores"],
      ["a \\* b", "a backslash escape"],
      ["{{{row\na\n}}}", "a super block or an embed"],
      ["> [!NOTE]\n> x", "a callout"],
      ["---\ntitle: x\n---\n", "YAML front matter"],
    ];
    for (const [k, [md, what]] of cases.entries()) {
      await putTemplate(`t-refuse-${k}.md`, md);
      const r = await render({
        id: DEMO_IDS.docPlan,
        path: `${dir}/data/templates/t-refuse-${k}.md`,
      });
      expect([r.body.code, r.body.msg]).toEqual([
        -1,
        `siyuan-sandbox: ${what} in a template's output is not modelled`,
      ]);
    }
  });

  it("answers template errors in Language(44)'s words, HTML-escaped", async () => {
    await putTemplate("t-err.md", "a .action{nosuchfunc 1}");
    const r = await render({ id: DEMO_IDS.docPlan, path: `${dir}/data/templates/t-err.md` });
    expect(r.body).toEqual({
      code: -1,
      msg: "Parse template failed: template: :1: function &#34;nosuchfunc&#34; not defined",
      data: null,
    });
  });

  it("refuses what it does not model by name", async () => {
    await putTemplate("t-sql.md", '.action{queryBlocks "SELECT * FROM blocks"}');
    const r = await render({ id: DEMO_IDS.docPlan, path: `${dir}/data/templates/t-sql.md` });
    expect(r.body.code).toBe(-1);
    expect(r.body.msg).toBe("siyuan-sandbox: template function [queryBlocks] is not modelled");
  });

  it("checks its arguments as the kernel does", async () => {
    await putTemplate("t-ok.md", "ok");
    const path = `${dir}/data/templates/t-ok.md`;
    const msg = async (body: Record<string, unknown>) => {
      const r = await render(body);
      return [r.body.code, r.body.msg];
    };
    expect(await msg({ id: "bad", path })).toEqual([-1, "invalid ID argument"]);
    expect(await msg({ id: "20200101000000-zzzzzzz", path })).toEqual([-1, "tree not found"]);
    expect(await msg({ id: DEMO_IDS.docPlan, path: "/etc/passwd" })).toEqual([
      -1,
      "Path [/etc/passwd] is not in workspace",
    ]);
    expect(await msg({ id: DEMO_IDS.docPlan, path: dir })).toEqual([
      -1,
      `Path [${dir}] is not in workspace`,
    ]);
    expect(await msg({ id: DEMO_IDS.docPlan, path: `${dir}/data/templates/none.md` })).toEqual([
      -1,
      `open ${dir}/data/templates/none.md: no such file or directory`,
    ]);
    expect(await msg({ id: DEMO_IDS.docPlan, path: `${dir}/data/templates` })).toEqual([
      -1,
      `read ${dir}/data/templates: is a directory`,
    ]);
    expect(await msg({ path })).toEqual([0, ""]);
    expect(await msg({ id: DEMO_IDS.docPlan, path, preview: 1 })).toEqual([0, ""]);
    expect((await render({ id: DEMO_IDS.docPlan, path, preview: false })).body.code).toBe(0);
  });
});
