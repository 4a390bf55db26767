/**
 * node-server benchmark: cold start to the first `tools/list` (kernel up and down, side by side
 * with two floors: a minimal official-SDK server and a bare `node:http` server), the launcher's
 * compile caches side by side (its V8 code cache, Node's own compile cache where Node has one, and
 * none), strict `block.update` end to end through HTTP versus a direct kernel `updateBlock` (same
 * run, ratio), and strict writes per second through the one lane. Spawns the built `dist/bin.cjs`
 * on the Node that runs this script.
 * Run: pnpm --filter @sisyphus/node-server bench
 * Only the launcher comparison, on another Node (e.g. 24):
 *   <node> ../../node_modules/tsx/dist/cli.mjs --conditions=source bench/run.ts --launchers-only
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync } from "node:fs";
import nodeModule from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { DEMO_IDS, startSandbox } from "@sisyphus/siyuan-sandbox";
import {
  cpuMsOf,
  directUpdate,
  goalLine,
  httpServerArgs,
  listeningUrl,
  median,
  postToolsList,
  stopChild as stop,
} from "../../../bench/kit.js";
import { firstContact } from "../scripts/first-contact.mjs";

const BIN = resolve(import.meta.dirname, "..", "dist", "bin.cjs");
const TOKEN = "bench-token-0123456789abcdef";
if (!existsSync(BIN))
  execFileSync("pnpm", ["run", "build"], {
    cwd: resolve(import.meta.dirname, ".."),
    stdio: "inherit",
  });

/** Goal lines for the performance report, printed after the table. */
const goals: string[] = [];

/** Cold starts per variant (odd, so the median is one run). */
const COLD_RUNS = 11;

/**
 * Bundles the two floors (`bench/floors/*.ts`) the way the executable is bundled (one ESM file per
 * server, every dependency inside), so a cold start of each is comparable with `sisyphus-server`'s.
 */
async function buildFloors(): Promise<{ sdk: string; http: string }> {
  const outDir = mkdtempSync(join(tmpdir(), "sis-bench-floors-"));
  const { build } = await import("tsup");
  await build({
    entry: {
      "sdk-server": resolve(import.meta.dirname, "floors", "sdk-server.ts"),
      "http-server": resolve(import.meta.dirname, "floors", "http-server.ts"),
    },
    outDir,
    format: ["esm"],
    platform: "node",
    target: "node20",
    noExternal: [/.*/],
    splitting: false,
    silent: true,
    banner: {
      js: 'import { createRequire as __floorRequire } from "node:module"; const require = __floorRequire(import.meta.url);',
    },
  });
  return { sdk: join(outDir, "sdk-server.js"), http: join(outDir, "http-server.js") };
}

/**
 * Spawns a server, waits for its "listening on" line and POSTs a 2026-07-28 `tools/list` at once;
 * the time from spawn to the parsed answer.
 */
async function coldStart(
  script: string,
  args: string[],
  env: Record<string, string | undefined>,
): Promise<ColdRun> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [script, ...args], {
    env: Object.fromEntries(
      Object.entries({ ...process.env, ...env }).filter(([, v]) => v !== undefined),
    ),
    stdio: ["ignore", "ignore", "pipe"],
  });
  const url = await listeningUrl(child);
  await postToolsList(url, `Bearer ${TOKEN}`);
  const ms = performance.now() - t0;
  return { ms, cpuMs: cpuMsOf(child.pid), child };
}

/** One cold start: wall time and the server's CPU time to the parsed `tools/list`, in ms. */
type ColdRun = { ms: number; cpuMs: number; child: ChildProcess };

/** The executable's files, copied to a new directory (nothing there yet but the program). */
function copyOfExecutable(): string {
  const dir = mkdtempSync(join(tmpdir(), "sis-bench-launcher-"));
  for (const file of ["bin.cjs", "server.cjs", "server.cjs.map", "import-esm.cjs"]) {
    copyFileSync(resolve(BIN, "..", file), join(dir, file));
  }
  return dir;
}

/**
 * The launcher's caches side by side on this Node, kernel down, interleaved round by round: its
 * own V8 code cache made by this Node (as the build makes it), Node's compile cache (Node ≥ 22.1:
 * the launcher's fallback when its cache does not fit; warmed by one first contact), and
 * `SISYPHUS_CODE_CACHE=off` (plain `require`, no cache). Medians of wall and CPU time.
 */
