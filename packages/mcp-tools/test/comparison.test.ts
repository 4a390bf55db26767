import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  actionsOf,
  comparisonPage,
  REFERENCE_ACTIONS,
  ROWS,
  SIYUAN_MCP_ACTIONS,
} from "../scripts/comparison.js";
import { ACTIONS } from "../src/catalog.js";

const column = (i: 0 | 1 | 2) => ROWS.flatMap((row) => (row[i] === "" ? [] : row[i].split(" ")));

/** Each name of `expected` once in `listed`, and nothing else. */
function expectEachOnce(listed: string[], expected: string[], what: string): void {
  const twice = listed.filter((n, i) => listed.indexOf(n) !== i);
  expect(twice, `${what} named in two rows`).toEqual([]);
  expect(
    expected.filter((n) => !listed.includes(n)),
    `${what} without a row`,
  ).toEqual([]);
  expect(
    listed.filter((n) => !expected.includes(n)),
    `${what} rows naming no such action`,
  ).toEqual([]);
}

describe("docs/comparison.md", () => {
  it("names every catalog action once, and nothing the catalog lacks", () => {
    expectEachOnce(
      column(0),
      ACTIONS.map((a) => `${a.tool}.${a.action}`),
      "catalog actions",
    );
  });

  it("names every action of the reference's and SiYuan's lists once", () => {
    expectEachOnce(column(1), actionsOf(REFERENCE_ACTIONS), "reference actions");
    expectEachOnce(column(2), actionsOf(SIYUAN_MCP_ACTIONS), "SiYuan /mcp actions");
    // the reference's notes count 154 static actions; two entries here are listed apart
    expect(actionsOf(REFERENCE_ACTIONS)).toHaveLength(156);
    expect(Object.keys(SIYUAN_MCP_ACTIONS)).toHaveLength(32);
  });

  it("says what is planned wherever Sisyphus has no action", () => {
    for (const [ours, reference, siyuan, note] of ROWS) {
      const label = `${reference} ${siyuan}`;
      if (ours === "") expect(note ?? "", label).toMatch(/^(planned|not planned|by design)/);
      else expect(note, ours).toBeUndefined();
    }
  });

  it("is committed as generated (pnpm --filter @sisyphus/mcp-tools gen:readme)", () => {
    const committed = readFileSync(new URL("../../../docs/comparison.md", import.meta.url), "utf8");
    expect(committed).toBe(comparisonPage());
  });
});
