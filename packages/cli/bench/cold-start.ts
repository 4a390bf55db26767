/**
 * The CLI's cold start, side by side in one run: a bare `node -e 0`, `sisyphus --version` (load
 * and parse only), and `sisyphus block get-kramdown` to its first result against a sandbox kernel
 * whose Node authority is already running (the first call of a session starts one; that start is
 * measured apart, once). Medians of RUNS interleaved runs; the ratios are what to compare across
 * machines. Run: pnpm --filter @sisyphus/cli bench
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { DEMO_IDS, startSandbox } from "@sisyphus/siyuan-sandbox";

const RUNS = 15;
const CLI = resolve(import.meta.dirname, "..", "bin", "sisyphus.mjs");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

function timed(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ["ignore", "ignore", "pipe"] });
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
const env = {
  ...process.env,
  SIYUAN_URL: sb.url,
  SIYUAN_TOKEN: sb.token,
  SISYPHUS_DATA_DIR: dataDir,
  SISYPHUS_CONFIG: join(dataDir, "none.json"),
};
const read = [CLI, "block", "get-kramdown", "--id", DEMO_IDS.paragraphGoals];
try {
  const firstCall = await timed(read, env); // starts the background Node authority
  const samples = { node: [] as number[], version: [] as number[], read: [] as number[] };
  for (let i = 0; i < RUNS; i++) {
    samples.node.push(await timed(["-e", "0"], env));
    samples.version.push(await timed([CLI, "--version"], env));
    samples.read.push(await timed(read, env));
  }
  const node = median(samples.node);
  const version = median(samples.version);
  const first = median(samples.read);
  console.log(`CPU: ${cpus()[0]?.model ?? "unknown"} × ${cpus().length}; Node ${process.version}`);
  console.log(`node -e 0                      ${node.toFixed(0)} ms`);
  console.log(
    `sisyphus --version             ${version.toFixed(0)} ms  (${(version / node).toFixed(2)} × node -e 0)`,
  );
  console.log(
    `sisyphus block get-kramdown    ${first.toFixed(0)} ms  (${(first / node).toFixed(2)} × node -e 0; authority already running)`,
  );
  console.log(
    `first call of a session        ${firstCall.toFixed(0)} ms  (starts the background Node authority; once)`,
  );
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
