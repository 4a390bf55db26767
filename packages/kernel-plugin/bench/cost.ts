/**
 * The cost of the guarantee through the kernel plugin (issue 19): the built `dist/package.zip` in
 * the sandbox's plugin host, an official MCP client on its private route. Same decomposition as
 * node-server's bench/cost.ts: client-observed preflight and commit of a strict `block.update`
 * against the floor = the kernel time the same calls needed (union of the intervals of the
 * plugin's `siyuan.client` requests, timed by the host's client interceptor, in this process) +
 * two MCP round trips of a trivial read (`system.version`) without its kernel time. Then the same
 * with 1 and 5 ms injected on every kernel API path the calls use (the sandbox's `delay` fault):
 * commit / direct `updateBlock` beside the commit's sequential kernel round trips.
 * The decomposition runs twice, side by side: with kernel.js in V8 (the host's `vm` engine) and in
 * goja (the `goja` engine: SiYuan 3.7.3's own JavaScript engine, what its users run).
 * Run: pnpm --filter @sisyphus/kernel-plugin exec tsx --conditions=source bench/cost.ts [--quick]
 *   [--decomposition-only] [--plugin <zip or dir>] (before/after: two bench/variant.ts builds)
 */
import { resolve } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import {
  DEMO_IDS,
  type PluginEngineKind,
  type Sandbox,
  startSandbox,
} from "@sisyphus/siyuan-sandbox";
import {
  apiPaths,
  call,
  directUpdate,
  f2,
  floorRatio,
  goalLine,
  type Interval,
  machineLine,
  median,
  medianItem,
  printLatency,
  putPluginSettings,
  type Sc,
  unionMs,
  waves,
  withKernelDelay,
} from "../../../bench/kit.js";
import { connectPlugin, PLUGIN } from "./client.js";

const QUICK = process.argv.includes("--quick");
/** `--decomposition-only`: skip the latency rows and chart (before/after comparisons). */
const DECOMPOSITION_ONLY = process.argv.includes("--decomposition-only");
const ROUNDS = QUICK ? 15 : 40;
/** `--plugin <zip or dir>` (e.g. a bench/variant.ts build); default the built `dist/package.zip`. */
const at = process.argv.indexOf("--plugin");
const ZIP =
  at > 0 && process.argv[at + 1] !== undefined
    ? resolve(process.argv[at + 1] as string)
    : resolve(import.meta.dirname, "..", "dist", "package.zip");

/** The plugin's kernel requests, timed around `siyuan.client.fetch` by the host's interceptor. */
function tapKernel(sb: Sandbox): Interval[] {
  const calls: Interval[] = [];
  const open = new WeakMap<object, number>();
  sb.plugins.interceptClient({
    before: (req) => void open.set(req, performance.now()),
    after: (req) => {
      calls.push({ start: open.get(req) as number, end: performance.now() });
    },
  });
  return calls;
}

interface Seen {
  client: number;
  kernel: number;
  calls: number;
  roundTrips: number;
}

/** Times `run` and what the plugin asked of the kernel meanwhile. */
async function timed(kernel: Interval[], run: () => Promise<unknown>): Promise<Seen> {
  kernel.length = 0;
  const start = performance.now();
  await run();
  const client = performance.now() - start;
  return { client, kernel: unionMs(kernel), calls: kernel.length, roundTrips: waves(kernel) };
}

async function rounds(sb: Sandbox, client: Client, kernel: Interval[], n: number) {
  const ids = [DEMO_IDS.paragraphGoals, DEMO_IDS.paragraphDecision, DEMO_IDS.paragraphJournal];
  const out = {
    read: [] as Seen[],
    pre: [] as Seen[],
    commit: [] as Seen[],
    direct: [] as number[],
  };
  for (let i = 0; i < n; i++) {
    out.read.push(await timed(kernel, () => call(client, "system", { action: "version" })));
    const args = { action: "update", id: ids[i % 3], dataType: "markdown", data: `plugin ${i}` };
    let pre: Sc = {};
    out.pre.push(
      await timed(kernel, async () => {
        pre = await call(client, "block", { ...args, validateOnly: true });
      }),
    );
    const field = pre["preconditionField"] as string;
    out.commit.push(
      await timed(kernel, async () => {
        const c = await call(client, "block", {
          ...args,
          requestId: pre["requestId"],
          [field]: pre[field],
        });
        if (c["status"] !== "committed") throw new Error(JSON.stringify(c));
      }),
    );
    const direct = await directUpdate(sb, DEMO_IDS.paragraphStatus, `d ${i}`);
    out.direct.push(direct.end - direct.start);
  }
  return { ...out, ratio: floorRatio(out.pre, out.commit, out.read) };
}

const med = (xs: Seen[], k: keyof Seen) => median(xs.map((x) => x[k]));
type Rounds = Awaited<ReturnType<typeof rounds>>;

/** Fresh sandbox kernels the decomposition runs in: one run's ratio moves by a few hundredths. */
const KERNELS = QUICK ? 1 : 3;

/**
 * A fresh sandbox kernel with the plugin loaded and its endpoint on, an official MCP client on the
 * private route, 10 warm-up rounds; runs `measure`, then stops both.
 */
async function withFreshKernel<T>(
  engine: PluginEngineKind,
  measure: (sb: Sandbox, client: Client, kernel: Interval[]) => Promise<T>,
): Promise<T> {
  const sb = await startSandbox({ seed: "demo", plugins: [ZIP], pluginHost: { engine } });
  try {
    await putPluginSettings(sb, PLUGIN, { kernelEndpointEnabled: true });
    const kernel = tapKernel(sb);
    const client = await connectPlugin(sb, "bench-cost");
    await rounds(sb, client, kernel, 10); // warm-up
    sb.control.resetLog();
    const result = await measure(sb, client, kernel);
    await client.close();
    return result;
  } finally {
    await sb.stop();
  }
}

