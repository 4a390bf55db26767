/**
 * The kernel plugin in a real SiYuan kernel (issue 30, "measure there"): a strict `block.update`
 * through the plugin's `/mcp` on a kernel given by URL and token, against its floor, and the kernel
 * time of every endpoint the write uses, real beside the sandbox's.
 *
 * The plugin runs inside the real kernel, so its kernel calls cannot be timed from here. They are
 * learnt from the same write in the sandbox (its host's client interceptor gives each call's path,
 * body and interval), then replayed directly against each kernel with the real block's ID: the
 * floor of a write is, per sequential round trip of the sandbox's run, the slowest direct call of
 * that round trip on the real kernel, plus two MCP round trips of a trivial read (`system.version`
 * through the plugin, less a direct `/api/system/version`).
 *
 * Needs a kernel with the built plugin installed and enabled and its kernel endpoint on (the bench
 * writes the settings file). Writes a notebook `bench-real-kernel` with one document.
 * Run: pnpm --filter @sisyphus/kernel-plugin exec tsx --conditions=source bench/real-kernel.ts
 *   --url http://127.0.0.1:6806 --token <API token> [--rounds 30]
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { startSandbox } from "@sisyphus/siyuan-sandbox";
import {
  call,
  directUpdate,
  f2,
  type Interval,
  kernelApi,
  machineLine,
  median,
  now,
  paragraphsDoc,
  putPluginSettings,
  waves,
} from "../../../bench/kit.js";
import { connectPlugin, PLUGIN } from "./client.js";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    token: { type: "string" },
    rounds: { type: "string", default: "30" },
  },
});
if (!values.url || !values.token) {
  console.error("usage: real-kernel.ts --url URL --token TOKEN [--rounds N]");
  process.exit(2);
}
const ROUNDS = Number(values.rounds);
const ZIP = resolve(import.meta.dirname, "..", "dist", "package.zip");

interface Kernel {
  readonly url: string;
  readonly token: string;
}
const real: Kernel = { url: values.url.replace(/\/$/, ""), token: values.token };

/** A notebook with one document of three paragraphs; the paragraphs' IDs. */
async function fixture(k: Kernel): Promise<string[]> {
  return (await paragraphsDoc(k, "bench-real-kernel", ["alpha", "beta", "gamma"])).ids;
}

interface Seen {
  path: string;
  body: string | null;
  start: number;
  end: number;
}

/**
 * The plugin's kernel calls of one strict `block.update` (preflight, commit) in the sandbox, with
 * their paths, bodies and intervals, and the sandbox kernel's paragraph ID they name.
 */
async function learnCalls() {
  const sb = await startSandbox({ seed: "empty", plugins: [ZIP] });
  try {
    await putPluginSettings(sb, PLUGIN, { kernelEndpointEnabled: true });
    const [id] = await fixture(sb);
    const client = await connectPlugin(sb, "bench-real-learn");
    const seen: Seen[] = [];
    const open = new WeakMap<object, number>();
    sb.plugins.interceptClient({
      before: (req) => void open.set(req, now()),
      after: (req) => {
        seen.push({ path: req.path, body: req.body, start: open.get(req) as number, end: now() });
      },
    });
    const args = { action: "update", id, dataType: "markdown", data: "learnt" };
    const phases: Record<"pre" | "commit", Seen[]> = { pre: [], commit: [] };
    const pre = await call(client, "block", { ...args, validateOnly: true });
    phases.pre = seen.splice(0);
    const field = pre["preconditionField"] as string;
    await call(client, "block", { ...args, requestId: pre["requestId"], [field]: pre[field] });
    phases.commit = seen.splice(0);
    await client.close();
    return { id: id as string, phases };
  } finally {
    await sb.stop();
  }
}

/** Groups calls into sequential round trips (overlapping intervals), in order. */
function roundTrips(xs: readonly Seen[]): Seen[][] {
  const out: Seen[][] = [];
  let end = Number.NEGATIVE_INFINITY;
  for (const x of [...xs].sort((a, b) => a.start - b.start)) {
    if (x.start >= end || out.length === 0) out.push([]);
    (out[out.length - 1] as Seen[]).push(x);
    end = Math.max(end, x.end);
  }
  return out;
}

/** One direct call of `path` with `body` (the learnt ID replaced by `id`), in ms. */
async function direct(k: Kernel, s: Seen, from: string, id: string): Promise<number> {
  const t0 = now();
  const r = await fetch(`${k.url}${s.path}`, {
    method: "POST",
    headers: { authorization: `Token ${k.token}`, "content-type": "application/json" },
    body: (s.body ?? "").split(from).join(id),
  });
  await r.arrayBuffer();
  return now() - t0;
}

