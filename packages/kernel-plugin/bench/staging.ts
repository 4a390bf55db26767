/**
 * Staging throughput and the largest event-loop stall while the plugin hashes a 10 MiB upload
 * (issue 19). The built plugin (`dist/package.zip`) runs in the sandbox's kernel-plugin host in
 * this process (a `node:vm` realm on this process's event loop: V8, not goja); an HTTP client in
 * a child process posts to `/transfer/upload`, raw and JSON forms. Then the plugin's
 * `StagingArea` alone, which isolates the hashing from the HTTP path.
 *
 * Stall: a `setImmediate` chain beside the runtime records the longest gap between two of its
 * turns while a request is in flight. Host and plugin share this event loop, so that gap is the
 * longest stretch anything ran without yielding: one 64 KiB hashing batch, the host's buffering
 * and copying of the 10 MiB body (the Go side in SiYuan), the JSON form's decode, parse and base64
 * steps, a garbage collection, or the OS not scheduling this process at all (the "nothing" row).
 * Then both engines side by side, as a client sees them: a raw upload of 2 MiB to a plugin in V8
 * (the `vm` engine) and in goja (SiYuan 3.7.3's engine, the `goja` engine), with a `/health`
 * request loop beside it (another path, so not queued behind the upload): the longest `/health`
 * answer is the plugin's longest stall, whichever process its event loop runs in.
 * Run: pnpm --filter @sisyphus/kernel-plugin bench (build first)
 */
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { createSha256, portableSha256Hex, sha256BackendName } from "@sisyphus/core-hash";
import { type PluginEngineKind, startSandbox } from "@sisyphus/siyuan-sandbox";
import { StagingArea } from "../src/kernel/staging.js";

const MIB = 1024 * 1024;
const SIZE = 10 * MIB;
const RUNS = 10;
const WARMUP = 2;
const PLUGIN = "siyuan-plugins-mcp-sisyphus";
const ZIP = resolve(import.meta.dirname, "..", "dist", "package.zip");

/**
 * The HTTP client, in its own process so its work (reading, cloning and sending 10 MiB) is not
 * on the event loop the probe watches. One line in (`raw` or `json`), one line out (status, digest).
 */
const CLIENT = `
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
const bytes = readFileSync(process.env.BENCH_FILE);
const json = JSON.stringify({ fileName: "bench.bin", dataBase64: bytes.toString("base64") });
const auth = { authorization: "Token " + process.env.BENCH_TOKEN };
process.stdout.write("ready\\n");
for await (const form of createInterface({ input: process.stdin })) {
  const raw = form === "raw";
  const headers = raw
    ? { ...auth, "content-type": "application/octet-stream", "x-sisyphus-file-name": "bench.bin" }
    : { ...auth, "content-type": "application/json" };
  const res = await fetch(process.env.BENCH_URL, { method: "POST", headers, body: raw ? bytes : json });
  const answer = await res.json();
  process.stdout.write(res.status + " " + answer.sha256 + "\\n");
}
`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** Starts the probe; `stop()` gives the longest gap between two turns of the event loop (ms). */
function stallProbe(): { stop(): number } {
  let last = performance.now();
  let max = 0;
  let on = true;
  const tick = () => {
    const t = performance.now();
    max = Math.max(max, t - last);
    last = t;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    stop() {
      on = false;
      return max;
    },
  };
}

const turn = () => new Promise<void>((r) => setImmediate(r));

/** Runs `once` WARMUP + RUNS times; the timed runs' milliseconds and largest stalls. */
async function measure(once: () => Promise<void>): Promise<{ ms: number[]; stalls: number[] }> {
  const ms: number[] = [];
  const stalls: number[] = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const probe = stallProbe();
    await turn(); // the probe has ticked: a synchronous `once` shows as one gap
    const t0 = performance.now();
    await once();
    const t = performance.now() - t0;
    await turn();
    const stall = probe.stop();
    if (i >= WARMUP) {
      ms.push(t);
      stalls.push(stall);
    }
  }
  return { ms, stalls };
}

const bytes = new Uint8Array(SIZE);
for (let i = 0; i < SIZE; i++) bytes[i] = (i * 2654435761) >>> 24;
const digest = portableSha256Hex(bytes);

const sb = await startSandbox({ seed: "demo", plugins: [ZIP] });
const file = join(mkdtempSync(join(tmpdir(), "bench-staging-")), "bench.bin");
writeFileSync(file, bytes);
const client = spawn(process.execPath, ["--input-type=module", "-e", CLIENT], {
  env: {
    ...process.env,
    BENCH_URL: `${sb.url}/plugin/private/${PLUGIN}/transfer/upload`,
    BENCH_TOKEN: sb.token,
    BENCH_FILE: file,
  },
  stdio: ["pipe", "pipe", "inherit"],
});
const replies = createInterface({ input: client.stdout })[Symbol.asyncIterator]();
await replies.next(); // "ready": the client has read the file and built its JSON body

/** One upload by the client process; fails unless it answered 200 with the right digest. */
async function post(form: "raw" | "json"): Promise<void> {
  client.stdin.write(`${form}\n`);
  const reply = String((await replies.next()).value);
  if (reply !== `200 ${digest}`) throw new Error(`staging failed: ${reply}`);
}

const raw = await measure(() => post("raw"));
const json = await measure(() => post("json"));
client.stdin.end();
await sb.stop();

