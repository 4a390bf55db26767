import { describe, expect, it } from "vitest";
import { walk } from "./block.js";
import { IdIssuer, seededRandom, steppingClock } from "./clock.js";
import { domToMarkdown } from "./dom-input.js";
import { parseMarkdown } from "./markdown.js";
import { renderDom, renderKramdown } from "./render.js";
import { DEMO_IDS, seedDemo } from "./seed.js";
import { Workspace } from "./workspace.js";

describe("dataType dom: block DOM converts back to the same kramdown", () => {
  const ws = new Workspace(new IdIssuer(steppingClock(), seededRandom(5), true));
  seedDemo(ws);
  const ids: string[] = [];
  for (const doc of ws.docs.values()) {
    walk(doc.root, (b) => {
      if (b.type !== "d" && b.type !== "i") ids.push(b.id);
    });
  }

  it("covers the demo seed's blocks", () => {
    expect(ids).toContain(DEMO_IDS.listTasks);
    expect(ids).toContain(DEMO_IDS.codeJournal);
    expect(ids.length).toBeGreaterThan(20);
  });

  it.each(ids)("%s", (id) => {
    const loc = ws.locate(id)!;
    const md = domToMarkdown(renderDom(loc.block));
    const parsed = parseMarkdown(md).blocks;
    expect(parsed).toHaveLength(1);
    expect(renderKramdown(parsed[0]!)).toBe(renderKramdown(loc.block));
  });
});
