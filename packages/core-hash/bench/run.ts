/**
 * core-hash benchmarks. Every published figure is a ratio of two measurements taken side by side in
 * this one process (interleaved rounds), or a per-operation figure. Run with `pnpm bench` in
 * packages/core-hash (node --expose-gc, for the heap figures).
 *
 * Ratios use the fastest round of each side, in process CPU time and in wall time. On a shared
 * machine other processes only ever add time; CPU time also leaves out the time spent waiting for a
 * core, which wall time does not, so it is the steadier of the two. Both are printed.
 *
 * Prints a Markdown table that `bench/README.md` quotes as is, with the CPU model and Node version
 * on every row, and writes docs/perf/hash.svg. `--sha-only` prints just the SHA-256 throughput row
 * as JSON: the parent runs itself that way in fresh child processes for every SHA-256 row (this
 * Node, this Node with OpenSSL's SHA instructions masked, and Node 24 from packages/node24).
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import {
  AliasPool,
  createSha256,
  hashChunked,
  portableSha256Hex,
  RequestIdIssuer,
  type StateDigest,
  seededRandomSource,
  setSha256Backend,
  stateHash,
} from "@sisyphus/core-hash";
import { installNodeSha256, nodeSha256Hex, yieldToEventLoop } from "@sisyphus/core-hash/node";
import { goalLine, node24 } from "../../../bench/kit.js";
import { barChart, writeChart } from "../../../bench/svg-chart.js";

installNodeSha256();

const CPU = cpus()[0]?.model.trim() ?? "unknown CPU";
/** Where every figure was measured: printed beside each one. */
const WHERE = `${CPU}, Node ${process.version}`;

const gc = (globalThis as { gc?: () => void }).gc;

