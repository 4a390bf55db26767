/**
 * core-hash benchmarks. Every published figure is a ratio of two measurements taken side by side in
 * this one process (interleaved, fastest of several rounds), or a count that does not depend on
 * machine speed. Run with `pnpm bench` in packages/core-hash (node --expose-gc for heap figures).
 *
 * Prints a Markdown table; the package README quotes it.
 */
import { createHash } from "node:crypto";
import {
  AliasPool,
  portableSha256Hex,
  RequestIdIssuer,
  type StateDigest,
  seededRandomSource,
  stateHash,
} from "@sisyphus/core-hash";
import { installNodeSha256, nodeSha256Hex } from "@sisyphus/core-hash/node";

installNodeSha256();

const gc = (globalThis as { gc?: () => void }).gc;

/**
 * Runs `a` and `b` alternately `rounds` times (after warm-up) and returns the fastest time of each,
 * in ms. The fastest round is the least disturbed by other processes on a shared machine (noise only
 * ever adds time), and interleaving exposes both sides to the same conditions.
 */
function sideBySide(rounds: number, a: () => unknown, b: () => unknown): [number, number] {
  for (let i = 0; i < 3; i++) {
    a();
    b();
  }
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < rounds; i++) {
    let t = performance.now();
    a();
    ta.push(performance.now() - t);
    t = performance.now();
    b();
    tb.push(performance.now() - t);
  }
  return [Math.min(...ta), Math.min(...tb)];
}

