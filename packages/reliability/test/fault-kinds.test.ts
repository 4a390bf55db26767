/**
 * The fault matrix, extended (issue 18): the fault kinds the tools-level matrix
 * (packages/mcp-tools/test/fault-matrix.test.ts) lacks — a corrupted write, an outside edit before
 * the commit and one racing the kernel's asynchronous apply, a kernel restart between two steps,
 * the ledger store failing before and after execution, the same commit sent twice at once, and two
 * agents committing against the same preflighted state.
 *
 * Generated from the same scenario registry (support/fault-scenarios.ts of mcp-tools), one
 * representative scenario per strict mutation (the first the registry lists), so a new action is
 * covered as soon as it has a scenario. Each cell runs in a fresh kernel, states its expected answer,
 * and the sandbox's request log proves the number of applications (0 or 1, never 2).
 *
 * Run: `pnpm exec vitest run test/fault-kinds.test.ts` in packages/reliability.
 */
import { afterAll, describe, expect, it } from "vitest";
import {
  catalogMutations,
  logEntry,
  pool,
  runScenario,
} from "../../mcp-tools/test/support/fault-matrix.js";
import { SCENARIOS } from "../../mcp-tools/test/support/fault-scenarios.js";
import {
  applications,
  type CellResult,
  type CleanCommit,
  cleanCommitOf,
  corruptDeep,
  KINDS,
  type Kind,
  runCell,
} from "./support/matrix-kinds.js";

/** The first scenario of each strict mutation. */
const REPRESENTATIVES = catalogMutations().flatMap((key) => {
  const s = SCENARIOS.find((x) => x.key === key);
  return s ? [s] : [];
});

const CONCURRENCY = 4;
const started = Date.now();

// Clean runs at collection time: each cell needs its commit's kernel writes.
const CLEAN: readonly CleanCommit[] = await pool(REPRESENTATIVES, CONCURRENCY, async (s) =>
  cleanCommitOf(await runScenario(s)),
);
const CELLS = REPRESENTATIVES.flatMap((scenario, i) =>
  KINDS.map((kind) => ({ scenario, clean: CLEAN[i] as CleanCommit, kind })),
);
const RESULTS: readonly CellResult[] = await pool(CELLS, CONCURRENCY, (c) =>
  runCell(c.scenario, c.clean, c.kind).catch(
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
    `fault kinds: ${RESULTS.length} cells (${REPRESENTATIVES.length} strict mutations × ${KINDS.length} kinds) in ${seconds.toFixed(1)} s`,
    "kind                  run  n/a  failing  applications 0/1/2+",
  ];
  for (const kind of KINDS) {
    const of = RESULTS.filter((r) => r.kind === kind);
    const run = of.filter((r) => r.applicable);
    const apps = [0, 1].map((n) => run.filter((r) => r.applications === n).length);
    lines.push(
      `${kind.padEnd(21)} ${String(run.length).padStart(4)} ${String(of.length - run.length).padStart(4)} ${String(
        run.filter((r) => r.violations.length > 0).length,
      ).padStart(8)}  ${apps.join("/")}/${run.filter((r) => r.applications > 1).length}`,
    );
  }
  lines.push("answers (commit ; replay or second commit), per kind:");
  for (const kind of KINDS) {
    const tally = new Map<string, number>();
    for (const r of RESULTS.filter((x) => x.kind === kind && x.applicable)) {
      const a = r.answers.join(" ; ");
      tally.set(a, (tally.get(a) ?? 0) + 1);
    }
    for (const [a, n] of [...tally].sort((x, y) => y[1] - x[1]))
      lines.push(`  ${kind.padEnd(21)} ${String(n).padStart(3)}  ${a}`);
  }
  // RELIABILITY_VERBOSE=1: every cell with its answers.
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

describe("fault kinds: generation", () => {
  it("covers every strict mutation with a representative scenario", () => {
    const covered = new Set(REPRESENTATIVES.map((s) => s.key));
    expect(catalogMutations().filter((k) => !covered.has(k))).toEqual([]);
  });

  it("every clean commit made a kernel write", () => {
    const silent = REPRESENTATIVES.filter((_, i) => (CLEAN[i]?.writes.length ?? 0) === 0);
    expect(silent.map((s) => s.name)).toEqual([]);
  });

  it("runs every kind on most mutations (a kind that never applies proves nothing)", () => {
    for (const kind of KINDS) {
      const run = RESULTS.filter((r) => r.kind === kind && r.applicable).length;
      expect(run, kind).toBeGreaterThanOrEqual(Math.ceil(REPRESENTATIVES.length / 2));
    }
  });
});

describe("fault kinds: the counters", () => {
  const UPDATE = "/api/block/updateBlock";
  const clean: CleanCommit = {
    writes: [{ endpoint: UPDATE, body: "{}", occurrence: 0 }],
    writesPerPath: new Map([[UPDATE, 1]]),
  };

  it("counts a write applied twice as 2, and dropped, 5xx'd or rejected ones as 0", () => {
    expect(applications([logEntry(UPDATE), logEntry(UPDATE)], clean)).toBe(2);
    expect(
      applications(
        [
          logEntry(UPDATE, { faults: ["silentDrop"] }),
          logEntry(UPDATE, { status: 500, code: null, faults: ["http5xx"] }),
          logEntry(UPDATE, { code: -1 }),
          logEntry("/api/block/getBlockKramdown"),
        ],
        clean,
      ),
    ).toBe(0);
  });

  it("corrupts written content at any depth and keeps IDs", () => {
    const body = {
      id: "20260101120000-abcdefg",
      data: "x",
      value: { text: { content: "y" } },
      attrs: { "custom-a": "z" },
      conf: { sortMode: 6 },
    };
    expect(corruptDeep(body)).toEqual({
      id: "20260101120000-abcdefg",
      data: "x§corrupted§",
      value: { text: { content: "y§corrupted§" } },
      attrs: { "custom-a": "z§corrupted§" },
      conf: { sortMode: 7 },
    });
  });
});

describe.each(KINDS.map((k) => [k] as const))("%s", (kind: Kind) => {
  const cells = RESULTS.filter((r) => r.kind === kind && r.applicable);
  it.each(cells.map((r) => [r.scenario, r] as const))("%s", (_name, r) => {
    const context = `expected: ${r.expected}; answers: ${r.answers.join(" | ")}`;
    expect(r.applications, context).toBeLessThanOrEqual(1);
    expect(r.violations, context).toEqual([]);
  });
});
