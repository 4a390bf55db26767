/**
 * node-server benchmark: restarting as a user does (issue 19). `pnpm start` at the repository
 * root on an unchanged tree, timed from spawn to the server's "listening" line, beside the same
 * server binary started directly (what the build step costs on a restart is the difference).
 * The first start primes turbo's cache (its time is printed but depends on what was cached).
 *   pnpm --filter @sisyphus/node-server exec tsx --conditions=source bench/restart.ts
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { goalLine } from "../../../bench/kit.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const BIN = join(ROOT, "packages/node-server/dist/bin.cjs");
const ROUNDS = 7;
const LISTENING = /listening on http:\/\/127\.0\.0\.1:\d+\/mcp/;

/** Spawns `command`, resolves with the ms until it printed the listening line, then stops it. */
function timeToListening(command: string, args: readonly string[]): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), "sisyphus-restart-"));
  const started = performance.now();
  const child = spawn(command, [...args, "--port", "0", "--data-dir", dataDir], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1", FORCE_COLOR: "0" },
  });
  let seen = "";
  return new Promise<number>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      if (!LISTENING.test(seen)) return;
      const ms = performance.now() - started;
      child.stdout.off("data", onData);
      child.stderr.off("data", onData);
      process.kill(-child.pid!, "SIGTERM");
      child.once("close", () => {
        rmSync(dataDir, { recursive: true, force: true });
        resolve(ms);
      });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("close", (code) => {
      if (!LISTENING.test(seen)) reject(new Error(`exited ${code} before listening:\n${seen}`));
    });
  });
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

console.log(`CPU ${cpus()[0]?.model ?? "unknown"} × ${cpus().length}, Node ${process.version}`);
const first = await timeToListening("pnpm", ["start"]);
console.log(`pnpm start, first (primes turbo's cache): ${first.toFixed(0)} ms`);
const again: number[] = [];
const direct: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  again.push(await timeToListening("pnpm", ["start"]));
  direct.push(await timeToListening(process.execPath, [BIN]));
}
const a = median(again);
const d = median(direct);
console.log(
  `pnpm start on an unchanged tree → listening: ${a.toFixed(0)} ms (median of ${ROUNDS}; goal < 2000 ms: ${a < 2000 ? "holds" : "missed"})`,
);
console.log(
  `  the server started directly (node dist/bin.cjs): ${d.toFixed(0)} ms; pnpm + turbo's cached build add ${(a - d).toFixed(0)} ms`,
);
console.log(
  goalLine(
    "a second `pnpm start` on an unchanged tree → listening",
    `${a.toFixed(0)} ms`,
    "< 2000 ms",
    a < 2000,
  ),
);
