/**
 * Before/after builds of the plugin for the benches: `kernel.js` bundled with scripts/kernel-bundle.mjs's
 * esbuild options (plus a source map) into a copy of `dist/plugin/` (its other files). With
 * `committed`, this package's `src/` files are taken as `git show HEAD:` has them (other packages
 * from the working tree), so one tree gives both sides of a change to the plugin's own code.
 * Run: tsx --conditions=source bench/variant.ts <out dir> [--committed]
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { SourceMap } from "node:module";
import { join, relative, resolve } from "node:path";
import { build, type Plugin } from "esbuild";
import { kernelBundleOptions } from "../scripts/kernel-bundle.mjs";

const PKG = resolve(import.meta.dirname, "..");

/** Serves this package's `src/` from HEAD (a file HEAD lacks is absent, as it was). */
const fromHead: Plugin = {
  name: "src-from-head",
  setup(b) {
    b.onLoad({ filter: /\/packages\/kernel-plugin\/src\/.*\.ts$/ }, (args) => ({
      contents: execFileSync("git", ["show", `HEAD:./${relative(PKG, args.path)}`], {
        cwd: PKG,
        encoding: "utf8",
      }),
      loader: "ts",
    }));
  },
};

/** Builds the plugin into `dir` (replaced); returns the source map of its `kernel.js`. */
export async function buildPlugin(
  dir: string,
  opts: { committed?: boolean; lines?: boolean } = {},
): Promise<SourceMap> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  cpSync(join(PKG, "dist", "plugin"), dir, { recursive: true });
  await build({
    ...kernelBundleOptions(PKG, join(dir, "kernel.js")),
    // one line per statement when line ticks are wanted (the map is per line then)
    minifyWhitespace: opts.lines !== true,
    sourcemap: "external",
    logLevel: "warning",
    plugins: opts.committed === true ? [fromHead] : [],
  });

  const map = new SourceMap(JSON.parse(readFileSync(join(dir, "kernel.js.map"), "utf8")));
  rmSync(join(dir, "kernel.js.map"));
  return map;
}

if (process.argv[1] === import.meta.filename) {
  const out = process.argv[2];
  if (out === undefined) throw new Error("usage: variant.ts <out dir> [--committed]");
  await buildPlugin(resolve(out), { committed: process.argv.includes("--committed") });
  console.log(`built ${out}`);
}