const area = new StagingArea({
  clock: { now: () => Date.now() },
  yieldFn: turn,
});
const alone = await measure(async () => {
  const outcome = await area.stage("bench.bin", bytes);
  if (!outcome.ok || outcome.file.sha256 !== digest) throw new Error("staging failed");
});
const oneShot = await measure(async () => {
  portableSha256Hex(bytes);
});
// The machine's own noise: the probe alone for about as long as a staging takes.
const idle = await measure(() => new Promise<void>((r) => setTimeout(r, 100)));
// What one batch costs by itself: the least a yield-separated stall can be.
const batch = 64 * 1024;
const batchMs: number[] = [];
for (let i = 0; i < 2_000; i++) {
  const hasher = createSha256();
  const off = (i % 160) * batch;
  const t0 = performance.now();
  hasher.update(bytes.subarray(off, off + batch));
  batchMs.push(performance.now() - t0);
}

const cpu = cpus()[0]?.model ?? "unknown CPU";
const mibs = (ms: number[]) => (SIZE / MIB / (median(ms) / 1000)).toFixed(0);
const f1 = (n: number) => n.toFixed(1);
console.log(
  `CPU: ${cpu} (${cpus().length} cores), node ${process.version}, SHA-256 backend: ${sha256BackendName()}`,
);
console.log(
  `${RUNS} runs of a 10 MiB file after ${WARMUP} warm-up runs; medians, stall max of all runs`,
);
console.log(
  "| measure | ms per 10 MiB | MiB/s | largest stall (ms), median run | largest stall (ms), all runs |",
);
console.log("| --- | --- | --- | --- | --- |");
const row = (name: string, r: { ms: number[]; stalls: number[] }, rate = true) =>
  console.log(
    `| ${name} | ${f1(median(r.ms))} | ${rate ? mibs(r.ms) : "–"} | ${f1(median(r.stalls))} | ${f1(Math.max(...r.stalls))} |`,
  );
row("POST /transfer/upload, raw octet-stream (client in another process)", raw);
row("POST /transfer/upload, JSON base64 (client in another process)", json);
row("StagingArea.stage alone (64 KiB batches, setImmediate yields)", alone);
row("portable SHA-256 of 10 MiB in one call (no yields: the stall without batching)", oneShot);
row("nothing: the probe alone for 100 ms (this machine's noise floor)", idle, false);
console.log(
  `one 64 KiB batch of the portable SHA-256 alone: median ${(median(batchMs) * 1000).toFixed(0)} µs (of ${batchMs.length})`,
);

/**
 * A raw upload of `n` bytes to a fresh plugin in `engine`, RUNS_BY_ENGINE times, each with a
 * `/health` loop beside it: the upload's time and the slowest `/health` answer meanwhile.
 */
const ENGINE_BYTES = 2 * MIB;
const RUNS_BY_ENGINE = 3;
async function engineRow(engine: PluginEngineKind): Promise<{ ms: number[]; stalls: number[] }> {
  const box = await startSandbox({ seed: "demo", plugins: [ZIP], pluginHost: { engine } });
  const auth = { authorization: `Token ${box.token}` };
  const route = (path: string) => `${box.url}/plugin/private/${PLUGIN}${path}`;
  const body = bytes.subarray(0, ENGINE_BYTES);
  const expected = portableSha256Hex(body);
  const ms: number[] = [];
  const stalls: number[] = [];
  try {
    for (let i = 0; i < RUNS_BY_ENGINE; i++) {
      let uploading = true;
      let slowest = 0;
      const probe = (async () => {
        while (uploading) {
          const t0 = performance.now();
          await (await fetch(route("/health"), { headers: auth })).arrayBuffer();
          slowest = Math.max(slowest, performance.now() - t0);
        }
      })();
      const t0 = performance.now();
      const res = await fetch(route("/transfer/upload"), {
        method: "POST",
        headers: {
          ...auth,
          "content-type": "application/octet-stream",
          "x-sisyphus-file-name": `engine-${i}.bin`,
        },
        body,
      });
      const answer = (await res.json()) as { sha256?: string };
      ms.push(performance.now() - t0);
      uploading = false;
      await probe;
      stalls.push(slowest);
      if (answer.sha256 !== expected) throw new Error(`staging in ${engine} failed: ${res.status}`);
    }
  } finally {
    await box.stop();
  }
  return { ms, stalls };
}
const byEngine = { vm: await engineRow("vm"), goja: await engineRow("goja") };
const engineMibs = (ms: number[]) => (ENGINE_BYTES / MIB / (median(ms) / 1000)).toFixed(2);
console.log(
  `\nthe plugin in V8 and in goja, side by side: ${RUNS_BY_ENGINE} raw uploads of ${ENGINE_BYTES / MIB} MiB each, medians; "stall" = the slowest /health answer during an upload (another path, so never queued behind it)`,
);
console.log(
  "| engine | ms per upload | MiB/s | slowest /health meanwhile (ms), median run | all runs |",
);
console.log("| --- | --- | --- | --- | --- |");
for (const [engine, r] of Object.entries(byEngine)) {
  console.log(
    `| ${engine === "vm" ? "V8 (vm engine)" : "goja (SiYuan 3.7.3's engine)"} | ${f1(median(r.ms))} | ${engineMibs(r.ms)} | ${f1(median(r.stalls))} | ${f1(Math.max(...r.stalls))} |`,
  );
}
console.log(
  `a 10 MiB upload in goja: about ${f1((median(byEngine.goja.ms) * (SIZE / ENGINE_BYTES)) / 1000)} s (the spec's staging timeout is 120 s)`,
);
