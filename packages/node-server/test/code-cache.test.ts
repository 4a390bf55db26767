/**
 * The executable's launcher (`dist/bin.cjs`) runs `server.cjs` from a compile cache where one fits,
 * and behaves the same without: its own V8 code cache when this Node made it from this
 * `server.cjs` (the build makes one for the Node that builds), otherwise Node's compile cache
 * where Node has one (≥ 22.1), otherwise a plain compile. `SISYPHUS_CODE_CACHE=off` is a plain
 * `require`, so `--enable-source-maps` maps the program. Each case starts a real server with the
 * kernel down and lists its tools with the official client. The cached program has no `import()`.
 */
import { createHash } from "node:crypto";
import {
  copyFileSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import nodeModule from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { firstContact } from "../scripts/first-contact.mjs";
import { BIN, httpClient, killAll, spawnAuthority, TOOL_NAMES, tempDataDir } from "./harness.js";

const DIST = dirname(BIN);
const KERNEL_DOWN = { siyuanUrl: "http://127.0.0.1:9", siyuanToken: "unused" };
const FILES = ["bin.cjs", "server.cjs", "server.cjs.map", "import-esm.cjs"];
const NODE_HAS_COMPILE_CACHE =
  typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === "function";
const copies: string[] = [];
/** A copy of the executable whose V8 code cache this Node made (as the build makes it). */
let cachedHere = "";

beforeAll(async () => {
  cachedHere = copyOf(DIST, () => undefined);
  await firstContact({
    bin: join(cachedHere, "bin.cjs"),
    env: { SISYPHUS_CODE_CACHE: "write" },
  });
});

afterAll(async () => {
  await killAll();
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

/** A copy of the executable's files in `from` (and its cache, if any), with `change` applied. */
function copyOf(from: string, change: (dir: string) => void): string {
  const dir = mkdtempSync(join(tmpdir(), "sisyphus-dist-"));
  copies.push(dir);
  for (const file of FILES) copyFileSync(join(from, file), join(dir, file));
  try {
    copyFileSync(join(from, "server.cjs.cache"), join(dir, "server.cjs.cache"));
  } catch {
    // no cache in `from`
  }
  change(dir);
  return dir;
}

async function startAndList(
  bin: string,
  env: Record<string, string> = { SISYPHUS_CODE_CACHE: "trace" },
): Promise<{ state: string; stderr: string; tools: string[] }> {
  const authority = await spawnAuthority({ dataDir: tempDataDir(), ...KERNEL_DOWN, bin, env });
  const client = await httpClient(authority.url, { era: "modern" });
  const { tools } = await client.listTools();
  await client.close();
  await authority.stop();
  const stderr = authority.stderr();
  const state = /code cache (\w+)/.exec(stderr)?.[1] ?? "not reported";
  return { state, stderr, tools: tools.map((t) => t.name) };
}

/** What the launcher falls back to when its own cache does not fit, as `trace` reports it. */
const FALLBACK = NODE_HAS_COMPILE_CACHE ? "Node's compile cache enabled" : "no compile cache";

describe("code cache of the executable", () => {
  it("is accepted when this Node made it from this server.cjs", async () => {
    const run = await startAndList(join(cachedHere, "bin.cjs"));
    expect(run.state).toBe("accepted");
    expect(run.tools.sort()).toEqual(TOOL_NAMES);
  });

  it("is ignored when it was made from another server.cjs, and the launcher falls back", async () => {
    const dir = copyOf(cachedHere, (d) => {
      writeFileSync(join(d, "server.cjs"), `${readFileSync(join(d, "server.cjs"), "utf8")}\n`);
    });
    const run = await startAndList(join(dir, "bin.cjs"));
    expect(run.state).toBe("stale");
    expect(run.stderr).toContain(FALLBACK);
    expect(run.tools.sort()).toEqual(TOOL_NAMES);
  });

  it("is ignored when another Node made it (its digest names the Node version)", async () => {
    const dir = copyOf(cachedHere, (d) => {
      const cache = readFileSync(join(d, "server.cjs.cache"));
      const otherNode = createHash("sha256")
        .update(readFileSync(join(d, "server.cjs")))
        .update(`\0v0.0.0\0${process.arch}`)
        .digest();
      writeFileSync(join(d, "server.cjs.cache"), Buffer.concat([otherNode, cache.subarray(32)]));
    });
    const run = await startAndList(join(dir, "bin.cjs"));
    expect(run.state).toBe("stale");
    expect(run.tools.sort()).toEqual(TOOL_NAMES);
  });

  it("is rejected by V8 when its payload is damaged, and the server still runs", async () => {
    const dir = copyOf(cachedHere, (d) => {
      const cache = readFileSync(join(d, "server.cjs.cache"));
      // Keep the digest (the first 32 bytes); damage V8's header and payload after it.
      cache.fill(0x5a, 32, Math.min(cache.length, 32 + 4096));
      writeFileSync(join(d, "server.cjs.cache"), cache);
    });
    const run = await startAndList(join(dir, "bin.cjs"));
    expect(run.state).toBe("rejected");
    expect(run.tools.sort()).toEqual(TOOL_NAMES);
  });

  it("is optional: without it the server compiles as usual (Node's compile cache where Node has one)", async () => {
    const dir = copyOf(cachedHere, (d) => unlinkSync(join(d, "server.cjs.cache")));
    const run = await startAndList(join(dir, "bin.cjs"));
    expect(run.state).toBe("absent");
    expect(run.stderr).toContain(FALLBACK);
    expect(run.tools.sort()).toEqual(TOOL_NAMES);
  });

  it("SISYPHUS_CODE_CACHE=off requires the program, so --enable-source-maps maps it to our sources", async () => {
    // A preload that asks Node, once the launcher ran, where a known position of server.cjs
    // comes from: the log line "listening on" is written in src/main.ts.
    const source = readFileSync(join(cachedHere, "server.cjs"), "latin1");
    const offset = source.indexOf("sisyphus-server: listening on");
    const line = source.slice(0, offset).split("\n").length - 1;
    const column = offset - (source.lastIndexOf("\n", offset) + 1);
    const probe = join(cachedHere, "source-map-probe.cjs");
    writeFileSync(
      probe,
      `const { findSourceMap } = require("node:module");
setImmediate(() => {
  const map = findSourceMap(${JSON.stringify(join(cachedHere, "server.cjs"))});
  const at = map?.findEntry(${line}, ${column});
  process.stderr.write("probe: " + (at?.originalSource ?? "no source map") + "\\n");
});
`,
    );
    const nodeOptions = `--enable-source-maps --require ${probe}`;
    const off = await startAndList(join(cachedHere, "bin.cjs"), {
      SISYPHUS_CODE_CACHE: "off",
      NODE_OPTIONS: nodeOptions,
    });
    // (The copy's map names its sources relative to itself: `<copy>/../src/main.ts`.)
    expect(off.stderr).toMatch(/probe: \S*\/src\/main\.ts\n/);
    expect(off.tools.sort()).toEqual(TOOL_NAMES);
    // From its V8 code cache the program is a `vm.Script`, which Node maps no source map for.
    const cached = await startAndList(join(cachedHere, "bin.cjs"), { NODE_OPTIONS: nodeOptions });
    expect(cached.stderr).toContain("probe: no source map");
  });

  it("holds no import() of its own: the one import() is in import-esm.cjs, loaded the ordinary way", () => {
    // A script compiled from a code cache has no dynamic-import callback on Node 20.
    const program = readFileSync(join(DIST, "server.cjs"), "utf8");
    expect(program.match(/\bimport\s*\(/g) ?? []).toEqual([]);
    expect(program).toContain("./import-esm.cjs");
    expect(readFileSync(join(DIST, "import-esm.cjs"), "utf8")).toMatch(/\bimport\s*\(/);
  });
});
