/**
 * The CLI's cold start, side by side in one run: a bare `node -e 0`, `sisyphus --version` (load
 * and parse only), and `sisyphus block get-kramdown` to its first result against a sandbox kernel
 * whose Node authority is already running (the first call of a session starts one; that start is
 * measured apart, once). Medians of RUNS interleaved runs; the ratios are what to compare across
 * machines. The same again on Node 24 (packages/node24, or `$NODE24`), where the launcher compiles
 * from Node's compile cache (filled by the first run there): users run 22 or 24, and Node 20 has no
 * compile cache. Run: pnpm --filter @sisyphus/cli bench
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { DEMO_IDS, startSandbox } from "@sisyphus/siyuan-sandbox";
import { median, node24 } from "../../../bench/kit.js";

const RUNS = 15;
const CLI = resolve(import.meta.dirname, "..", "bin", "sisyphus.mjs");

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
const env = {
  ...process.env,
  SIYUAN_URL: sb.url,
  SIYUAN_TOKEN: sb.token,
  SISYPHUS_DATA_DIR: dataDir,
  SISYPHUS_CONFIG: join(dataDir, "none.json"),
};
const read = [CLI, "block", "get-kramdown", "--id", DEMO_IDS.paragraphGoals];

/** The measurements on one Node, printed; its first call starts the authority (or reuses it). */
async function measure(node: string, label: string): Promise<void> {
  const firstCall = await timed(node, read, env); // the authority, and Node 24's compile cache
  const samples = { node: [] as number[], version: [] as number[], read: [] as number[] };
  for (let i = 0; i < RUNS; i++) {
    samples.node.push(await timed(node, ["-e", "0"], env));
    samples.version.push(await timed(node, [CLI, "--version"], env));
    samples.read.push(await timed(node, read, env));
  }
  const bare = median(samples.node);
  const version = median(samples.version);
  const first = median(samples.read);
  console.log(`${label}:`);
  console.log(`  node -e 0                      ${bare.toFixed(0)} ms`);
  console.log(
    `  sisyphus --version             ${version.toFixed(0)} ms  (${(version / bare).toFixed(2)} × node -e 0)`,
  );
  console.log(
    `  sisyphus block get-kramdown    ${first.toFixed(0)} ms  (${(first / bare).toFixed(2)} × node -e 0; authority already running)`,
  );
  console.log(
    `  first call of this Node        ${firstCall.toFixed(0)} ms  (${label === "Node 24" ? "fills the compile cache; the authority already runs" : "starts the background Node authority; once"})`,
  );
}

try {
  console.log(`CPU: ${cpus()[0]?.model ?? "unknown"} × ${cpus().length}`);
  await measure(process.execPath, `Node ${process.version}`);
  const n24 = node24();
  if (n24 === undefined)
    console.log("Node 24: not installed (pnpm install puts it in packages/node24)");
  else await measure(n24, "Node 24");
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
