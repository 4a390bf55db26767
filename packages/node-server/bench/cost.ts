/**
 * The cost of the guarantee through the Node HTTP authority (issue 19), same sandbox, same run:
 * 1. decomposition: a strict `block.update` (preflight + commit, official MCP client over HTTP)
 *    against its floor = the kernel time the same calls needed (union of the kernel-call intervals
 *    the server saw) + two MCP round trips of a trivial read (`system.version`) without its kernel
 *    time; the rest split into awaited fsyncs, the rest of the server's time and client/transport,
 *    and the server's CPU in the write window attributed by a CPU profile (bundle source map);
 * 2. latency sensitivity: 0, 1 and 5 ms injected per kernel call; commit / direct `updateBlock`
 *    beside the commit's sequential kernel round trips (chart: docs/perf/latency.svg);
 * 3. throughput: strict writes per second with 1, 4 and 16 agents on different blocks through the
 *    one write lane; reads per second at concurrency 4 beside a direct kernel read loop (chart:
 *    docs/perf/throughput.svg).
 * The server is the built executable (copied from dist/ at start, so a concurrent rebuild cannot
 * pull it away; `--from-source` bundles the current sources instead) with the bench-only timing
 * tap `bench/tap.cjs` preloaded; `--bin <path/bin.cjs>` names another build (before/after runs).
 * Run: pnpm --filter @sisyphus/node-server exec tsx --conditions=source bench/cost.ts [--quick]
 *   [--only decomposition,latency,throughput,cpu]
 * Against a real SiYuan (issue 30, "measure there"): `--siyuan-url URL --siyuan-token T` runs the
 * decomposition only (the other sections need the sandbox's fault injection), on a notebook
 * `bench-cost` with one document it creates; the server is the authority itself (its settings file
 * on that kernel, if any, must leave the kernel endpoint off).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { subscribe } from "node:diagnostics_channel";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { SourceMap } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createSiyuanClient, type SiyuanClient, undiciTransport } from "@sisyphus/siyuan-api";
import { DEMO_IDS, type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { Pool } from "undici";
import {
  apiPaths,
  type CpuProfile,
  type CpuProfileNode,
  call,
  cpuMsOf,
  directUpdate,
  f2,
  floorRatio,
  goalLine,
  httpServerArgs,
  type Interval,
  listeningUrl,
  machineLine,
  median,
  medianItem,
  mergeIntervals,
  now,
  paragraphsDoc,
  printLatency,
  stopChild,
  strictUpdate,
  unionMs,
  waves,
  withKernelDelay,
} from "../../../bench/kit.js";
import { barChart, writeChart } from "../../../bench/svg-chart.js";
import { dumpTap, TAP, type TapRecord } from "./tap-reader.js";

const QUICK = process.argv.includes("--quick");
const argOf = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
/** A real kernel to measure against instead of the sandbox (decomposition only). */
const REAL =
  argOf("--siyuan-url") !== undefined
    ? {
        url: (argOf("--siyuan-url") as string).replace(/\/$/, ""),
        token: argOf("--siyuan-token") ?? "",
      }
    : undefined;
/** `--only a,b`: run only these sections (decomposition, latency, throughput, cpu). */
const onlyArg = process.argv.indexOf("--only");
const run = (section: string) =>
  onlyArg < 0 || (process.argv[onlyArg + 1] ?? "").split(",").includes(section);
const ROUNDS = QUICK ? 15 : 40;
const PKG = resolve(import.meta.dirname, "..");
const TOKEN = "bench-token-0123456789abcdef";

const f1 = (n: number) => n.toFixed(1);

interface Server {
  url: string;
  child: ChildProcess;
  tapFile: string;
}

