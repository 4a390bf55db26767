/**
 * Writes `skills/siyuan-strict-writes/SKILL.md` at the repository root from `renderSkill()`
 * (the same source as `system.bootstrap`). `src/skill.test.ts` fails when the committed file differs.
 *   pnpm --filter @sisyphus/mcp-tools gen:skill
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { SKILL_NAME, skillFiles } from "../src/skill.js";

const root = resolve(import.meta.dirname, "../../..", "skills", SKILL_NAME);
for (const file of skillFiles()) {
  const target = join(root, file.path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, file.text);
  console.log(`wrote ${target}`);
}
