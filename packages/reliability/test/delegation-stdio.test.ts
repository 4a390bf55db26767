/**
 * The fault kinds through a delegating stdio front (issue 18: "every runtime that delegates"): the
 * same cells as fault-kinds.test.ts, but each call goes from the official MCP client over stdio to
 * `sisyphus-server --stdio`, which delegates to the Node HTTP authority (both spawned from the
 * built `dist/bin.cjs`), which writes to the sandbox through a loopback proxy carrying the matrix's
 * hooks. Plus the faults only delegation has: the front killed mid-commit, the authority killed
 * while the front waits, the answer lost between them. The sandbox log proves 0 or 1 applications.
 *
 * One representative strict mutation per precondition kind (state, structure, manifest, none,
 * source); `RELIABILITY_LONG=1` runs every strict mutation (confirmed deletes among them). The ledger
 * store kinds stay at the tools level (the store is inside the spawned authority; its crash points
 * are crash-points.test.ts's).
 *
 * Run: `pnpm exec vitest run test/delegation-stdio.test.ts` in packages/reliability (node-server built).
 */
import { afterAll, describe, expect, it } from "vitest";
import { catalogMutations } from "../../mcp-tools/test/support/fault-matrix.js";
import { killAll } from "../../node-server/test/harness.js";
import { frontStations } from "./support/delegation-front.js";
import { DELEGATION_KINDS, DELEGATION_RUNS } from "./support/delegation-kinds.js";
import {
  applicableOf,
  cellsOf,
  cleanCommits,
  describeCells,
  representatives,
  runCells,
} from "./support/matrix-cells.js";
import { KINDS, runCell } from "./support/matrix-kinds.js";

const LONG = process.env["RELIABILITY_LONG"] === "1";
/** One strict mutation per precondition kind (and a confirmed, dangerous one). */
const SAMPLE = [
  "block.update", // state
  "block.move", // structure
  "tag.rename", // manifest
  "block.insert", // none
  "file.upload_asset", // source
];
const KEYS = LONG ? catalogMutations() : SAMPLE;
const REPRESENTATIVES = representatives(KEYS);
const MATRIX_KINDS = KINDS.filter((k) => !k.startsWith("ledger"));
const ALL_KINDS = [...MATRIX_KINDS, ...DELEGATION_KINDS];

const stations = frontStations();
const started = Date.now();
const CLEAN = await cleanCommits(REPRESENTATIVES, 2);
const CELLS = cellsOf(REPRESENTATIVES, CLEAN, () => ALL_KINDS);
const RESULTS = await runCells(CELLS, 3, (c) =>
  runCell(c.scenario, c.clean, c.kind, { front: stations.factory, runs: DELEGATION_RUNS }),
);
const seconds = (Date.now() - started) / 1000;

afterAll(async () => {
  await stations.close();
  await killAll();
  const lines = [
    `delegation (stdio front → Node authority): ${RESULTS.length} cells (${REPRESENTATIVES.length} strict mutations × ${ALL_KINDS.length} kinds) in ${seconds.toFixed(1)} s`,
  ];
  for (const r of RESULTS)
    lines.push(
      `  ${r.kind.padEnd(19)} ${r.scenario.padEnd(48)} apps=${r.applications} ${r.applicable ? r.answers.join(" ; ") : `n/a: ${r.note}`}${r.violations.length > 0 ? `  BROKEN: ${r.violations.join("; ").slice(0, 400)}` : ""}`,
    );
  console.log(lines.join("\n"));
});

describe("delegation through a stdio front: generation", () => {
  it("has a scenario for each sampled mutation, one per precondition kind", () => {
    expect(REPRESENTATIVES.map((s) => s.key)).toEqual(KEYS);
    const kinds = new Set(RESULTS.map((r) => r.precondition));
    for (const k of ["state", "structure", "manifest", "none", "source"])
      expect(kinds).toContain(k);
  });

  it("runs every kind on most of the sample (a kind that never applies proves nothing)", () => {
    for (const kind of ALL_KINDS) {
      const run = applicableOf(RESULTS, kind).length;
      expect(run, kind).toBeGreaterThanOrEqual(Math.ceil(REPRESENTATIVES.length / 2));
    }
  });
});

describeCells("stdio front, %s", ALL_KINDS, RESULTS);
