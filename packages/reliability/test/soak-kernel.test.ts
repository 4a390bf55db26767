/**
 * Kernel-side soak (issue 18, "Load and soak"), only with RELIABILITY_SOAK=1 (RELIABILITY_SOAK_MS,
 * default 10 minutes): the built plugin in the sandbox's plugin host, four official MCP clients
 * keeping leases (300 blocks × 4 per scope, over the 1,024 global cap), task records, staged files
 * and committed writes coming; halfway the plugin's wall clock moves 12 minutes on, so every
 * request ID issued so far passes its first-execution deadline and the ledger prunes and compacts.
 * Samples: the host process's heap (the plugin runs in it), the plugin's `/health` counters. At the
 * end the plugin reloads: every issued ID stays reserved (none reissued) and an early commit
 * replays without executing again. Figures are printed; not part of the default run.
 */
import { randomUUID } from "node:crypto";
import { cpus } from "node:os";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { Client } from "@modelcontextprotocol/client";
import { TASK_ID_META_KEY } from "@sisyphus/mcp-tools/shell";
import { DEMO_IDS, type Sandbox } from "@sisyphus/siyuan-sandbox";
import { letTimePass } from "@sisyphus/siyuan-sandbox/testing";
import { LEASES_GLOBAL_MAX } from "@sisyphus/write-safety";
import { describe, expect, it } from "vitest";
import {
  kernelClient,
  PLUGIN_NAME,
  routeOf,
  sandboxWithPlugin,
  sc,
} from "../../kernel-plugin/test/harness.js";

const SOAK = process.env["RELIABILITY_SOAK"] === "1";
const SOAK_MS = Number(process.env["RELIABILITY_SOAK_MS"] ?? 10 * 60_000);
const SAMPLE_MS = 5_000;
const BLOCKS = 300;
const UPDATE = "/api/block/updateBlock";

/** A full collection before each heap sample, so the figure is the live heap (not garbage). */
function collector(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

interface Sample {
  t: number;
  heapUsed: number;
  rss: number;
  ids: number;
  health: Record<string, number>;
}

async function health(sb: Sandbox): Promise<Record<string, number>> {
  const body = (await (
    await fetch(routeOf(sb, "/health"), {
      headers: { authorization: `Token ${sb.token}` },
    })
  ).json()) as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(body).filter((e): e is [string, number] => typeof e[1] === "number"),
  );
}

/** A strict update's preflight; its requestId and the commit's arguments (null when refused). */
async function preflight(client: Client, id: string, data: string) {
  const args = { action: "update", id, dataType: "markdown", data };
  const p = sc(
    await client.callTool({ name: "block", arguments: { ...args, validateOnly: true } }),
  );
  if (typeof p["requestId"] !== "string") return null;
  const field = p["preconditionField"] as string;
  return {
    requestId: p["requestId"],
    commit: { ...args, requestId: p["requestId"], [field]: p[field] },
  };
}

async function stage(sb: Sandbox, n: number): Promise<void> {
  await fetch(routeOf(sb, "/transfer/upload"), {
    method: "POST",
    headers: {
      authorization: `Token ${sb.token}`,
      "content-type": "application/octet-stream",
      "x-sisyphus-file-name": `soak-${n}.bin`,
    },
    body: new Uint8Array(4096).fill(n % 251),
  }).then((r) => r.text());
}

