/**
 * Load against the built Node server on a sandbox kernel (issue 18): 1,000 concurrent reads, 200
 * concurrent strict writes from 20 clients, admission at 128 in flight with `queue_full` beyond and
 * nothing run for a refused call — not the tool, not even the settings read (the sandbox's request
 * log counts every kernel request). Throughput and latency are printed figures, never assertions.
 * With RELIABILITY_SOAK=1 (RELIABILITY_SOAK_MS, default 10 minutes) a soak keeps leases,
 * confirmations, legacy sessions and the ledger at their caps, samples the server's RSS, heap and
 * open file descriptors every 10 s and charts them (docs/reliability/soak-memory.svg, soak.json).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { DEMO_IDS, type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { letTimePass, waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { lineChart, writeChart } from "../../../bench/svg-chart.js";
import {
  AUTH_TOKEN,
  type Authority,
  blockPreflight,
  healthOf,
  httpClient,
  killAll,
  legacyInitialize,
  sc,
  spawnAuthority,
  tempDataDir,
} from "../../node-server/test/harness.js";
import { percentile, preloadEnv, procSample, writePreload } from "./support/secload-env.js";

const UPDATE = "/api/block/updateBlock";
/** The settings file's read: one per admitted call, none for a refused one. */
const SETTINGS = "/api/file/getFile";
const KRAMDOWN = "/api/block/getBlockKramdown";
const ADMISSION_CAP = 128;
const SOAK = process.env["RELIABILITY_SOAK"] === "1";
const SOAK_MS = Number(process.env["RELIABILITY_SOAK_MS"] ?? 10 * 60_000);
const SAMPLE_MS = 10_000;
/** The load: 1,000 concurrent reads; 200 concurrent strict writes from 20 clients. */
const READS = 1000;
const READ_CLIENTS = 10;
const WRITERS = 20;
const WRITES_EACH = 10;

let sandbox: Sandbox;
let node: Authority;
let dataDir: string;
let sampleFile: string;
const preload = writePreload();

beforeAll(async () => {
  sandbox = await startSandbox({ seed: "demo" });
  dataDir = tempDataDir();
  sampleFile = join(mkdtempSync(join(tmpdir(), "secload-samples-")), "memory.jsonl");
  node = await spawnAuthority({
    dataDir,
    siyuanUrl: sandbox.url,
    siyuanToken: sandbox.token,
    env: preloadEnv(
      preload,
      {
        SECLOAD_SAMPLE_FILE: sampleFile,
        SECLOAD_SAMPLE_MS: String(SAMPLE_MS),
        SECLOAD_KEEPALIVE_MS: String(10 * 60_000),
        SECLOAD_LISTEN_BACKLOG: "4096",
      },
      SOAK ? ["--expose-gc"] : [],
    ),
  });
});

afterAll(async () => {
  await killAll();
  await sandbox?.stop();
});

const code = (r: unknown) => (sc(r)["error"] as { code?: string } | undefined)?.code;
/** Every kernel request the sandbox has answered so far. */
const kernelRequests = () =>
  Object.values(sandbox.control.counts()).reduce((s: number, n) => s + (n as number), 0);

/** A refusal by admission is typed: `queue_full` with the cap, an error, and no request ID. */
function expectQueueFull(result: unknown): void {
  expect((result as { isError?: unknown }).isError).toBe(true);
  expect(sc(result)["error"]).toMatchObject({ code: "queue_full", limit: ADMISSION_CAP });
  expect(sc(result)["requestId"]).toBeUndefined();
}

/** Stops the retry loops of a test's calls once one of them failed (`settled`). */
let stop = new AbortController();
/** `queue_full` refusals seen in the current test. */
let refusals = 0;
beforeEach(() => {
  stop = new AbortController();
  refusals = 0;
});

/**
 * A `kernel_unavailable` answer that wrote nothing: the call's settings read timed out (5 s) at
 * the kernel, which on an overloaded machine is this very process (the sandbox runs in it).
 */