async function compareLaunchers(): Promise<Array<[string, string]>> {
  const withV8Cache = copyOfExecutable();
  await firstContact({
    bin: join(withV8Cache, "bin.cjs"),
    env: { SISYPHUS_CODE_CACHE: "write" },
  });
  const nodeHasCompileCache =
    typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === "function";
  const start = (dir: string, env: Record<string, string | undefined>) => () =>
    coldStart(
      join(dir, "bin.cjs"),
      httpServerArgs("http://127.0.0.1:9", mkdtempSync(join(tmpdir(), "sis-bench-"))),
      { SIYUAN_TOKEN: "x", SISYPHUS_AUTH_TOKEN: TOKEN, ...env },
    );
  const variants: Array<[string, () => Promise<ColdRun>]> = [
    ["launcher, its V8 code cache (made by this Node)", start(withV8Cache, {})],
  ];
  if (nodeHasCompileCache) {
    // No server.cjs.cache here, so the launcher enables Node's compile cache beside itself.
    const withNodeCache = copyOfExecutable();
    await firstContact({ bin: join(withNodeCache, "bin.cjs") });
    variants.push(["launcher, Node's compile cache (warm)", start(withNodeCache, {})]);
  }
  variants.push([
    "SISYPHUS_CODE_CACHE=off (plain require)",
    start(withV8Cache, { SISYPHUS_CODE_CACHE: "off" }),
  ]);
  const runs = variants.map((): ColdRun[] => []);
  for (let i = 0; i < COLD_RUNS; i++) {
    for (const [v, [, run]] of variants.entries()) {
      const r = await run();
      runs[v]?.push(r);
      await stop(r.child);
    }
  }
  return variants.map(([label], v) => {
    const of = runs[v] ?? [];
    const wall = median(of.map((r) => r.ms)).toFixed(0);
    const cpu = median(of.map((r) => r.cpuMs)).toFixed(0);
    return [
      `Node ${process.version}, ${label} (median of ${COLD_RUNS}: wall ms / CPU ms)`,
      `${wall} / ${cpu}`,
    ];
  });
}

function printRows(rows: Array<[string, string]>): void {
  console.log("| measure | value |\n| --- | --- |");
  for (const [k, v] of rows) console.log(`| ${k} | ${v} |`);
  for (const g of goals) console.log(g);
}