interface Timing {
  /** Fastest round, process CPU time, ms. */
  cpu: number;
  /** Fastest round, wall time, ms. */
  wall: number;
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Runs `a` and `b` alternately `rounds` times after a warm-up; fastest round of each side. */
function sideBySide(rounds: number, a: () => unknown, b: () => unknown): [Timing, Timing] {
  for (let i = 0; i < 3; i++) {
    a();
    b();
  }
  const best: [Timing, Timing] = [
    { cpu: Infinity, wall: Infinity },
    { cpu: Infinity, wall: Infinity },
  ];
  for (let i = 0; i < rounds; i++) {
    [a, b].forEach((fn, side) => {
      const c = cpuMs();
      const t = performance.now();
      fn();
      const wall = performance.now() - t;
      const cpu = cpuMs() - c;
      best[side]!.cpu = Math.min(best[side]!.cpu, cpu);
      best[side]!.wall = Math.min(best[side]!.wall, wall);
    });
  }
  return best;
}

function heapUsed(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

const random = seededRandomSource(20240601);

/** Random lowercase hex as one flat string (not a rope of single characters). */
function randomHex(n: number): string {
  const bytes = Buffer.allocUnsafe((n + 1) >> 1);
  for (let i = 0; i < bytes.length; i++) bytes[i] = random.nextInt(256);
  return bytes.toString("hex").slice(0, n);
}

function randomText(n: number): string {
  const words = ["Sisyphus", "note", "block", "kramdown", "über", "naïve", "日本語", "😀", "safe"];
  let s = "";
  while (s.length < n) {
    s += words[random.nextInt(words.length)]! + (random.nextInt(12) === 0 ? "\n" : " ");
  }
  return s.slice(0, n);
}

/** A realistic ~1 MB document state: kramdown, attrs, DOM, and a few thousand child blocks. */
function makeDocumentState(): unknown {
  const children = [];
  for (let i = 0; i < 3000; i++) {
    const id = `20240601${String(100000 + i)}-${randomHex(7)}`;
    children.push({
      id,
      type: i % 7 === 0 ? "h" : "p",
      subType: i % 7 === 0 ? "h2" : "",
      content: randomText(60),
      markdown: randomText(70),
      attrs: {
        id,
        updated: "20240601120000",
        ...(i % 5 === 0 ? { "custom-tag": randomText(10) } : {}),
      },
      sort: i,
      hash: randomHex(7),
    });
  }
  const attrs: Record<string, string> = {};
  for (let i = 0; i < 24; i++) attrs[`custom-attr-${randomHex(4)}`] = randomText(30);
  return {
    id: "20240601120000-rootdoc",
    rootID: "20240601120000-rootdoc",
    box: "20240601115959-notebok",
    path: "/20240601120000-rootdoc.sy",
    kramdown: randomText(110_000),
    dom: `<div data-node-id="20240601120000-rootdoc">${randomText(100_000)}</div>`,
    attrs,
    children,
  };
}

const rows: string[][] = [];
const ratio = (x: number) => `${x.toFixed(2)}×`;
/** Goal lines for the performance report, printed after the table. */
const goals: string[] = [];

function benchStateHash(): void {
  const doc = makeDocumentState();
  const bytes = Buffer.byteLength(JSON.stringify(doc));
  const floor = () => createHash("sha256").update(JSON.stringify(doc)).digest("hex");
  const ours = () => stateHash(doc);
  const [o, f] = sideBySide(60, ours, floor);
  // The floor's work without its one large string (informational): stringify, then hash a copy of
  // the same text that is already flat, so nothing of that size is allocated during the round.
  const flat = JSON.stringify(doc);
  nodeSha256Hex(flat); // flattens it once, here
  const work = () => JSON.stringify(doc).length + nodeSha256Hex(flat).length;
  const [wo, wf] = sideBySide(60, ours, work);
  // The same with the portable backend, as in the kernel-plugin runtime (informational).
  setSha256Backend(undefined);
  const [po, pf] = sideBySide(20, ours, floor);
  installNodeSha256();
  goals.push(
    goalLine(
      "`stateHash` vs `JSON.stringify` + native SHA-256 (CPU)",
      ratio(o.cpu / f.cpu),
      "≤ 1.1×",
      o.cpu / f.cpu <= 1.1,
    ),
  );
  rows.push([
    `\`stateHash\` of a ${(bytes / 1e6).toFixed(2)} MB document state (kramdown, DOM, attrs, 3,000 child blocks) vs \`JSON.stringify\` + \`node:crypto\``,
    `**${ratio(o.cpu / f.cpu)}** the floor (${o.cpu.toFixed(1)} vs ${f.cpu.toFixed(1)} ms)`,
    `${ratio(o.wall / f.wall)} (${o.wall.toFixed(1)} vs ${f.wall.toFixed(1)} ms)`,
    "goal ≤ 1.1×",
    WHERE,
  ]);
  rows.push([
    "the same `stateHash` vs the floor's work without its one large string: `JSON.stringify` (result dropped) + `node:crypto` over the same text already flat",
    `${ratio(wo.cpu / wf.cpu)} (${wo.cpu.toFixed(1)} vs ${wf.cpu.toFixed(1)} ms)`,
    `${ratio(wo.wall / wf.wall)} (${wo.wall.toFixed(1)} vs ${wf.wall.toFixed(1)} ms)`,
    "informational: what allocating that string costs the floor",
    WHERE,
  ]);
  rows.push([
    "the same `stateHash` with the portable backend (no `node:crypto`, as in the kernel runtime)",
    `${ratio(po.cpu / pf.cpu)} the floor (${po.cpu.toFixed(1)} vs ${pf.cpu.toFixed(1)} ms)`,
    `${ratio(po.wall / pf.wall)} (${po.wall.toFixed(1)} vs ${pf.wall.toFixed(1)} ms)`,
    "informational",
    WHERE,
  ]);
}

/** Portable and `node:crypto` SHA-256 throughput on this Node, MiB/s (fastest round of each). */
interface ShaThroughput {
  node: string;
  cpu: string;
  portable: Timing;
  native: Timing;
  /** The machine's CPU time stolen by the hypervisor while the rounds ran, % (Linux; else null). */
  stealPercent: number | null;
}

/** The machine's `steal` and total jiffies from /proc/stat, or undefined off Linux. */
function stealJiffies(): { steal: number; total: number } | undefined {
  try {
    const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0]?.trim().split(/\s+/).slice(1);
    const n = (cpu ?? []).map(Number);
    return { steal: n[7] ?? 0, total: n.reduce((a, b) => a + b, 0) };
  } catch {
    return undefined;
  }
}

/**
 * Hashes 1 MiB with each implementation, alternately, 200 times (after one 16 MiB call, as a first
 * large upload would). Short rounds: on a shared machine a 1 MiB round often runs uninterrupted,
 * a 16 MiB one rarely does, so the fastest of many short rounds is the steadier figure.
 */
function measureSha(): ShaThroughput {
  const first = new Uint8Array(16 * 1024 * 1024);
  for (let i = 0; i < first.length; i++) first[i] = (i * 2654435761) >>> 24;
  if (portableSha256Hex(first) !== nodeSha256Hex(first)) throw new Error("digests differ");
  const buf = first.subarray(0, 1024 * 1024);
  const before = stealJiffies();
  const [p, n] = sideBySide(
    200,
    () => portableSha256Hex(buf),
    () => nodeSha256Hex(buf),
  );
  const after = stealJiffies();
  const mibs = (ms: number) => 1 / (ms / 1000);
  return {
    node: process.version,
    cpu: CPU,
    portable: { cpu: mibs(p.cpu), wall: mibs(p.wall) },
    native: { cpu: mibs(n.cpu), wall: mibs(n.wall) },
    stealPercent:
      before === undefined || after === undefined || after.total === before.total
        ? null
        : (100 * (after.steal - before.steal)) / (after.total - before.total),
  };
}

/** `--sha-only` in a child process (`exe`, extra `env`): its throughput row, or why there is none. */
function measureShaInChild(exe: string, env: Record<string, string>): ShaThroughput | string {
  const script = fileURLToPath(import.meta.url);
  const r = spawnSync(exe, ["--conditions=source", "--import", "tsx", script, "--sha-only"], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    env: { ...process.env, ...env },
    encoding: "utf8",
    timeout: 120_000,
  });
  const line = r.stdout?.trim().split("\n").pop() ?? "";
  try {
    return JSON.parse(line) as ShaThroughput;
  } catch {
    return `the child run failed (exit ${r.status}): ${(r.stderr ?? "").trim().slice(0, 200)}`;
  }
}

