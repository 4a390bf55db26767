/**
 * Upload of a 10 MiB asset: the sandbox bin in a child process, `/api/asset/upload` (multipart,
 * one `file[]` part) of 10 MiB of distinct bytes each time (so the hash cache never short-cuts
 * it), sequentially over keep-alive HTTP, then one read-back through `GET /assets/…` with a
 * SHA-256 check. Run: pnpm exec tsx --conditions=source bench/asset-upload.ts
 * (in packages/siyuan-sandbox)
 */
import { createHash, randomBytes } from "node:crypto";
import { keepAlive, sandboxArgs, send as sendTo, spawnServer } from "./support.js";

const SIZE = 10 * 1024 * 1024;
const UPLOADS = 20;
const WARMUP = 2;

const sandbox = await spawnServer(sandboxArgs(["--control"]));
const agent = keepAlive(1);
const send = (
  method: string,
  path: string,
  headers: Record<string, string | number>,
  body?: Buffer,
) => sendTo(agent, sandbox.port, method, path, headers, body);

const boundary = "----sandbox-bench-boundary";
function multipart(name: string, data: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file[]"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
}

async function upload(data: Buffer, i: number): Promise<string> {
  const body = multipart(`bench-${i}.bin`, data);
  const r = await send(
    "POST",
    "/api/asset/upload",
    { "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": body.length },
    body,
  );
  const env = JSON.parse(r.body.toString("utf8")) as {
    code: number;
    data: { errFiles: string[] | null; succMap: Record<string, string> };
  };
  if (env.code !== 0 || env.data.errFiles !== null) throw new Error(`upload failed: ${r.body}`);
  return env.data.succMap[`bench-${i}.bin`]!;
}

async function cpuMicros(): Promise<number> {
  const r = await send("POST", "/__sandbox/process-cpu", { "content-length": 0 });
  const d = (
    JSON.parse(r.body.toString("utf8")) as { data: { userMicros: number; systemMicros: number } }
  ).data;
  return d.userMicros + d.systemMicros;
}

const payloads = Array.from({ length: UPLOADS + WARMUP }, () => randomBytes(SIZE));
for (let i = 0; i < WARMUP; i++) await upload(payloads[i]!, i);
const cpu0 = await cpuMicros();
const times: number[] = [];
let last = "";
for (let i = WARMUP; i < UPLOADS + WARMUP; i++) {
  const t0 = performance.now();
  last = await upload(payloads[i]!, i);
  times.push(performance.now() - t0);
}
const cpu = (await cpuMicros()) - cpu0;
const back = await send("GET", `/${last}`, {});
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
if (back.status !== 200 || sha(back.body) !== sha(payloads[UPLOADS + WARMUP - 1]!)) {
  throw new Error("read-back SHA-256 differs");
}
sandbox.kill();
agent.destroy();

times.sort((a, b) => a - b);
const total = times.reduce((a, b) => a + b, 0);
const median = times[Math.floor(times.length / 2)]!;
const mib = SIZE / 1024 / 1024;
console.log(
  `node ${process.version}, ${UPLOADS} sequential uploads of ${mib} MiB (after ${WARMUP} warm-up)`,
);
console.log("| measure | median (ms) | min (ms) | max (ms) | throughput |");
console.log("| --- | --- | --- | --- | --- |");
console.log(
  `| asset upload, 10 MiB | ${median.toFixed(0)} | ${times[0]!.toFixed(0)} | ${times[times.length - 1]!.toFixed(0)} | ${((mib * UPLOADS) / (total / 1000)).toFixed(0)} MiB/s |`,
);
console.log(
  `sandbox CPU: ${(cpu / UPLOADS / 1000).toFixed(0)} ms per upload; read-back SHA-256 verified`,
);
