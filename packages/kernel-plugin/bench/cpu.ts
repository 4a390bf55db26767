/**
 * Where the kernel plugin's time above the floor goes (issue 19): the plugin, rebuilt with a source
 * map by bench/variant.ts, in the sandbox's plugin host in this process, and V8's sampling profiler
 * (node:inspector) over rounds of trivial read, strict preflight and strict commit, as bench/cost.ts
 * times them. Every sample is placed on the monotonic clock the profiler shares with
 * `process.hrtime`, so each is known to fall inside one call and inside or outside the plugin's
 * kernel requests (the host's client interceptor times them). A sample counts for the nearest
 * kernel.js frame on its stack (mapped to its source: a builtin counts for its caller) or, without
 * one, for the host's function (sandbox kernel, plugin host bridge, MCP client, event loop).
 *
 * Printed: per call its profiled wall and kernel time; the time outside kernel requests that the
 * preflight and the commit spend beyond a trivial read, by package and by function (what the floor
 * does not pay for); and each call's gaps between kernel requests, in order, with what ran in them.
 * The profiler slows everything (about 1.5× at 100 µs): read shares and differences, not absolute
 * milliseconds. Flags: `--quick`, `--committed` (this package's src/ as HEAD has it: the before
 * side), `--focus <text>` (only functions whose name or source contains it), `--callers <text>`
 * (the kernel.js call chains of samples whose stack contains it), `--interval <µs>` (default 100).
 * Run: pnpm --filter @sisyphus/kernel-plugin exec tsx --conditions=source bench/cpu.ts [flags]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { Session } from "node:inspector/promises";
import type { SourceMap } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_IDS, startSandbox } from "@sisyphus/siyuan-sandbox";
import {
  type CpuProfile,
  type CpuProfileNode,
  call,
  f2,
  machineLine,
  median,
  putPluginSettings,
  type Sc,
} from "../../../bench/kit.js";
import { connectPlugin, PLUGIN } from "./client.js";
import { buildPlugin } from "./variant.js";

const QUICK = process.argv.includes("--quick");
const ROUNDS = QUICK ? 40 : 100;
const flag = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const FOCUS = flag("--focus") ?? "";
const CALLERS = flag("--callers");
const INTERVAL_US = Number(flag("--interval") ?? 100);

/** One profiler sample: when (µs, hrtime clock), for how long, whose, and its kernel.js stack. */
interface Sample {
  t: number;
  us: number;
  owner: string;
  chain: string[];
}
type Span = { start: number; end: number };

/** µs on the clock V8's profiler stamps samples with. */
const hr = () => Number(process.hrtime.bigint()) / 1000;
const trimPath = (s: string) => s.replace(/^.*\/(packages|node_modules)\//, "");
const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);

function samplesOf(profile: CpuProfile, map: SourceMap): Sample[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const kernelFrame = (n: CpuProfileNode): string | undefined => {
    const { url, lineNumber, columnNumber, functionName } = n.callFrame;
    if (!url.endsWith(`${PLUGIN}/kernel.js`)) return undefined;
    const e = map.findEntry(lineNumber, columnNumber) as {
      originalSource?: string;
      originalLine?: number;
    };
    return `${functionName || "(anonymous)"} ${trimPath(e.originalSource ?? url)}:${(e.originalLine ?? 0) + 1}`;
  };
  const chains = new Map<number, string[]>();
  const chainOf = (id: number): string[] => {
    const known = chains.get(id);
    if (known !== undefined) return known;
    const up = parent.get(id);
    const above = up === undefined ? [] : chainOf(up);
    const mine = kernelFrame(byId.get(id) as CpuProfileNode);
    const chain = mine === undefined || above[0] === mine ? above : [mine, ...above];
    chains.set(id, chain);
    return chain;
  };
  let t = profile.startTime;
  return profile.samples.map((id, i) => {
    t += profile.timeDeltas[i] ?? 0;
    const { functionName, url } = (byId.get(id) as CpuProfileNode).callFrame;
    const chain = chainOf(id);
    const owner =
      functionName === "(idle)"
        ? "idle"
        : functionName === "(garbage collector)"
          ? "gc"
          : (chain[0] ?? `host: ${functionName || "(anonymous)"} ${trimPath(url)}`.trim());
    return { t, us: profile.timeDeltas[i + 1] ?? 0, owner, chain };
  });
}