/** A private copy of dist's executable under node_modules/.cache (externals resolve as from dist/). */
function copyOfDist(): string {
  const dir = join(PKG, "node_modules", ".cache", `sis-cost-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  for (const file of ["bin.cjs", "server.cjs", "server.cjs.map", "import-esm.cjs"])
    copyFileSync(join(PKG, "dist", file), join(dir, file));
  return join(dir, "bin.cjs");
}
const binArg = process.argv.indexOf("--bin");
const COPIED = binArg < 0 && !process.argv.includes("--from-source");
const BIN =
  binArg > 0
    ? resolve(process.argv[binArg + 1] as string)
    : COPIED
      ? copyOfDist()
      : await (await import("./build-exe.js")).buildExecutable("sis-cost");
/** Where the bundle's source map was made: its relative sources resolve from there. */
const MAP_BASE = COPIED ? join(PKG, "dist") : dirname(BIN);

/** Servers started and not yet exited: killed at the end even when a section throws. */
const running = new Set<ChildProcess>();

/** A kernel the bench talks to: the sandbox, or a real SiYuan (`--siyuan-url`). */
type Target = { readonly url: string; readonly token: string };

/** The paragraphs the decomposition writes: three for strict writes, one for direct ones. */
interface Paragraphs {
  readonly strict: readonly [string, string, string];
  readonly direct: string;
}
const DEMO_PARAGRAPHS: Paragraphs = {
  strict: [DEMO_IDS.paragraphGoals, DEMO_IDS.paragraphDecision, DEMO_IDS.paragraphJournal],
  direct: DEMO_IDS.paragraphStatus,
};

/** A notebook `bench-cost` with one document of four paragraphs, on a real kernel. */
async function realParagraphs(k: Target): Promise<Paragraphs> {
  const { ids } = await paragraphsDoc(k, "bench-cost", ["goals", "decision", "journal", "status"]);
  return { strict: [ids[0], ids[1], ids[2]] as [string, string, string], direct: ids[3] as string };
}

/** Starts the executable with the tap preloaded; `profile` makes the tap profile between dumps. */
async function startServer(sb: Target, profile = false): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), "sis-cost-"));
  const tapFile = join(dir, "tap.json");
  const child = spawn(
    process.execPath,
    ["--require", TAP, BIN, ...httpServerArgs(sb.url, join(dir, "data"))],
    {
      env: {
        ...process.env,
        SIYUAN_TOKEN: sb.token,
        SISYPHUS_AUTH_TOKEN: TOKEN,
        SISYPHUS_TAP_FILE: tapFile,
        ...(profile ? { SISYPHUS_TAP_PROFILE: "1", SISYPHUS_CODE_CACHE: "off" } : {}),
      },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  running.add(child);
  child.once("exit", () => running.delete(child));
  return { url: await listeningUrl(child), child, tapFile };
}

const stopServer = (s: Server) => stopChild(s.child);

async function connect(url: string): Promise<Client> {
  const client = new Client(
    { name: "bench-cost", version: "1" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  return client;
}

// ---- the same kernel calls, made directly ---------------------------------------------------------

/** Intervals of this process's own undici requests while {@link replayTap} is on. */
const replayTap = { on: false, open: new WeakMap<object, number>(), seen: [] as Interval[] };
subscribe("undici:request:create", (m) => {
  if (replayTap.on) replayTap.open.set((m as { request: object }).request, now());
});
subscribe("undici:request:trailers", (m) => {
  const start = replayTap.open.get((m as { request: object }).request);
  if (start !== undefined) replayTap.seen.push({ start, end: now() });
});

/** A call replayed without MCP or guarantee: client-observed time and kernel time (union), ms. */
interface Replayed {
  client: number;
  kernel: number;
}

/** Runs `calls` with this process's tap on: its wall time and the union of its kernel requests. */
async function replayed(calls: () => Promise<unknown>): Promise<Replayed> {
  replayTap.seen = [];
  replayTap.on = true;
  const start = now();
  await calls();
  const call = { start, end: now() };
  replayTap.on = false;
  return { client: call.end - call.start, kernel: unionMs(replayTap.seen, call) };
}

/**
 * The kernel calls of a trivial read, a strict block.update preflight and its commit, made by the
 * server's kernel client (siyuan-api over undici, one keep-alive pool) with the same sequence and
 * concurrency, and nothing else: what a client pays for those calls beyond kernel time.
 */
async function replayCalls(k: SiyuanClient, id: string, data: string) {
  const state = () => Promise.all([k.block.getBlockKramdown({ id }), k.block.getBlockDOM({ id })]);
  const read = await replayed(() => k.system.version());
  const pre = await replayed(state);
  const commit = await replayed(async () => {
    await state();
    await k.block.updateBlock({ id, dataType: "markdown", data });
    await k.sqlite.flushTransaction();
    await state();
  });
  return { read, pre, commit };
}

/** What the tap saw inside one client-observed call. */
interface Seen {
  client: number;
  server: number;
  kernel: number;
  kernelCalls: number;
  roundTrips: number;
  fsync: number;
  /** Awaited fsync time not hidden behind a kernel call. */
  fsyncExposed: number;
  fsyncs: number;
  /** The server's window in order: kernel, settings and fsync blocks (overlaps merged), the gaps between. */
  timeline: Array<{ label: string; ms: number }>;
}

/**
 * The server's handling of one call, in order: from the request's arrival, each stretch where a
 * kernel call, the settings read or an awaited fsync was in flight (overlapping ones merged; labelled by what was in
 * it) and each gap of server time between them, to the answer.
 */
function timelineOf(mcp: TapRecord | undefined, busy: TapRecord[]): Seen["timeline"] {
  if (mcp === undefined) return [];
  const out: Seen["timeline"] = [];
  let at = mcp.start;
  for (const b of mergeIntervals(busy)) {
    out.push({ label: "server", ms: Math.max(0, b.start - at) });
    out.push({
      label: [...new Set(b.members.map((r) => r.kind))].sort().join("+"),
      ms: b.end - b.start,
    });
    at = b.end;
  }
  out.push({ label: "server", ms: Math.max(0, mcp.end - at) });
  return out;
}

function seenIn(call: Interval, tap: TapRecord[]): Seen {
  // by start: a server's "finish" event may run after the client already has the answer
  const inside = (r: TapRecord) => r.start >= call.start && r.start <= call.end;
  const mcp = tap.filter((r) => r.kind === "mcp" && inside(r));
  const kernel = tap.filter((r) => r.kind === "kernel" && inside(r));
  const fsync = tap.filter((r) => r.kind === "fsync" && inside(r));
  // shown in the timeline only: the floor counts it in the MCP round trip (the read makes one too)
  const settings = tap.filter((r) => r.kind === "settings" && inside(r));
  return {
    client: call.end - call.start,
    server: unionMs(mcp, call),
    kernel: unionMs(kernel, call),
    kernelCalls: kernel.length,
    roundTrips: waves(kernel),
    fsync: unionMs(fsync, call),
    fsyncExposed: unionMs([...fsync, ...kernel], call) - unionMs(kernel, call),
    fsyncs: fsync.length,
    timeline: timelineOf(mcp[0], [...kernel, ...settings, ...fsync]),
  };
}

/** Median of each step of the calls' timelines (calls whose steps differ in number are left out). */
function medianTimeline(xs: Seen[]): string {
  const n = median(xs.map((x) => x.timeline.length));
  const same = xs.filter((x) => x.timeline.length === n);
  const steps = Array.from({ length: n }, (_, i) => {
    const label = same[0]?.timeline[i]?.label ?? "?";
    return `${label} ${f2(median(same.map((x) => x.timeline[i]?.ms ?? 0)))}`;
  });
  return `${steps.join(" → ")} (${same.length} of ${xs.length} calls)`;
}
const med = (xs: Seen[], k: Exclude<keyof Seen, "timeline">) => median(xs.map((x) => x[k]));

interface Decomposition {
  pre: Seen[];
  commit: Seen[];
  read: Seen[];
  direct: number[];
  /** The same kernel calls made directly, per round (see {@link replayCalls}). */
  replay: Array<Awaited<ReturnType<typeof replayCalls>>>;
  ratio: number;
  /** The server's CPU time (all threads) per round: a read, a preflight and a commit. */
  cpuPerRound: number;
}

/** ROUNDS strict updates + trivial reads + direct writes, interleaved, against one server. */
async function decompose(
  sb: Target,
  paragraphs: Paragraphs,
  s: Server,
  client: Client,
  rounds: number,
): Promise<Decomposition> {
  const ids = paragraphs.strict;
  const calls: Array<{ read: Interval; pre: Interval; commit: Interval; direct: Interval }> = [];
  const replay: Decomposition["replay"] = [];
  const pool = new Pool(sb.url, { connections: 4 });
  const kernel = createSiyuanClient({
    transport: undiciTransport({ baseUrl: sb.url, token: sb.token, dispatcher: pool }),
  });
  await replayCalls(kernel, paragraphs.direct, "warm"); // connections open, code warm
  await dumpTap(s);
  const cpu0 = cpuMsOf(s.child.pid);
  for (let i = 0; i < rounds; i++) {
    const r0 = now();
    await call(client, "system", { action: "version" });
    const read = { start: r0, end: now() };
    const { preflight, commit } = await strictUpdate(client, ids[i % 3] as string, `cost ${i}`);
    const direct = await directUpdate(sb, paragraphs.direct, `direct ${i}`);
    calls.push({ read, pre: preflight, commit, direct });
    replay.push(await replayCalls(kernel, paragraphs.direct, `replay ${i}`));
  }
  const cpuPerRound = (cpuMsOf(s.child.pid) - cpu0) / rounds;
  await pool.close();
  const tap = await dumpTap(s);
  const pre = calls.map((c) => seenIn(c.pre, tap));
  const commit = calls.map((c) => seenIn(c.commit, tap));
  const read = calls.map((c) => seenIn(c.read, tap));
  const direct = calls.map((c) => c.direct.end - c.direct.start);
  return {
    cpuPerRound,
    pre,
    commit,
    read,
    direct,
    replay,
    ratio: floorRatio(pre, commit, read),
  };
}

/** Fresh servers the decomposition runs in: one run's ratio moves by about ±0.1 (README). */
const PROCESSES = QUICK ? 1 : 3;

/** A fresh server, warmed with 10 strict writes, decomposed, stopped. */
async function decomposeFresh(sb: Target, paragraphs: Paragraphs): Promise<Decomposition> {
  const s = await startServer(sb);
  try {
    const client = await connect(s.url);
    await warm(client, paragraphs.strict[0]);
    const d = await decompose(sb, paragraphs, s, client, ROUNDS);
    await client.close();
    return d;
  } finally {
    await stopServer(s);
  }
}

async function warm(client: Client, id: string = DEMO_IDS.paragraphGoals): Promise<void> {
  for (let i = 0; i < 10; i++) await strictUpdate(client, id, `warm ${i}`);
}

/**
 * Prints the decomposition of the process whose ratio is the median of `runs`, with every
 * process's ratio beside it.
 */
function printDecompositions(runs: Decomposition[]): void {
  const mid = medianItem(runs, (d) => d.ratio);
  const { floor, fsync } = printDecomposition(mid);
  const each = runs.map((d) => f2(d.ratio)).join(", ");
  if (runs.length > 1)
    console.log(
      `ratio in ${runs.length} fresh server processes, one after another: ${each}; the figures above are the median process's`,
    );
  console.log(
    goalLine(
      "strict `block.update` through the Node server vs its floor (kernel time + 2 MCP round trips)",
      runs.length > 1
        ? `${f2(mid.ratio)} (median of ${runs.length} processes: ${each})`
        : f2(mid.ratio),
      "≤ 1.10",
      mid.ratio <= 1.1,
      `the awaited fsyncs the spec requires (the preflight's reservation and issued record, the commit's executing and committed records), ${f2(fsync)} ms per write, make floor + fsyncs alone ${f2((floor + fsync) / floor)}; the other ${f2(Math.max(0, mid.ratio - (floor + fsync) / floor))} is the write's own work (hashing, records, checks), in the gaps between the steps of the server timeline in this package's section`,
    ),
  );
}

