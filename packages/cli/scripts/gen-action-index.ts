/**
 * Writes `src/action-index.generated.ts`: every action of the `@sisyphus/mcp-tools` catalog with
 * its spellings, policy kind, danger and flags (`flagsOf`), so the CLI parses a command line
 * without loading zod and the catalog. `src/action-index.test.ts` fails when it is stale.
 *   pnpm --filter @sisyphus/cli gen:action-index
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { actionIndexSource } from "../src/action-index-source.js";

const target = resolve(import.meta.dirname, "..", "src", "action-index.generated.ts");
writeFileSync(target, actionIndexSource());
// Laid out as the repository's formatter lays it out, so `pnpm lint` stays green.
execFileSync("pnpm", ["exec", "biome", "format", "--write", target], { stdio: "ignore" });
console.log(`wrote ${target}`);
