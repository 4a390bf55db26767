/**
 * Loopback throughput of the sandbox: getBlockKramdown reads, and updateBlock + flushTransaction
 * pairs, each over a bounded number of requests with a few concurrent keep-alive clients.
 * The sandbox runs in a child process (the bin, one JS thread), the clients in this one.
 * Run: pnpm --filter @sisyphus/siyuan-sandbox bench
 */
import { DEMO_IDS } from "../src/index.js";
import { keepAlive, sandboxArgs, send, spawnServer } from "./support.js";

const READS = 20_000;
const WRITE_PAIRS = 2_000;
const CLIENTS = 4;

/** A trivial Node HTTP server answering a fixed envelope: the machine's ceiling for this client. */
const BASELINE = `
const { createServer } = require("node:http");
const s = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ code: 0, msg: "", data: { id: "x", kramdown: "hello" } }));
  });
});
s.listen(0, "127.0.0.1", () => console.log("listening on 127.0.0.1:" + s.address().port));
`;

const baseline = await spawnServer(["-e", BASELINE]);
const sandbox = await spawnServer(sandboxArgs(["--seed", "demo", "--control"]));
let port = baseline.port;
const agent = keepAlive(CLIENTS);

/** POSTs `body` and returns the envelope's `code`. */
async function post(path: string, body: string): Promise<number> {
  const r = await send(agent, port, "POST", path, {}, body);
  return (JSON.parse(r.body.toString("utf8")) as { code: number }).code;
}

async function run(
  total: number,
  one: (i: number) => Promise<void>,
): Promise<{ ms: number; perSec: number }> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < total) await one(next++);
    }),
  );
  const ms = performance.now() - t0;
  return { ms, perSec: (total / ms) * 1000 };
}

const readBody = JSON.stringify({ id: DEMO_IDS.paragraphGoals });
await run(1_000, async () => void (await post("/", readBody)));
const base = await run(READS, async () => {
  if ((await post("/", readBody)) !== 0) throw new Error("baseline failed");
});
baseline.kill();
port = sandbox.port;
const cpu = async (): Promise<number> => {
  const r = await fetch(`http://127.0.0.1:${port}/__sandbox/process-cpu`, {
    method: "POST",
    headers: { authorization: "Token bench" },
  });
  const d = ((await r.json()) as { data: { userMicros: number; systemMicros: number } }).data;
  return d.userMicros + d.systemMicros;
};
await run(1_000, async () => void (await post("/api/block/getBlockKramdown", readBody))); // warm-up
const cpuBeforeReads = await cpu();
const reads = await run(READS, async () => {
  if ((await post("/api/block/getBlockKramdown", readBody)) !== 0) throw new Error("read failed");
});
const readCpuMicros = (await cpu()) - cpuBeforeReads;
const cpuBeforeWrites = await cpu();
const writes = await run(WRITE_PAIRS, async (i) => {
  const data = JSON.stringify({
    id: DEMO_IDS.paragraphJournal,
    dataType: "markdown",
    data: `edit **${i}**`,
  });
  if ((await post("/api/block/updateBlock", data)) !== 0) throw new Error("update failed");
  if ((await post("/api/sqlite/flushTransaction", "{}")) !== 0) throw new Error("flush failed");
});
const writeCpuMicros = (await cpu()) - cpuBeforeWrites;
const countsRes = await fetch(`http://127.0.0.1:${port}/__sandbox/counts`, {
  method: "POST",
  headers: { authorization: "Token bench" },
});
const counts = ((await countsRes.json()) as { data: Record<string, number> }).data;
sandbox.kill();
agent.destroy();

const fmt = (n: number) => n.toFixed(0);
console.log(`clients: ${CLIENTS} keep-alive, node ${process.version}`);
console.log("| measure | requests | time (ms) | per second |");
console.log("| --- | --- | --- | --- |");
console.log(
  `| baseline: trivial node:http server, same client | ${READS} | ${fmt(base.ms)} | ${fmt(base.perSec)} req/s |`,
);
console.log(`| getBlockKramdown | ${READS} | ${fmt(reads.ms)} | ${fmt(reads.perSec)} reads/s |`);
console.log(
  `| updateBlock + flushTransaction | ${WRITE_PAIRS} pairs | ${fmt(writes.ms)} | ${fmt(writes.perSec)} pairs/s |`,
);
console.log(
  `sandbox CPU: ${(readCpuMicros / READS).toFixed(0)} µs per read (= ${fmt((READS / readCpuMicros) * 1e6)} reads per CPU-second), ${(writeCpuMicros / WRITE_PAIRS).toFixed(0)} µs per update+flush pair`,
);
console.log(`ratio sandbox reads/s : baseline req/s = ${(reads.perSec / base.perSec).toFixed(2)}`);
console.log(`ratio reads/s : pairs/s = ${(reads.perSec / writes.perSec).toFixed(1)} : 1`);
console.log(
  `kernel calls counted: getBlockKramdown ${counts["/api/block/getBlockKramdown"]}, updateBlock ${counts["/api/block/updateBlock"]}, flushTransaction ${counts["/api/sqlite/flushTransaction"]}`,
);
