import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Block, newBlock } from "./block.js";
import { IdIssuer, seededRandom, steppingClock } from "./clock.js";
import { parseMarkdown } from "./markdown.js";
import { renderKramdown } from "./render.js";
import { Workspace } from "./workspace.js";

const TOKENS = [
  "word",
  "**b**",
  "*i*",
  "`c`",
  "#t#",
  "~~s~~",
  "==m==",
  "x_y",
  "a*b",
  "[l](u)",
  " ",
  " ",
  " ",
  "\n",
  "\n\n",
  "# ",
  "## ",
  "* ",
  "- ",
  "1. ",
  "> ",
  "- [ ] ",
  "  * ",
  "---",
  "```\ncode\n```",
  "$$\nm\n$$",
  '\n{: custom-a="1"}\n',
  '((20260101120000-abcdefg "r"))',
  "\\",
  "> > ",
  "    ",
  "\t",
  "{",
  "}",
  '"',
  "<u>u</u>",
];

const doc = (blocks: Block[]): Block => {
  const d = newBlock("d", {
    id: "20260101120000-docdocd",
    attrs: { id: "20260101120000-docdocd" },
  });
  d.children = blocks;
  return d;
};

describe("kramdown round trip (property)", () => {
  it("render(parse(render(parse(md)))) is a fixed point, IDs and attributes included", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...TOKENS), { maxLength: 40 }), (tokens) => {
        const ws = new Workspace(new IdIssuer(steppingClock(), seededRandom(3), true));
        const md = tokens.join("");
        const k1 = renderKramdown(doc(ws.blocksFromMarkdown(md)));
        const ws2 = new Workspace(new IdIssuer(steppingClock(), seededRandom(99), true));
        const parsed = parseMarkdown(k1);
        const k2 = renderKramdown(
          doc(ws2.materialize(parsed.blocks.length > 0 ? parsed.blocks : [newBlock("p")])),
        );
        expect(k2).toBe(k1);
      }),
      { numRuns: 500 },
    );
  });
});
