#!/usr/bin/env node
/**
 * `sisyphus-server`: runs the bundled server program (`server.cjs`, next to this file) from a
 * compile cache where one fits, because compiling its ~1 MB of SDK, zod and tools is the largest
 * part of a cold start that we control. In order:
 *
 * 1. The build's V8 code cache (`server.cjs.cache`, made by `scripts/build.mjs` after a first
 *    contact, so it holds the compiled code of every function a start runs): used when it was made
 *    from exactly this `server.cjs` on exactly this Node (its first 32 bytes are the SHA-256 of
 *    both) and V8 accepts it (same V8 flags).
 * 2. Otherwise, on Node ≥ 22.1, Node's own compile cache (`module.enableCompileCache`) in
 *    `node-compile-cache/` beside this file (nowhere another user could plant code), filled by the
 *    first start where that directory is writable. It holds less than (1): Node serialises a
 *    module's cache right after compiling it, before its functions ran. So where both fit, (1)
 *    starts faster (measured: bench/README.md), and (2) serves the Node versions the build
 *    did not run on.
 * 3. Otherwise the program compiles as usual: the same behaviour, only slower.
 *
 * `SISYPHUS_CODE_CACHE=off` skips all of this and `require`s the program the ordinary way, so that
 * `node --enable-source-maps` maps stack traces to the TypeScript sources (for bug reports);
 * `=trace` reports on stderr which case applied; `=write` (build only) compiles without a cache and
 * writes (1) when the process exits, so it holds every function that ran.
 *
 * The program has no `import()` of its own (see `import-esm.ts`).
 */
import { isAscii } from "node:buffer";
import { createHash } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import nodeModule from "node:module";
import { join } from "node:path";
import { Script } from "node:vm";

const PROGRAM = join(__dirname, "server.cjs");
const CACHE = `${PROGRAM}.cache`;
const NODE_COMPILE_CACHE_DIR = join(__dirname, "node-compile-cache");
const DIGEST_BYTES = 32;
const mode = process.env["SISYPHUS_CODE_CACHE"];
const trace = (line: string) => {
  if (mode === "trace") process.stderr.write(`sisyphus-server: ${line}\n`);
};

/** `module`'s compile-cache API of Node ≥ 22.1 (absent from Node 20 and its typings). */
const { enableCompileCache, constants } = nodeModule as unknown as {
  enableCompileCache?: (dir: string) => { status: number; message?: string };
  constants?: { compileCacheStatus?: Record<string, number> };
};

/** Runs the program through Node's own loader (`require`), with Node's compile cache if it has one. */
function requireProgram(why: string): void {
  if (mode !== "off" && enableCompileCache !== undefined) {
    const { status, message } = enableCompileCache(NODE_COMPILE_CACHE_DIR);
    const statuses = Object.entries(constants?.compileCacheStatus ?? {});
    const name = statuses.find(([, v]) => v === status)?.[0] ?? String(status);
    trace(`${why}; Node's compile cache ${name.toLowerCase()}${message ? ` (${message})` : ""}`);
  } else {
    trace(`${why}; no compile cache`);
  }
  require(PROGRAM);
}

function runFromCodeCache(): void {
  const bytes = readFileSync(PROGRAM);
  // The digest names the program bytes (hashing bytes, not the decoded string, spares re-encoding
  // 1 MB) and this Node, whose V8 would reject another's cache anyway after paying for the attempt.
  const digest = createHash("sha256")
    .update(bytes)
    .update(`\0${process.version}\0${process.arch}`)
    .digest();
  let cache: Buffer | "absent" | "stale" = "absent";
  if (mode !== "write") {
    try {
      const file = readFileSync(CACHE);
      cache = file.subarray(0, DIGEST_BYTES).equals(digest) ? file.subarray(DIGEST_BYTES) : "stale";
    } catch {
      cache = "absent";
    }
    if (typeof cache === "string") {
      requireProgram(`code cache ${cache}`);
      return;
    }
  }
  // The bundle is ASCII (esbuild escapes the rest), which decodes faster as Latin-1, to the same string.
  const source = isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8");
  const script = new Script(
    `(function (exports, require, module, __filename, __dirname) {${source}\n})`,
    { filename: PROGRAM, ...(typeof cache === "string" ? {} : { cachedData: cache }) },
  );
  if (mode === "write") {
    process.on("exit", () => {
      const tmp = `${CACHE}.${process.pid}.tmp`;
      writeFileSync(tmp, Buffer.concat([digest, script.createCachedData()]));
      renameSync(tmp, CACHE);
    });
  } else {
    trace(`code cache ${script.cachedDataRejected ? "rejected" : "accepted"}`);
  }
  const program = script.runInThisContext() as (
    exports: object,
    require: NodeJS.Require,
    module: { exports: object },
    filename: string,
    dirname: string,
  ) => void;
  const programModule = { exports: {} };
  program(programModule.exports, require, programModule, PROGRAM, __dirname);
}

if (mode === "off") requireProgram("code cache off");
else runFromCodeCache();
