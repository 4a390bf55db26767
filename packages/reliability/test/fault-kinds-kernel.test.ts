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
import { KERNEL_KINDS, type KernelKind, runKernelCell } from "./support/kernel-kinds.js";
import {
  applicableOf,
  cellsOf,
  cleanCommits,
  describeCells,
  representatives,
  runCells,
  silentScenarios,
  summaryLines,
  uncoveredMutations,
} from "./support/matrix-cells.js";

const LONG = process.env["RELIABILITY_LONG"] === "1";
/** The first scenario of each strict mutation. */
const REPRESENTATIVES = representatives();

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
const CLEAN = await cleanCommits(REPRESENTATIVES, CONCURRENCY);
const CELLS = cellsOf(REPRESENTATIVES, CLEAN, kindsOf);
const RESULTS = await runCells(CELLS, CONCURRENCY, (c) =>
  runKernelCell(c.scenario, c.clean, c.kind),
);
const seconds = (Date.now() - started) / 1000;

afterAll(() => {
  console.log(
    [
      `fault kinds through the kernel plugin: ${RESULTS.length} cells (${REPRESENTATIVES.length} strict mutations, ${LONG ? "every kind" : "one kind each, in rotation"}) in ${seconds.toFixed(1)} s`,
      ...summaryLines(RESULTS, KERNEL_KINDS),
    ].join("\n"),
  );
});

describe("fault kinds through the kernel plugin: generation", () => {
  it("covers every strict mutation, each under at least one kind", () => {
    expect(uncoveredMutations(REPRESENTATIVES)).toEqual([]);
    for (const s of REPRESENTATIVES)
      expect(RESULTS.filter((r) => r.scenario === s.name).length, s.name).toBeGreaterThanOrEqual(1);
  });

  it("every clean commit made a kernel write", () => {
    expect(silentScenarios(REPRESENTATIVES, CLEAN)).toEqual([]);
  });

  it("runs every kind on some mutations (a kind that never applies proves nothing)", () => {
    for (const kind of KERNEL_KINDS) {
      const run = applicableOf(RESULTS, kind).length;
      expect(run, kind).toBeGreaterThanOrEqual(LONG ? Math.ceil(REPRESENTATIVES.length / 2) : 1);
    }
  });
});

describeCells("%s", KERNEL_KINDS, RESULTS);