/** The package (or host area) a sample's owner belongs to. */
function packageOf(owner: string): string {
  if (owner === "idle" || owner === "gc") return owner;
  if (owner.startsWith("host: ")) {
    const where = owner.split(" ").slice(2).join(" ");
    if (where === "") return "host: native (no script)";
    if (where.startsWith("node:")) return "host: Node internals";
    return `host: ${where.replace(/^([^/]+(\/[^/]+)?).*$/, "$1")}`;
  }
  const src = owner.split(" ")[1] ?? owner;
  return `kernel.js: ${src.replace(/^(@[^/]+\/[^/]+|[^/]+)(\/src)?.*$/, "$1")}`;
}

const within = (t: number, xs: readonly Span[]) => xs.find((x) => t >= x.start && t < x.end);

console.log(machineLine(QUICK));
const dir = mkdtempSync(join(tmpdir(), "kp-cpu-"));
const map = await buildPlugin(dir, { committed: process.argv.includes("--committed") });
const sb = await startSandbox({ seed: "demo", plugins: [dir] });
const session = new Session();
session.connect();
try {
  await putPluginSettings(sb, PLUGIN, { kernelEndpointEnabled: true });
  const kernel: Span[] = [];
  const open = new WeakMap<object, number>();
  sb.plugins.interceptClient({
    before: (req) => void open.set(req, hr()),
    after: (req) => void kernel.push({ start: open.get(req) as number, end: hr() }),
  });
  const client = await connectPlugin(sb, "bench-cpu");
  const calls = { read: [] as Span[], pre: [] as Span[], commit: [] as Span[] };
  const timed = async (into: Span[], run: () => Promise<unknown>) => {
    const start = hr();
    await run();
    into.push({ start, end: hr() });
  };
  const round = async (i: number) => {
    await timed(calls.read, () => call(client, "system", { action: "version" }));
    const ids = [DEMO_IDS.paragraphGoals, DEMO_IDS.paragraphDecision, DEMO_IDS.paragraphJournal];
    const args = { action: "update", id: ids[i % 3], dataType: "markdown", data: `cpu ${i}` };
    let pre: Sc = {};
    await timed(calls.pre, async () => {
      pre = await call(client, "block", { ...args, validateOnly: true });
    });
    const field = pre["preconditionField"] as string;
    await timed(calls.commit, async () => {
      const c = await call(client, "block", {
        ...args,
        requestId: pre["requestId"],
        [field]: pre[field],
      });
      if (c["status"] !== "committed") throw new Error(JSON.stringify(c));
    });
  };
  for (let i = 0; i < 20; i++) await round(i); // warm-up
  for (const xs of [...Object.values(calls), kernel]) xs.length = 0;
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: INTERVAL_US });
  await session.post("Profiler.start");
  for (let i = 0; i < ROUNDS; i++) await round(i);
  const { profile } = (await session.post("Profiler.stop")) as unknown as { profile: CpuProfile };
  await client.close();
  const samples = samplesOf(profile, map);

  /** Per call kind: ms per call outside kernel requests, by package and by owner. */
  const outside = Object.fromEntries(
    Object.entries(calls).map(([name, spans]) => {
      const byPackage = new Map<string, number>();
      const byOwner = new Map<string, number>();
      for (const x of samples) {
        if (within(x.t, spans) === undefined || within(x.t, kernel) !== undefined) continue;
        add(byPackage, packageOf(x.owner), x.us / 1000 / spans.length);
        add(byOwner, x.owner, x.us / 1000 / spans.length);
      }
      return [name, { byPackage, byOwner }];
    }),
  ) as Record<keyof typeof calls, { byPackage: Map<string, number>; byOwner: Map<string, number> }>;
  const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

  console.log(
    `\nProfiled (${INTERVAL_US} µs sampling) over ${ROUNDS} rounds, ms per call: wall / kernel requests (union) / outside them`,
  );
  for (const [name, spans] of Object.entries(calls) as Array<[keyof typeof calls, Span[]]>) {
    const wall = median(spans.map((s) => (s.end - s.start) / 1000));
    console.log(
      `- ${name}: ${f2(wall)} / ${f2(median(spans.map((s) => unionMs(kernel, s) / 1000)))} / ${f2(total(outside[name].byOwner))} (mean)`,
    );
  }

  const beyondRead = (k: "byPackage" | "byOwner") => {
    const keys = new Set(Object.values(outside).flatMap((o) => [...o[k].keys()]));
    return [...keys]
      .map((key) => {
        const v = (c: keyof typeof calls) => outside[c][k].get(key) ?? 0;
        return { key, pre: v("pre") - v("read"), commit: v("commit") - v("read") };
      })
      .filter((r) => r.key.includes(FOCUS))
      .sort((a, b) => b.pre + b.commit - (a.pre + a.commit));
  };
  console.log(
    "\n| outside kernel requests, beyond a trivial read (ms per call, profiled) | preflight | commit | both |\n| --- | --- | --- | --- |",
  );
  for (const r of beyondRead("byPackage").filter((r) => Math.abs(r.pre + r.commit) >= 0.02)) {
    console.log(`| ${r.key} | ${f2(r.pre)} | ${f2(r.commit)} | ${f2(r.pre + r.commit)} |`);
  }
  console.log(
    "\n| function (self time and the builtins it called) | preflight | commit | both |\n| --- | --- | --- | --- |",
  );
  for (const r of beyondRead("byOwner").slice(0, 30)) {
    console.log(`| ${r.key} | ${f2(r.pre)} | ${f2(r.commit)} | ${f2(r.pre + r.commit)} |`);
  }

  for (const [name, spans] of Object.entries(calls)) {
    // gap i of a call: the stretch before its i-th wave of kernel requests (the last: the answer)
    const gaps: Array<{ ms: number[]; who: Map<string, number> }> = [];
    for (const sp of spans) {
      const cuts: Span[] = [];
      let from = sp.start;
      for (const k of kernel.filter((k) => k.start >= sp.start && k.end <= sp.end)) {
        if (k.start > from) cuts.push({ start: from, end: k.start });
        from = Math.max(from, k.end);
      }
      cuts.push({ start: from, end: sp.end });
      cuts.forEach((c, i) => {
        const g = gaps[i] ?? { ms: [], who: new Map<string, number>() };
        gaps[i] = g;
        g.ms.push((c.end - c.start) / 1000);
        for (const x of samples) {
          if (x.t < c.start || x.t >= c.end) continue;
          add(g.who, x.chain[x.chain.length - 1] ?? x.owner, x.us / 1000 / spans.length);
        }
      });
    }
    console.log(
      `\n${name}: gaps between kernel requests, in order (median ms; what ran, outermost kernel.js frame)`,
    );
    gaps.forEach((g, i) => {
      const top = sorted(g.who)
        .slice(0, 5)
        .map(([k, v]) => `${f2(v)} ${k}`)
        .join("; ");
      console.log(`  ${i}: ${f2(median(g.ms))} — ${top}`);
    });
  }

  if (CALLERS !== undefined) {
    for (const [name, spans] of Object.entries(calls)) {
      const chains = new Map<string, number>();
      for (const x of samples) {
        if (within(x.t, spans) === undefined || !x.chain.some((c) => c.includes(CALLERS))) continue;
        add(chains, x.chain.slice(0, 8).join(" < "), x.us / 1000 / spans.length);
      }
      console.log(`\n${name}: call chains through ${CALLERS}`);
      for (const [c, v] of sorted(chains).slice(0, 10)) console.log(`  ${f2(v)} ${c}`);
    }
  }
} finally {
  session.disconnect();
  await sb.stop();
  rmSync(dir, { recursive: true, force: true });
}

/** Length of the union of `xs` clipped to `span`, in µs. */
function unionMs(xs: readonly Span[], span: Span): number {
  const clipped = xs
    .map((x) => ({ start: Math.max(x.start, span.start), end: Math.min(x.end, span.end) }))
    .filter((x) => x.end > x.start)
    .sort((a, b) => a.start - b.start);
  let sum = 0;
  let cur: Span | undefined;
  for (const x of clipped) {
    if (cur !== undefined && x.start <= cur.end) cur.end = Math.max(cur.end, x.end);
    else {
      if (cur !== undefined) sum += cur.end - cur.start;
      cur = { ...x };
    }
  }
  return sum + (cur === undefined ? 0 : cur.end - cur.start);
}
