/**
 * Builds node-server: the library entry and the executable (`tsup`, see tsup.config.ts), then the
 * executable's V8 code cache (`dist/server.cjs.cache`, see src/bin.ts).
 *
 * The cache is made by running the built server once the way a client first meets it
 * (`first-contact.mjs`: no kernel reachable, a 2026-07-28 `server/discover` and `tools/list`, a
 * 2025-era `initialize` and `tools/list`, then stop); the launcher writes the cache on exit, so it
 * holds the compiled code of everything a cold start runs, for the Node that runs the build (the
 * launcher falls back to Node's own compile cache on other Node versions ≥ 22.1: see src/bin.ts).
 * A failure here fails the build.
 */
import { execFileSync } from "node:child_process";
import { existsSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { firstContact } from "./first-contact.mjs";

const pkg = resolve(import.meta.dirname, "..");
const dist = join(pkg, "dist");

rmSync(dist, { recursive: true, force: true });
execFileSync("tsup", [], { cwd: pkg, stdio: "inherit", shell: process.platform === "win32" });
await makeCodeCache();

async function makeCodeCache() {
  const cache = join(dist, "server.cjs.cache");
  await firstContact({ bin: join(dist, "bin.cjs"), env: { SISYPHUS_CODE_CACHE: "write" } });
  if (!existsSync(cache)) throw new Error("code cache: not written");
  console.log(`code cache: ${(statSync(cache).size / 1024).toFixed(0)} KB (dist/server.cjs.cache)`);
}
