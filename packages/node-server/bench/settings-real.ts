/**
 * The per-call settings read on a real SiYuan kernel (issue 30): builds of the Node HTTP authority
 * side by side in one run, each a strict `block.update` (preflight + commit) and a trivial read
 * (`system.version`) per round, rounds interleaved, against a kernel given by URL and token.
 *
 * Each server runs with the bench-only timing tap (`bench/tap.cjs`), which records the server's
 * kernel calls (undici) and its settings reads (`node:http`, settings-reader.ts) on the machine's
 * monotonic clock. For each call: the client-observed time; the settings read's own duration; how
 * much of it was **exposed**, i.e. in flight while no kernel call of the call was (the union of
 * kernel calls and settings reads less the union of kernel calls: all of it when the read comes
 * first, only what outlasts the first reads when it runs beside them); the kernel calls and the
 * sequential round trips (kernel calls and the settings read together). The settings read's share
 * of a call is its exposed time over the call's client-observed time (a strict write: preflight +
 * commit together). A direct `updateBlock` per round gives the strict/direct ratio.
 *
 * Exposed time leaves out the CPU the server spends on the read (sending it, parsing the answer),
 * which delays whatever else its one thread has to do. So each call's server CPU time is read too
 * (the server's `schedstat` before and after it; less sensitive than wall time to other work on a
 * shared machine), and the bench then makes `--cpu-reads`
 * settings reads in its own process with the server's own function (`readSettings`), one after
 * another, and reports the process CPU time (user + system) and the wall time per read.
 *
 * `--floor` adds a build of the current sources whose settings read answers the defaults at once,
 * without a kernel call (bench only: an esbuild plugin rewrites `settings-reader.ts` in that
 * bundle): beside it, what the settings read still costs a call, exposed or not, CPU included.
 *
 * Writes a notebook `bench-settings-read` with one document of three paragraphs (removed at the
 * end) and the Sisyphus settings file (`{}`: the defaults, as a real file). Run:
 *   pnpm --filter @sisyphus/node-server exec tsx --conditions=source bench/settings-real.ts
 *     --siyuan-url http://127.0.0.1:6806 --siyuan-token <API token>
 *     [--bin label=path/to/bin.cjs]… [--floor] [--rounds 40] [--cpu-reads 400]
 * Without `--bin`, the package's `dist/bin.cjs` (copied first) is the one build, labelled `this`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  call,
  cpuMsOf,
  directUpdate,
  f2,
  httpServerArgs,
  type Interval,
  type Kernel,
  kernelApi,
  listeningUrl,
  machineLine,
  median,
  now,
  paragraphsDoc,
  putPluginSettings,
  stopChild,
  strictUpdate,
  unionMs,
  waves,
} from "../../../bench/kit.js";
import { dumpTap, TAP, type TapRecord } from "./tap-reader.js";

const { values } = parseArgs({
  options: {
    "siyuan-url": { type: "string" },
    "siyuan-token": { type: "string" },
    bin: { type: "string", multiple: true },
    rounds: { type: "string", default: "40" },
    "cpu-reads": { type: "string", default: "400" },
    floor: { type: "boolean", default: false },
  },
});
if (!values["siyuan-url"] || !values["siyuan-token"]) {
  console.error(
    "usage: settings-real.ts --siyuan-url URL --siyuan-token TOKEN [--bin label=bin.cjs]… [--rounds N]",
  );
  process.exit(2);
}
const FLOOR = "no settings read";
const kernel: Kernel = {
  url: values["siyuan-url"].replace(/\/$/, ""),
  token: values["siyuan-token"],
};
const ROUNDS = Number(values.rounds);
const CPU_READS = Number(values["cpu-reads"]);
const WARM = 10;
const PKG = resolve(import.meta.dirname, "..");
const TOKEN = "bench-token-0123456789abcdef";
const PLUGIN = "siyuan-plugins-mcp-sisyphus";

/** A private copy of dist's executable (a concurrent rebuild cannot pull it away). */
function copyOfDist(): string {
  const dir = join(PKG, "node_modules", ".cache", `sis-settings-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  for (const file of ["bin.cjs", "server.cjs", "server.cjs.map", "import-esm.cjs"])
    copyFileSync(join(PKG, "dist", file), join(dir, file));
  return join(dir, "bin.cjs");
}
/**
 * The executable from the current sources with `readSettings` answering the defaults without a
 * kernel call (the floor of the settings read), built into node_modules/.cache.
 */
async function floorBuild(): Promise<string> {
  const { build } = await import("tsup");
  const configs = (await import("../tsup.config.js")).default as unknown as Array<
    import("tsup").Options
  >;
  const exe = configs[1] as import("tsup").Options;
  const outDir = join(PKG, "node_modules", ".cache", `sis-settings-floor-${process.pid}`);
  const noSettingsRead = {
    name: "no-settings-read",
    setup(b: {
      onLoad(
        o: { filter: RegExp },
        cb: (a: { path: string }) => { contents: string; loader: "ts" },
      ): void;
    }) {
      b.onLoad({ filter: /settings-reader\.ts$/ }, ({ path }) => ({
        loader: "ts",
        contents: `${readFileSync(path, "utf8").replace(
          "export async function readSettings(",
          "export async function readSettingsFromKernel(",
        )}
export async function readSettings(_url: string, _token: string | undefined, _ms: number): Promise<SettingsRead> {
  const settings = parseSettings(undefined);
  return { ok: true, settings, kind: "node-http" };
}
`,
      }));
    },
  };
  const cwd = process.cwd();
  process.chdir(PKG);
  try {
    await build({
      ...exe,
      outDir,
      silent: true,
      clean: true,
      config: false,
      esbuildPlugins: [...(exe.esbuildPlugins ?? []), noSettingsRead as never],
    });
  } finally {
    process.chdir(cwd);
  }
  return join(outDir, "bin.cjs");
}

const builds: Array<{ label: string; bin: string }> =
  values.bin === undefined || values.bin.length === 0
    ? [{ label: "this", bin: copyOfDist() }]
    : values.bin.map((b) => {
        const at = b.indexOf("=");
        if (at < 1) throw new Error(`--bin ${b}: expected label=path`);
        return { label: b.slice(0, at), bin: resolve(b.slice(at + 1)) };
      });

if (values.floor) builds.push({ label: FLOOR, bin: await floorBuild() });

/** A notebook with one document of three paragraphs: the notebook and the paragraphs' IDs. */
const fixture = () => paragraphsDoc(kernel, "bench-settings-read", ["alpha", "beta", "gamma"]);

interface Server {
  label: string;
  child: ChildProcess;
  tapFile: string;
  client: Client;
}

async function startServer(label: string, bin: string): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), "sis-settings-"));
  const tapFile = join(dir, "tap.json");
  const child = spawn(
    process.execPath,
    ["--require", TAP, bin, ...httpServerArgs(kernel.url, join(dir, "data"))],
    {
      env: {
        ...process.env,
        SIYUAN_TOKEN: kernel.token,
        SISYPHUS_AUTH_TOKEN: TOKEN,
        SISYPHUS_TAP_FILE: tapFile,
      },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  const url = await listeningUrl(child);
  const client = new Client(
    { name: "bench-settings", version: "1" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  return { label, child, tapFile, client };
}

async function trivialRead(client: Client): Promise<Interval> {
  const start = now();
  await call(client, "system", { action: "version" });
  return { start, end: now() };
}

/** What the tap saw inside one client-observed call. */
interface Seen {
  client: number;
  /** The server's own time outside kernel calls: request in → answer out, less the kernel union. */
  outside: number;
  settings: number;
  exposed: number;
  kernelCalls: number;
  settingsReads: number;
  steps: number;
}

function seenIn(c: Interval, tap: TapRecord[]): Seen {
  const inside = (r: TapRecord) => r.start >= c.start && r.start <= c.end;
  const kernelCalls = tap.filter((r) => r.kind === "kernel" && inside(r));
  const settings = tap.filter((r) => r.kind === "settings" && inside(r));
  const mcp = tap.filter((r) => r.kind === "mcp" && inside(r));
  return {
    client: c.end - c.start,
    outside: unionMs(mcp, c) - unionMs(kernelCalls, c),
    settings: settings.reduce((n, r) => n + (r.end - r.start), 0),
    exposed: unionMs([...kernelCalls, ...settings], c) - unionMs(kernelCalls, c),
    kernelCalls: kernelCalls.length,
    settingsReads: settings.length,
    steps: waves([...kernelCalls, ...settings]),
  };
}

const med = (xs: Seen[], k: keyof Seen) => median(xs.map((x) => x[k]));

const pct = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)} %`;

console.log(machineLine(false));
const version = await kernelApi<string>(kernel, "/api/system/version", {});
console.log(
  `kernel ${kernel.url}: SiYuan ${version}; ${ROUNDS} rounds after ${WARM} warm-up writes, builds interleaved`,
);
await putPluginSettings(kernel, PLUGIN, {});
const { notebook, ids } = await fixture();
const servers: Server[] = [];
try {
  for (const b of builds) servers.push(await startServer(b.label, b.bin));
  for (const s of servers) {
    for (let i = 0; i < WARM; i++) {
      await trivialRead(s.client);
      await strictUpdate(s.client, ids[0] as string, `warm ${s.label} ${i}`);
    }
    await dumpTap(s);
  }
  /** Server CPU ms of each build's calls: reads and writes (preflight + commit), per round. */
  const cpu = new Map(servers.map((s) => [s, { read: [] as number[], write: [] as number[] }]));
  const calls = new Map(
    servers.map((s) => [s, [] as Array<Record<"read" | "pre" | "commit", Interval>>]),
  );
  const direct: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    // alternate which build goes first, so a slow moment of the machine hits both alike
    const order = r % 2 === 0 ? servers : [...servers].reverse();
    for (const s of order) {
      const c0 = cpuMsOf(s.child.pid);
      const read = await trivialRead(s.client);
      const c1 = cpuMsOf(s.child.pid);
      const w = await strictUpdate(s.client, ids[r % ids.length] as string, `${s.label} ${r}`);
      const c2 = cpuMsOf(s.child.pid);
      calls.get(s)?.push({ read, pre: w.preflight, commit: w.commit });
      cpu.get(s)?.read.push(c1 - c0);
      cpu.get(s)?.write.push(c2 - c1);
    }
    const d = await directUpdate(kernel, ids[(r + 1) % ids.length] as string, `direct ${r}`);
    direct.push(d.end - d.start);
  }
  const dMed = median(direct);
  console.log(
    "\n| build | call (medians, ms) | client-observed | server outside kernel calls | settings read | of it exposed | exposed share | kernel calls + settings reads | sequential round trips |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  const summary: string[] = [];
  /** Per round, per build: what each call saw (for differences paired by round). */
  const seen = new Map<
    string,
    { read: Seen[]; write: Array<{ client: number; outside: number }> }
  >();
  /** Median client-observed ms of a trivial read and of a strict write, per build. */
  const callMs = new Map<
    string,
    {
      read: number;
      write: number;
      readCpu: number;
      writeCpu: number;
    }
  >();
  for (const s of servers) {
    const tap = await dumpTap(s);
    const list = calls.get(s) ?? [];
    const read = list.map((c) => seenIn(c.read, tap));
    const pre = list.map((c) => seenIn(c.pre, tap));
    const commit = list.map((c) => seenIn(c.commit, tap));
    const row = (name: string, xs: Seen[]) =>
      console.log(
        `| ${s.label} | ${name} | ${f2(med(xs, "client"))} | ${f2(med(xs, "outside"))} | ${f2(med(xs, "settings"))} | ${f2(med(xs, "exposed"))} | ${pct(med(xs, "exposed"), med(xs, "client"))} | ${med(xs, "kernelCalls")} + ${med(xs, "settingsReads")} | ${med(xs, "steps")} |`,
      );
    row("trivial read (system.version)", read);
    row("strict block.update preflight", pre);
    row("strict block.update commit", commit);
    // per write: preflight + commit together
    const writeShare = median(
      pre.map((p, i) => {
        const c = commit[i] as Seen;
        return (p.exposed + c.exposed) / (p.client + c.client);
      }),
    );
    const readShare = median(read.map((x) => x.exposed / x.client));
    const strict = median(pre.map((p, i) => p.client + (commit[i] as Seen).client));
    seen.set(s.label, {
      read,
      write: pre.map((p, i) => ({
        client: p.client + (commit[i] as Seen).client,
        outside: p.outside + (commit[i] as Seen).outside,
      })),
    });
    const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    callMs.set(s.label, {
      readCpu: mean(cpu.get(s)?.read ?? []),
      writeCpu: mean(cpu.get(s)?.write ?? []),
      read: med(read, "client"),
      write: strict,
    });
    summary.push(
      `- ${s.label}: server CPU ${f2(mean(cpu.get(s)?.read ?? []))} ms per trivial read, ${f2(mean(cpu.get(s)?.write ?? []))} ms per strict write (means); settings read exposed in a strict write (preflight + commit) ${(100 * writeShare).toFixed(1)} % of it (median of per-write shares), in a trivial read ${(100 * readShare).toFixed(1)} %; strict write ${f2(strict)} ms = ${f2(strict / dMed)} × the direct updateBlock`,
    );
  }
  console.log(`\ndirect updateBlock (median of ${ROUNDS}): ${f2(dMed)} ms`);
  for (const line of summary) console.log(line);
  const floor = callMs.get(FLOOR);
  const floorSeen = seen.get(FLOOR);
  if (floor !== undefined && floorSeen !== undefined) {
    console.log(
      `\nbeside the build without the settings read (differences paired by round, medians of ${ROUNDS}; server CPU: difference of the means):`,
    );
    const sign = (n: number) => `${n >= 0 ? "+" : ""}${f2(n)} ms`;
    for (const [label, ms] of callMs) {
      const mine = seen.get(label);
      if (label === FLOOR || mine === undefined) continue;
      const paired = <T>(xs: T[], ys: T[], f: (x: T) => number) =>
        median(xs.map((x, i) => f(x) - f(ys[i] as T)));
      const readClient = paired(mine.read, floorSeen.read, (x) => x.client);
      const readOutside = paired(mine.read, floorSeen.read, (x) => x.outside);
      const writeClient = paired(mine.write, floorSeen.write, (x) => x.client);
      const writeOutside = paired(mine.write, floorSeen.write, (x) => x.outside);
      console.log(
        `- ${label}: trivial read ${sign(readClient)} client-observed (${pct(readClient, ms.read)} of its median), ${sign(readOutside)} of server time outside kernel calls (${pct(readOutside, ms.read)}), ${sign(ms.readCpu - floor.readCpu)} server CPU (${pct(ms.readCpu - floor.readCpu, ms.read)}); strict write ${sign(writeClient)} client-observed (${pct(writeClient, ms.write)}), ${sign(writeOutside)} outside kernel calls (${pct(writeOutside, ms.write)}), ${sign(ms.writeCpu - floor.writeCpu)} server CPU (${pct(ms.writeCpu - floor.writeCpu, ms.write)})`,
      );
    }
  }
  // The settings read alone, with the server's own function, in this process.
  const { readSettings } = await import("../src/settings-reader.js");
  for (let i = 0; i < 20; i++) await readSettings(kernel.url, kernel.token, 5_000);
  const walls: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < CPU_READS; i++) {
    const t0 = now();
    const read = await readSettings(kernel.url, kernel.token, 5_000);
    walls.push(now() - t0);
    if (!read.ok) throw new Error(read.message);
  }
  const used = process.cpuUsage(cpu0);
  const cpuPerRead = (used.user + used.system) / 1000 / CPU_READS;
  console.log(
    `\nthe settings read alone (readSettings, ${CPU_READS} one after another in the bench process): ${f2(median(walls))} ms wall (median), ${f2(cpuPerRead * 1000)} µs CPU per read (user + system, mean)`,
  );
  for (const [label, ms] of callMs) {
    console.log(
      `- ${label}: that CPU is ${pct(cpuPerRead, ms.read)} of its trivial read and ${pct(2 * cpuPerRead, ms.write)} of its strict write (two reads), were all of it on their path`,
    );
  }
} finally {
  for (const s of servers) {
    await s.client.close().catch(() => undefined);
    await stopChild(s.child);
  }
  await kernelApi(kernel, "/api/notebook/removeNotebook", { notebook }).catch(() => undefined);
  for (const b of builds) {
    if (b.bin.includes(`${join("node_modules", ".cache", "sis-settings-")}`))
      rmSync(resolve(b.bin, ".."), { recursive: true, force: true });
  }
}
