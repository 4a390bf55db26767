/**
 * Bundles the executable (`server.cjs` + launcher, the second build of tsup.config.ts, no code
 * cache) from the current sources into a private directory under node_modules/.cache, so a
 * benchmark measures the tree as it is and does not depend on `dist/` (rebuilt by other runs).
 * Externals (undici, …) resolve from the package's node_modules, as from dist/.
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { build, type Options } from "tsup";
import configs from "../tsup.config.js";

const PKG = resolve(import.meta.dirname, "..");

/** Builds into node_modules/.cache/<name>-<pid>; returns the path of its `bin.cjs`. */
export async function buildExecutable(name: string): Promise<string> {
  const outDir = join(PKG, "node_modules", ".cache", `${name}-${process.pid}`);
  mkdirSync(outDir, { recursive: true });
  const exe = (configs as unknown as Options[])[1] as Options;
  const cwd = process.cwd();
  process.chdir(PKG);
  try {
    await build({ ...exe, outDir, silent: true, clean: true, config: false });
  } finally {
    process.chdir(cwd);
  }
  return join(outDir, "bin.cjs");
}
