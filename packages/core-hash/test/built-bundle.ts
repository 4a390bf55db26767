/**
 * Test helper: makes sure `dist/` holds a build of the current sources. The root `pnpm test`
 * builds first (turbo), so this normally only checks; run alone after a source change, it runs
 * tsup itself.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const DIST_DIR = join(PACKAGE_DIR, "dist");
export const GLOBAL_BUNDLE = join(DIST_DIR, "core-hash.global.js");

const BUILT_FILES = ["index.js", "node.js", "core-hash.global.js"];

function newestSourceMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSourceMtime(path));
    else if (!entry.name.endsWith(".test.ts")) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** Builds the package with tsup if any built file is missing or older than the sources. */
export function ensureBuilt(): void {
  const sources = Math.max(
    newestSourceMtime(join(PACKAGE_DIR, "src")),
    statSync(join(PACKAGE_DIR, "tsup.config.ts")).mtimeMs,
  );
  const stale = BUILT_FILES.some((file) => {
    const path = join(DIST_DIR, file);
    return !existsSync(path) || statSync(path).mtimeMs < sources;
  });
  if (!stale) return;
  const require = createRequire(import.meta.url);
  const tsupCli = join(dirname(require.resolve("tsup/package.json")), "dist", "cli-default.js");
  execFileSync(process.execPath, [tsupCli], { cwd: PACKAGE_DIR, stdio: "pipe" });
}