async function main(): Promise<void> {
  if (process.argv.includes("--launchers-only")) {
    printRows(await compareLaunchers());
    return;
  }
  const sandbox = await startSandbox({ seed: "demo" });
  const rows: Array<[string, string]> = [];

  // Cold starts, the variants interleaved round by round so machine noise hits them alike.
  const floors = await buildFloors();
  const ours =
    (siyuanUrl: string, siyuanToken: string, env: Record<string, undefined> = {}) =>
    (): Promise<ColdRun> =>
      coldStart(BIN, httpServerArgs(siyuanUrl, mkdtempSync(join(tmpdir(), "sis-bench-"))), {
        SIYUAN_TOKEN: siyuanToken,
        SISYPHUS_AUTH_TOKEN: TOKEN,
        ...env,
      });
  const variants: Array<[string, () => Promise<ColdRun>]> = [
    ["cold start → first tools/list, kernel up", ours(sandbox.url, sandbox.token)],
    ["cold start → first tools/list, kernel down", ours("http://127.0.0.1:9", "x")],
    [
      "floor: minimal official-SDK server (one tool, bundled, no code cache)",
      () => coldStart(floors.sdk, [], {}),
    ],
    ["floor: bare node:http server", () => coldStart(floors.http, [], {})],
  ];
  // Node reads and parses the file NODE_EXTRA_CA_CERTS names at every start, before any of our
  // code (tens of ms). Where the environment sets it, the same starts run without it too.
  if (process.env["NODE_EXTRA_CA_CERTS"] !== undefined) {
    const without = { NODE_EXTRA_CA_CERTS: undefined };
    variants.push(
      [
        "cold start → first tools/list, kernel down, without NODE_EXTRA_CA_CERTS",
        ours("http://127.0.0.1:9", "x", without),
      ],
      [
        "floor: minimal official-SDK server, without NODE_EXTRA_CA_CERTS",
        () => coldStart(floors.sdk, [], without),
      ],
      [
        "floor: bare node:http server, without NODE_EXTRA_CA_CERTS",
        () => coldStart(floors.http, [], without),
      ],
    );
  }
  const times = variants.map((): number[] => []);
  for (let i = 0; i < COLD_RUNS; i++) {
    for (const [v, [, run]] of variants.entries()) {
      const { ms, child } = await run();
      times[v]?.push(ms);
      await stop(child);
    }
  }
  const medians = times.map(median);
  for (const [v, [label]] of variants.entries()) {
    rows.push([`${label} (median of ${COLD_RUNS}, ms)`, (medians[v] as number).toFixed(0)]);
  }
  rows.push([
    "ratio: kernel down / minimal SDK server",
    ((medians[1] as number) / (medians[2] as number)).toFixed(2),
  ]);
  const vsBare = (medians[1] as number) / (medians[3] as number);
  rows.push(["ratio: kernel down / bare node:http server", vsBare.toFixed(2)]);
  goals.push(
    goalLine(
      "Node server cold start → first `tools/list` (kernel down) vs a bare `node:http` server",
      `${vsBare.toFixed(2)}× (${(medians[1] as number).toFixed(0)} vs ${(medians[3] as number).toFixed(0)} ms)`,
      "≤ 2×",
      vsBare <= 2,
      `the smallest official-SDK server that answers a 2026 \`tools/list\` (one tool) takes ${(medians[2] as number).toFixed(0)} ms, ${((medians[2] as number) / (medians[3] as number)).toFixed(2)}× the bare server: loading the SDK, its schemas and Node's web \`Request\`/\`Response\`; this server is ${((medians[1] as number) / (medians[2] as number)).toFixed(2)}× that`,
    ),
  );

  // A long-running authority for the write benchmarks.
  const dataDir = mkdtempSync(join(tmpdir(), "sis-bench-"));
  const child = spawn(process.execPath, [BIN, ...httpServerArgs(sandbox.url, dataDir)], {
    env: { ...process.env, SIYUAN_TOKEN: sandbox.token, SISYPHUS_AUTH_TOKEN: TOKEN },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const endpoint = await listeningUrl(child);
  const client = new Client(
    { name: "bench", version: "1" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(endpoint), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );

  const ROUNDS = 30;
  const strict: number[] = [];
  const direct: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const args = {
      action: "update",
      id: DEMO_IDS.paragraphStatus,
      dataType: "markdown",
      data: `Status round ${i}`,
    };
    const t0 = performance.now();
    const pre = (
      await client.callTool({ name: "block", arguments: { ...args, validateOnly: true } })
    ).structuredContent as Record<string, unknown>;
    const field = pre["preconditionField"] as string;
    const res = await client.callTool({
      name: "block",
      arguments: { ...args, requestId: pre["requestId"], [field]: pre[field] },
    });
    strict.push(performance.now() - t0);
    if ((res.structuredContent as Record<string, unknown>)["status"] !== "committed")
      throw new Error(JSON.stringify(res));
    const d = await directUpdate(sandbox, DEMO_IDS.paragraphDecision, `Decision round ${i}`);
    direct.push(d.end - d.start);
  }
  rows.push([
    "strict block.update via HTTP (preflight + commit, median ms)",
    median(strict).toFixed(1),
  ]);
  rows.push(["direct kernel updateBlock (median ms)", median(direct).toFixed(1)]);
  rows.push(["ratio strict / direct", (median(strict) / median(direct)).toFixed(1)]);

  // Throughput: additive appends, preflighted first, then committed concurrently through the lane.
  const N = 60;
  const preflights = await Promise.all(
    Array.from({ length: N }, async (_, i) => {
      const args = {
        action: "append",
        parentID: DEMO_IDS.docJournal,
        dataType: "markdown",
        data: `Bench line ${i}`,
      };
      const pre = (
        await client.callTool({ name: "block", arguments: { ...args, validateOnly: true } })
      ).structuredContent as Record<string, unknown>;
      return { ...args, requestId: pre["requestId"] };
    }),
  );
  const t0 = performance.now();
  const commits = await Promise.all(
    preflights.map((a) => client.callTool({ name: "block", arguments: a })),
  );
  const seconds = (performance.now() - t0) / 1000;
  const ok = commits.filter((c) => c.isError !== true).length;
  rows.push([
    `strict commits per second through one lane (${ok}/${N} committed)`,
    (ok / seconds).toFixed(1),
  ]);

  await client.close();
  await stop(child);
  await sandbox.stop();
  rows.push(...(await compareLaunchers()));
  printRows(rows);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