/** Prints one decomposition; returns its floor and awaited fsyncs outside kernel time, ms per write. */
function printDecomposition(d: Decomposition): { floor: number; fsync: number } {
  const row = (label: string, xs: Seen[]) =>
    console.log(
      `| ${label} | ${f2(med(xs, "client"))} | ${f2(med(xs, "server"))} | ${f2(med(xs, "kernel"))} | ${med(xs, "kernelCalls")} / ${med(xs, "roundTrips")} | ${f2(med(xs, "fsync"))} (${med(xs, "fsyncs")}) | ${f2(med(xs, "fsyncExposed"))} | ${f2(med(xs, "server") - med(xs, "kernel") - med(xs, "fsyncExposed"))} | ${f2(med(xs, "client") - med(xs, "server"))} |`,
    );
  console.log(
    "| call (medians of " +
      d.pre.length +
      ", ms) | client-observed | server (request in → answer out) | kernel (union) | kernel calls / sequential round trips | awaited fsync (count) | of it outside kernel time | rest of server | client + transport |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  row("trivial read (system.version)", d.read);
  row("strict block.update preflight", d.pre);
  row("strict block.update commit", d.commit);
  console.log(
    "server timeline, request in → answer out (median ms per step; kernel = kernel calls in flight, settings = the settings read, fsync = an awaited fsync):",
  );
  console.log(`- trivial read: ${medianTimeline(d.read)}`);
  console.log(`- preflight: ${medianTimeline(d.pre)}`);
  console.log(`- commit: ${medianTimeline(d.commit)}`);
  const rt = med(d.read, "client") - med(d.read, "kernel");
  const floor = med(d.pre, "kernel") + med(d.commit, "kernel") + 2 * rt;
  const observed = med(d.pre, "client") + med(d.commit, "client");
  const fsync = med(d.pre, "fsyncExposed") + med(d.commit, "fsyncExposed");
  console.log(
    `floor = kernel(preflight) ${f2(med(d.pre, "kernel"))} + kernel(commit) ${f2(med(d.commit, "kernel"))} + 2 × MCP round trip without kernel ${f2(rt)} = ${f2(floor)} ms; observed ${f2(observed)} ms; **ratio ${f2(d.ratio)}** (median of per-write ratios; goal ≤ 1.10)`,
  );
  console.log(
    `server CPU per round (read + preflight + commit, all threads, from /proc schedstat; steadier than wall time on a busy machine): ${f2(d.cpuPerRound)} ms`,
  );
  console.log(
    `above the floor: ${f2(observed - floor)} ms per write, of which awaited fsyncs outside kernel time ${f2(fsync)} ms (${f2((100 * fsync) / Math.max(observed - floor, 1e-9))} %); floor + fsyncs = ${f2(floor + fsync)} ms → ratio without the rest ${f2((floor + fsync) / floor)}`,
  );
  // The floor holds kernel time only; making the calls costs the client time too (request and
  // answer handling between and around them), which the trivial read pays for its one call.
  const beyond = (k: "read" | "pre" | "commit") =>
    median(d.replay.map((r) => r[k].client - r[k].kernel));
  const calls = beyond("pre") + beyond("commit") - 2 * beyond("read");
  const rest = observed - floor - fsync - calls;
  console.log(
    `the same kernel calls made directly (siyuan-api client, same sequence, no MCP, no guarantee), client time beyond kernel time: read ${f2(beyond("read"))}, preflight ${f2(beyond("pre"))}, commit ${f2(beyond("commit"))} ms → the write's extra calls cost ${f2(calls)} ms; floor + fsyncs + those calls = ${f2(floor + fsync + calls)} ms → ratio ${f2((floor + fsync + calls) / floor)}; the rest (coordinator, hashing, ledger records, larger arguments) ${f2(rest)} ms per write`,
  );
  return { floor, fsync };
}

// ---- CPU attribution -------------------------------------------------------------------------

const CATEGORIES: Array<[string, RegExp]> = [
  ["hashing (core-hash)", /core-hash/],
  ["zod validation", /^zod\//],
  [
    "MCP SDK: JSON-RPC, Streamable HTTP transport, web Request/Response",
    /@modelcontextprotocol|ajv|hono/,
  ],
  ["write-safety (coordinator, records)", /write-safety/],
  ["node-server: durable stores (CPU; awaited fsync apart)", /node-server\/src\/stores/],
  ["node-server: HTTP shell, settings read", /node-server\/src/],
  ["mcp-tools: gateway, dispatch, handler, tool", /mcp-tools\/src/],
  ["kernel client (siyuan-api, undici)", /siyuan-api|undici/],
];
const NO_CALLER = "Node event loop: sockets, HTTP parser, timers (no bundle frame on the stack)";

/**
 * CPU time per category of a CPU profile of the bundle, each sample counted for the nearest frame
 * of the bundle (or an external package) on its stack, mapped through the bundle's source map: a
 * builtin or Node internal (JSON.parse, web streams, crypto) counts for the code that called it.
 * Also the ten bundle functions with the most such time.
 */
function attribute(profile: CpuProfile, bundle: string) {
  const map = new SourceMap(JSON.parse(readFileSync(`${bundle}.map`, "utf8")));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  /** Source file and function of a bundle/package frame, or undefined for builtins and internals. */
  const ownerOf = (n: CpuProfileNode): { src: string; fn: string } | undefined => {
    const { url, lineNumber, columnNumber, functionName } = n.callFrame;
    if (url.endsWith("server.cjs")) {
      const e = map.findEntry(lineNumber, columnNumber) as {
        originalSource?: string;
        originalLine?: number;
      };
      const src = resolve(MAP_BASE, e.originalSource ?? url).replace(
        /^.*\/(packages|node_modules)\//,
        "",
      );
      return { src: `${src}:${(e.originalLine ?? 0) + 1}`, fn: functionName || "(anonymous)" };
    }
    if (url.includes("/node_modules/"))
      return { src: url.replace(/^.*\/node_modules\//, ""), fn: functionName || "(anonymous)" };
    return undefined;
  };
  const owner = new Map<number, { src: string; fn: string } | null>();
  const ownerUp = (id: number): { src: string; fn: string } | null => {
    if (owner.has(id)) return owner.get(id) as { src: string; fn: string } | null;
    const mine = ownerOf(byId.get(id) as CpuProfileNode);
    const up = parent.get(id);
    const o = mine ?? (up === undefined ? null : ownerUp(up));
    owner.set(id, o);
    return o;
  };
  const byCategory = new Map<string, number>();
  const byFunction = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const fn = (byId.get(id) as CpuProfileNode).callFrame.functionName;
    const o = ownerUp(id);
    if (fn === "(idle)") add(byCategory, "idle", ms);
    else if (fn === "(garbage collector)") add(byCategory, "garbage collection", ms);
    else if (o === null)
      add(byCategory, fn === "(program)" ? "V8/Node native (program)" : NO_CALLER, ms);
    else {
      add(byCategory, CATEGORIES.find(([, re]) => re.test(o.src))?.[0] ?? `other (${o.src})`, ms);
      add(byFunction, `${o.fn} (${o.src})`, ms);
    }
  });
  return { byCategory, top: [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 10) };
}

/** One profiling window: `run` between two tap dumps; the profile and the wall time, ms. */
async function profiled(s: Server, run: () => Promise<void>) {
  await dumpTap(s); // starts the profiler
  const t0 = now();
  await run();
  const wall = now() - t0;
  await dumpTap(s); // stops it and writes <tap>.cpuprofile
  const profile = JSON.parse(readFileSync(`${s.tapFile}.cpuprofile`, "utf8")) as CpuProfile;
  return { wall, ...attribute(profile, resolve(BIN, "..", "server.cjs")) };
}

async function cpuAttribution(sb: Sandbox, writes: number): Promise<void> {
  const s = await startServer(sb, true);
  const client = await connect(s.url);
  for (let i = 0; i < 10; i++) await strictUpdate(client, DEMO_IDS.paragraphGoals, `warm ${i}`);
  const w = await profiled(s, async () => {
    for (let i = 0; i < writes; i++)
      await strictUpdate(client, DEMO_IDS.paragraphGoals, `prof ${i}`);
  });
  // the floor's two MCP round trips: two trivial reads per write, profiled the same way
  const r = await profiled(s, async () => {
    for (let i = 0; i < 2 * writes; i++) await call(client, "system", { action: "version" });
  });
  await client.close();
  await stopServer(s);
  const busyOf = (ms: Map<string, number>) =>
    [...ms].filter(([c]) => c !== "idle").reduce((a, [, v]) => a + v, 0);
  const busy = busyOf(w.byCategory);
  console.log(
    `\nServer CPU per strict write (preflight + commit), CPU profile of ${writes} sequential writes, then of two trivial reads per write (the floor's MCP round trips) (sampling 100 µs, tap-only build, SISYPHUS_CODE_CACHE=off): ${f2(w.wall / writes)} ms wall per write, ${f2(busy / writes)} ms on the server's main thread; two reads ${f2(busyOf(r.byCategory) / writes)} ms.`,
  );
  console.log(
    "| where (self time, builtins counted for their caller) | ms per write | share of busy | two trivial reads (ms) | write beyond two reads (ms) |",
  );
  console.log("| --- | --- | --- | --- | --- |");
  for (const [c, v] of [...w.byCategory].sort((a, b) => b[1] - a[1])) {
    if (c === "idle" || v / writes < 0.01) continue;
    const reads = (r.byCategory.get(c) ?? 0) / writes;
    console.log(
      `| ${c} | ${f2(v / writes)} | ${f1((100 * v) / busy)} % | ${f2(reads)} | ${f2(v / writes - reads)} |`,
    );
  }
  console.log("\n| bundle function (with the builtins it called) | ms per write |\n| --- | --- |");
  for (const [fn, v] of w.top) console.log(`| ${fn} | ${f2(v / writes)} |`);
}

// ---- latency sensitivity ------------------------------------------------------------------------

async function latency(sb: Sandbox, s: Server, client: Client): Promise<void> {
  const rows: Array<{ ms: number; d: Decomposition }> = [];
  sb.control.resetLog();
  for (const ms of [0, 1, 5]) {
    // every kernel API path the calls use (seen in the 0 ms run), delayed; the MCP hop is not
    const d = await withKernelDelay(sb, apiPaths(sb), ms, () =>
      decompose(sb, DEMO_PARAGRAPHS, s, client, QUICK ? 8 : 15),
    );
    rows.push({ ms, d });
  }
  printLatency(
    "perf/latency.svg",
    "Node HTTP",
    rows.map(({ ms, d }) => [ms, d]),
    true,
  );
}

// ---- throughput ---------------------------------------------------------------------------------

/** Appends `n` paragraphs to the journal directly; their IDs (one block per agent). */
async function makeBlocks(sb: Sandbox, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await fetch(`${sb.url}/api/block/appendBlock`, {
      method: "POST",
      headers: { authorization: `Token ${sb.token}`, "content-type": "application/json" },
      body: JSON.stringify({
        parentID: DEMO_IDS.docJournal,
        dataType: "markdown",
        data: `agent ${i}`,
      }),
    });
    const body = (await r.json()) as { data: Array<{ doOperations: Array<{ id: string }> }> };
    ids.push(body.data[0]?.doOperations[0]?.id as string);
  }
  // The kernel answers an append before applying it: wait for the queue, as a client must.
  await fetch(`${sb.url}/api/sqlite/flushTransaction`, {
    method: "POST",
    headers: { authorization: `Token ${sb.token}` },
  });
  return ids;
}

async function throughput(sb: Sandbox, url: string): Promise<void> {
  const blocks = await makeBlocks(sb, 16);
  const PER_AGENT_TOTAL = QUICK ? 48 : 96;
  const results: Array<[number, number]> = [];
  for (const agents of [1, 4, 16]) {
    const clients = await Promise.all(Array.from({ length: agents }, () => connect(url)));
    const each = Math.max(2, Math.floor(PER_AGENT_TOTAL / agents));
    const t0 = now();
    await Promise.all(
      clients.map(async (c, a) => {
        for (let i = 0; i < each; i++) await strictUpdate(c, blocks[a] as string, `a${a} w${i}`);
      }),
    );
    results.push([agents, (agents * each) / ((now() - t0) / 1000)]);
    await Promise.all(clients.map((c) => c.close()));
  }
  // reads at concurrency 4: MCP block.get_kramdown vs the kernel's getBlockKramdown directly
  const READS = QUICK ? 200 : 600;
  const readers = await Promise.all(Array.from({ length: 4 }, () => connect(url)));
  const loop = async (one: () => Promise<unknown>) => {
    let next = 0;
    const t0 = now();
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next++ < READS) await one();
      }),
    );
    return READS / ((now() - t0) / 1000);
  };
  const mcpRead = (i: number) => () =>
    call(readers[i % 4] as Client, "block", {
      action: "get_kramdown",
      id: DEMO_IDS.paragraphGoals,
    });
  let k = 0;
  const directRead = async () => {
    const r = await fetch(`${sb.url}/api/block/getBlockKramdown`, {
      method: "POST",
      headers: { authorization: `Token ${sb.token}`, "content-type": "application/json" },
      body: JSON.stringify({ id: DEMO_IDS.paragraphGoals }),
    });
    await r.json();
  };
  await loop(() => mcpRead(k++)()); // warm-up
  const mcpPerSec = await loop(() => mcpRead(k++)());
  const directPerSec = await loop(directRead);
  await Promise.all(readers.map((c) => c.close()));

  console.log("\n| throughput | per second |");
  console.log("| --- | --- |");
  for (const [a, v] of results)
    console.log(
      `| strict block.update (preflight + commit), ${a} concurrent agent(s), different blocks, one lane | ${f1(v)} |`,
    );
  console.log(`| MCP block.get_kramdown, concurrency 4 | ${f1(mcpPerSec)} |`);
  console.log(`| sandbox ceiling: direct getBlockKramdown, concurrency 4 | ${f1(directPerSec)} |`);
  console.log(`| ratio MCP read / ceiling | ${f2(mcpPerSec / directPerSec)} |`);
  console.log(
    writeChart(
      "perf/throughput.svg",
      barChart({
        title: "Throughput through the Node HTTP authority",
        yLabel: "per second",
        bars: [
          ...results.map(([a, v]) => ({
            label: `${a} agent${a > 1 ? "s" : ""}`,
            value: v,
            group: "strict writes",
          })),
          { label: "MCP read ×4", value: mcpPerSec, group: "reads" },
          { label: "kernel read ×4", value: directPerSec, group: "reads" },
        ],
      }),
    ),
  );
}

