/**
 * Client overhead per call against the sandbox, versus a bare undici `request` of the same endpoint
 * on the same keep-alive `Pool`, measured side by side in one run (interleaved rounds, medians).
 * The sandbox runs in its own process (as a real kernel would), started from its `bin.ts`.
 *   pnpm --filter @sisyphus/siyuan-api bench
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { Pool } from "undici";
import { createSiyuanClient, undiciTransport } from "../src/index.js";

const ROUNDS = 15;
const CALLS_PER_ROUND = 200;
const WARMUP_CALLS = 300;

/** Starts the sandbox bin in a child process on an ephemeral port; resolves its URL. */
async function startSandboxProcess(token: string) {
  const sandboxSrc = dirname(fileURLToPath(import.meta.resolve("@sisyphus/siyuan-sandbox")));
  const child = spawn(
    process.execPath,
    [
      "--conditions=source",
      "--import",
      "tsx",
      join(sandboxSrc, "bin.ts"),
      "--port",
      "0",
      "--token",
      token,
      "--seed",
      "demo",
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on("exit", (code) => reject(new Error(`sandbox exited early (${code})`)));
  });
  return { url, token, stop: () => child.kill("SIGTERM") };
}

const sb = await startSandboxProcess(randomBytes(8).toString("hex"));
const pool = new Pool(sb.url, { connections: 1, pipelining: 1, keepAliveTimeout: 2_000 });
const client = createSiyuanClient({
  transport: undiciTransport({ baseUrl: sb.url, token: sb.token, dispatcher: pool }),
});
const headers = { authorization: `Token ${sb.token}`, "content-type": "application/json" };

interface Case {
  name: string;
  path: string;
  body: unknown;
  viaClient: () => Promise<unknown>;
}
const cases: Case[] = [
  {
    name: "block.getBlockKramdown",
    path: "/api/block/getBlockKramdown",
    body: { id: DEMO_IDS.paragraphGoals },
    viaClient: () => client.block.getBlockKramdown({ id: DEMO_IDS.paragraphGoals }),
  },
  {
    name: "notebook.lsNotebooks",
    path: "/api/notebook/lsNotebooks",
    body: {},
    viaClient: () => client.notebook.lsNotebooks(),
  },
  {
    name: "system.version",
    path: "/api/system/version",
    body: {},
    viaClient: () => client.system.version(),
  },
];

/** The bare side: the same request on the same pool, parsed as JSON, envelope code checked. */
async function bare(c: Case): Promise<unknown> {
  const res = await pool.request({
    path: c.path,
    method: "POST",
    headers,
    body: JSON.stringify(c.body),
  });
  const env = (await res.body.json()) as { code: number; data: unknown };
  if (res.statusCode !== 200 || env.code !== 0)
    throw new Error(`bare call failed: ${res.statusCode}`);
  return env.data;
}

/**
 * One round: `n` pairs of calls, alternating bare and client call by call (the order flips every
 * pair), so both sides see the same server and machine conditions. Returns µs/call per side.
 */
async function round(c: Case, n: number): Promise<{ bareUs: number; clientUs: number }> {
  let bareNs = 0n;
  let clientNs = 0n;
  for (let i = 0; i < n; i++) {
    const bareFirst = i % 2 === 0;
    for (const side of bareFirst ? ["bare", "client"] : ["client", "bare"]) {
      const t0 = process.hrtime.bigint();
      if (side === "bare") await bare(c);
      else await c.viaClient();
      const dt = process.hrtime.bigint() - t0;
      if (side === "bare") bareNs += dt;
      else clientNs += dt;
    }
  }
  return { bareUs: Number(bareNs) / 1_000 / n, clientUs: Number(clientNs) / 1_000 / n };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

const rows: string[] = [];
for (const c of cases) {
  await round(c, WARMUP_CALLS);
  const bareUs: number[] = [];
  const clientUs: number[] = [];
  const ratios: number[] = [];
  const overheads: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const m = await round(c, CALLS_PER_ROUND);
    bareUs.push(m.bareUs);
    clientUs.push(m.clientUs);
    ratios.push(m.clientUs / m.bareUs);
    overheads.push(m.clientUs - m.bareUs);
  }
  const b = median(bareUs);
  const k = median(clientUs);
  rows.push(
    `| ${c.name} | ${b.toFixed(1)} | ${k.toFixed(1)} | ${median(ratios).toFixed(3)}× | ${median(overheads).toFixed(1)} |`,
  );
}

/**
 * The client layer alone: the same lsNotebooks answer served by an in-memory transport, versus a
 * bare `JSON.parse` of it. Isolates envelope handling, validation and accounting from the network.
 */
async function layerOnlyUs(): Promise<{ bareUs: number; clientUs: number }> {
  const payload = JSON.stringify(
    await bare(cases[1]!).then((data) => ({ code: 0, msg: "", data })),
  );
  const mem = createSiyuanClient({
    transport: {
      name: "memory",
      send: async () => ({
        type: "text",
        status: 200,
        contentType: "application/json",
        text: payload,
        byteLength: payload.length,
      }),
      close: async () => {},
    },
  });
  const parseOnly = async (): Promise<unknown> => JSON.parse(payload);
  const n = 100_000;
  const time = async (fn: () => Promise<unknown>): Promise<number> => {
    for (let i = 0; i < 10_000; i++) await fn();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await fn();
    return Number(process.hrtime.bigint() - t0) / 1_000 / n;
  };
  return { bareUs: await time(parseOnly), clientUs: await time(() => mem.notebook.lsNotebooks()) };
}
const layer = await layerOnlyUs();

const stats = client.stats();
console.log(
  `node ${process.version}; ${ROUNDS} rounds × ${CALLS_PER_ROUND} calls per side per endpoint (medians of rounds; calls alternate bare/client one by one); both sides share one keep-alive undici Pool (1 connection); sandbox in a separate process`,
);
console.log(
  "| endpoint | bare undici request µs/call | client µs/call | ratio (median of rounds) | overhead µs/call (median of rounds) |",
);
console.log("| --- | --- | --- | --- | --- |");
for (const r of rows) console.log(r);
console.log(
  `client layer only (in-memory transport, lsNotebooks answer, 100k calls): JSON.parse ${layer.bareUs.toFixed(2)} µs/call, client ${layer.clientUs.toFixed(2)} µs/call, +${(layer.clientUs - layer.bareUs).toFixed(2)} µs`,
);
console.log(
  `client calls: ${stats.totalCalls}, client HTTP attempts: ${stats.totalAttempts} (no retries)`,
);

await client.close();
await pool.close();
sb.stop();