console.log(machineLine(false));
const learnt = await learnCalls();
const trips = { pre: roundTrips(learnt.phases.pre), commit: roundTrips(learnt.phases.commit) };
console.log(
  `the plugin's kernel calls of one strict block.update, learnt in the sandbox: preflight ${learnt.phases.pre.length} in ${waves(learnt.phases.pre as Interval[])} round trips (${learnt.phases.pre.map((c) => c.path).join(", ")}); commit ${learnt.phases.commit.length} in ${waves(learnt.phases.commit as Interval[])} (${learnt.phases.commit.map((c) => c.path).join(", ")})`,
);

const version = await kernelApi<string>(real, "/api/system/version", {});
await putPluginSettings(real, PLUGIN, { kernelEndpointEnabled: true });
const ids = await fixture(real);
const client = await connectPlugin(real, "bench-real-kernel");
const rows = {
  read: [] as number[],
  pre: [] as number[],
  commit: [] as number[],
  direct: [] as number[],
};
const floors = { read: [] as number[], pre: [] as number[], commit: [] as number[] };
const ratios: number[] = [];
for (let i = 0; i < ROUNDS + 5; i++) {
  const id = ids[i % ids.length] as string;
  let t0 = now();
  await call(client, "system", { action: "version" });
  const read = now() - t0;
  const readKernel = await direct(
    real,
    { path: "/api/system/version", body: "{}", start: 0, end: 0 },
    "",
    "",
  );
  const args = { action: "update", id, dataType: "markdown", data: `real ${i}` };
  t0 = now();
  const pre = await call(client, "block", { ...args, validateOnly: true });
  const preMs = now() - t0;
  const field = pre["preconditionField"] as string;
  t0 = now();
  const c = await call(client, "block", {
    ...args,
    requestId: pre["requestId"],
    [field]: pre[field],
  });
  const commitMs = now() - t0;
  if (c["status"] !== "committed") throw new Error(`round ${i}: ${JSON.stringify(c)}`);
  // the same kernel calls, made directly, one round trip after the other
  const floorOf = async (groups: Seen[][]) => {
    let total = 0;
    for (const g of groups) {
      const ms = await Promise.all(g.map((s) => direct(real, s, learnt.id, id)));
      total += Math.max(...ms);
    }
    return total;
  };
  const preKernel = await floorOf(trips.pre);
  const commitKernel = await floorOf(trips.commit);
  const unguarded = await directUpdate(real, ids[(i + 1) % ids.length] as string, `direct ${i}`);
  if (i < 5) continue; // warm-up
  rows.direct.push(unguarded.end - unguarded.start);
  rows.read.push(read);
  rows.pre.push(preMs);
  rows.commit.push(commitMs);
  floors.read.push(readKernel);
  floors.pre.push(preKernel);
  floors.commit.push(commitKernel);
  ratios.push((preMs + commitMs) / (preKernel + commitKernel + 2 * (read - readKernel)));
}
await client.close();

console.log(
  `\nSiYuan ${version} at ${real.url}, ${ROUNDS} rounds after 5 warm-up rounds, medians (ms)`,
);
console.log("| call | client-observed | kernel (direct replay) |");
console.log("| --- | --- | --- |");
console.log(
  `| trivial read (system.version) | ${f2(median(rows.read))} | ${f2(median(floors.read))} |`,
);
console.log(
  `| strict block.update preflight | ${f2(median(rows.pre))} | ${f2(median(floors.pre))} |`,
);
console.log(
  `| strict block.update commit | ${f2(median(rows.commit))} | ${f2(median(floors.commit))} |`,
);
console.log(`| direct updateBlock (unguarded) | ${f2(median(rows.direct))} | – |`);
console.log(
  `ratio to the floor (kernel time of the same calls + 2 MCP round trips without kernel time): **${f2(median(ratios))}** (median of per-write ratios); preflight + commit over one direct updateBlock: ${f2((median(rows.pre) + median(rows.commit)) / median(rows.direct))}×`,
);

// kernel time per endpoint: each learnt call made directly, the real kernel beside the sandbox
const sb = await startSandbox({ seed: "empty" });
try {
  const sbIds = await fixture(sb);
  const all = [...learnt.phases.pre, ...learnt.phases.commit];
  const byPath = new Map<string, Seen>();
  for (const s of all) if (!byPath.has(s.path)) byPath.set(s.path, s);
  console.log(`\nkernel time per endpoint, direct calls, medians of ${ROUNDS} (ms)`);
  console.log(`| endpoint | SiYuan ${version} | sandbox | real / sandbox |`);
  console.log("| --- | --- | --- | --- |");
  for (const [path, s] of byPath) {
    const r: number[] = [];
    const m: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      r.push(await direct(real, s, learnt.id, ids[0] as string));
      m.push(await direct(sb, s, learnt.id, sbIds[0] as string));
    }
    console.log(`| ${path} | ${f2(median(r))} | ${f2(median(m))} | ${f2(median(r) / median(m))} |`);
  }
} finally {
  await sb.stop();
}