const unavailable = (r: unknown) =>
  code(r) === "kernel_unavailable" && sc(r)["writeAttempted"] === false;

/**
 * `call()` until it is neither refused with queue_full nor answered `unavailable` (either way
 * nothing ran, so the same call may be sent again); its latency, refusals and those answers.
 */
async function admitted<T>(
  call: () => Promise<T>,
): Promise<{ result: T; ms: number; refused: number; unavailable: number }> {
  let refused = 0;
  let timedOut = 0;
  const start = performance.now();
  const { signal } = stop;
  for (;;) {
    signal.throwIfAborted();
    const result = await call();
    if (unavailable(result)) timedOut++;
    else if (code(result) === "queue_full") {
      expectQueueFull(result);
      refused++;
      refusals++;
    } else return { result, ms: performance.now() - start, refused, unavailable: timedOut };
    // Back off (jittered, doubling to 2 s) so retries do not crowd out the admitted calls.
    await letTimePass(
      Math.min(2_000, 25 * 2 ** (refused + timedOut)) * (0.5 + Math.random()),
      "the load client's backoff before it retries",
    );
  }
}

/**
 * Like `Promise.all`, but the first failure stops the other calls' retries and the answer waits
 * until every call has settled: none is left running into the next test.
 */
async function settled<T>(calls: Promise<T>[]): Promise<T[]> {
  for (const c of calls) c.catch(() => stop.abort());
  const all = await Promise.allSettled(calls);
  const failed = all.filter((r): r is PromiseRejectedResult => r.status === "rejected");
  // The first failure, not one of the retries it stopped.
  const first = failed.find((r) => !stop.signal.aborted || r.reason !== stop.signal.reason);
  if (first !== undefined) throw first.reason;
  return all.map((r) => (r as PromiseFulfilledResult<T>).value);
}

function figures(label: string, ms: number[], wallMs: number, refused: number): string {
  const line = `${label}: ${ms.length} calls in ${(wallMs / 1000).toFixed(1)} s = ${(
    (ms.length * 1000) / wallMs
  ).toFixed(
    0,
  )} calls/s; p50 ${percentile(ms, 0.5).toFixed(0)} ms, p95 ${percentile(ms, 0.95).toFixed(0)} ms; queue_full refusals retried: ${refused}`;
  console.log(line);
  return line;
}

/** `n` fresh documents of `per` paragraphs each in the research notebook: their paragraph IDs. */
async function paragraphs(n: number, per: number, label: string): Promise<string[][]> {
  const docs = Array.from({ length: n }, (_, i) =>
    sandbox.control.external.createDoc(
      DEMO_IDS.notebookResearch,
      `/load ${label} ${i}`,
      Array.from({ length: per }, (_, k) => `${label} ${i}.${k}`).join("\n\n"),
    ),
  );
  await sandbox.control.flush();
  return docs.map((doc) =>
    sandbox.control
      .sql(`SELECT id FROM blocks WHERE root_id = '${doc}' AND type = 'p' ORDER BY sort`)
      .map((r) => r["id"] as string),
  );
}

