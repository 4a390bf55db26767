/**
 * Writes docs/performance.md, the one place performance figures are published (issue 19).
 *   pnpm bench    (root: `report.ts --bench` runs every package's `bench` through turbo, one at a
 *                 time, echoing their output, then writes the report with each package's output;
 *                 further arguments go to turbo, e.g. from the root
 *                 `pnpm exec tsx --conditions=source packages/mcp-tools/bench/report.ts --bench
 *                 --filter=@sisyphus/core-hash`; a package left out keeps the section and
 *                 goal rows the report showed, marked with the date they were measured)
 *   pnpm --filter @sisyphus/mcp-tools exec tsx --conditions=source bench/report.ts
 *                 (the deterministic tables only; the timing sections say how to run them)
 * The tables that do not depend on machine speed are generated here from the catalog; each
 * package's benchmark figures are taken as it printed them (turbo names the package on each line).
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join, relative } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import {
  BUDGETS,
  type MutationRow,
  md,
  mutationRows,
  overGoal,
  renderEndpoints,
  renderMutations,
  renderSurface,
  surfaceTable,
} from "./perf-tables.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const OUT = join(ROOT, "docs/performance.md");
/**
 * Figures measured by hand against a real SiYuan (issue 30): the kernel cannot be built in CI or by
 * `pnpm bench`, so they are recorded in this file with their date, commit and commands, and the
 * report carries them as they are.
 */
const REAL_KERNEL = join(ROOT, "docs/perf/real-siyuan-3.7.3.md");
/**
 * Figures measured by hand while deciding (what was tried, kept or dropped; docs/decisions.md
 * cites them by ID): no benchmark repeats them, so the report carries them as they are.
 */
const BY_HAND = join(ROOT, "docs/perf/by-hand.md");

interface BenchPackage {
  readonly name: string;
  readonly dir: string;
  readonly script: string;
}

/** Every workspace package with a `bench` script, in directory order (turbo runs the same set). */
export function benchPackages(root = ROOT): BenchPackage[] {
  const dir = join(root, "packages");
  return readdirSync(dir)
    .map((d) => join(dir, d))
    .filter((d) => existsSync(join(d, "package.json")))
    .flatMap((d) => {
      const pkg = JSON.parse(readFileSync(join(d, "package.json"), "utf8")) as {
        name: string;
        scripts?: Record<string, string>;
      };
      const script = pkg.scripts?.["bench"];
      return script === undefined ? [] : [{ name: pkg.name, dir: d, script }];
    });
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes are control characters
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;
/** A line of turbo's output for one package's bench task: `@scope/name:bench: text`. */
const TASK_LINE = /^(@?[\w./-]+):bench: ?(.*)$/;
/** A chart a benchmark wrote (bench/svg-chart.ts `writeChart`): shown as an image, not as text. */
const CHART_LINE = /^\s*!\[[^\]]*\]\([^)\s]+\.svg\)\s*$/;
/** A goal line a benchmark printed (root `bench/kit.ts` `goalLine`): lifted into the goals table. */
const GOAL_LINE = /^goal \| (.+?) \| (.+?) \| (.+?) \| (holds|not reached)(?: \| (.+))?$/;
/** Lines turbo and pnpm add around a task's own output. */
const NOISE = /^(cache (bypass|miss|hit)|> )/;

/** The benchmark output per package name, and whether turbo reported a failure. */
export interface BenchRun {
  readonly output: ReadonlyMap<string, readonly string[]>;
  readonly failed: boolean;
}

/** Splits turbo's combined output by package, dropping turbo's and pnpm's own lines. */
export function splitTurboOutput(lines: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const raw of lines) {
    const m = TASK_LINE.exec(raw.replace(ANSI, ""));
    if (!m) continue;
    const [, pkg, text] = m as unknown as [string, string, string];
    if (NOISE.test(text)) continue;
    out.set(pkg, [...(out.get(pkg) ?? []), text]);
  }
  return out;
}

/**
 * Runs every package's `bench` through turbo, one at a time, echoing its output as it comes;
 * `turboArgs` narrow the run (`--filter=@sisyphus/core-hash`, `--only`).
 */
