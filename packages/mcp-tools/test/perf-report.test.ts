/**
 * The performance report's deterministic tables come from the catalog (issue 19): one token row per
 * tool whose action counts add up to the catalog's, and a kernel-call row for every strict mutation,
 * measured from the fault matrix's scenarios in sandbox kernels.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { goalLine } from "../../../bench/kit.js";
import {
  type MutationRow,
  mutationRows,
  renderMutations,
  roundTrips,
  surfaceTable,
  unmeasuredMutations,
} from "../bench/perf-tables.js";
import {
  benchGoals,
  benchPackages,
  parsePreviousReport,
  renderReport,
  splitTurboOutput,
} from "../bench/report.js";
import { ACTIONS, TOOL_NAMES } from "../src/index.js";
import { catalogMutations } from "./support/fault-matrix.js";

describe("per-tool token table", () => {
  it("has one row per tool and the catalog's action count", () => {
    const s = surfaceTable();
    expect(s.rows.map((r) => r.tool)).toEqual([...TOOL_NAMES]);
    for (const r of s.rows)
      expect(r.actions, r.tool).toBe(ACTIONS.filter((a) => a.tool === r.tool).length);
    expect(s.totalActions).toBe(ACTIONS.length);
    expect(s.totalTokens).toBe(s.rows.reduce((n, r) => n + r.tokens, 0));
    // The App client sees every tool (those with a strict write linking the App) and the entry point.
    expect(s.appTokens).toBeGreaterThan(s.totalTokens + s.appEntryTokens);
    expect(s.appLinkedTools).toEqual([
      ...new Set(ACTIONS.filter((a) => a.policy.kind === "mutation").map((a) => a.tool)),
    ]);
  });
});

describe("sequential round trips", () => {
  it("count requests in flight together once", () => {
    // reread A ‖ B, write, flush, readback C ‖ D: four round trips.
    const calls = [
      { start: 0, end: 2 },
      { start: 0.1, end: 1.5 },
      { start: 2.1, end: 3 },
      { start: 3.2, end: 4 },
      { start: 4.1, end: 5 },
      { start: 4.2, end: 4.9 },
    ];
    expect(roundTrips(calls)).toBe(4);
    expect(roundTrips([])).toBe(0);
  });

  it("follow the longest chain when one call outlasts another's successor", () => {
    // B starts with A, C starts after A but while B is in flight, D after both.
    expect(
      roundTrips([
        { start: 0, end: 1 },
        { start: 0, end: 5 },
        { start: 2, end: 3 },
        { start: 6, end: 7 },
      ]),
    ).toBe(3);
  });
});

describe("kernel calls per strict mutation", () => {
  let rows: MutationRow[];
  beforeAll(async () => {
    rows = await mutationRows();
  }, 120_000);

  it("every strict mutation of the catalog has a committed row", () => {
    expect(unmeasuredMutations()).toEqual([]);
    const keys = new Set(rows.map((r) => r.key));
    for (const key of catalogMutations()) expect(keys.has(key), key).toBe(true);
    for (const r of rows) {
      expect(r.result, r.scenario).toBe("committed");
      expect(r.commit.writes, r.scenario).toBeGreaterThan(0);
      expect(r.commit.roundTrips, r.scenario).toBeLessThanOrEqual(r.commit.calls);
    }
  });

  it("counts a strict block.update as reread, write, flush, readback", () => {
    const r = rows.find((x) => x.scenario === "block.update single block with a user attribute");
    expect(r?.kind).toBe("state");
    expect(r?.preflight).toMatchObject({ calls: 2, writes: 0, roundTrips: 1 });
    expect(r?.commit).toMatchObject({ calls: 6, writes: 1, roundTrips: 4 });
  });

  it("renders a table row for every strict mutation and every package bench", () => {
    const table = renderMutations(rows);
    for (const key of catalogMutations()) expect(table).toContain(`| ${key} |`);
    const report = renderReport(rows);
    expect(report).toContain(`| **all** | ${ACTIONS.length} |`);
    for (const p of benchPackages()) expect(report).toContain(`### ${p.name}`);
    expect(benchPackages().map((p) => p.name)).toContain("@sisyphus/mcp-tools");
  });
});

describe("turbo output", () => {
  it("is split by package without turbo's and pnpm's own lines", () => {
    const out = splitTurboOutput([
      "   • Running bench in 2 packages",
      "@sisyphus/a:bench: cache bypass, force executing 0ca9",
      "@sisyphus/a:bench: ",
      "@sisyphus/a:bench: > @sisyphus/a@0.1.0 bench /work/main/packages/a",
      "@sisyphus/a:bench: > tsx bench/run.ts",
      "@sisyphus/a:bench: | x | 1 |",
      "\u001b[36m@sisyphus/b:bench: \u001b[0mratio 1.2",
    ]);
    expect(Object.fromEntries(out)).toEqual({
      "@sisyphus/a": ["", "| x | 1 |"],
      "@sisyphus/b": ["ratio 1.2"],
    });
  });

  it("lifts the goal lines benchmarks print into the goals table, out of their text block", () => {
    const output = new Map([
      [
        "@sisyphus/core-hash",
        ["ratio 0.5", goalLine("`stateHash` vs floor", "0.49×", "≤ 1.1×", true), "done"],
      ],
      [
        "@sisyphus/node-server",
        [
          `  ${goalLine("cold start vs bare", "3.05×", "≤ 2×", false, "the SDK's own server 2.9×")}`,
        ],
      ],
    ]);
    const run = { output, failed: false };
    expect(benchGoals(run)).toEqual([
      {
        what: "`stateHash` vs floor",
        measured: "0.49×",
        target: "≤ 1.1×",
        holds: true,
        from: "@sisyphus/core-hash",
      },
      {
        what: "cold start vs bare",
        measured: "3.05×",
        target: "≤ 2×",
        holds: false,
        gap: "the SDK's own server 2.9×",
        from: "@sisyphus/node-server",
      },
    ]);
    const report = renderReport([], run);
    const goals = report.slice(report.indexOf("## Goals at a glance"), report.indexOf("## Tool"));
    expect(goals).toContain(
      "| `stateHash` vs floor | 0.49× | ≤ 1.1× | holds | – | @sisyphus/core-hash |",
    );
    expect(goals).toContain(
      "| cold start vs bare | 3.05× | ≤ 2× | **not reached** | the SDK's own server 2.9× | @sisyphus/node-server |",
    );
    expect(goals).toMatch(/\| `tools\/list` tokens per action \| [\d.]+ \| ≤ 45 \| holds \|/);
    const section = report.slice(report.indexOf("### @sisyphus/core-hash"));
    expect(section).toContain("```text\nratio 0.5\ndone\n```");
  });

  it("refuses a goal cell that holds the separator the report splits on", () => {
    expect(() => goalLine("a | b", "1", "2", false)).toThrow(/" \| "/);
    expect(() => goalLine("a", "1", "2", false, "x | y")).toThrow(/" \| "/);
    expect(goalLine("a", "1", "2", false, "x, y")).toBe("goal | a | 1 | 2 | not reached | x, y");
  });

  it("shows a chart a benchmark printed as an image after its text block", () => {
    const output = new Map([
      ["@sisyphus/mcp-tools", ["ratio 1.2", "![Latency](perf/latency.svg)", "done"]],
    ]);
    const report = renderReport([], { output, failed: false });
    const section = report.slice(report.indexOf("### @sisyphus/mcp-tools"));
    expect(section).toContain("```text\nratio 1.2\ndone\n```\n\n![Latency](perf/latency.svg)");
  });

  it("keeps what an earlier report showed for the packages a filtered run left out, marked with its date", () => {
    const first = renderReport([], {
      output: new Map([
        ["@sisyphus/core-hash", ["hash 0.5", goalLine("hash vs floor", "0.5×", "≤ 1×", true)]],
        ["@sisyphus/cli", ["cli 7×", goalLine("cli vs node", "7×", "≤ 2.5×", false, "imports")]],
      ]),
      failed: false,
    });
    const previous = parsePreviousReport(first);
    expect(previous.sections.get("@sisyphus/cli")).toContain("cli 7×");
    const second = renderReport(
      [],
      { output: new Map([["@sisyphus/cli", ["cli 2×"]]]), failed: false },
      previous,
    );
    const hash = second.slice(second.indexOf("### @sisyphus/core-hash"));
    expect(hash).toMatch(/^### @sisyphus\/core-hash\n\nKept from the report of \d{4}-.*: not run/);
    expect(hash).toContain("```text\nhash 0.5\n```");
    const cli = second.slice(
      second.indexOf("### @sisyphus/cli"),
      second.indexOf("### @sisyphus/core"),
    );
    expect(cli).toContain("cli 2×");
    expect(cli).not.toContain("cli 7×");
    const goals = second.slice(second.indexOf("## Goals at a glance"), second.indexOf("## Tool"));
    expect(goals).toContain("| hash vs floor | 0.5× | ≤ 1× | holds | – | @sisyphus/core-hash |");
    expect(goals).not.toContain("cli vs node");
    expect(goals.match(/`tools\/list` tokens per action/g)).toHaveLength(1);
    // Kept twice over, a section keeps the date it was measured and gathers no second note.
    const third = renderReport(
      [],
      { output: new Map(), failed: false },
      { ...parsePreviousReport(second), date: "a later day" },
    );
    expect(third.match(/Kept from the report of \d{4}-/g)).toHaveLength(1);
    expect(third.match(/Kept from the report of a later day/g)).toHaveLength(1);
    expect(third).toContain("cli 2×");
  });
});