if (SOAK) {
  describe("kernel soak (RELIABILITY_SOAK=1)", () => {
    it(
      `holds the plugin's memory and caps for ${SOAK_MS / 60_000} minutes; compaction keeps every reservation`,
      async () => {
        const sb = await sandboxWithPlugin();
        try {
          const ids: string[] = [];
          for (let i = 0; i < BLOCKS; i++)
            ids.push(...sb.control.external.appendBlock(DEMO_IDS.docJournal, `soak block ${i}`));
          await sb.control.flush();
          const clients = await Promise.all(Array.from({ length: 4 }, () => kernelClient(sb)));
          const issued = new Set<string>();
          const committed: Array<Record<string, unknown>> = [];
          const samples: Sample[] = [];
          const gc = collector();
          const sample = async () => {
            gc();
            const m = process.memoryUsage();
            samples.push({
              t: Date.now(),
              heapUsed: m.heapUsed,
              rss: m.rss,
              ids: issued.size,
              health: await health(sb),
            });
          };
          await sample();
          const timer = setInterval(() => void sample(), SAMPLE_MS);
          const deadline = Date.now() + SOAK_MS;
          let n = 0;
          const worker = async (client: Client) => {
            while (Date.now() < deadline) {
              n++;
              const id = ids[n % ids.length] as string;
              const lease = await preflight(client, id, `lease ${n}`);
              if (lease) issued.add(lease.requestId);
              if (n % 3 === 0) {
                const pre = await preflight(client, id, `soak ${n}`);
                if (pre) {
                  issued.add(pre.requestId);
                  const res = sc(await client.callTool({ name: "block", arguments: pre.commit }));
                  if (res["status"] === "committed") committed.push(pre.commit);
                }
              }
              if (n % 5 === 0) {
                // A read under a task ID: its record stays for the task-result cap.
                await client.callTool({
                  name: "block",
                  arguments: { action: "get_kramdown", id },
                  _meta: { [TASK_ID_META_KEY]: randomUUID() },
                });
              }
              if (n % 7 === 0) await stage(sb, n);
            }
          };
          const shift = (async () => {
            await letTimePass(SOAK_MS / 2, "the soak's half-way point");
            sb.plugins.stepClock(12 * 60_000);
            return samples.length;
          })();
          await Promise.all(clients.map(worker));
          const shiftedAt = await shift;
          clearInterval(timer);
          await sample();
          const t0 = (samples[0] as Sample).t;
          const mib = (b: number) => (b / 1024 / 1024).toFixed(1);
          const keys = ["leases", "ledgerEntries", "reservations", "taskResults", "stagingEntries"];
          console.log(
            `kernel soak samples (s, heap MiB, rss MiB, ids, ${keys.join(", ")}); clock +12 min after sample ${shiftedAt}:`,
          );
          for (const s of samples)
            console.log(
              [
                ((s.t - t0) / 1000).toFixed(0),
                mib(s.heapUsed),
                mib(s.rss),
                s.ids,
                ...keys.map((k) => s.health[k] ?? "-"),
              ].join("\t"),
            );
          const warm = samples.filter((s) => s.t >= t0 + Math.min(120_000, SOAK_MS / 5));
          const firstHalf = samples.slice(0, shiftedAt).filter((s) => warm.includes(s));
          const after = samples.slice(shiftedAt);
          const peak = (xs: Sample[], f: (s: Sample) => number) => Math.max(...xs.map(f));
          console.log(
            `kernel soak: ${issued.size} IDs issued, ${committed.length} commits; heap peak before/after the shift ${mib(peak(firstHalf, (s) => s.heapUsed))}/${mib(peak(after, (s) => s.heapUsed))} MiB; CPU ${cpus()[0]?.model}, Node ${process.version}`,
          );
          // Caps held: leases never above the global cap.
          expect(peak(samples, (s) => s.health["leases"] ?? 0)).toBeLessThanOrEqual(
            LEASES_GLOBAL_MAX,
          );
          // The live heap (the whole test process: sandbox, plugin, clients) stays within 32 MiB of
          // the first half's peak, beyond 2 KiB per ID issued since the shift (reservations, ledger
          // entries and hash aliases may grow with issuance).
          const idsAfter = (samples.at(-1) as Sample).ids - (samples[shiftedAt - 1] as Sample).ids;
          expect(peak(after, (s) => s.heapUsed)).toBeLessThan(
            peak(firstHalf, (s) => s.heapUsed) + 32 * 1024 * 1024 + idsAfter * 2048,
          );
          await Promise.all(clients.map((c) => c.close()));

          // After a reload: an early commit replays without executing, no issued ID comes again.
          await sb.plugins.reload(PLUGIN_NAME);
          const client = await kernelClient(sb);
          const before = sb.control.count(UPDATE);
          const replay = sc(
            await client.callTool({
              name: "block",
              arguments: committed[0] as Record<string, unknown>,
            }),
          );
          expect(replay, JSON.stringify(replay)).toMatchObject({
            status: "committed",
            executedNow: false,
          });
          expect(sb.control.count(UPDATE)).toBe(before);
          for (let i = 0; i < 50; i++) {
            const p = await preflight(client, ids[i] as string, `after reload ${i}`);
            expect(p === null || !issued.has(p.requestId)).toBe(true);
          }
          await client.close();
        } finally {
          await sb.stop();
        }
      },
      SOAK_MS + 300_000,
    );
  });
}
