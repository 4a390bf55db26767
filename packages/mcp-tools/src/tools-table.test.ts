import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ACTIONS, TOOL_NAMES } from "./catalog.js";
import { TOOLS_TABLE_MARKERS, toolPurposes, toolsTable } from "./tools-table.js";

const README = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");

describe("the tools table", () => {
  it("has one row per tool naming every action once", () => {
    const table = toolsTable();
    const rows = table.split("\n").filter((l) => l.startsWith("| `"));
    expect(rows.map((r) => /^\| `([a-z]+)`/.exec(r)?.[1])).toEqual([...TOOL_NAMES]);
    for (const a of ACTIONS) {
      const row = rows.find((r) => r.startsWith(`| \`${a.tool}\``)) ?? "";
      const cells = row
        .split(" | ")
        .slice(2)
        .join(", ")
        .replace(/\s*\|$/, "");
      const names = cells.split(/,\s*/).map((n) => n.replaceAll("*", "").trim());
      expect(
        names.filter((n) => n === a.action),
        `${a.tool}.${a.action}`,
      ).toHaveLength(1);
      const bold = cells.includes(`**${a.action}**`);
      expect(bold, `${a.tool}.${a.action} bold iff the user confirms`).toBe(a.dangerous !== false);
    }
    expect(toolPurposes().map((p) => p.name)).toEqual([...TOOL_NAMES]);
  });

  it("is in the root README as generated (pnpm --filter @sisyphus/mcp-tools gen:readme)", () => {
    const begin = README.indexOf(TOOLS_TABLE_MARKERS.begin);
    const end = README.indexOf(TOOLS_TABLE_MARKERS.end);
    expect(begin, "the README has the tools table's markers").toBeGreaterThanOrEqual(0);
    expect(README.slice(begin, end + TOOLS_TABLE_MARKERS.end.length)).toBe(toolsTable());
  });
});