// ---- main ------------------------------------------------------------------------------------------

console.log(machineLine(QUICK));
if (REAL !== undefined) {
  // a real SiYuan: the decomposition only, on a document of its own
  const version = await fetch(`${REAL.url}/api/system/version`, {
    method: "POST",
    headers: { authorization: `Token ${REAL.token}` },
  }).then(async (r) => ((await r.json()) as { data: string }).data);
  console.log(`against SiYuan ${version} at ${REAL.url}`);
  try {
    const paragraphs = await realParagraphs(REAL);
    const runs: Decomposition[] = [];
    for (let p = 0; p < PROCESSES; p++) runs.push(await decomposeFresh(REAL, paragraphs));
    printDecompositions(runs);
  } finally {
    for (const child of running) child.kill("SIGKILL");
    if (binArg < 0) rmSync(dirname(BIN), { recursive: true, force: true });
  }
} else {
  const sb = await startSandbox({ seed: "demo" });
  try {
    if (run("decomposition")) {
      const runs: Decomposition[] = [];
      for (let p = 0; p < PROCESSES; p++) runs.push(await decomposeFresh(sb, DEMO_PARAGRAPHS));
      printDecompositions(runs);
    }
    const s = await startServer(sb);
    const client = await connect(s.url);
    await warm(client);
    if (run("latency")) await latency(sb, s, client);
    await client.close();
    if (run("throughput")) await throughput(sb, s.url);
    await stopServer(s);
    if (run("cpu")) await cpuAttribution(sb, QUICK ? 30 : 60);
  } finally {
    for (const child of running) child.kill("SIGKILL");
    await sb.stop();
    if (binArg < 0) rmSync(dirname(BIN), { recursive: true, force: true });
  }
}
