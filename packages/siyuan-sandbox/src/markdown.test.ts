import { describe, expect, it } from "vitest";
import { type Block, walk } from "./block.js";
import { IdIssuer, isValidNodeId, seededRandom, steppingClock } from "./clock.js";
import { domToMarkdown } from "./dom-input.js";
import { parseIalLine, parseInline, parseMarkdown } from "./markdown.js";
import { renderDom, renderKramdown } from "./render.js";
import { applyDefaultLimit, countStatements } from "./sql-index.js";
import { Workspace } from "./workspace.js";

const ws = () => new Workspace(new IdIssuer(steppingClock(), seededRandom(7), true));

const strip = (b: Block): unknown => ({
  type: b.type,
  subtype: b.subtype,
  text: b.text,
  attrs: b.attrs,
  checked: b.checked,
  children: b.children.map(strip),
});

describe("markdown parser", () => {
  it("parses headings, paragraphs, lists, tasks, quotes, code, math, hr with IAL lines", () => {
    const md = [
      "# Title",
      '{: id="20260101120000-aaaaaaa" custom-a="1"}',
      "",
      "para **b** *i*",
      "continued",
      "",
      "- one",
      "- [x] two",
      "",
      "1. first",
      "2. second",
      "",
      "> quoted",
      "",
      "```js",
      "let x = 1;",
      "```",
      "",
      "$$",
      "a^2",
      "$$",
      "",
      "---",
    ].join("\n");
    const { blocks } = parseMarkdown(md);
    // a plain item then a task item: two lists, as Lute makes them
    expect(blocks.map((b) => b.type)).toEqual(["h", "p", "l", "l", "l", "b", "c", "m", "tb"]);
    expect(blocks[0]).toMatchObject({
      subtype: "h1",
      text: "Title",
      attrs: { id: "20260101120000-aaaaaaa", "custom-a": "1" },
    });
    expect(blocks[1]!.text).toBe("para **b** *i*\ncontinued");
    expect(blocks[2]!.subtype).toBe("u");
    expect(blocks[2]!.children).toHaveLength(1);
    expect(blocks[3]!.subtype).toBe("t");
    expect(blocks[3]!.children[0]!.checked).toBe(true);
    expect(blocks[4]!.subtype).toBe("o");
    expect(blocks[6]).toMatchObject({ lang: "js", text: "let x = 1;" });
    expect(blocks[7]!.text).toBe("a^2");
  });

  it("a second IAL after a block's own IAL goes to the container (document IAL)", () => {
    const r = parseMarkdown(
      'p\n{: id="20260101120000-aaaaaaa"}\n\n{: id="20260101120000-docdocd" title="T"}',
    );
    expect(r.blocks).toHaveLength(1);
    expect(r.trailingAttrs).toEqual({ id: "20260101120000-docdocd", title: "T" });
  });

  it("IAL values are unescaped", () => {
    expect(parseIalLine('{: custom-x="a &quot;b&quot; &lt;c&gt;_esc_newline_d"}')).toEqual({
      "custom-x": 'a "b" <c>\nd',
    });
  });

  it("kramdown round-trips through the parser (structure, text, attributes)", () => {
    const w = ws();
    const md =
      '# H\n\nA **b** ((20260101120000-abcdefg "ref")) #tag#\n\n* x\n  * nested\n* [ ] no\n\n> q1\n>\n> q2\n\n1. a\n2. b';
    const blocks = w.blocksFromMarkdown(md);
    const doc: Block = {
      ...blocks[0]!,
      type: "d",
      id: "20260101120000-docdocd",
      attrs: { id: "20260101120000-docdocd" },
      children: blocks,
    };
    const k1 = renderKramdown(doc);
    const reparsed = parseMarkdown(k1);
    expect(reparsed.blocks.map(strip)).toEqual(blocks.map(strip));
    expect(reparsed.trailingAttrs).toEqual({ id: "20260101120000-docdocd" });
  });

  it("materialize keeps valid unused IAL IDs and issues SiYuan-format IDs", () => {
    const w = ws();
    const blocks = w.blocksFromMarkdown('a\n{: id="20260101120000-keepme1"}\n\nb');
    expect(blocks[0]!.id).toBe("20260101120000-keepme1");
    expect(isValidNodeId(blocks[1]!.id)).toBe(true);
    expect(blocks[1]!.attrs.updated).toBe(blocks[1]!.id.slice(0, 14));
    walk(blocks[0]!, (n) => expect(n.attrs.id).toBe(n.id));
  });
});

describe("inline", () => {
  it("marks, nesting, refs, links, code, tags", () => {
    const segs = parseInline(
      "a ***bi*** `c*` ((20260101120000-abcdefg 'd&apos;x')) [l](http://x) #t# ~~s~~ ==m==",
    );
    const types = segs.filter((s) => s.types.length > 0).map((s) => [s.text, s.types.join(" ")]);
    expect(types).toEqual([
      ["bi", "strong em"],
      ["c*", "code"],
      ["d'x", "block-ref"],
      ["l", "a"],
      ["t", "tag"],
      ["s", "s"],
      ["m", "mark"],
    ]);
    expect(segs.find((s) => s.refId)!.refSubtype).toBe("d");
  });

  it("DOM spans and back to markdown", () => {
    const w = ws();
    const [p] = w.blocksFromMarkdown(
      'x **b** *i* ((20260101120000-abcdefg "r")) [l](u)\n{: custom-k="v"}',
    );
    const dom = renderDom(p!, 1);
    expect(dom).toMatch(
      /^<div data-node-id="[^"]+" data-node-index="1" data-type="NodeParagraph" class="p" updated="\d{14}" custom-k="v">/,
    );
    const back = parseMarkdown(domToMarkdown(dom)).blocks[0]!;
    expect(back.text).toBe('x **b** *i* ((20260101120000-abcdefg "r")) [l](u)');
    expect(back.attrs).toMatchObject({ id: p!.id, "custom-k": "v" });
  });
});

describe("SQL helpers", () => {
  it("adds LIMIT 64 textually only when absent", () => {
    expect(applyDefaultLimit("SELECT * FROM blocks")).toBe("SELECT * FROM blocks LIMIT 64");
    expect(applyDefaultLimit("SELECT * FROM blocks ;  ")).toBe("SELECT * FROM blocks LIMIT 64");
    expect(applyDefaultLimit("SELECT * FROM blocks limit 3")).toBe("SELECT * FROM blocks limit 3");
  });
  it("counts statements outside quotes", () => {
    expect(countStatements("select ';'; select 2;")).toBe(2);
    expect(countStatements("select 1;")).toBe(1);
  });
});
