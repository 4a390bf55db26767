/**
 * node-server durable-store benchmark (issue 19, "Durable stores"): the cost of an `executing` +
 * `committed` pair with fdatasync, sequential and with 1/4/16 concurrent writers (group commit),
 * beside the same pairs without a sync (the floor); ledger and reservation bytes per strict write
 * and per million; and, on a 7-day ledger at 100 writes a minute (1,008,000 committed records,
 * generated straight into the real on-disk format, not through the write path): cold open of
 * both stores and of the ledger above them, the first lookup of a record after it, and compaction, checking that compaction keeps every
 * live record and leaves every reservation in place.
 * Run: pnpm --filter @sisyphus/node-server bench (or `tsx --conditions=source bench/stores.ts`).
 * `--quick` uses 100,000 records instead of a week's; `--legacy` also opens them written in the
 * previous line format (no header: every record parsed at open), for comparison.
 */
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { crc32 } from "node:zlib";
import { RequestIdIssuer, type StateDigest } from "@sisyphus/core-hash";
import { Ledger, type LedgerEntry, RequestIdRegistry } from "@sisyphus/write-safety";
import type { SyncFn } from "../src/stores/append-log.js";
import { FileLedgerStore, FileReservationStore, putLine } from "../src/stores/file-stores.js";

const QUICK = process.argv.includes("--quick");
/** Also open the same records written in line format 1 (parsed in full at open). */
const LEGACY = process.argv.includes("--legacy");
/** Records looked up after the cold open. */
const LOOKUPS = 1000;
/** A week at 100 strict writes a minute. */
const WEEK_RECORDS = QUICK ? 100_000 : 100 * 60 * 24 * 7;
const PAIRS = 480;
const WRITERS = [1, 4, 16] as const;
const DAY_MS = 86_400_000;

const root = mkdtempSync(join(tmpdir(), "sisyphus-bench-stores-"));
const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const mib = (bytes: number) => `${fmt(bytes / 2 ** 20, 1)} MiB`;

/** A deterministic PRNG (xorshift32), as a core-hash RandomSource. */
function seeded(seed: number) {
  let x = seed >>> 0 || 1;
  return {
    nextInt(max: number): number {
      x ^= x << 13;
      x >>>= 0;
      x ^= x >>> 17;
      x ^= x << 5;
      x >>>= 0;
      return x % max;
    },
  };
}

const digest = (i: number, salt: string): StateDigest =>
  `sha256:v1:${(salt + i.toString(16)).padStart(64, "0").slice(-64)}`;

/** A ledger record shaped as the coordinator writes one for a strict `block.update`. */
function record(
  requestId: string,
  i: number,
  now: number,
  state: "issued" | "executing" | "committed",
) {
  const entry: LedgerEntry = {
    requestId,
    tool: "block",
    action: "update",
    scopeKey: digest(i, "5c09e"),
    argsDigest: digest(i, "a7g5"),
    targetIds: ["20260101120102-pgoals1"],
    precondition: "state",
    state,
    epoch: "mj3k2x1c-4f9a0b1c2d3e",
    issuedAt: now,
    requestIdExpiresAt: now + 600_000,
    updatedAt: now,
  };
  if (state === "issued") return entry;
  entry.executingAt = now;
  entry.beforeDigest = digest(i, "bef");
  if (state === "executing") return entry;
  entry.result = {
    status: "committed",
    previousDigest: digest(i, "bef"),
    resultDigest: digest(i, "aft"),
    toolReceipt: { targetCount: 1 },
  };
  entry.verdict = "committed";
  entry.resultDigest = digest(i, "aft");
  return entry;
}

const realSync: SyncFn = (h) => h.datasync();
const noSync: SyncFn = async () => undefined;

/** `pairs` executing+committed pairs by `writers` concurrent writers; per-pair wall time and syncs. */
async function pairCost(writers: number, pairs: number, sync: SyncFn) {
  const dir = mkdtempSync(join(root, "pairs-"));
  const store = await FileLedgerStore.open<LedgerEntry>(join(dir, "ledger.wal"), { sync });
  const issuer = new RequestIdIssuer({ random: seeded(writers * 7 + 1), reservations: new Set() });
  const now = Date.now();
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (next < pairs) {
        const i = next++;
        const id = issuer.issue();
        await store.put(record(id, i, now, "executing"));
        await store.put(record(id, i, now, "committed"));
      }
    }),
  );
  const ms = performance.now() - start;
  const syncs = store.syncCount;
  await store.close();
  return {
    perPairUs: (ms * 1000) / pairs,
    pairsPerS: (pairs * 1000) / ms,
    syncsPerPair: syncs / pairs,
  };
}

