/**
 * The fault kinds through the kernel plugin (issue 18, the spec's primary authority): the kinds of
 * fault-kinds.test.ts — a corrupted write, an outside edit before the commit and one racing the
 * kernel's asynchronous apply, a kernel restart requested mid-commit, the ledger store failing before
 * and after execution, the same commit twice at once, two agents on one preflighted state — plus a
 * plugin reload between preflight and commit, each run through the built plugin in the sandbox's
 * plugin host with the official MCP client over loopback HTTP.
 *
 * Generated from the same scenario registry (mcp-tools test/support/fault-scenarios.ts), the first
 * scenario of each strict mutation; the same kinds and judge (support/matrix-kinds.ts) on the
 * plugin's environment (support/kernel-env.ts). Each cell states its expected answer and the
 * sandbox's request log proves 0 or 1 applications.
 *
 * A sandbox with the plugin costs about a second to start, so the default run puts every mutation
 * under one kind, in rotation (every kind on 3–4 mutations);
 * `RELIABILITY_LONG=1` runs the full cross (306 cells).
 *
 * Run: `pnpm exec vitest run test/fault-kinds-kernel.test.ts` in packages/reliability (needs the
 * built plugin: `pnpm --filter @sisyphus/kernel-plugin build`).
 */
import { afterAll, describe, expect, it } from "vitest";
import { catalogMutations, pool, runScenario } from "../../mcp-tools/test/support/fault-matrix.js";
import { SCENARIOS } from "../../mcp-tools/test/support/fault-scenarios.js";
import { KERNEL_KINDS, type KernelKind, runKernelCell } from "./support/kernel-kinds.js";
import { type CellResult, type CleanCommit, cleanCommitOf } from "./support/matrix-kinds.js";

const LONG = process.env["RELIABILITY_LONG"] === "1";
/** The first scenario of each strict mutation. */
const REPRESENTATIVES = catalogMutations().flatMap((key) => {
  const s = SCENARIOS.find((x) => x.key === key);
  return s ? [s] : [];
});

/**
 * The kinds mutation `i` runs under: all with RELIABILITY_LONG=1, else one, in a rotation shifted
 * by one each round so a kind meets other mutations (and other precondition kinds) every round.
 */
function kindsOf(i: number): readonly KernelKind[] {
  if (LONG) return KERNEL_KINDS;
  const n = KERNEL_KINDS.length;
  return [KERNEL_KINDS[(i + Math.floor(i / n)) % n] as KernelKind];
}

const CONCURRENCY = 3;
const started = Date.now();

// The clean commits come from the tools in process (as in fault-kinds.test.ts): the plugin runs the
// same tools, so the same kernel writes (same endpoints, same bodies in the same deterministic
// kernel); a sandbox with the plugin costs a second, a plain one a few milliseconds.
const CLEAN: readonly CleanCommit[] = await pool(REPRESENTATIVES, CONCURRENCY, async (s) =>
  cleanCommitOf(await runScenario(s)),
);
const CELLS = REPRESENTATIVES.flatMap((scenario, i) =>
  kindsOf(i).map((kind) => ({ scenario, clean: CLEAN[i] as CleanCommit, kind })),
);
const RESULTS: readonly CellResult[] = await pool(CELLS, CONCURRENCY, (c) =>
  runKernelCell(c.scenario, c.clean, c.kind).catch(
    (e: unknown): CellResult => ({
      scenario: c.scenario.name,
      kind: c.kind,
      precondition: "?",
      applicable: true,
      expected: "no throw",
      answers: [],
      applications: 0,
      violations: [`threw: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`],
    }),
  ),
);
const seconds = (Date.now() - started) / 1000;

afterAll(() => {
  const lines = [
    `fault kinds through the kernel plugin: ${RESULTS.length} cells (${REPRESENTATIVES.length} strict mutations, ${LONG ? "every kind" : "one kind each, in rotation"}) in ${seconds.toFixed(1)} s`,
    "kind                  run  n/a  failing  applications 0/1/2+",
  ];
  for (const kind of KERNEL_KINDS) {
    const of = RESULTS.filter((r) => r.kind === kind);
    const run = of.filter((r) => r.applicable);
    const apps = [0, 1].map((n) => run.filter((r) => r.applications === n).length);
    lines.push(
      `${kind.padEnd(21)} ${String(run.length).padStart(4)} ${String(of.length - run.length).padStart(4)} ${String(
        run.filter((r) => r.violations.length > 0).length,
      ).padStart(8)}  ${apps.join("/")}/${run.filter((r) => r.applications > 1).length}`,
    );
  }
  lines.push("answers, per kind:");
  for (const kind of KERNEL_KINDS) {
    const tally = new Map<string, number>();
    for (const r of RESULTS.filter((x) => x.kind === kind && x.applicable)) {
      const a = r.answers.join(" ; ");
      tally.set(a, (tally.get(a) ?? 0) + 1);
    }
    for (const [a, n] of [...tally].sort((x, y) => y[1] - x[1]))
      lines.push(`  ${kind.padEnd(21)} ${String(n).padStart(3)}  ${a}`);
  }
  if (process.env["RELIABILITY_VERBOSE"] === "1")
    for (const r of RESULTS)
      lines.push(`  cell ${r.kind} | ${r.scenario} | ${r.answers.join(" ; ") || r.note}`);
  const failing = RESULTS.filter((r) => r.applicable && r.violations.length > 0);
  if (failing.length > 0)
    lines.push(
      `${failing.length} cells breaking a promise:`,
      ...failing.map(
        (r) =>
          `  ${r.kind} | ${r.scenario} | expected ${r.expected} | ${r.answers.join(" ; ")} | ${r.violations.join("; ").slice(0, 300)}`,
      ),
    );
  const na = RESULTS.filter((r) => !r.applicable);
  if (na.length > 0)
    lines.push("not applicable:", ...na.map((r) => `  ${r.kind} | ${r.scenario} | ${r.note}`));
  console.log(lines.join("\n"));
});

describe("fault kinds through the kernel plugin: generation", () => {
  it("covers every strict mutation, each under at least one kind", () => {
    const covered = new Set(REPRESENTATIVES.map((s) => s.key));
    expect(catalogMutations().filter((k) => !covered.has(k))).toEqual([]);
    for (const s of REPRESENTATIVES)
      expect(RESULTS.filter((r) => r.scenario === s.name).length, s.name).toBeGreaterThanOrEqual(1);
  });

  it("every clean commit made a kernel write", () => {
    const silent = REPRESENTATIVES.filter((_, i) => (CLEAN[i]?.writes.length ?? 0) === 0);
    expect(silent.map((s) => s.name)).toEqual([]);
  });

  it("runs every kind on some mutations (a kind that never applies proves nothing)", () => {
    for (const kind of KERNEL_KINDS) {
      const run = RESULTS.filter((r) => r.kind === kind && r.applicable).length;
      expect(run, kind).toBeGreaterThanOrEqual(LONG ? Math.ceil(REPRESENTATIVES.length / 2) : 1);
    }
  });
});

describe.each(KERNEL_KINDS.map((k) => [k] as const))("%s", (kind: KernelKind) => {
  const cells = RESULTS.filter((r) => r.kind === kind && r.applicable);
  it.each(cells.map((r) => [r.scenario, r] as const))("%s", (_name, r) => {
    const context = `expected: ${r.expected}; answers: ${r.answers.join(" | ")}`;
    expect(r.applications, context).toBeLessThanOrEqual(1);
    expect(r.violations, context).toEqual([]);
  });
});