/** Prints one decomposition; returns its floor and what the write took, ms per write. */
function printDecomposition(d: Rounds, cpuMs: number | null): { floor: number; observed: number } {
  console.log(
    `| call (medians of ${ROUNDS}, ms) | client-observed | kernel (union) | kernel calls / sequential round trips | rest |`,
  );
  console.log("| --- | --- | --- | --- | --- |");
  for (const [label, xs] of [
    ["trivial read (system.version)", d.read],
    ["strict block.update preflight", d.pre],
    ["strict block.update commit", d.commit],
  ] as const) {
    console.log(
      `| ${label} | ${f2(med(xs, "client"))} | ${f2(med(xs, "kernel"))} | ${med(xs, "calls")} / ${med(xs, "roundTrips")} | ${f2(med(xs, "client") - med(xs, "kernel"))} |`,
    );
  }
  const rt = med(d.read, "client") - med(d.read, "kernel");
  const floor = med(d.pre, "kernel") + med(d.commit, "kernel") + 2 * rt;
  console.log(
    `floor = kernel(preflight) ${f2(med(d.pre, "kernel"))} + kernel(commit) ${f2(med(d.commit, "kernel"))} + 2 × MCP round trip without kernel ${f2(rt)} = ${f2(floor)} ms; observed ${f2(med(d.pre, "client") + med(d.commit, "client"))} ms; **ratio ${f2(d.ratio)}** (median of per-write ratios; goal ≤ 1.10). The plugin's stores write through siyuan.storage (in the sandbox host: plain file writes, no fsync, no kernel API call).`,
  );
  if (cpuMs !== null)
    console.log(
      `process CPU per round (read + preflight + commit + direct write; client, kernel and plugin host share this process; steadier than wall time on a busy machine): ${f2(cpuMs / ROUNDS)} ms`,
    );
  return { floor, observed: med(d.pre, "client") + med(d.commit, "client") };
}

console.log(machineLine(QUICK));
const ENGINE_NAME: Record<PluginEngineKind, string> = {
  vm: "V8 (the sandbox's vm engine)",
  goja: "goja (SiYuan 3.7.3's engine, the goja-host child process)",
};
const observedBy: Partial<Record<PluginEngineKind, number>> = {};
for (const engine of ["vm", "goja"] as const) {
  console.log(`\nkernel.js in ${ENGINE_NAME[engine]}:\n`);
  const runs: Array<{ d: Rounds; cpuMs: number }> = [];
  for (let k = 0; k < KERNELS; k++) {
    runs.push(
      await withFreshKernel(engine, async (sb, client, kernel) => {
        const cpu0 = process.cpuUsage();
        const d = await rounds(sb, client, kernel, ROUNDS);
        const cpu = process.cpuUsage(cpu0);
        return { d, cpuMs: (cpu.user + cpu.system) / 1000 };
      }),
    );
  }
  const mid = medianItem(runs, (r) => r.d.ratio);
  // in goja the plugin's CPU is the child's, not this process's
  const { floor, observed } = printDecomposition(mid.d, engine === "vm" ? mid.cpuMs : null);
  observedBy[engine] = observed;
  const each = runs.map((r) => f2(r.d.ratio)).join(", ");
  if (runs.length > 1)
    console.log(
      `ratio in ${runs.length} fresh sandbox kernels (the plugin loaded anew in each), one after another: ${each}; the figures above are the median kernel's`,
    );
  console.log(
    goalLine(
      engine === "vm"
        ? "strict `block.update` through the kernel plugin vs its floor (kernel time + 2 MCP round trips)"
        : "the same in goja, SiYuan 3.7.3's engine (what SiYuan users get)",
      runs.length > 1
        ? `${f2(mid.d.ratio)} (median of ${runs.length} kernels: ${each})`
        : f2(mid.d.ratio),
      "≤ 1.10",
      mid.d.ratio <= 1.1,
      engine === "vm"
        ? `no fsync here (the host's storage writes plain files); ${f2(observed - floor)} ms per write beyond the floor, the plugin's own work spread thin over state checks, hashing, the coordinator, its stores and GC (bench/cpu.ts)`
        : `goja interprets: ${f2(observed - floor)} ms per write beyond the floor is the plugin's own work (the same as in V8, about ${f2((observedBy.goja ?? 0) / (observedBy.vm ?? 1))}× slower), plus a pipe round trip per kernel call and storage write`,
    ),
  );
}
console.log(
  `\npreflight + commit, client-observed: V8 ${f2(observedBy.vm ?? 0)} ms, goja ${f2(observedBy.goja ?? 0)} ms (${f2((observedBy.goja ?? 0) / (observedBy.vm ?? 1))}×), medians, measured one after the other in this run`,
);

if (!DECOMPOSITION_ONLY) {
  const rows = await withFreshKernel("vm", async (sb, client, kernel) => {
    const n = QUICK ? 8 : 15;
    const out: Array<{ ms: number; r: Rounds }> = [
      { ms: 0, r: await rounds(sb, client, kernel, n) },
    ];
    // every kernel API path the calls used (counted in the 0 ms rounds), delayed
    const paths = apiPaths(sb);
    for (const ms of [1, 5])
      out.push({
        ms,
        r: await withKernelDelay(sb, paths, ms, () => rounds(sb, client, kernel, n)),
      });
    return out;
  });
  printLatency(
    "perf/latency-plugin.svg",
    "kernel plugin",
    rows.map(({ ms, r }) => [ms, r]),
    false,
  );
}
