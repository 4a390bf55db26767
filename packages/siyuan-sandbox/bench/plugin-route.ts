/**
 * Plugin-route overhead versus a direct API call, same sandbox, same run: the bin in a child
 * process with the bench plugin (bench/plugin/), 4 keep-alive clients, measuring
 * 1. `getBlockKramdown` called directly,
 * 2. `/plugin/private/bench/getEcho` (the plugin answers a constant envelope: the host's own cost),
 * 3. `/plugin/private/bench/getKramdown` (the plugin calls getBlockKramdown through siyuan.client).
 * Run: pnpm exec tsx --conditions=source bench/plugin-route.ts  (in packages/siyuan-sandbox)
 */
import { fileURLToPath } from "node:url";
import { DEMO_IDS } from "../src/index.js";
import { keepAlive, sandboxArgs, send, spawnServer } from "./support.js";

const CALLS = 5_000;
const CLIENTS = 4;
const plugin = fileURLToPath(new URL("./plugin/", import.meta.url));

const sandbox = await spawnServer(sandboxArgs(["--seed", "demo", "--control", "--plugin", plugin]));
const agent = keepAlive(CLIENTS);

/** POSTs `body`; the answer's text (a non-200 status is an error). */
async function post(path: string, body: string): Promise<string> {
  const r = await send(agent, sandbox.port, "POST", path, {}, body);
  if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
  return r.body.toString("utf8");
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
sandbox.kill();
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
