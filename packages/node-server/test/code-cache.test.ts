/**
 * The executable's launcher (`dist/bin.cjs`) runs `server.cjs` from the build's V8 code cache, and
 * behaves the same without it: a missing, stale (made from another `server.cjs`) or unusable cache
 * only costs compile time. Each case starts a real server with the kernel down and lists its tools
 * with the official client.
 */
import {
  copyFileSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, httpClient, killAll, spawnAuthority, TOOL_NAMES, tempDataDir } from "./harness.js";

const DIST = dirname(BIN);
const KERNEL_DOWN = { siyuanUrl: "http://127.0.0.1:9", siyuanToken: "unused" };
const copies: string[] = [];

afterAll(async () => {
  await killAll();
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

/** A copy of the executable's files, with `change` applied to it. */
function copyOfDist(change: (dir: string) => void): string {
  const dir = mkdtempSync(join(tmpdir(), "sisyphus-dist-"));
  copies.push(dir);
  for (const file of ["bin.cjs", "server.cjs", "server.cjs.cache", "import-esm.cjs"]) {
    copyFileSync(join(DIST, file), join(dir, file));
  }
  change(dir);
  return join(dir, "bin.cjs");
}

async function startAndList(bin: string): Promise<{ state: string; tools: string[] }> {
  const authority = await spawnAuthority({
    dataDir: tempDataDir(),
    ...KERNEL_DOWN,
    bin,
    env: { SISYPHUS_CODE_CACHE: "trace" },
  });
  const client = await httpClient(authority.url, { era: "modern" });
  const { tools } = await client.listTools();
  await client.close();
  await authority.stop();
  const state = /code cache (\w+)/.exec(authority.stderr())?.[1] ?? "not reported";
  return { state, tools: tools.map((t) => t.name) };
}

describe("code cache of the executable", () => {
  it("is accepted for the build it was made from", async () => {
    const run = await startAndList(BIN);
    expect(run.state).toBe("accepted");
    expect(run.tools.sort()).toEqual(TOOL_NAMES);
  });

  it("is ignored when it was made from another server.cjs", async () => {
    const bin = copyOfDist((dir) => {
      writeFileSync(join(dir, "server.cjs"), `${readFileSync(join(dir, "server.cjs"), "utf8")}\n`);
    });
    const run = await startAndList(bin);
    expect(run.state).toBe("stale");
    expect(run.tools.sort()).toEqual(TOOL_NAMES);
  });

  it("is rejected by V8 when its payload is damaged, and the server still runs", async () => {
    const bin = copyOfDist((dir) => {
      const cache = readFileSync(join(dir, "server.cjs.cache"));
      // Keep the digest (the first 32 bytes); damage V8's header and payload after it.
      cache.fill(0x5a, 32, Math.min(cache.length, 32 + 4096));
      writeFileSync(join(dir, "server.cjs.cache"), cache);
    });
    const run = await startAndList(bin);
    expect(run.state).toBe("rejected");
    expect(run.tools.sort()).toEqual(TOOL_NAMES);
  });

  it("is optional: without it the server compiles as usual", async () => {
    const bin = copyOfDist((dir) => unlinkSync(join(dir, "server.cjs.cache")));
    const run = await startAndList(bin);
    expect(run.state).toBe("absent");
    expect(run.tools.sort()).toEqual(TOOL_NAMES);
  });
});