async function runBenches(turboArgs: readonly string[]): Promise<BenchRun> {
  const args = ["exec", "turbo", "run", "bench", "--concurrency=1", "--continue", ...turboArgs];
  const child = spawn("pnpm", args, {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines: string[] = [];
  for await (const line of createInterface({ input: child.stdout })) {
    console.log(line);
    lines.push(line);
  }
  const code = await new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once("close", resolve);
  });
  return { output: splitTurboOutput(lines), failed: code !== 0 };
}

/**
 * What an earlier report published, for packages a filtered `pnpm bench` did not run: each
 * package's section by name, its goal rows, and the date it was generated.
 */
export interface PreviousReport {
  readonly date: string;
  readonly sections: ReadonlyMap<string, string>;
  readonly goalRows: readonly { readonly from: string; readonly row: string }[];
}

const SECTION_HEAD = /^### (@[\w-]+\/[\w-]+)$/;
/** The line a kept section starts with; a section kept again keeps the date it was measured. */
const KEPT_NOTE = /^Kept from the report of /;

/** Reads a report {@link renderReport} wrote (an empty text reads as nothing to keep). */
export function parsePreviousReport(text: string): PreviousReport {
  const date = /^- Date: (.+)$/m.exec(text)?.[1] ?? "an earlier run";
  const packages = text.indexOf("\n## Package benchmarks\n");
  const sections = new Map<string, string>();
  if (packages >= 0) {
    let name: string | undefined;
    let body: string[] = [];
    const flush = () => {
      if (name !== undefined) sections.set(name, body.join("\n").trim());
    };
    for (const line of text.slice(packages).split("\n")) {
      const head = SECTION_HEAD.exec(line);
      if (head) {
        flush();
        name = head[1];
        body = [];
      } else if (name !== undefined) body.push(line);
    }
    flush();
  }
  const goals = text.slice(text.indexOf("## Goals at a glance"), text.indexOf("\n## Tool surface"));
  const goalRows = goals
    .split("\n")
    .filter((l) => l.startsWith("| ") && !l.startsWith("| goal |") && !l.startsWith("| ---"))
    .map((row) => ({ from: (row.split(" | ").at(-1) ?? "").replace(/ \|$/, ""), row }));
  return { date, sections, goalRows };
}

/** One package's section: the command and, when the benchmarks ran, what it printed. */
function benchSection(
  p: BenchPackage,
  run: BenchRun | undefined,
  previous: PreviousReport | undefined,
): string {
  const rel = relative(ROOT, p.dir);
  const readme = join(p.dir, "bench/README.md");
  const head = [
    `### ${p.name}`,
    "",
    `Command: \`pnpm --filter ${p.name} bench\` (\`${p.script}\`).${existsSync(readme) ? ` How each figure is measured: [${rel}/bench/README.md](../${rel}/bench/README.md).` : ""}`,
    "",
  ];
  const lines = run?.output.get(p.name);
  const kept = previous?.sections.get(p.name);
  if (lines === undefined && kept !== undefined && kept.includes("```"))
    return [
      `### ${p.name}`,
      "",
      ...(KEPT_NOTE.test(kept)
        ? []
        : [
            `Kept from the report of ${previous?.date}: not run by this \`pnpm bench\` (filtered out).`,
            "",
          ]),
      kept,
    ].join("\n");
  if (lines === undefined)
    return [
      ...head,
      run === undefined
        ? "Not run for this report: run `pnpm bench` at the root on a quiet machine."
        : "Not run by this `pnpm bench` (filtered out, or turbo stopped before it).",
    ].join("\n");
  const failed = lines.some((l) => /ELIFECYCLE|ERR_PNPM/.test(l));
  const charts = lines.filter((l) => CHART_LINE.test(l));
  const shown = lines.filter((l) => !CHART_LINE.test(l) && !GOAL_LINE.test(l.trim()));
  return [
    ...head,
    ...(failed ? ["**The benchmark failed**; its output up to the failure:", ""] : []),
    "```text",
    shown.join("\n").trim(),
    "```",
    ...charts.flatMap((c) => ["", c.trim()]),
  ].join("\n");
}

/** One row of the goals table: a goal, what this run measured, its target, whether it holds. */
export interface Goal {
  readonly what: string;
  readonly measured: string;
  readonly target: string;
  readonly holds: boolean;
  /** For a goal not reached: what stands in the way, as measured (or the fact that sets it). */
  readonly gap?: string;
  /** The package whose benchmark measured it. */
  readonly from: string;
}