/** Writes `count` lines, `line(i)` each (without its newline), to `file` through a stream. */
async function writeFileLines(file: string, count: number, line: (i: number) => string) {
  const out = createWriteStream(file, { mode: 0o600 });
  const CHUNK = 2048;
  for (let i = 0; i < count; i += CHUNK) {
    let text = "";
    for (let j = i; j < Math.min(count, i + CHUNK); j++) text += `${line(j)}\n`;
    if (!out.write(text)) await new Promise<void>((r) => out.once("drain", () => r()));
  }
  await new Promise<void>((resolve, reject) =>
    out.end((e?: Error | null) => (e ? reject(e) : resolve())),
  );
}

/** A put line of the previous format (1): no header, so open parses every record. */
const putLineV1 = (entry: LedgerEntry) => {
  const json = `{"op":"put","entry":${JSON.stringify(entry)}}`;
  return `${crc32(json).toString(16).padStart(8, "0")} ${json}`;
};

/** Wall and CPU time of `f` (CPU time is steadier on a shared machine). */
async function timed<T>(f: () => Promise<T>): Promise<{ value: T; ms: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const t = performance.now();
  const value = await f();
  const used = process.cpuUsage(cpu);
  return { value, ms: performance.now() - t, cpuMs: (used.user + used.system) / 1000 };
}

const both = (r: { ms: number; cpuMs: number }) => `${fmt(r.ms)} ms (CPU ${fmt(r.cpuMs)} ms)`;

/** Heap in use and resident set size, after a GC when exposed (`--expose-gc`). */
const memory = () => {
  globalThis.gc?.();
  const { heapUsed, rss } = process.memoryUsage();
  return { heap: heapUsed, rss };
};