describe("load", () => {
  it(`answers ${READS} concurrent reads from ${READ_CLIENTS} clients with the kernel's content, refused calls costing the kernel nothing`, async () => {
    console.log(`load: ${cpus()[0]?.model} × ${cpus().length}, Node ${process.version}`);
    const clients = await Promise.all(
      Array.from({ length: READ_CLIENTS }, () => httpClient(node.url, { era: "modern" })),
    );
    const ids = [DEMO_IDS.paragraphGoals, DEMO_IDS.paragraphStatus, DEMO_IDS.paragraphQuote];
    const read = (i: number) =>
      (clients[i % READ_CLIENTS] as Client).callTool(
        { name: "block", arguments: { action: "get_kramdown", id: ids[i % 3] } },
        { timeout: 120_000 },
      );
    // What one admitted read of each block costs at the kernel, its settings read included.
    const cost: number[] = [];
    for (let i = 0; i < 3; i++) {
      const k0 = kernelRequests();
      expect((await read(i)).isError).not.toBe(true);
      cost.push(kernelRequests() - k0);
    }
    const kernel0 = kernelRequests();
    const settings0 = sandbox.control.count(SETTINGS);
    // Every getBlockKramdown takes 2 s (SiYuan serialises each path) until a call has been
    // refused: the four read slots crawl, so admission fills to its cap however slowly this
    // machine accepts connections, and the calls beyond it are refused with queue_full.
    const hold = sandbox.control.armFault({
      endpoint: KRAMDOWN,
      kind: "delay",
      delayMs: 2_000,
      times: "always",
    });
    const start = performance.now();
    const pending = settled(Array.from({ length: READS }, (_, i) => admitted(() => read(i))));
    await waitFor(() => refusals > 0 || stop.signal.aborted, {
      what: "a call refused with queue_full (or a failed call stopping the run)",
      timeoutMs: 110_000,
    });
    sandbox.control.disarmFault(hold);
    const answers = await pending;
    const wall = performance.now() - start;
    const refused = answers.reduce((s, a) => s + a.refused, 0);
    const timedOut = answers.reduce((s, a) => s + a.unavailable, 0);
    figures(
      `${READS} concurrent reads`,
      answers.map((a) => a.ms),
      wall,
      refused,
    );
    answers.forEach((a, i) => {
      const text = JSON.stringify(sc(a.result));
      expect(a.result.isError, text).not.toBe(true);
      expect(text).toContain(ids[i % 3]);
    });
    // The calls beyond the cap were refused (and retried) hundreds of times, yet the kernel saw
    // exactly what the 1,000 admitted reads cost: one settings read each and their tool's requests.
    // (A settings read that timed out cost its one request: at most `timedOut` more.)
    expect(refused).toBeGreaterThan(0);
    const settingsReads = sandbox.control.count(SETTINGS) - settings0;
    expect(settingsReads - READS).toBeGreaterThanOrEqual(0);
    expect(settingsReads - READS).toBeLessThanOrEqual(timedOut);
    const expected = answers.reduce((s, _, i) => s + (cost[i % 3] as number), 0);
    expect(kernelRequests() - kernel0 - expected).toBe(settingsReads - READS);
    console.log(
      `reads: ${refused} queue_full refusals, 0 kernel requests for them; kernel requests ${expected} = ${READS} admitted reads × ${cost.join("/")} (settings read included); settings reads timed out and retried: ${timedOut}`,
    );
    await Promise.all(clients.map((c) => c.close()));
  });

  it(`applies ${WRITERS * WRITES_EACH} concurrent strict writes from ${WRITERS} clients exactly once each`, async () => {
    const blocks = await paragraphs(WRITERS, WRITES_EACH, "writes");
    const clients = await Promise.all(
      Array.from({ length: WRITERS }, () => httpClient(node.url, { era: "modern" })),
    );
    const before = sandbox.control.count(UPDATE);
    const settings0 = sandbox.control.count(SETTINGS);
    const start = performance.now();
    const writes = await settled(
      blocks.flatMap((ids, c) =>
        ids.map(async (id, k) => {
          const client = clients[c] as Client;
          const data = `written by client ${c} write ${k}`;
          const t0 = performance.now();
          const args = { action: "update", id, dataType: "markdown", data };
          const pre = await admitted(() =>
            client.callTool(
              { name: "block", arguments: { ...args, validateOnly: true } },
              { timeout: 120_000 },
            ),
          );
          const p = sc(pre.result);
          expect(pre.result.isError, JSON.stringify(p)).not.toBe(true);
          const field = p["preconditionField"] as string;
          const commitArgs = { ...args, requestId: p["requestId"], [field]: p[field] };
          const commit = await admitted(() =>
            client.callTool({ name: "block", arguments: commitArgs }, { timeout: 120_000 }),
          );
          return {
            id,
            data,
            status: sc(commit.result)["status"],
            ms: performance.now() - t0,
            refused: pre.refused + commit.refused,
            unavailable: pre.unavailable + commit.unavailable,
          };
        }),
      ),
    );
    const wall = performance.now() - start;
    figures(
      `${WRITERS * WRITES_EACH} strict writes (preflight+commit) from ${WRITERS} clients`,
      writes.map((w) => w.ms),
      wall,
      writes.reduce((s, w) => s + w.refused, 0),
    );
    // Each block got one write of its own text: every block holds its text and the kernel saw
    // exactly as many updateBlock requests as blocks, so each write was applied exactly once.
    for (const w of writes) {
      expect([w.id, w.status]).toEqual([w.id, "committed"]);
      expect(sandbox.control.kramdown(w.id)).toContain(w.data);
    }
    expect(sandbox.control.count(UPDATE) - before).toBe(WRITERS * WRITES_EACH);
    // A preflight and a commit admitted per write, each with one settings read; refusals none
    // (a settings read that timed out cost its one request).
    const timedOut = writes.reduce((s, w) => s + w.unavailable, 0);
    const extraReads = sandbox.control.count(SETTINGS) - settings0 - 2 * WRITERS * WRITES_EACH;
    expect(extraReads).toBeGreaterThanOrEqual(0);
    expect(extraReads).toBeLessThanOrEqual(timedOut);
    console.log(`writes: settings reads timed out and retried: ${timedOut}`);
    await Promise.all(clients.map((c) => c.close()));
  });

  it("admits 128 calls in flight, refuses the rest with queue_full and runs nothing for them", async () => {
    const client = await httpClient(node.url, { era: "modern" });
    const [held, queuedId] = (await paragraphs(1, 2, "admission"))[0] as [string, string];
    // What one preflight of the queued block costs at the kernel, its settings read included (a
    // call reads the settings once admitted, so a refused call costs nothing).
    const total = kernelRequests;
    const probe0 = total();
    const probe = await blockPreflight(client, {
      action: "update",
      id: queuedId,
      dataType: "markdown",
      data: "probe",
    });
    expect(probe.result.isError).not.toBe(true);
    const perPreflight = total() - probe0;
    // And what a whole commit costs (write and readback).
    const probe1 = total();
    expect(
      sc(await client.callTool({ name: "block", arguments: probe.commitArgs }))["status"],
    ).toBe("committed");
    const commitCost = total() - probe1;
    const reservations0 = (await healthOf(node.url))["reservations"] as number;
    const pre = await blockPreflight(client, {
      action: "update",
      id: held as string,
      dataType: "markdown",
      data: "held",
    });
    const before = sandbox.control.count(UPDATE);
    const kernelBefore = total();
    sandbox.control.armFault({ endpoint: UPDATE, kind: "hold" });
    const commit = client.callTool({ name: "block", arguments: pre.commitArgs });
    await waitFor(() => sandbox.control.held() === 1, { what: "the held commit's write" });
    const settingsBefore = sandbox.control.count(SETTINGS);
    let answered = 0;
    const waiting = Array.from({ length: 130 }, (_, i) =>
      client
        .callTool(
          {
            name: "block",
            arguments: {
              action: "update",
              id: queuedId,
              dataType: "markdown",
              data: `queued ${i}`,
              validateOnly: true,
            },
          },
          { timeout: 60_000 },
        )
        .finally(() => answered++),
    );
    // The commit stays held until the calls beyond the cap have been refused.
    await waitFor(() => answered >= 3, {
      what: "the calls beyond the cap to be refused",
      timeoutMs: 60_000,
    });
    expect(sandbox.control.releaseHeld()).toBe(1);
    const answers = await Promise.all(waiting);
    const refused = answers.filter((a) => code(a) === "queue_full");
    expect(refused.length).toBe(3);
    for (const r of refused) expectQueueFull(r);
    expect(answers.filter((a) => typeof sc(a)["requestId"] === "string").length).toBe(127);
    expect(sc(await commit)["status"]).toBe("committed");
    // The held commit's own readback aside, the kernel saw exactly 127 preflights' requests.
    const remainder = total() - kernelBefore - 127 * perPreflight;
    const settingsReads = sandbox.control.count(SETTINGS) - settingsBefore;
    console.log(
      `admission: 127 admitted beside the held commit, 3 queue_full; kernel requests per preflight ${perPreflight}, the rest ${remainder} (one commit: ${commitCost}); settings reads ${settingsReads} (one per admitted call, none for the refused)`,
    );
    expect(remainder).toBe(commitCost);
    expect(settingsReads).toBe(127);
    // Each admitted preflight reserved one request ID; a refused call reserved none.
    expect((await healthOf(node.url))["reservations"]).toBe(reservations0 + 1 + 127);
    expect(sandbox.control.count(UPDATE)).toBe(before + 1);
    await client.close();
  });
});

