/**
 * The cost of the guarantee through the kernel plugin (issue 19): the built `dist/package.zip` in
 * the sandbox's plugin host, an official MCP client on its private route. Same decomposition as
 * node-server's bench/cost.ts: client-observed preflight and commit of a strict `block.update`
 * against the floor = the kernel time the same calls needed (union of the intervals of the
 * plugin's `siyuan.client` requests, timed by the host's client interceptor, in this process) +
 * two MCP round trips of a trivial read (`system.version`) without its kernel time. Then the same
 * with 1 and 5 ms injected on every kernel API path the calls use (the sandbox's `delay` fault):
 * commit / direct `updateBlock` beside the commit's sequential kernel round trips.
 * Run: pnpm --filter @sisyphus/kernel-plugin exec tsx --conditions=source bench/cost.ts [--quick]
 */
import { cpus } from "node:os";
import { resolve } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { DEMO_IDS, type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { lineChart, writeChart } from "../../../bench/svg-chart.js";

const QUICK = process.argv.includes("--quick");
const ROUNDS = QUICK ? 15 : 40;
const PLUGIN = "siyuan-plugins-mcp-sisyphus";
const ZIP = resolve(import.meta.dirname, "..", "dist", "package.zip");

type Interval = { start: number; end: number };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const f2 = (n: number) => n.toFixed(2);

/** Total length of the union of intervals. */
function unionMs(xs: Interval[]): number {
  let total = 0;
  let cur: Interval | undefined;
  for (const x of [...xs].sort((a, b) => a.start - b.start)) {
    if (cur && x.start <= cur.end) cur.end = Math.max(cur.end, x.end);
    else {
      if (cur) total += cur.end - cur.start;
      cur = { ...x };
    }
  }
  return total + (cur ? cur.end - cur.start : 0);
}

/** Sequential round trips: groups of overlapping intervals, one after another. */
function waves(xs: Interval[]): number {
  let n = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const x of [...xs].sort((a, b) => a.start - b.start)) {
    if (x.start >= end) n++;
    end = Math.max(end, x.end);
  }
  return n;
}

/** The plugin's kernel requests, timed around `siyuan.client.fetch` by the host's interceptor. */
function tapKernel(sb: Sandbox): Interval[] {
  const calls: Interval[] = [];
  const open = new WeakMap<object, number>();
  sb.plugins.interceptClient({
    before: (call) => void open.set(call, performance.now()),
    after: (call) => {
      calls.push({ start: open.get(call) as number, end: performance.now() });
    },
  });
  return calls;
}

async function putSettings(sb: Sandbox): Promise<void> {
  const form = new FormData();
  form.set("path", `/data/storage/petal/${PLUGIN}/settings.json`);
  form.set("file", new Blob([JSON.stringify({ kernelEndpointEnabled: true })]), "settings.json");
  await fetch(`${sb.url}/api/file/putFile`, {
    method: "POST",
    headers: { authorization: `Token ${sb.token}` },
    body: form,
  });
}

type Sc = Record<string, unknown>;
async function call(client: Client, name: string, args: Sc): Promise<Sc> {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError === true) throw new Error(`${name}: ${JSON.stringify(r.structuredContent)}`);
  return (r.structuredContent ?? {}) as Sc;
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
    const t = performance.now();
    const r = await fetch(`${sb.url}/api/block/updateBlock`, {
      method: "POST",
      headers: { authorization: `Token ${sb.token}`, "content-type": "application/json" },
      body: JSON.stringify({ id: DEMO_IDS.paragraphStatus, dataType: "markdown", data: `d ${i}` }),
    });
    await r.json();
    out.direct.push(performance.now() - t);
  }
  const ratio = median(
    out.pre.map((p, i) => {
      const c = out.commit[i] as Seen;
      const r = out.read[i] as Seen;
      return (p.client + c.client) / (p.kernel + c.kernel + 2 * (r.client - r.kernel));
    }),
  );
  return { ...out, ratio };
}

const med = (xs: Seen[], k: keyof Seen) => median(xs.map((x) => x[k]));

console.log(
  `${cpus()[0]?.model} × ${cpus().length}, node ${process.version}${QUICK ? ", --quick" : ""}`,
);
const sb = await startSandbox({ seed: "demo", plugins: [ZIP] });
try {
  await putSettings(sb);
  const kernel = tapKernel(sb);
  const client = new Client(
    { name: "bench-cost", version: "1" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${sb.url}/plugin/private/${PLUGIN}/mcp`), {
      requestInit: { headers: { authorization: `Token ${sb.token}` } },
    }),
  );
  await rounds(sb, client, kernel, 10); // warm-up
  sb.control.resetLog();
  const d = await rounds(sb, client, kernel, ROUNDS);
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

  const paths = Object.keys(sb.control.counts()).filter((p) => p.startsWith("/api/"));
  const rows: Array<{ ms: number; r: typeof d }> = [{ ms: 0, r: d }];
  for (const ms of [1, 5]) {
    const faults = paths.map((endpoint) =>
      sb.control.armFault({ endpoint, kind: "delay", delayMs: ms, times: "always" }),
    );
    rows.push({ ms, r: await rounds(sb, client, kernel, QUICK ? 8 : 15) });
    for (const f of faults) sb.control.disarmFault(f);
  }
  await client.close();
  console.log(
    "\n| injected kernel latency per call | direct updateBlock (ms) | preflight (ms) | commit (ms) | commit / direct | commit's sequential kernel round trips | ratio to floor |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- |");
  for (const { ms, r } of rows) {
    const direct = median(r.direct);
    console.log(
      `| ${ms} ms | ${f2(direct)} | ${f2(med(r.pre, "client"))} | ${f2(med(r.commit, "client"))} | ${f2(med(r.commit, "client") / direct)} | ${med(r.commit, "roundTrips")} | ${f2(r.ratio)} |`,
    );
  }
  const pts = (k: (r: typeof d) => number) => rows.map(({ ms, r }) => [ms, k(r)] as const);
  console.log(
    writeChart(
      "perf/latency-plugin.svg",
      lineChart({
        title: "Strict commit vs a direct write under injected kernel latency (kernel plugin)",
        xLabel: "injected latency per kernel call (ms)",
        yLabel: "time / direct updateBlock",
        series: [
          {
            name: "commit / direct",
            points: pts((r) => med(r.commit, "client") / median(r.direct)),
          },
          {
            name: "commit's sequential kernel round trips",
            points: pts((r) => med(r.commit, "roundTrips")),
          },
        ],
      }),
    ),
  );
} finally {
  await sb.stop();
}