async function main() {
  console.log(
    `CPU: ${cpus()[0]?.model ?? "unknown"} (${cpus().length} cores), Node ${process.version}`,
  );
  console.log(`Files in ${tmpdir()} (fdatasync per group; the figures depend on the disk)`);

  // 1. executing + committed pairs.
  const floor = await pairCost(1, PAIRS, noSync);
  const seq = await pairCost(1, PAIRS, realSync);
  console.log(
    `executing+committed pair, sequential, fdatasync: ${fmt(seq.perPairUs)} µs/pair (${fmt(seq.syncsPerPair, 2)} fsyncs/pair); without sync: ${fmt(floor.perPairUs)} µs/pair; fsync share ${fmt(100 * (1 - floor.perPairUs / seq.perPairUs))} %`,
  );
  const base = seq.pairsPerS;
  for (const w of WRITERS) {
    const r = w === 1 ? seq : await pairCost(w, PAIRS, realSync);
    console.log(
      `  ${String(w).padStart(2)} concurrent writers: ${fmt(r.pairsPerS)} pairs/s (${fmt(r.pairsPerS / base, 2)}× one writer), ${fmt(r.syncsPerPair, 2)} fsyncs/pair (group commit)`,
    );
  }

  // 2. Bytes per strict write: preflight `issued`, commit `executing` + `committed`, one reservation.
  const ids: string[] = [];
  const reserved = new Set<string>();
  const issuer = new RequestIdIssuer({ random: seeded(42), reservations: reserved });
  for (let i = 0; i < WEEK_RECORDS; i++) ids.push(issuer.issue());
  const now = Date.now();
  const lineBytes = (e: LedgerEntry) => Buffer.byteLength(putLine(e)) + 1;
  const perWrite =
    lineBytes(record(ids[0]!, 0, now, "issued")) +
    lineBytes(record(ids[0]!, 0, now, "executing")) +
    lineBytes(record(ids[0]!, 0, now, "committed"));
  const live = lineBytes(record(ids[0]!, 0, now, "committed"));
  const reservationBytes = ids.reduce((n, id) => n + id.length + 1, 0);
  const digitsAt = (n: number) => ids[n - 1]!.length;
  console.log(
    `ledger bytes per strict write: ${fmt(perWrite)} B appended (issued ${lineBytes(record(ids[0]!, 0, now, "issued"))} + executing ${lineBytes(record(ids[0]!, 0, now, "executing"))} + committed ${live}); ${fmt(live)} B kept after compaction`,
  );
  console.log(
    `  per million writes: ${mib(perWrite * 1e6)} appended, ${mib(live * 1e6)} live (compaction runs once the log is ≥ 1 MiB and more than half dead)`,
  );
  console.log(
    `reservation bytes: ${fmt(reservationBytes / ids.length, 2)} B per ID over ${fmt(ids.length)} IDs (${mib((reservationBytes / ids.length) * 1e6)} per million; IDs have ${digitsAt(1000)} digits at the 1,000th, ${digitsAt(ids.length)} at the last)`,
  );

  // 3. A week's ledger and reservations, generated in the real format.
  const dir = mkdtempSync(join(root, "week-"));
  const ledgerFile = join(dir, "ledger.wal");
  const reservationFile = join(dir, "reservations.wal");
  const t = performance.now();
  const start = now - 6 * DAY_MS; // all within retention: every record is live
  const step = (6 * DAY_MS) / WEEK_RECORDS;
  await writeFileLines(ledgerFile, WEEK_RECORDS, (i) =>
    putLine(record(ids[i]!, i, Math.floor(start + i * step), "committed")),
  );
  await writeFileLines(reservationFile, WEEK_RECORDS, (i) => ids[i]!);
  const genMs = performance.now() - t;
  const ledgerSize = statSync(ledgerFile).size;
  console.log(
    `7-day ledger at 100 writes/min: ${fmt(WEEK_RECORDS)} committed records, ${mib(ledgerSize)} (+ reservations ${mib(statSync(reservationFile).size)}), generated in ${fmt(genMs / 1000, 1)} s`,
  );

  const { heap: heap0, rss: rss0 } = memory();
  const ledgerStore = await timed(() => FileLedgerStore.open<LedgerEntry>(ledgerFile));
  const reservationStore = await timed(() => FileReservationStore.open(reservationFile));
  const ledger = await timed(() =>
    Ledger.open({ store: ledgerStore.value, clock: { now: () => Date.now() } }),
  );
  const registry = await timed(() =>
    RequestIdRegistry.open({ store: reservationStore.value, random: seeded(7) }),
  );
  const { heap: heap1, rss: rss1 } = memory();
  const total = [ledgerStore, reservationStore, ledger, registry].reduce((n, r) => n + r.ms, 0);
  console.log(
    `cold open: ledger file ${both(ledgerStore)} + Ledger over it ${both(ledger)}; reservation file ${both(reservationStore)} + registry ${both(registry)}; total ${fmt(total / 1000, 1)} s, heap +${mib(heap1 - heap0)}, RSS +${mib(rss1 - rss0)} (${ledger.value.size === WEEK_RECORDS ? "all" : "NOT all"} ${fmt(ledger.value.size)} records live, ${fmt(registry.value.size)} IDs reserved)`,
  );
  // Lookups after open read one record each from the file; check they read the right ones.
  const picks = Array.from({ length: LOOKUPS }, (_, k) => Math.floor((k * WEEK_RECORDS) / LOOKUPS));
  const lookups = await timed(async () => picks.map((i) => ledger.value.get(ids[i]!)));
  const exact = picks.every(
    (i, k) =>
      JSON.stringify(lookups.value[k]) ===
      JSON.stringify(record(ids[i]!, i, Math.floor(start + i * step), "committed")),
  );
  console.log(
    `  first lookup of a record after open (read from the file): ${fmt((lookups.cpuMs * 1000) / LOOKUPS, 1)} µs CPU each over ${fmt(LOOKUPS)}; ${exact ? "every" : "NOT every"} record read back exactly`,
  );
  if (!exact) process.exitCode = 1;

  // Compaction at a week's records (every record live: the rewrite is the whole cost).
  const compaction = await timed(() => ledgerStore.value.compact());
  await ledgerStore.value.close();
  await reservationStore.value.close();
  // Every live record kept: one line each, byte for byte as before.
  const compacted = readFileSync(ledgerFile);
  let kept = 0;
  for (let at = compacted.indexOf(10); at !== -1; at = compacted.indexOf(10, at + 1)) kept++;
  if (compacted.length !== ledgerSize) kept = -1;
  const stillReserved = new Set(readFileSync(reservationFile, "latin1").split("\n"));
  const allReserved = ids.every((id) => stillReserved.has(id));
  console.log(
    `compaction of ${fmt(WEEK_RECORDS)} live records (${mib(ledgerSize)}): ${both(compaction)}; kept ${kept === WEEK_RECORDS ? "all" : "ONLY"} ${fmt(kept)} records, ${allReserved ? "every" : "NOT every"} reservation still in place`,
  );
  if (kept !== WEEK_RECORDS || !allReserved) process.exitCode = 1;

  if (LEGACY) {
    // The same records in line format 1 (before the header): open parses every record.
    const legacyFile = join(dir, "ledger-v1.wal");
    await writeFileLines(legacyFile, WEEK_RECORDS, (i) =>
      putLineV1(record(ids[i]!, i, Math.floor(start + i * step), "committed")),
    );
    const before = memory();
    const store = await timed(() => FileLedgerStore.open<LedgerEntry>(legacyFile));
    const over = await timed(() =>
      Ledger.open({ store: store.value, clock: { now: () => Date.now() } }),
    );
    const after = memory();
    console.log(
      `cold open of the same records in line format 1 (${mib(statSync(legacyFile).size)}): ledger file ${both(store)} + Ledger over it ${both(over)}; heap +${mib(after.heap - before.heap)}, RSS +${mib(after.rss - before.rss)} (${fmt(over.value.size)} records live)`,
    );
    await store.value.close();
  }
}

try {
  await main();
} finally {
  rmSync(root, { recursive: true, force: true });
}
