/**
 * Running and reporting a fault-kind matrix (issue 18), shared by the runtimes that run its cells:
 * in process (fault-kinds.test.ts), through the kernel plugin (fault-kinds-kernel.test.ts) and
 * through a delegating stdio front (delegation-stdio.test.ts). The cells themselves are
 * matrix-kinds.ts's.
 */
import { describe, expect, it } from "vitest";
import {
  catalogMutations,
  pool,
  runScenario,
  type Scenario,
} from "../../../mcp-tools/test/support/fault-matrix.js";
import { SCENARIOS } from "../../../mcp-tools/test/support/fault-scenarios.js";
import { type CellResult, type CleanCommit, cleanCommitOf } from "./matrix-kinds.js";

/**
 * The first scenario of each of `keys` (default: every strict mutation), so a new action is covered
 * as soon as it has a scenario; a key without one is left out.
 */
export function representatives(keys: readonly string[] = catalogMutations()): Scenario[] {
  return keys.flatMap((key) => {
    const s = SCENARIOS.find((x) => x.key === key);
    return s ? [s] : [];
  });
}

/** The strict mutations none of `scenarios` exercises (an action without a scenario yet). */
export function uncoveredMutations(scenarios: readonly Scenario[]): string[] {
  const covered = new Set(scenarios.map((s) => s.key));
  return catalogMutations().filter((k) => !covered.has(k));
}

/**
 * Each scenario's clean commit, from the tools in process: every runtime runs the same tools, so the
 * same kernel writes, and a plain sandbox costs milliseconds.
 */
export function cleanCommits(
  scenarios: readonly Scenario[],
  concurrency: number,
): Promise<CleanCommit[]> {
  return pool(scenarios, concurrency, async (s) => cleanCommitOf(await runScenario(s)));
}

/** One cell to run: a scenario, its clean commit and a kind. */
export interface Cell<K extends string = string> {
  readonly scenario: Scenario;
  readonly clean: CleanCommit;
  readonly kind: K;
}

/** The cells of scenario `i` under each of `kindsOf(i)`, scenario by scenario. */
export function cellsOf<K extends string>(
  scenarios: readonly Scenario[],
  clean: readonly CleanCommit[],
  kindsOf: (i: number) => readonly K[],
): Cell<K>[] {
  return scenarios.flatMap((scenario, i) =>
    kindsOf(i).map((kind) => ({ scenario, clean: clean[i] as CleanCommit, kind })),
  );
}

/** Runs the cells `concurrency` at a time; a cell that throws is a result breaking "no throw". */
export function runCells<K extends string>(
  cells: readonly Cell<K>[],
  concurrency: number,
  run: (c: Cell<K>) => Promise<CellResult>,
): Promise<CellResult[]> {
  return pool(cells, concurrency, (c) =>
    run(c).catch(
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
}

/**
 * The summary after the title: per kind the cells run, not applicable and failing and the
 * applications; the answers per kind, most frequent first; every cell with RELIABILITY_VERBOSE=1;
 * the failing and the not applicable cells.
 */
export function summaryLines(results: readonly CellResult[], kinds: readonly string[]): string[] {
  const lines = ["kind                  run  n/a  failing  applications 0/1/2+"];
  for (const kind of kinds) {
    const of = results.filter((r) => r.kind === kind);
    const run = of.filter((r) => r.applicable);
    const apps = [0, 1].map((n) => run.filter((r) => r.applications === n).length);
    lines.push(
      `${kind.padEnd(21)} ${String(run.length).padStart(4)} ${String(of.length - run.length).padStart(4)} ${String(
        run.filter((r) => r.violations.length > 0).length,
      ).padStart(8)}  ${apps.join("/")}/${run.filter((r) => r.applications > 1).length}`,
    );
  }
  lines.push("answers (commit ; replay or second commit), per kind:");
  for (const kind of kinds) {
    const tally = new Map<string, number>();
    for (const r of results.filter((x) => x.kind === kind && x.applicable)) {
      const a = r.answers.join(" ; ");
      tally.set(a, (tally.get(a) ?? 0) + 1);
    }
    for (const [a, n] of [...tally].sort((x, y) => y[1] - x[1]))
      lines.push(`  ${kind.padEnd(21)} ${String(n).padStart(3)}  ${a}`);
  }
  if (process.env["RELIABILITY_VERBOSE"] === "1")
    for (const r of results)
      lines.push(`  cell ${r.kind} | ${r.scenario} | ${r.answers.join(" ; ") || r.note}`);
  const failing = results.filter((r) => r.applicable && r.violations.length > 0);
  if (failing.length > 0)
    lines.push(
      `${failing.length} cells breaking a promise:`,
      ...failing.map(
        (r) =>
          `  ${r.kind} | ${r.scenario} | expected ${r.expected} | ${r.answers.join(" ; ")} | ${r.violations.join("; ").slice(0, 300)}`,
      ),
    );
  const na = results.filter((r) => !r.applicable);
  if (na.length > 0)
    lines.push("not applicable:", ...na.map((r) => `  ${r.kind} | ${r.scenario} | ${r.note}`));
  return lines;
}

/** The applicable cells of `kind`. */
export const applicableOf = (results: readonly CellResult[], kind: string) =>
  results.filter((r) => r.kind === kind && r.applicable);

/** The scenarios whose clean commit made no kernel write (their cells prove nothing), by name. */
export const silentScenarios = (scenarios: readonly Scenario[], clean: readonly CleanCommit[]) =>
  scenarios.filter((_, i) => (clean[i]?.writes.length ?? 0) === 0).map((s) => s.name);

/**
 * One suite per kind (named by `title`, `%s` the kind), one test per applicable cell: at most one
 * application and no broken promise.
 */
export function describeCells(
  title: string,
  kinds: readonly string[],
  results: readonly CellResult[],
): void {
  describe.each(kinds.map((k) => [k] as const))(title, (kind) => {
    it.each(applicableOf(results, kind).map((r) => [r.scenario, r] as const))("%s", (_name, r) => {
      const context = `expected: ${r.expected}; answers: ${r.answers.join(" | ")}`;
      expect(r.applications, context).toBeLessThanOrEqual(1);
      expect(r.violations, context).toEqual([]);
    });
  });
}
