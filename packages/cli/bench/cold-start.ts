/**
 * A CLI read's wall time beside a bare `node -e 0`, side by side: a sandbox kernel and its Node
 * authority are started first (the first call of a session starts the authority; that start is
 * measured apart, once), then RUNS rounds each run `node -e 0`, `sisyphus --version` (load and
 * parse only) and `sisyphus block get-kramdown --id …` to its result, one after the other. Medians
 * per command and their ratios to `node -e 0` are printed: the machine is shared (other builds and
 * tests run beside it), so a ratio of runs taken in the same rounds is what to compare, not
 * milliseconds. Issue 31's goal (a read ≤ 2.5 × `node -e 0`) is printed as a goal line per Node
 * for the report's table. The same again on Node 24 and Node 22 (packages/node24, packages/node22,
 * or `$NODE24`/`$NODE22`), where the launcher compiles from Node's compile cache (filled by the
 * first run there): users run 22 or 24, and Node 20 has no compile cache. Run: pnpm --filter @sisyphus/cli bench
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { DEMO_IDS, startSandbox } from "@sisyphus/siyuan-sandbox";
import { goalLine, median, node22, node24 } from "../../../bench/kit.js";

/** Rounds per Node: each runs every command once, side by side. */
const RUNS = 10;
/** Issue 31: a CLI read against a running authority, at most this many times `node -e 0`. */
const READ_RATIO_GOAL = 2.5;
const CLI = resolve(import.meta.dirname, "..", "bin", "sisyphus.cjs");

function timed(node: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const child = spawn(node, args, { env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) =>
      code === 0
        ? done(performance.now() - t0)
        : fail(new Error(`${args.join(" ")}: exit ${code}\n${stderr}`)),
    );
  });
}

const sb = await startSandbox({ seed: "demo" });
const dataDir = mkdtempSync(join(tmpdir(), "sisyphus-bench-"));
/**
 * What every measured process gets: this process's environment without the variables that make
 * every Node start do more (`NODE_EXTRA_CA_CERTS` parses a CA bundle before any code runs, tens of
 * milliseconds added to `node -e 0` and the CLI alike, which flatters the ratio; turbo's strict
 * environment drops it, a login shell may not), so the figures do not depend on who runs this.
 */
const { NODE_EXTRA_CA_CERTS: _, NODE_OPTIONS: __, ...inherited } = process.env;
const env = {
  ...inherited,
  SIYUAN_URL: sb.url,
  SIYUAN_TOKEN: sb.token,
  SISYPHUS_DATA_DIR: dataDir,
  SISYPHUS_CONFIG: join(dataDir, "none.json"),
};
const read = [CLI, "block", "get-kramdown", "--id", DEMO_IDS.paragraphGoals];

/** The measurements on one Node, printed; its first call starts the authority (or reuses it). */
async function measure(node: string, label: string, goal: boolean): Promise<void> {
  const firstCall = await timed(node, read, env); // the authority, and Node 24's compile cache
  const samples = { node: [] as number[], version: [] as number[], read: [] as number[] };
  for (let i = 0; i < RUNS; i++) {
    samples.node.push(await timed(node, ["-e", "0"], env));
    samples.version.push(await timed(node, [CLI, "--version"], env));
    samples.read.push(await timed(node, read, env));
  }
  const bare = median(samples.node);
  const version = median(samples.version);
  const reading = median(samples.read);
  const ratio = reading / bare;
  console.log(`${label} (medians of ${RUNS} rounds, side by side):`);
  console.log(`  node -e 0                      ${bare.toFixed(0)} ms`);
  console.log(
    `  sisyphus --version             ${version.toFixed(0)} ms  (${(version / bare).toFixed(2)} × node -e 0)`,
  );
  console.log(
    `  sisyphus block get-kramdown    ${reading.toFixed(0)} ms  (${ratio.toFixed(2)} × node -e 0; authority already running)`,
  );
  console.log(
    `  first call of this Node        ${firstCall.toFixed(0)} ms  (${label !== `Node ${process.version}` ? "fills the compile cache; the authority already runs" : "starts the background Node authority; once"})`,
  );
  if (goal) {
    console.log(
      goalLine(
        `CLI read (\`sisyphus block get-kramdown\`, authority running) vs \`node -e 0\`, ${label}, side by side`,
        `${ratio.toFixed(2)}× (${reading.toFixed(0)} vs ${bare.toFixed(0)} ms)`,
        `≤ ${READ_RATIO_GOAL}×`,
        ratio <= READ_RATIO_GOAL,
        ratio <= READ_RATIO_GOAL
          ? undefined
          : `\`sisyphus --version\` alone (starting the program) is ${(version / bare).toFixed(2)}×`,
      ),
    );
  }
}

try {
  console.log(
    `CPU: ${cpus()[0]?.model ?? "unknown"} × ${cpus().length}; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" / ")}`,
  );
  console.log(
    "The machine is shared with other builds and test runs: compare the ratios, each taken from the same rounds, not the milliseconds. Measured without NODE_EXTRA_CA_CERTS and NODE_OPTIONS.",
  );
  await measure(process.execPath, `Node ${process.version}`, true);
  const n24 = node24();
  if (n24 === undefined)
    console.log("Node 24: not installed (pnpm install puts it in packages/node24)");
  else await measure(n24, "Node 24", true);
  const n22 = node22();
  if (n22 === undefined)
    console.log("Node 22: not installed (pnpm install puts it in packages/node22)");
  else await measure(n22, "Node 22", true);
} finally {
  try {
    process.kill(
      (JSON.parse(readFileSync(join(dataDir, "authority.json"), "utf8")) as { pid: number }).pid,
    );
  } catch {
    // none started
  }
  await sb.stop();
}
