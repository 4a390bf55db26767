/**
 * Plugin-route overhead versus a direct API call, same sandbox, same run: the bin in a child
 * process with the bench plugin (bench/plugin/), 4 keep-alive clients, measuring
 * 1. `getBlockKramdown` called directly,
 * 2. `/plugin/private/bench/getEcho` (the plugin answers a constant envelope: the host's own cost),
 * 3. `/plugin/private/bench/getKramdown` (the plugin calls getBlockKramdown through siyuan.client).
 * Run: pnpm exec tsx --conditions=source bench/plugin-route.ts  (in packages/siyuan-sandbox)
 */
import { spawn } from "node:child_process";
import { Agent, request } from "node:http";
import { fileURLToPath } from "node:url";
import { DEMO_IDS } from "../src/index.js";

const CALLS = 5_000;
const CLIENTS = 4;
const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url));
const plugin = fileURLToPath(new URL("./plugin/", import.meta.url));

const child = spawn(
  process.execPath,
  [
    "--import",
    "tsx",
    "--conditions=source",
    bin,
    ...["--port", "0", "--token", "bench", "--seed", "demo", "--control", "--plugin", plugin],
  ],
  { stdio: ["ignore", "pipe", "inherit"] },
);
const port = await new Promise<number>((resolve, reject) => {
  let out = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (c: string) => {
    out += c;
    const m = /127\.0\.0\.1:(\d+)/.exec(out);
    if (m) resolve(Number(m[1]));
  });
  child.on("exit", (code) => reject(new Error(`sandbox exited with ${code}`)));
});
const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });

function post(path: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        agent,
        headers: { authorization: "Token bench", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          text += c;
        });
        res.on("end", () =>
          res.statusCode === 200 ? resolve(text) : reject(new Error(`${path}: ${res.statusCode}`)),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function run(path: string, body: string): Promise<{ ms: number; perSec: number }> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next++ < CALLS) {
        const text = await post(path, body);
        if ((JSON.parse(text) as { code: number }).code !== 0) throw new Error(`${path} failed`);
      }
    }),
  );
  const ms = performance.now() - t0;
  return { ms, perSec: (CALLS / ms) * 1000 };
}

const body = JSON.stringify({ id: DEMO_IDS.paragraphGoals });
const DIRECT = "/api/block/getBlockKramdown";
const ECHO = "/plugin/private/bench/getEcho";
const PASS = "/plugin/private/bench/getKramdown";
for (const p of [DIRECT, ECHO, PASS]) await run(p, body); // warm-up
const direct = await run(DIRECT, body);
const echo = await run(ECHO, body);
const pass = await run(PASS, body);
child.kill("SIGTERM");
agent.destroy();

const fmt = (n: number) => n.toFixed(0);
const us = (r: { perSec: number }) => (1e6 / r.perSec).toFixed(0);
console.log(`clients: ${CLIENTS} keep-alive, ${CALLS} calls each, node ${process.version}`);
console.log("| measure | time (ms) | per second | µs per call (wall, 4 clients) |");
console.log("| --- | --- | --- | --- |");
console.log(
  `| getBlockKramdown, direct | ${fmt(direct.ms)} | ${fmt(direct.perSec)} | ${us(direct)} |`,
);
console.log(
  `| plugin route, constant answer | ${fmt(echo.ms)} | ${fmt(echo.perSec)} | ${us(echo)} |`,
);
console.log(
  `| plugin route → siyuan.client → getBlockKramdown | ${fmt(pass.ms)} | ${fmt(pass.perSec)} | ${us(pass)} |`,
);
console.log(
  `ratio direct : plugin (constant) = 1 : ${(direct.perSec / echo.perSec).toFixed(2)}; direct : plugin pass-through = 1 : ${(direct.perSec / pass.perSec).toFixed(2)} (time per call)`,
);
