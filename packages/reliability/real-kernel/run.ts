/**
 * The product against a real SiYuan kernel, by hand (issue 30 part 2; not part of any test run):
 *
 *   pnpm --filter @sisyphus/reliability real-kernel -- --url http://127.0.0.1:16811 --token T \
 *     [--via plugin,node,stdio,cli] [--endpoint on|off|both] [--only TEXT] \
 *     [--workspace DIR [--install]] [--no-extras] [--no-scenarios] [--out DIR]
 *
 * For each road (`--via`, default all) and each setting of the plugin's kernel endpoint
 * (`--endpoint`; the plugin road needs it on; default: both for the Node roads) it runs every
 * scenario of the fault-matrix registry clean and replays it (scenarios.ts), then the road's extra
 * checks (extras.ts), and writes `<road>.json` and `<road>.md` into `--out` (default
 * real-kernel/results/). `--workspace` names the kernel's workspace directory: with `--install` the
 * built `kernel-plugin/dist/package.zip` is installed into it first, and the report quotes the
 * kernel log's lines of the plugin's load. The kernel's workspace is emptied before each scenario:
 * never point this at a workspace with notes you keep.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { SCENARIOS } from "../../mcp-tools/test/support/fault-scenarios.js";
import { type ExtraResult, runExtras } from "./extras.js";
import { cliFront, type Front, nodeFront, pluginFront, stdioFront, type Via } from "./fronts.js";
import {
  emptyWorkspace,
  installPlugin,
  type Kernel,
  kernelVersion,
  pluginLogLines,
  writeSettings,
} from "./kernel.js";
import { type RecordingProxy, startRecordingProxy } from "./proxy.js";
import { verifyClient } from "./real-env.js";
import { markdownReport, type RoadReport } from "./report.js";
import { runRealScenario, type ScenarioResult } from "./scenarios.js";

const PACKAGE_ZIP = resolve(
  import.meta.dirname,
  "..",
  "..",
  "kernel-plugin",
  "dist",
  "package.zip",
);

/** The arguments after `pnpm … real-kernel --` (pnpm passes the `--` on). */
const argv = process.argv.slice(2).filter((a, i) => !(i === 0 && a === "--"));

const { values } = parseArgs({
  args: argv,
  options: {
    url: { type: "string" },
    token: { type: "string" },
    via: { type: "string", default: "plugin,node,stdio,cli" },
    endpoint: { type: "string" },
    only: { type: "string" },
    workspace: { type: "string" },
    install: { type: "boolean", default: false },
    "no-extras": { type: "boolean", default: false },
    "no-scenarios": { type: "boolean", default: false },
    out: { type: "string", default: resolve(import.meta.dirname, "results") },
  },
  allowPositionals: true,
});

if (values.url === undefined || values.token === undefined) {
  console.error("usage: real-kernel --url URL --token TOKEN [--via …] (see run.ts)");
  process.exit(2);
}
const kernel: Kernel = { url: values.url.replace(/\/+$/, ""), token: values.token };
const roads = values.via.split(",").map((v) => v.trim()) as Via[];
for (const r of roads) {
  if (!["plugin", "node", "stdio", "cli"].includes(r)) {
    console.error(`unknown road ${r}`);
    process.exit(2);
  }
}
const scenarios = values["no-scenarios"]
  ? []
  : SCENARIOS.filter(
      (s) => values.only === undefined || s.name.includes(values.only) || s.key === values.only,
    );

function endpointsOf(via: Via): boolean[] {
  if (via === "plugin") return [true];
  const e = values.endpoint ?? "both";
  return e === "on" ? [true] : e === "off" ? [false] : [true, false];
}

const command = `pnpm --filter @sisyphus/reliability real-kernel -- ${argv
  .map((a) => (a === values.token ? "<token>" : a))
  .join(" ")}`;