/** Fresh child processes per SHA-256 measurement, run one after another. */
const SHA_PROCESSES = 3;

/** A SHA-256 measurement over several processes: the fastest one, and every process's ratio. */
interface ShaMeasured {
  /** The process whose portable rounds ran fastest (its own side-by-side native figure). */
  best: ShaThroughput;
  /** portable / native of each process, in run order. */
  ratios: number[];
}

/**
 * The SHA-256 rounds in {@link SHA_PROCESSES} fresh child processes of `exe`, one after another.
 * On this kind of shared host a process can spend its whole life in a slower state (both sides
 * slower, the portable code much more: see the README), so the fastest process is the steadier
 * figure, as the fastest round is within one; every process's ratio is printed beside it.
 */
function measureShaProcesses(exe: string, env: Record<string, string>): ShaMeasured | string {
  const runs: ShaThroughput[] = [];
  let failure = "";
  for (let i = 0; i < SHA_PROCESSES; i++) {
    const t = measureShaInChild(exe, env);
    if (typeof t === "string") failure = t;
    else runs.push(t);
  }
  if (runs.length === 0) return failure;
  const best = runs.reduce((a, b) => (b.portable.cpu > a.portable.cpu ? b : a));
  return { best, ratios: runs.map((t) => t.portable.cpu / t.native.cpu) };
}

/** What a {@link ShaMeasured} note says about its processes. */
function processesNote(m: ShaMeasured): string {
  const steal = m.best.stealPercent;
  return `fastest of ${m.ratios.length} processes (ratios ${m.ratios.map((r) => r.toFixed(2)).join(", ")}); hypervisor steal during its rounds ${steal === null ? "unknown" : `${steal.toFixed(1)} %`}`;
}

/** The same measurement with Node 24, or why there is none. */
function measureShaOnNode24(): ShaMeasured | string {
  if (process.version.startsWith("v24.")) return "this process is Node 24";
  const exe = node24();
  if (exe === undefined) return "Node 24 not installed (pnpm install puts it in packages/node24)";
  return measureShaProcesses(exe, {});
}

/**
 * What code without the CPU's SHA instructions reaches: OpenSSL's own hand-written x86-64 assembly
 * with those instructions masked out through `OPENSSL_ia32cap` (OpenSSL then takes the path it takes
 * on a CPU without them). `mask` is the variable's value: `~bits` clears CPUID bits, the first word
 * CPUID(1) EDX | ECX << 32, the second CPUID(7) EBX | ECX << 32.
 */
