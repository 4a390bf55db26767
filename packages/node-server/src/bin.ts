#!/usr/bin/env node
/**
 * `sisyphus-server`: runs the bundled server program (`server.cjs`, next to this file) from V8's code
 * cache (`server.cjs.cache`, made at build time by `scripts/build.mjs`).
 *
 * Node 20 has no module compile cache, so without this every start parses and compiles about 1 MB
 * of SDK, zod and tools again before it can answer. The cache is used only when it was made from
 * exactly this `server.cjs` (its first 32 bytes are the program's SHA-256) and V8 accepts it (same V8
 * version and flags); otherwise the program compiles as usual and behaves the same, only slower.
 *
 * The program has no `import()` of its own (see `import-esm.ts`).
 *
 * `SISYPHUS_CODE_CACHE=trace` reports on stderr which case applied; `SISYPHUS_CODE_CACHE=write`
 * (build only) writes the cache when the process exits, so it holds every function that ran.
 */
import { isAscii } from "node:buffer";
import { createHash } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Script } from "node:vm";

const PROGRAM = join(__dirname, "server.cjs");
const CACHE = `${PROGRAM}.cache`;
const DIGEST_BYTES = 32;
const mode = process.env["SISYPHUS_CODE_CACHE"];

const bytes = readFileSync(PROGRAM);
// Hashing the bytes, not the decoded string, spares re-encoding 1 MB on every start; the bundle is
// ASCII (esbuild escapes the rest), which decodes faster as Latin-1, to the same string.
const digest = createHash("sha256").update(bytes).digest();
const source = isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8");

function readCache(): Buffer | "absent" | "stale" {
  let file: Buffer;
  try {
    file = readFileSync(CACHE);
  } catch {
    return "absent";
  }
  return file.subarray(0, DIGEST_BYTES).equals(digest) ? file.subarray(DIGEST_BYTES) : "stale";
}

const cache = mode === "write" ? "absent" : readCache();
const script = new Script(
  `(function (exports, require, module, __filename, __dirname) {${source}\n})`,
  {
    filename: PROGRAM,
    ...(typeof cache === "string" ? {} : { cachedData: cache }),
  },
);
if (mode === "trace") {
  const state =
    typeof cache === "string" ? cache : script.cachedDataRejected ? "rejected" : "accepted";
  process.stderr.write(`sisyphus-server: code cache ${state}\n`);
}
if (mode === "write") {
  process.on("exit", () => {
    const tmp = `${CACHE}.${process.pid}.tmp`;
    writeFileSync(tmp, Buffer.concat([digest, script.createCachedData()]));
    renameSync(tmp, CACHE);
  });
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
