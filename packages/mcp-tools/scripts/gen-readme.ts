/**
 * Writes the tools table into the repository's root `README.md`, between its markers, from
 * `toolsTable()` (the catalog and the `tools/list` descriptions), and `docs/comparison.md` from
 * `scripts/comparison.ts`. `src/tools-table.test.ts` and `test/comparison.test.ts` fail when the
 * committed ones differ.
 *   pnpm --filter @sisyphus/mcp-tools gen:readme
 */
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { TOOLS_TABLE_MARKERS, toolsTable } from "../src/tools-table.js";
import { comparisonPage } from "./comparison.js";

const root = resolve(import.meta.dirname, "../../..");
const readme = resolve(root, "README.md");
const text = readFileSync(readme, "utf8");
const begin = text.indexOf(TOOLS_TABLE_MARKERS.begin);
const end = text.indexOf(TOOLS_TABLE_MARKERS.end);
if (begin < 0 || end < begin) throw new Error(`${readme}: no tools table markers`);
writeFileSync(
  readme,
  text.slice(0, begin) + toolsTable() + text.slice(end + TOOLS_TABLE_MARKERS.end.length),
);
console.log(`wrote the tools table of ${readme}`);
const comparison = resolve(root, "docs/comparison.md");
writeFileSync(comparison, comparisonPage());
console.log(`wrote ${comparison}`);