const OPENSSL_WITHOUT: ReadonlyArray<{ label: string; bar: string; mask: string }> = [
  // CPUID(7).EBX bit 29: the SHA extensions.
  {
    label: "OpenSSL without the SHA instructions (its AVX2 assembly)",
    bar: "OpenSSL AVX2",
    mask: ":~0x20000000",
  },
  // …and bit 5 (AVX2), CPUID(1).ECX bit 28 (AVX) and bit 9 (SSSE3): the plain x86-64 code.
  {
    label: "OpenSSL without SHA instructions or SIMD (its scalar x86-64 assembly)",
    bar: "OpenSSL scalar",
    mask: "~0x1000020000000000:~0x20000020",
  },
];

/** Native MiB/s with SHA instructions masked, for the chart: label and the fastest process's figure. */
const maskedBars: Array<{ label: string; value: number }> = [];

/**
 * Portable vs OpenSSL with SHA instructions (and SIMD) masked, side by side in a child process of
 * this Node each: the ceiling of what a portable implementation can be compared with. x64 only.
 * Returns the table rows and OpenSSL's scalar MiB/s (the last mask), when measured.
 */
function benchShaWithoutShaInstructions(native: ShaThroughput): {
  rows: string[][];
  scalar: Scalar | undefined;
} {
  if (process.arch !== "x64") {
    const row = [
      "portable SHA-256 vs OpenSSL's code without SHA instructions",
      "not measured",
      `OPENSSL_ia32cap is x86 only (${process.arch})`,
      "",
      WHERE,
    ];
    return { rows: [row], scalar: undefined };
  }
  const f = (x: number) => x.toFixed(0);
  const out: string[][] = [];
  let scalar: Scalar | undefined;
  for (const { label, bar, mask } of OPENSSL_WITHOUT) {
    const m = measureShaProcesses(process.execPath, { OPENSSL_ia32cap: mask });
    if (typeof m === "string") {
      out.push([`portable SHA-256 vs ${label}`, "not measured", m, "", WHERE]);
      scalar = undefined;
      continue;
    }
    const t = m.best;
    scalar = { mibs: t.native.cpu, node: t.node };
    maskedBars.push({ label: bar, value: Math.round(t.native.cpu) });
    out.push([
      `portable SHA-256 vs ${label} (\`OPENSSL_ia32cap=${mask}\`), 1 MiB rounds, Node ${t.node}`,
      `**${ratio(t.portable.cpu / t.native.cpu)}** (${f(t.portable.cpu)} vs ${f(t.native.cpu)} MiB/s)`,
      `${ratio(t.portable.wall / t.native.wall)} (${f(t.portable.wall)} vs ${f(t.native.wall)} MiB/s)`,
      `informational: 0.3× of native with SHA instructions would be ${f(0.3 * native.native.cpu)} MiB/s; ${processesNote(m)}`,
      `${t.cpu}, Node ${t.node}`,
    ]);
  }
  return { rows: out, scalar };
}

const shaRuns: ShaThroughput[] = [];

/** OpenSSL's MiB/s without SHA instructions or SIMD on this machine, and the Node it ran in. */
interface Scalar {
  mibs: number;
  node: string;
}

function shaRow(m: ShaMeasured, scalar: Scalar | undefined): void {
  const t = m.best;
  const f = (x: number) => x.toFixed(0);
  const r = t.portable.cpu / t.native.cpu;
  goals.push(
    goalLine(
      `portable SHA-256 vs native, Node ${t.node} (${t.cpu})`,
      ratio(r),
      "≥ 0.3×",
      r >= 0.3,
      scalar === undefined
        ? undefined
        : `native here uses the CPU's SHA instructions: OpenSSL's own scalar x86-64 assembly (Node ${scalar.node}) reaches ${f(scalar.mibs)} MiB/s, ${ratio(scalar.mibs / t.native.cpu)} of native, and the portable code ${ratio(t.portable.cpu / scalar.mibs)} of that`,
    ),
  );
  rows.push([
    `portable SHA-256 vs \`node:crypto\`, 1 MiB rounds (throughput), **Node ${t.node}**`,
    `**${ratio(t.portable.cpu / t.native.cpu)}** (${f(t.portable.cpu)} vs ${f(t.native.cpu)} MiB/s)`,
    `${ratio(t.portable.wall / t.native.wall)} (${f(t.portable.wall)} vs ${f(t.native.wall)} MiB/s)`,
    `goal ≥ 0.3×; ${processesNote(m)}`,
    `${t.cpu}, Node ${t.node}`,
  ]);
}