async function openFront(via: Via, proxy: RecordingProxy): Promise<Front> {
  switch (via) {
    case "plugin":
      return pluginFront(kernel);
    case "node":
      return nodeFront(proxy.url, kernel.token);
    case "stdio":
      return stdioFront(proxy.url, kernel.token);
    case "cli":
      return cliFront(proxy.url, kernel.token);
  }
}

/** The Sisyphus build that ran: the commit, and how many files of `packages/` differ from it. */
function sisyphusBuild(): string {
  const git = (...a: string[]) =>
    execFileSync("git", a, { cwd: import.meta.dirname, encoding: "utf8" }).trim();
  try {
    const commit = git("rev-parse", "--short", "HEAD");
    const dirty = git("status", "--porcelain", "--", "../..").split("\n").filter(Boolean).length;
    return dirty === 0 ? commit : `${commit} with ${dirty} changed file(s) under packages/`;
  } catch {
    return "unknown";
  }
}

const BIOME = resolve(import.meta.dirname, "..", "..", "..", "node_modules", ".bin", "biome");

/** The Markdown report laid out as the repository's formatter wants it (tables padded). */
function formatted(path: string): void {
  if (!existsSync(BIOME)) return;
  try {
    execFileSync(BIOME, ["format", "--write", path], { stdio: "ignore" });
  } catch {
    console.error(`could not format ${path} with biome`);
  }
}

const version = await kernelVersion(kernel);
const build = sisyphusBuild();
let loadLines: string[] = [];
if (values.workspace !== undefined) {
  if (values.install) loadLines = await installPlugin(kernel, values.workspace, PACKAGE_ZIP);
  else loadLines = pluginLogLines(values.workspace).filter((l) => / serving\b/.test(l));
}
mkdirSync(values.out, { recursive: true });
const verify = verifyClient(kernel);
let failed = 0;

for (const via of roads) {
  for (const endpointOn of endpointsOf(via)) {
    const road = via === "plugin" ? "plugin" : `${via}-endpoint-${endpointOn ? "on" : "off"}`;
    console.log(`\n== ${road}: ${scenarios.length} scenarios`);
    await writeSettings(kernel, {
      kernelEndpointEnabled: endpointOn,
      permissions: { default: "delete" },
    });
    const proxy = await startRecordingProxy(kernel.url);
    const front = await openFront(via, proxy);
    const seen = via === "plugin" ? null : proxy;
    const started = new Date();
    const results: ScenarioResult[] = [];
    let extras: ExtraResult[] = [];
    try {
      for (const s of scenarios) {
        const r = await runRealScenario(kernel, front, verify, seen, s);
        results.push(r);
        console.log(
          `${r.ok ? "ok  " : "FAIL"} ${s.name} (${r.ms} ms)${r.ok ? "" : `\n     ${r.problems.join("\n     ")}`}`,
        );
      }
      if (!values["no-extras"]) {
        await emptyWorkspace(kernel);
        extras = await runExtras(kernel, front, verify, seen, endpointOn);
        for (const x of extras)
          console.log(
            `${x.ok ? "ok  " : "FAIL"} extra: ${x.name}${x.ok ? "" : `\n     ${x.detail}`}`,
          );
      }
    } finally {
      await front.stop();
      await proxy.stop();
    }
    const report: RoadReport = {
      road,
      via,
      kernelEndpointEnabled: endpointOn,
      kernel: kernel.url,
      siyuanVersion: version,
      sisyphus: build,
      startedAt: started.toISOString(),
      finishedAt: new Date().toISOString(),
      command,
      pluginLoad: loadLines,
      scenarios: results,
      extras,
    };
    failed += results.filter((r) => !r.ok).length + extras.filter((x) => !x.ok).length;
    writeFileSync(join(values.out, `${road}.json`), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(values.out, `${road}.md`), markdownReport(report));
    formatted(join(values.out, `${road}.md`));
    console.log(`wrote ${join(values.out, `${road}.md`)}`);
  }
}
await verify.close();
await emptyWorkspace(kernel);
console.log(failed === 0 ? "\nall passed" : `\n${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