/** The goals the report's own tables check (token budgets, kernel calls per mutation). */
function tableGoals(rows: readonly MutationRow[]): Goal[] {
  const s = surfaceTable();
  const avg = s.totalTokens / s.totalActions;
  const over = rows.filter((r) => overGoal(r) !== null);
  const from = "@sisyphus/mcp-tools";
  return [
    {
      what: "`tools/list` tokens per action",
      measured: avg.toFixed(1),
      target: `≤ ${BUDGETS.tokensPerAction}`,
      holds: avg <= BUDGETS.tokensPerAction,
      from,
    },
    {
      what: "server instructions, tokens",
      measured: String(s.instructionsTokens),
      target: `< ${BUDGETS.instructionsTokens}`,
      holds: s.instructionsTokens < BUDGETS.instructionsTokens,
      from,
    },
    {
      what: "kernel calls of every state-kind mutation (preflight + commit)",
      measured:
        over.length === 0
          ? `all within (${rows.length} scenarios)`
          : `${over.length} over: ${over.map((r) => `${r.key} ${r.preflight.calls} + ${r.commit.calls}`).join(", ")}`,
      target: `≤ ${BUDGETS.statePreflightCalls} + ${BUDGETS.stateCommitCalls}`,
      holds: over.length === 0,
      ...(over.length === 0
        ? {}
        : {
            gap: "an fs path names its notebook by name: `lsNotebooks`, then `getIDsByHPath`, then `getBlockKramdown`, each needing the one before; no kernel endpoint takes a notebook name or answers content for a path",
          }),
      from,
    },
  ];
}

/** The goal lines each package's benchmark printed, in package order. */
export function benchGoals(run: BenchRun | undefined): Goal[] {
  return [...(run?.output ?? [])].flatMap(([from, lines]) =>
    lines.flatMap((l) => {
      const m = GOAL_LINE.exec(l.trim());
      if (!m) return [];
      const [, what, measured, target, status, gap] = m as unknown as string[];
      const goal: Goal = { what, measured, target, holds: status === "holds", from } as Goal;
      return [gap === undefined ? goal : { ...goal, gap }];
    }),
  );
}

function renderGoals(goals: readonly Goal[], keptRows: readonly string[]): string {
  return [
    "| goal | measured | target | status | what stands in the way | measured by |",
    "| --- | --- | --- | --- | --- | --- |",
    ...goals.map(
      (g) =>
        `| ${g.what} | ${g.measured} | ${g.target} | ${g.holds ? "holds" : "**not reached**"} | ${g.gap ?? "–"} | ${g.from} |`,
    ),
    ...keptRows,
  ].join("\n");
}

/** The earlier report's goal rows of the benchmarks a filtered run kept (not run this time). */
function keptGoalRows(run: BenchRun | undefined, previous: PreviousReport | undefined): string[] {
  if (run === undefined || previous === undefined) return [];
  const table = new Set(tableGoals([]).map((g) => `| ${g.what} |`));
  return previous.goalRows
    .filter((g) => !run.output.has(g.from) && previous.sections.has(g.from))
    .filter((g) => ![...table].some((what) => g.row.startsWith(what)))
    .map((g) => g.row);
}

function worst(rows: readonly MutationRow[], pick: (r: MutationRow) => number): string {
  const max = Math.max(...rows.map(pick));
  const keys = [...new Set(rows.filter((r) => pick(r) === max).map((r) => r.key))];
  return `${max} (${keys.join(", ")})`;
}

function summary(rows: readonly MutationRow[]): string {
  const over = rows.filter((r) => overGoal(r) !== null);
  return [
    `- Worst preflight: ${worst(rows, (r) => r.preflight.calls)} kernel calls; worst commit: ${worst(rows, (r) => r.commit.calls)} kernel calls, ${worst(rows, (r) => r.commit.roundTrips)} sequential round trips.`,
    `- State-kind mutations over the goal (≤ ${BUDGETS.statePreflightCalls} calls in the preflight, ≤ ${BUDGETS.stateCommitCalls} in the commit): ${
      over.length === 0
        ? "none"
        : over.map((r) => `${md(r.scenario)} (${r.preflight.calls} + ${r.commit.calls})`).join("; ")
    }.`,
  ].join("\n");
}

/**
 * The whole report as Markdown: the tables from `rows`, and the benchmarks' output when they ran.
 * With `previous` (the report as it stood), a package a filtered run left out keeps its section
 * and goal rows, marked with the date they were measured.
 */