function benchPortableSha256(): void {
  const here = measureShaProcesses(process.execPath, {});
  if (typeof here === "string") throw new Error(`SHA-256 rounds failed: ${here}`);
  shaRuns.push(here.best);
  // measured first, so both goal lines can say what code without SHA instructions reaches
  const masked = benchShaWithoutShaInstructions(here.best);
  shaRow(here, masked.scalar);
  rows.push(...masked.rows);
  const other = measureShaOnNode24();
  if (typeof other === "string") {
    rows.push(["portable SHA-256 on Node 24", "not measured", other, "", WHERE]);
    return;
  }
  shaRuns.push(other.best);
  shaRow(other, masked.scalar);
}

/**
 * A 10 MiB staged upload hashed as the kernel runtime does: portable backend, `hashChunked`'s
 * default 64 KiB batches, yielding to the event loop between them. The largest synchronous slice
 * is the longest stretch between two yields (the event-loop stall hashing can cause); beside it,
 * the same 10 MiB in one call (no yields: the stall without batching).
 */
async function benchChunkedStall(): Promise<void> {
  const upload = new Uint8Array(10 * 1024 * 1024);
  for (let i = 0; i < upload.length; i++) upload[i] = (i * 40503) >>> 8;
  const expected = nodeSha256Hex(upload);
  setSha256Backend(undefined);
  try {
    // Per run: the largest slice in wall time (the stall the event loop sees), and the median
    // slice in process CPU time (the cost of one batch; a single slice's CPU reading can be
    // milliseconds above its wall time on this VM, so the largest would measure the accounting).
    let best = { total: Infinity, wall: Infinity, cpu: Infinity };
    let worstWall = 0;
    let oneCall = Infinity;
    for (let run = 0; run < 6; run++) {
      let resumed = performance.now();
      let resumedCpu = cpuMs();
      let wall = 0;
      const cpuSlices: number[] = [];
      const endSlice = () => {
        wall = Math.max(wall, performance.now() - resumed);
        cpuSlices.push(cpuMs() - resumedCpu);
      };
      const start = resumed;
      const digest = await hashChunked(upload, {
        yieldFn: async () => {
          endSlice();
          await yieldToEventLoop();
          resumed = performance.now();
          resumedCpu = cpuMs();
        },
      });
      endSlice();
      const total = performance.now() - start;
      if (digest !== expected) throw new Error("chunked digest differs");
      cpuSlices.sort((a, b) => a - b);
      const cpu = cpuSlices[cpuSlices.length >> 1] as number;
      if (run === 0) continue; // warm-up
      worstWall = Math.max(worstWall, wall);
      if (total < best.total) best = { total, wall, cpu };
      const t = performance.now();
      createSha256().update(upload).digestHex();
      oneCall = Math.min(oneCall, performance.now() - t);
    }
    rows.push([
      "10 MiB staged upload, portable backend (kernel runtime), `hashChunked` 64 KiB batches + `setImmediate` yields: largest synchronous slice",
      `${best.cpu.toFixed(2)} ms CPU, median slice (fastest run)`,
      `**${best.wall.toFixed(2)} ms** wall, fastest run (${worstWall.toFixed(2)} ms worst of 5 runs); ${best.total.toFixed(0)} ms for the 10 MiB; one call without yields: ${oneCall.toFixed(0)} ms stall`,
      "one 64 KiB batch is the floor",
      WHERE,
    ]);
  } finally {
    installNodeSha256();
  }
}

/** ns per operation of `fn` applied to each of `n` items, measured once (wall and CPU). */
function perOp(n: number, fn: (i: number) => void): { ns: number; cpuNs: number } {
  const c = cpuMs();
  const t = performance.now();
  for (let i = 0; i < n; i++) fn(i);
  return { ns: ((performance.now() - t) * 1e6) / n, cpuNs: ((cpuMs() - c) * 1e6) / n };
}

const nsCell = (label: string, m: { ns: number; cpuNs: number }) =>
  `${label} ${m.cpuNs.toFixed(0)} ns (wall ${m.ns.toFixed(0)})`;