interface Sample {
  t: number;
  rss: number;
  fds: number;
  heapUsed?: number;
  ids: number;
  ledgerBytes: number;
  reservationBytes: number;
  health: Record<string, number>;
}

const MIB = 1024 * 1024;

/**
 * The soak's figures and curve: the samples as JSON (docs/reliability/soak.json) and two charts
 * (docs/reliability/soak-memory.svg: RSS, live heap and the two logs' sizes; soak-counts.svg: open
 * descriptors, issued IDs and ledger entries), with the markdown image lines printed.
 */
function publishSoak(
  samples: readonly Sample[],
  shiftedAt: number,
  totals: { issued: number; commits: number; reservationsKept: number },
): void {
  const t0 = (samples[0] as Sample).t;
  const rows = samples.map((s) => ({
    seconds: Math.round((s.t - t0) / 1000),
    rssBytes: s.rss,
    heapBytes: s.heapUsed ?? 0,
    fds: s.fds,
    issuedIds: s.ids,
    ledgerBytes: s.ledgerBytes,
    reservationBytes: s.reservationBytes,
    leases: s.health["leases"] ?? 0,
    ledgerEntries: s.health["ledgerEntries"] ?? 0,
    legacySessions: s.health["legacySessions"] ?? 0,
  }));
  const warm = rows.filter((r) => r.seconds >= Math.min(120, SOAK_MS / 5000));
  const first = warm[0] ?? rows[0];
  const last = rows[rows.length - 1];
  if (first === undefined || last === undefined) return;
  const fds = warm.map((r) => r.fds);
  // The ledger's largest shrink between two samples: its compaction.
  let compaction = { before: 0, after: 0, atSeconds: 0 };
  rows.forEach((r, i) => {
    const prev = rows[i - 1];
    if (prev && prev.ledgerBytes - r.ledgerBytes > compaction.before - compaction.after) {
      compaction = { before: prev.ledgerBytes, after: r.ledgerBytes, atSeconds: r.seconds };
    }
  });
  const idsSince = Math.max(1, last.issuedIds - first.issuedIds);
  const figures = {
    cpu: cpus()[0]?.model,
    cores: cpus().length,
    node: process.version,
    durationSeconds: last.seconds,
    sampleSeconds: SAMPLE_MS / 1000,
    clockShiftAfterSeconds: rows[shiftedAt - 1]?.seconds,
    ...totals,
    warmUpSeconds: first.seconds,
    heapBytesPerIdAfterWarmUp: Math.round((last.heapBytes - first.heapBytes) / idsSince),
    rssBytesPerIdAfterWarmUp: Math.round((last.rssBytes - first.rssBytes) / idsSince),
    reservationFileBytesPerId: +(last.reservationBytes / Math.max(1, last.issuedIds)).toFixed(1),
    fdRangeAfterWarmUp: [Math.min(...fds), Math.max(...fds)],
    ledgerCompaction: compaction,
  };
  const out = resolve(import.meta.dirname, "../../../docs/reliability/soak.json");
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify({ figures, samples: rows }, null, 2)}\n`);
  const series = (name: string, f: (r: (typeof rows)[number]) => number) => ({
    name,
    points: rows.map((r) => [r.seconds, f(r)] as const),
  });
  const memory = writeChart(
    "reliability/soak-memory.svg",
    lineChart({
      title: `Soak memory, ${Math.round(last.seconds / 60)} min (clock +12 min at ${figures.clockShiftAfterSeconds} s)`,
      xLabel: "seconds",
      yLabel: "MiB",
      series: [
        series("RSS", (r) => r.rssBytes / MIB),
        series("live heap", (r) => r.heapBytes / MIB),
        series("ledger.wal", (r) => r.ledgerBytes / MIB),
        series("reservations.wal", (r) => r.reservationBytes / MIB),
      ],
    }),
  );
  const counts = writeChart(
    "reliability/soak-counts.svg",
    lineChart({
      title: "Soak counts: descriptors, issued IDs, ledger entries",
      xLabel: "seconds",
      yLabel: "count (IDs and entries in thousands)",
      series: [
        series("open fds", (r) => r.fds),
        series("issued IDs / 1000", (r) => r.issuedIds / 1000),
        series("ledger entries / 1000", (r) => r.ledgerEntries / 1000),
      ],
    }),
  );
  console.log(
    `soak figures (${figures.cpu} × ${figures.cores}, Node ${figures.node}): ${totals.issued} IDs issued, ${totals.commits} commits in ${last.seconds} s; live heap ${figures.heapBytesPerIdAfterWarmUp} B per issued ID after ${first.seconds} s warm-up (RSS ${figures.rssBytesPerIdAfterWarmUp} B/ID); reservation file ${figures.reservationFileBytesPerId} B/ID; fds ${figures.fdRangeAfterWarmUp.join("–")} after warm-up; ledger.wal compacted ${(compaction.before / 1024).toFixed(0)} KiB → ${(compaction.after / 1024).toFixed(0)} KiB at ${compaction.atSeconds} s; reservations kept ${totals.reservationsKept} of ${totals.issued}`,
  );
  console.log(memory);
  console.log(counts);
}

if (SOAK) {
  describe("soak (RELIABILITY_SOAK=1)", () => {
    it(
      `holds memory and file descriptors flat for ${SOAK_MS / 60_000} minutes with every cap full, compacting the ledger without losing a reservation`,
      async () => {
        const pid = node.child.pid as number;
        const issued = new Set<string>();
        const committed: Array<Record<string, unknown>> = [];
        const [blocks] = [await paragraphs(8, 8, "soak")];
        const ids = blocks.flat();
        const clients = await Promise.all(
          Array.from({ length: 4 }, () => httpClient(node.url, { era: "modern" })),
        );
        const deadline = Date.now() + SOAK_MS;
        const samples: Sample[] = [];
        const size = (f: string) => (existsSync(f) ? statSync(f).size : 0);
        const sample = async () => {
          const p = procSample(pid);
          samples.push({
            t: Date.now(),
            ...p,
            ids: issued.size,
            ledgerBytes: size(join(dataDir, "ledger.wal")),
            reservationBytes: size(join(dataDir, "reservations.wal")),
            health: await healthOf(node.url),
          });
        };
        await sample();
        const timer = setInterval(() => void sample(), SAMPLE_MS);
        let n = 0;
        const worker = async (w: number) => {
          const client = clients[w] as Client;
          while (Date.now() < deadline) {
            n++;
            const id = ids[n % ids.length] as string;
            // A lease left to expire or be evicted (leases at their cap).
            const lease = await blockPreflight(client, {
              action: "update",
              id,
              dataType: "markdown",
              data: `lease ${n}`,
            });
            if (typeof lease.p["requestId"] === "string") issued.add(lease.p["requestId"]);
            if (n % 3 === 0) {
              // A committed write (the ledger grows and compacts).
              const pre = await blockPreflight(client, {
                action: "update",
                id,
                dataType: "markdown",
                data: `soak ${n}`,
              });
              if (typeof pre.p["requestId"] === "string") issued.add(pre.p["requestId"]);
              const res = await client.callTool({ name: "block", arguments: pre.commitArgs });
              if (sc(res)["status"] === "committed") committed.push(pre.commitArgs);
            }
            if (n % 5 === 0) {
              // A confirmation issued and never answered (confirmations at their cap).
              const del = await blockPreflight(client, { action: "delete", id });
              if (typeof del.p["requestId"] === "string") issued.add(del.p["requestId"]);
              await fetch(node.url, {
                method: "POST",
                headers: {
                  authorization: `Bearer ${AUTH_TOKEN}`,
                  "content-type": "application/json",
                  accept: "application/json, text/event-stream",
                  "mcp-protocol-version": "2026-07-28",
                  "mcp-method": "tools/call",
                  "mcp-name": "block",
                },
                body: JSON.stringify({
                  jsonrpc: "2.0",
                  id: n,
                  method: "tools/call",
                  params: {
                    name: "block",
                    arguments: del.commitArgs,
                    _meta: {
                      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
                    },
                  },
                }),
              }).then((r) => r.text());
            }
            if (n % 2 === 0) {
              // A legacy session opened and abandoned (sessions at their cap).
              await (await legacyInitialize(node.url)).text();
            }
          }
        };
        // Halfway, the server's wall clock moves 12 minutes on (two SIGUSR2 to the preload): every
        // request ID issued so far passes its 10-minute first-execution deadline, so the ledger
        // prunes them and its log compacts, while the reservations must keep every one.
        const shift = (async () => {
          await letTimePass(SOAK_MS / 2, "the soak's half-way point");
          for (const k of [1, 2]) {
            node.child.kill("SIGUSR2");
            await waitFor(() => node.stderr().split("secload: clock shifted").length - 1 >= k, {
              what: `the server's clock shifted ${k} time(s)`,
            });
          }
          return samples.length;
        })();
        await Promise.all(clients.map((_, w) => worker(w)));
        const shiftedAt = await shift;
        clearInterval(timer);
        await sample();
        await Promise.all(clients.map((c) => c.close()));

        const heap = readFileSync(sampleFile, "utf8")
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l) as { t: number; heapUsed: number; rss: number });
        for (const s of samples) {
          s.heapUsed = heap.reduce(
            (best, h) => (Math.abs(h.t - s.t) < Math.abs(best.t - s.t) ? h : best),
            heap[0] ?? { t: 0, heapUsed: 0, rss: 0 },
          ).heapUsed;
        }
        const t0 = (samples[0] as Sample).t;
        const warm = samples.filter((s) => s.t >= t0 + Math.min(120_000, SOAK_MS / 5));
        const firstHalf = samples.slice(0, shiftedAt).filter((s) => warm.includes(s));
        const after = samples.slice(shiftedAt);
        const first = warm[0] as Sample;
        const last = samples[samples.length - 1] as Sample;
        const idsSince = last.ids - first.ids;
        const mib = (b: number) => (b / 1024 / 1024).toFixed(1);
        console.log(
          `soak samples (s, rss MiB, live heap MiB, fds, ids, ledger KiB, reservations KiB, leases, ledgerEntries, legacySessions); clock +12 min after sample ${shiftedAt}:`,
        );
        for (const s of samples) {
          console.log(
            `${((s.t - t0) / 1000).toFixed(0)}\t${mib(s.rss)}\t${mib(s.heapUsed ?? 0)}\t${s.fds}\t${s.ids}\t${(s.ledgerBytes / 1024).toFixed(0)}\t${(s.reservationBytes / 1024).toFixed(0)}\t${s.health["leases"]}\t${s.health["ledgerEntries"]}\t${s.health["legacySessions"]}`,
          );
        }
        const peak = (xs: Sample[], f: (s: Sample) => number) => Math.max(...xs.map(f));
        const idsAfter = last.ids - (samples[shiftedAt - 1] as Sample).ids;
        // 2 KiB per ID issued since the shift: besides its reservation (a few dozen bytes), an ID
        // keeps a ledger entry (7 days once committed) and hash aliases, all allowed to grow with
        // issuance; run 2 of round 3 came within 6 MiB of a 1 KiB allowance.
        const allowance = idsAfter * 2048;
        const heapOf = (s: Sample) => s.heapUsed ?? 0;
        console.log(
          `soak: ${issued.size} IDs issued, ${committed.length} commits; reservation file ${(last.reservationBytes / Math.max(1, last.ids)).toFixed(1)} B/ID; live heap ${((heapOf(last) - heapOf(first)) / Math.max(1, idsSince)).toFixed(0)} B/ID and RSS ${((last.rss - first.rss) / Math.max(1, idsSince)).toFixed(0)} B/ID over ${idsSince} IDs after warm-up (ledger entries included: they live 10 minutes unexecuted, 7 days committed); peaks before/after the shift: live heap ${mib(peak(firstHalf, heapOf))}/${mib(peak(after, heapOf))} MiB, RSS ${mib(peak(firstHalf, (s) => s.rss))}/${mib(peak(after, (s) => s.rss))} MiB`,
        );
        // Compaction never dropped a reservation: after a stop, every issued ID is in the file.
        await node.stop();
        const reserved = new Set(
          readFileSync(join(dataDir, "reservations.wal"), "utf8").split("\n"),
        );
        const dropped = [...issued].filter((id) => !reserved.has(id));
        publishSoak(samples, shiftedAt, {
          issued: issued.size,
          commits: committed.length,
          reservationsKept: issued.size - dropped.length,
        });
        // Tolerances: once the first deadlines pass, the second half's live-heap peak (collected
        // before each sample) stays within 8 MiB of the first half's, and its median RSS within
        // 48 MiB of the first half's peak, beyond the allowance per ID issued since; descriptors
        // within 8. RSS is judged by the median: V8 keeps freed pages, so a burst of issuance
        // (the 10-minute run at 22:40 UTC: 272 MiB for 30 s while the live heap stayed at 48 MiB,
        // 171 MiB at the end) is a transient peak, not growth.
        expect(peak(after, heapOf)).toBeLessThan(
          peak(firstHalf, heapOf) + 8 * 1024 * 1024 + allowance,
        );
        expect(
          percentile(
            after.map((s) => s.rss),
            0.5,
          ),
        ).toBeLessThan(peak(firstHalf, (s) => s.rss) + 48 * 1024 * 1024 + allowance);
        expect(peak(warm, (s) => s.fds) - Math.min(...warm.map((s) => s.fds))).toBeLessThanOrEqual(
          8,
        );
        // The caps were reached.
        expect(Math.max(...samples.map((s) => s.health["legacySessions"] ?? 0))).toBeGreaterThan(0);
        // The ledger compacted: its file shrank at least once.
        const shrank = samples.some(
          (s, i) => i > 0 && s.ledgerBytes < (samples[i - 1] as Sample).ledgerBytes,
        );
        expect(shrank).toBe(true);

        // A restarted server neither reissues an ID nor re-executes an early commit.
        expect(dropped).toEqual([]);
        node = await spawnAuthority({
          dataDir,
          siyuanUrl: sandbox.url,
          siyuanToken: sandbox.token,
        });
        const client = await httpClient(node.url, { era: "modern" });
        const before = sandbox.control.count(UPDATE);
        const replay = await client.callTool({
          name: "block",
          arguments: committed[0] as Record<string, unknown>,
        });
        expect(sc(replay), JSON.stringify(sc(replay))).toMatchObject({
          status: "committed",
          executedNow: false,
        });
        expect(sandbox.control.count(UPDATE)).toBe(before);
        for (let i = 0; i < 50; i++) {
          const p = await blockPreflight(client, {
            action: "update",
            id: ids[i % ids.length] as string,
            dataType: "markdown",
            data: `after restart ${i}`,
          });
          expect(issued.has(p.p["requestId"] as string)).toBe(false);
        }
        await client.close();
      },
      SOAK_MS + 300_000,
    );
  });
}
