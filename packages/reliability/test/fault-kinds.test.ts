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
import { logEntry } from "../../mcp-tools/test/support/fault-matrix.js";
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
import {
  applications,
  type CleanCommit,
  corruptDeep,
  KINDS,
  runCell,
} from "./support/matrix-kinds.js";

/** Why a kind cannot apply to a mutation by the shape of its writes (runCell's notes). */
const BY_SHAPE: readonly string[] = [
  "the first write carries no content an outside edit could overwrite",
  "no write carries content the corruption can alter",
];

/** The first scenario of each strict mutation. */
const REPRESENTATIVES = representatives();

const CONCURRENCY = 4;
const started = Date.now();

// Clean runs at collection time: each cell needs its commit's kernel writes.
const CLEAN = await cleanCommits(REPRESENTATIVES, CONCURRENCY);
const CELLS = cellsOf(REPRESENTATIVES, CLEAN, () => KINDS);
const RESULTS = await runCells(CELLS, CONCURRENCY, (c) => runCell(c.scenario, c.clean, c.kind));
const seconds = (Date.now() - started) / 1000;

afterAll(() => {
  console.log(
    [
      `fault kinds: ${RESULTS.length} cells (${REPRESENTATIVES.length} strict mutations × ${KINDS.length} kinds) in ${seconds.toFixed(1)} s`,
      ...summaryLines(RESULTS, KINDS),
    ].join("\n"),
  );
});

describe("fault kinds: generation", () => {
  it("covers every strict mutation with a representative scenario", () => {
    expect(uncoveredMutations(REPRESENTATIVES)).toEqual([]);
  });

  it("every clean commit made a kernel write", () => {
    expect(silentScenarios(REPRESENTATIVES, CLEAN)).toEqual([]);
  });

  it("runs every kind on most mutations it fits (a kind that never applies proves nothing)", () => {
    for (const kind of KINDS) {
      const run = applicableOf(RESULTS, kind).length;
      // A mutation whose writes carry only IDs (a flashcard write, a duplicate) has no content an
      // outside edit or a corruption could overwrite: left out by its shape, not by a failing harness.
      const fits = RESULTS.filter(
        (r) => r.kind === kind && (r.applicable || !BY_SHAPE.includes(r.note ?? "")),
      ).length;
      expect(run, kind).toBeGreaterThan(0);
      expect(run, kind).toBeGreaterThanOrEqual(Math.ceil(fits / 2));
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

describeCells("%s", KINDS, RESULTS);