function benchAliasPool(): void {
  const N = 1_000_000;
  const base0 = heapUsed();
  const digests: StateDigest[] = [];
  // Flat strings, as a pool in a long-running server ends up holding (a template literal would give
  // a rope that the first lookup flattens, muddying the heap figures).
  for (let i = 0; i < N; i++) {
    digests.push(
      Buffer.from(`sha256:v1:${randomHex(64)}`, "latin1").toString("latin1") as StateDigest,
    );
  }
  const base1 = heapUsed();
  const pool = new AliasPool();
  const insert = perOp(N, (i) => pool.aliasFor(digests[i]!));
  let aliasChars = 0;
  const again = perOp(N, (i) => {
    aliasChars += pool.aliasFor(digests[i]!).length;
  });
  const aliases = digests.map((d) => pool.aliasFor(d));
  let misses = 0;
  const resolve = perOp(N, (i) => {
    if (pool.resolve(aliases[i]!) !== digests[i]) misses++;
  });
  if (misses !== 0) throw new Error(`${misses} aliases did not resolve`);
  const lengths = new Map<number, number>();
  for (const a of aliases) lengths.set(a.length, (lengths.get(a.length) ?? 0) + 1);
  aliases.length = 0;
  // The pool's own memory: its map and alias strings (the caller still holds the digests).
  const poolOnly = (heapUsed() - base1) / N;
  // Drop the caller's array: the pool alone now keeps the digest strings alive.
  digests.length = 0;
  const withDigests = (heapUsed() - base0) / N;
  // Read the pool after measuring, so no engine may treat it as dead (and collect it) before.
  if (pool.size !== N || aliasChars < 4 * N) throw new Error("pool lost entries");
  rows.push([
    "`AliasPool`, 1,000,000 random digests",
    `${nsCell("`aliasFor` new", insert)}; ${nsCell("known", again)}; ${nsCell("`resolve`", resolve)}`,
    gc
      ? `${poolOnly.toFixed(0)} B/entry (${withDigests.toFixed(0)} B with the digest strings it keeps)`
      : "run with --expose-gc",
    `alias lengths ${[...lengths]
      .sort((x, y) => x[0] - y[0])
      .map(([l, c]) => `${l}: ${c}`)
      .join(", ")}`,
    WHERE,
  ]);
}

function benchRequestIds(): void {
  const N = 1_000_000;
  const base = heapUsed();
  const reservations = new Set<string>();
  const issuer = new RequestIdIssuer({ random: seededRandomSource(7), reservations });
  let longest = 0;
  const issue = perOp(N, () => {
    longest = Math.max(longest, issuer.issue().length);
  });
  const perEntry = (heapUsed() - base) / N;
  rows.push([
    "`RequestIdIssuer`, 1,000,000 issues into a `Set` (seeded source)",
    nsCell("`issue`", issue),
    gc ? `${perEntry.toFixed(0)} B/entry` : "run with --expose-gc",
    `longest ID ${longest} hex digits; ${reservations.size} distinct`,
    WHERE,
  ]);
}

const nodeName = (t: ShaThroughput) => `Node ${t.node.slice(1).split(".")[0]}`;

/** Portable and native MiB/s on each Node measured, and native with SHA instructions masked, as bars. */
function chart(): string {
  return writeChart(
    "perf/hash.svg",
    barChart({
      title: `SHA-256 throughput, portable vs node:crypto (${CPU})`,
      yLabel: "MiB/s (fastest 1 MiB round, CPU time)",
      width: 80 + (2 * shaRuns.length + maskedBars.length) * 110,
      // Ascending, so the legend (top left) stays clear of the tall bars.
      bars: [
        ...shaRuns.map((t) => ({
          label: `${nodeName(t)} portable`,
          value: Math.round(t.portable.cpu),
          group: "portable",
        })),
        ...maskedBars
          .toReversed()
          .map((b) => ({ ...b, group: "node:crypto, SHA instructions masked" })),
        ...shaRuns.map((t) => ({
          label: `${nodeName(t)} native`,
          value: Math.round(t.native.cpu),
          group: "node:crypto",
        })),
      ],
    }),
  );
}

if (process.argv.includes("--sha-only")) {
  console.log(JSON.stringify(measureSha()));
} else {
  // Each section is a function, so nothing it allocated is still reachable when the next one
  // starts measuring the heap.
  benchStateHash();
  benchPortableSha256();
  await benchChunkedStall();
  benchAliasPool();
  benchRequestIds();

  console.log(`Node ${process.version}, ${process.arch}, ${cpus().length} cores (${CPU}).`);
  console.log("");
  console.log(
    "| measurement | CPU time (fastest round) | wall time / heap | target / note | CPU, Node |",
  );
  console.log("| --- | --- | --- | --- | --- |");
  for (const r of rows) console.log(`| ${r.join(" | ")} |`);
  console.log("");
  console.log(chart());
  for (const g of goals) console.log(g);
}