export function renderReport(
  rows: readonly MutationRow[],
  run?: BenchRun,
  previous?: PreviousReport,
): string {
  const cpu = cpus();
  return [
    "# Performance",
    "",
    "Generated by `pnpm bench` at the repository root (every package's benchmarks one at a time, then",
    "[`packages/mcp-tools/bench/report.ts`](../packages/mcp-tools/bench/report.ts)). Do not edit by hand.",
    "",
    `- Date: ${new Date().toISOString()}`,
    `- CPU: ${cpu[0]?.model ?? "unknown"} × ${cpu.length}; load average at generation ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" / ")}`,
    `- Node ${process.version} (${process.platform} ${process.arch})`,
    "",
    "Counts (the token and kernel-call sections) do not depend on machine speed; timing figures do,",
    "so read ratios measured in one run rather than milliseconds.",
    "",
    "## Goals at a glance",
    "",
    "Each goal of the performance work (issue 19) beside what this run measured and, for a goal not",
    "reached, what stands in the way (figures from this run); the sections below give the full figures",
    "and commands, and [decisions.md](decisions.md) says what was tried. Timing goals appear only when",
    "the benchmarks ran.",
    "",
    renderGoals([...tableGoals(rows), ...benchGoals(run)], keptGoalRows(run, previous)),
    "",
    "## Tool surface: `tools/list` tokens",
    "",
    "o200k_base tokens of each tool's `tools/list` entry (name, description, inputSchema, annotations)",
    "with every action enabled and strict mode on.",
    "",
    renderSurface(surfaceTable()),
    "",
    "## Kernel calls per strict mutation",
    "",
    "Every scenario of the fault matrix's registry ([`test/support/fault-scenarios.ts`](../packages/mcp-tools/test/support/fault-scenarios.ts)),",
    "run clean in a fresh sandbox kernel: kernel API calls in the sandbox's request log during the",
    "preflight and during the commit (readback included), the commit's write calls, and sequential",
    "round trips (the longest chain of requests each sent after the previous one's answer arrived, from",
    "when the client had each request in flight). Precondition is the kind the preflight answered;",
    `the goal applies to state-kind mutations. No settings reads: the tools run with fixed permissions.`,
    "",
    summary(rows),
    "",
    renderMutations(rows),
    "",
    "<details><summary>Endpoints per scenario, in the order the kernel logged them</summary>",
    "",
    renderEndpoints(rows),
    "",
    "</details>",
    "",
    ...(existsSync(REAL_KERNEL)
      ? [
          "## Real SiYuan 3.7.3",
          "",
          `Measured by hand against a real kernel, not by this run: [\`${relative(join(ROOT, "docs"), REAL_KERNEL)}\`](${relative(join(ROOT, "docs"), REAL_KERNEL)}), as recorded there.`,
          "",
          readFileSync(REAL_KERNEL, "utf8")
            .replace(/^# .*\n+/, "")
            .trim(),
          "",
        ]
      : []),
    ...(existsSync(BY_HAND)
      ? [
          "## Measured by hand while deciding",
          "",
          `Not by this run: [\`${relative(join(ROOT, "docs"), BY_HAND)}\`](${relative(join(ROOT, "docs"), BY_HAND)}), as recorded there.`,
          "",
          readFileSync(BY_HAND, "utf8")
            .replace(/^# .*\n+/, "")
            .trim(),
          "",
        ]
      : []),
    "## Package benchmarks",
    "",
    "Each package's benchmark output as it printed it (timing figures, taken on the machine above).",
    "",
    benchPackages()
      .map((p) => benchSection(p, run, previous))
      .join("\n\n"),
    "",
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const run = args.includes("--bench")
    ? await runBenches(args.filter((a) => a !== "--bench"))
    : undefined;
  // A filtered run (`--filter=…`) keeps what the report showed for the packages it left out.
  const previous =
    run !== undefined && existsSync(OUT)
      ? parsePreviousReport(readFileSync(OUT, "utf8"))
      : undefined;
  writeFileSync(OUT, renderReport(await mutationRows(), run, previous));
  console.log(`wrote ${relative(ROOT, OUT)}`);
  if (run?.failed) {
    console.error("a benchmark failed: see its section in the report");
    process.exitCode = 1;
  }
}
