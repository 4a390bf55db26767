/**
 * Benchmarks of @sisyphus/write-safety (run: `pnpm bench` in packages/write-safety).
 * 1. Coordinator overhead per strict preflight+commit pair, in-memory stores, constant probe:
 *    p50 / p99 µs, side by side with the same hooks called directly (no coordinator).
 * 2. Request-ID reservations at 1,000,000 issued IDs: bytes per ID in the store encoding
 *    (vs. newline-separated text), ns per issue, and the restart load time.
 */
import { seededRandomSource, stateHash } from "@sisyphus/core-hash";
import {
  createWriteCoordinator,
  leaseScope,
  MemoryLedgerStore,
  MemoryReservationStore,
  mutationPolicy,
  RequestIdRegistry,
  type StrictPreflightAnswer,
} from "../src/index.js";

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
const fmt = (n: number) => n.toFixed(1);

async function coordinatorOverhead(pairs: number) {
  let t = 1_786_543_200_000;
  const clock = { now: () => t };
  const coordinator = await createWriteCoordinator({
    clock,
    random: seededRandomSource(1),
    epoch: "bench",
    ledgerStore: new MemoryLedgerStore(),
    reservationStore: new MemoryReservationStore(),
  });
  const digest = stateHash({ block: "constant" });
  const hooks = {
    probe: async () => ({ digest }),
    execute: async () => ({ receipt: { id: "20260812120000-abcdefg" } }),
    readback: async () => ({ outcome: "applied" as const, digest }),
  };
  const direct: number[] = [];
  const guarded: number[] = [];
  const scopes: number[] = [];
  for (let i = 0; i < pairs; i++) {
    t += 1;
    const args = { id: "20260812120000-abcdefg", dataType: "markdown", data: `New content ${i}` };
    const call = (extra: Record<string, unknown>) => ({
      tool: "block",
      action: "update",
      policy: mutationPolicy("state"),
      args: { ...args, ...extra },
      targetIds: ["20260812120000-abcdefg"],
    });
    // Baseline: the same hooks a preflight+commit pair calls, without the coordinator.
    const d0 = performance.now();
    await hooks.probe();
    const b = await hooks.probe();
    const e = await hooks.execute();
    await hooks.readback();
    direct.push((performance.now() - d0) * 1000 + (b && e ? 0 : 1));
    // The hashing part of the pair: the two lease scopes (argument digest + scope key each).
    const s0 = performance.now();
    leaseScope(call({ validateOnly: true }));
    leaseScope(call({ requestId: "b72f", expectedStateHash: "8ac2" }));
    scopes.push((performance.now() - s0) * 1000);
    const g0 = performance.now();
    const pre = (await coordinator.preflight(
      call({ validateOnly: true }),
      hooks.probe,
    )) as StrictPreflightAnswer;
    await coordinator.commit(
      call({ requestId: pre.requestId, expectedStateHash: pre.expectedStateHash }),
      hooks,
    );
    guarded.push((performance.now() - g0) * 1000);
  }
  const warm = Math.floor(pairs / 10);
  const d = direct.slice(warm).sort((x, y) => x - y);
  const g = guarded.slice(warm).sort((x, y) => x - y);
  const s = scopes.slice(warm).sort((x, y) => x - y);
  return {
    pairs: pairs - warm,
    warm,
    scopeP50: percentile(s, 0.5),
    directP50: percentile(d, 0.5),
    directP99: percentile(d, 0.99),
    p50: percentile(g, 0.5),
    p99: percentile(g, 0.99),
    health: coordinator.health(),
  };
}

async function reservations(count: number) {
  const store = new MemoryReservationStore();
  const registry = await RequestIdRegistry.open({ store, random: seededRandomSource(2) });
  const lengths = new Map<number, number>();
  let textBytes = 0;
  const t0 = performance.now();
  for (let i = 0; i < count; i++) {
    const id = await registry.issue();
    lengths.set(id.length, (lengths.get(id.length) ?? 0) + 1);
    textBytes += id.length + 1;
  }
  const issueMs = performance.now() - t0;
  const l0 = performance.now();
  const reopened = await RequestIdRegistry.open({
    store: store.reopen(),
    random: seededRandomSource(3),
  });
  const loadMs = performance.now() - l0;
  if (reopened.size !== count) throw new Error(`reload lost IDs: ${reopened.size}`);
  return {
    count,
    bytesPerId: store.byteLength / count,
    textBytesPerId: textBytes / count,
    nsPerIssue: (issueMs * 1e6) / count,
    loadMs,
    lengths: [...lengths].sort((a, b) => a[0] - b[0]),
  };
}

const c = await coordinatorOverhead(20_000);
console.log("## Coordinator overhead (in-memory stores, constant probe)");
console.log(`pairs measured: ${c.pairs} (after ${c.warm} warm-up pairs)\n`);
console.log("| measure | p50 µs | p99 µs |");
console.log("| --- | ---: | ---: |");
console.log(`| hooks called directly (baseline) | ${fmt(c.directP50)} | ${fmt(c.directP99)} |`);
console.log(`| preflight + commit through the coordinator | ${fmt(c.p50)} | ${fmt(c.p99)} |`);
console.log(`| coordinator overhead per pair (p50 difference) | ${fmt(c.p50 - c.directP50)} | |`);
console.log(`| of which: two leaseScope computations (hashing args) | ${fmt(c.scopeP50)} | |`);
console.log(`\nledger entries after run: ${c.health.ledgerEntries}, leases: ${c.health.leases}`);

const r = await reservations(1_000_000);
console.log("\n## Reservations at 1,000,000 issued IDs\n");
console.log("| measure | value |");
console.log("| --- | ---: |");
console.log(`| bytes per ID, packed encoding | ${r.bytesPerId.toFixed(2)} |`);
console.log(`| bytes per ID, newline text (same IDs) | ${r.textBytesPerId.toFixed(2)} |`);
console.log(`| packed / text size ratio | ${(r.bytesPerId / r.textBytesPerId).toFixed(2)} |`);
console.log(
  `| ns per issue (incl. durable append to the in-memory store) | ${r.nsPerIssue.toFixed(0)} |`,
);
console.log(`| restart load of 1,000,000 IDs, ms | ${r.loadMs.toFixed(0)} |`);
console.log(`\nID lengths (digits: count): ${r.lengths.map(([l, n]) => `${l}: ${n}`).join(", ")}`);