function heapUsed(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

const random = seededRandomSource(20240601);
/** Random lowercase hex as one flat string (not a rope of single characters). */
function randomHex(n: number): string {
  const bytes = Buffer.allocUnsafe((n + 1) >> 1);
  for (let i = 0; i < bytes.length; i++) bytes[i] = random.nextInt(256);
  return bytes.toString("hex").slice(0, n);
}
function randomText(n: number): string {
  const words = [
    "Sisyphus",
    "note",
    "block",
    "kramdown",
    "über",
    "naïve",
    "日本語",
    "😀",
    "safe",
    "write",
  ];
  let s = "";
  while (s.length < n)
    s += words[random.nextInt(words.length)]! + (random.nextInt(12) === 0 ? "\n" : " ");
  return s.slice(0, n);
}

/** A realistic ~1 MB document state: kramdown, attrs, DOM, and a few thousand child blocks. */
function makeDocumentState(): unknown {
  const children = [];
  for (let i = 0; i < 3000; i++) {
    const id = `20240601${String(100000 + i)}-${randomHex(7)}`;
    children.push({
      id,
      type: i % 7 === 0 ? "h" : "p",
      subType: i % 7 === 0 ? "h2" : "",
      content: randomText(60),
      markdown: randomText(70),
      attrs: {
        id,
        updated: "20240601120000",
        ...(i % 5 === 0 ? { "custom-tag": randomText(10) } : {}),
      },
      sort: i,
      hash: randomHex(7),
    });
  }
  const attrs: Record<string, string> = {};
  for (let i = 0; i < 24; i++) attrs[`custom-attr-${randomHex(4)}`] = randomText(30);
  return {
    id: "20240601120000-rootdoc",
    rootID: "20240601120000-rootdoc",
    box: "20240601115959-notebok",
    path: "/20240601120000-rootdoc.sy",
    kramdown: randomText(110_000),
    dom: `<div data-node-id="20240601120000-rootdoc">${randomText(100_000)}</div>`,
    attrs,
    children,
  };
}

const rows: string[][] = [];
const line = (cells: string[]) => rows.push(cells);

// 1. stateHash vs the floor (JSON.stringify + node:crypto SHA-256).
function benchStateHash(): void {
  const doc = makeDocumentState();
  const bytes = Buffer.byteLength(JSON.stringify(doc));
  const floor = () => createHash("sha256").update(JSON.stringify(doc)).digest("hex");
  const ours = () => stateHash(doc);
  const [tOurs, tFloor] = sideBySide(60, ours, floor);
  line([
    `stateHash of a ${(bytes / 1e6).toFixed(2)} MB document state (3,000 child blocks)`,
    `${tOurs.toFixed(2)} ms vs floor ${tFloor.toFixed(2)} ms`,
    `**${(tOurs / tFloor).toFixed(2)}×** the floor`,
    "≤ 2.5×",
  ]);
}

// 2. Portable SHA-256 vs node:crypto on 16 MiB.
function benchPortableSha256(): void {
  const buf = new Uint8Array(16 * 1024 * 1024);
  for (let i = 0; i < buf.length; i++) buf[i] = (i * 2654435761) >>> 24;
  if (portableSha256Hex(buf) !== nodeSha256Hex(buf)) throw new Error("digests differ");
  const [tPortable, tNode] = sideBySide(
    7,
    () => portableSha256Hex(buf),
    () => nodeSha256Hex(buf),
  );
  const mibs = (t: number) => (16 / (t / 1000)).toFixed(0);
  line([
    "portable SHA-256 throughput on 16 MiB",
    `${mibs(tPortable)} MiB/s vs node:crypto ${mibs(tNode)} MiB/s`,
    `**${(tNode / tPortable).toFixed(2)}×** node:crypto`,
    "≥ 0.2×",
  ]);
}

// 3. AliasPool at 1,000,000 entries.
function benchAliasPool(): void {
  const N = 1_000_000;
  const base0 = heapUsed();
  const digests: StateDigest[] = [];
  // Flat strings, as a pool in a long-running server ends up holding (a template literal would give
  // a rope that the first lookup flattens, muddying the heap figures).
  for (let i = 0; i < N; i++) {
    digests.push(
      Buffer.from(`sha256:v1:${randomHex(64)}`, "latin1").toString("latin1") as StateDigest,
    );
  }
  const base1 = heapUsed();
  const pool = new AliasPool();
  let t = performance.now();
  for (let i = 0; i < N; i++) pool.aliasFor(digests[i]!);
  const insertNs = ((performance.now() - t) * 1e6) / N;
  t = performance.now();
  let aliasChars = 0;
  for (let i = 0; i < N; i++) aliasChars += pool.aliasFor(digests[i]!).length;
  const repeatNs = ((performance.now() - t) * 1e6) / N;
  const aliases = digests.map((d) => pool.aliasFor(d));
  t = performance.now();
  let misses = 0;
  for (let i = 0; i < N; i++) if (pool.resolve(aliases[i]!) !== digests[i]) misses++;
  const resolveNs = ((performance.now() - t) * 1e6) / N;
  if (misses !== 0) throw new Error(`${misses} aliases did not resolve`);
  const lengths = new Map<number, number>();
  for (const a of aliases) lengths.set(a.length, (lengths.get(a.length) ?? 0) + 1);
  aliases.length = 0;
  // The pool's own memory: its map and alias strings (the caller still holds the digests).
  const poolOnly = (heapUsed() - base1) / N;
  // Drop the caller's array: the pool alone now keeps the digest strings alive.
  digests.length = 0;
  const withDigests = (heapUsed() - base0) / N;
  // Read the pool after measuring, so no engine may treat it as dead (and collect it) before.
  if (pool.size !== N || aliasChars < 4 * N) throw new Error("pool lost entries");
  line([
    "AliasPool, 1,000,000 random digests",
    `aliasFor (new) ${insertNs.toFixed(0)} ns/op; aliasFor (known) ${repeatNs.toFixed(0)} ns/op; resolve ${resolveNs.toFixed(0)} ns/op`,
    gc
      ? `${poolOnly.toFixed(0)} B/entry (${withDigests.toFixed(0)} B with the digest strings it keeps)`
      : "run with --expose-gc",
    `alias lengths: ${[...lengths]
      .sort((x, y) => x[0] - y[0])
      .map(([l, c]) => `${l}: ${c}`)
      .join(", ")}`,
  ]);
}

// 4. RequestIdIssuer at 1,000,000 entries.
function benchRequestIds(): void {
  const N = 1_000_000;
  const base = heapUsed();
  const reservations = new Set<string>();
  const issuer = new RequestIdIssuer({ random: seededRandomSource(7), reservations });
  const t = performance.now();
  let longest = 0;
  for (let i = 0; i < N; i++) longest = Math.max(longest, issuer.issue().length);
  const issueNs = ((performance.now() - t) * 1e6) / N;
  const perEntry = (heapUsed() - base) / N;
  line([
    "RequestIdIssuer, 1,000,000 issues into a Set",
    `issue ${issueNs.toFixed(0)} ns/op (seeded source)`,
    gc ? `${perEntry.toFixed(0)} B/entry` : "run with --expose-gc",
    `longest ID: ${longest} hex digits; ${reservations.size} distinct`,
  ]);
}

// Each section is a function, so nothing it allocated is still reachable when the next one starts
// measuring the heap.
benchStateHash();
benchPortableSha256();
benchAliasPool();
benchRequestIds();

console.log(`node ${process.version}, ${process.arch}`);
console.log("| measurement | times | result | target / note |");
console.log("| --- | --- | --- | --- |");
for (const r of rows) console.log(`| ${r.join(" | ")} |`);
