/**
 * The fault kinds through the kernel plugin: the kinds of support/matrix-kinds.ts run unchanged on
 * the plugin's environment (support/kernel-env.ts), plus the one only a plugin has — a reload
 * between preflight and commit.
 */
import type { ToolResult } from "../../../mcp-tools/src/index.js";
import { describeAnswer, type Scenario } from "../../../mcp-tools/test/support/fault-matrix.js";
import { startKernelEnv } from "./kernel-env.js";
import {
  applications,
  type CellResult,
  type CleanCommit,
  codeOf,
  commitAndReplay,
  expectError,
  KINDS,
  type KindRun,
  runCell,
} from "./matrix-kinds.js";

/** The kinds run through the plugin: every tools-level kind, and a plugin reload. */
export const KERNEL_KINDS = [...KINDS, "pluginReload"] as const;
export type KernelKind = (typeof KERNEL_KINDS)[number];

/**
 * A reload between preflight and commit: the lease and the runtime's memory are gone, so the commit
 * is refused (`preflight_lease_invalid`, the ID belongs to the previous runtime) with nothing
 * written, and the replay too; a fresh preflight then commits, applied once.
 */
const pluginReload: KindRun = async (p, clean, args) => {
  const reload = p.env.reload;
  if (reload === undefined) throw new Error("pluginReload needs the kernel plugin's environment");
  await reload();
  const { commit, replay } = await commitAndReplay(p, args);
  const violations: string[] = [];
  expectError(violations, "the commit", commit.answer, ["preflight_lease_invalid"], false);
  expectError(violations, "the replay", replay.answer, ["preflight_lease_invalid"], false);
  const stale = applications([...commit.log, ...replay.log], clean);
  if (stale !== 0) violations.push(`${stale} applications of a request ID from before the reload`);
  const fresh = await p.preflight();
  let freshAnswer = "no fresh preflight";
  let freshApps = 0;
  if ("action" in fresh) {
    const again = await commitAndReplay(p, fresh);
    freshAnswer = describeAnswer(again.commit.answer);
    freshApps = applications([...again.commit.log, ...again.replay.log], clean);
    if (codeOf(again.commit.answer) !== "committed" || freshApps !== 1)
      violations.push(
        `after the reload, a fresh commit: ${freshAnswer}, ${freshApps} applications`,
      );
  } else
    violations.push(
      `after the reload, the preflight answered ${describeAnswer(fresh as ToolResult)}`,
    );
  return {
    applicable: true,
    expected:
      "stale commit and replay preflight_lease_invalid writeAttempted=false, 0 applications; a fresh preflight commits once",
    answers: [describeAnswer(commit.answer), describeAnswer(replay.answer), freshAnswer],
    applications: stale,
    violations,
  };
};

/** The kinds only the plugin's matrix adds. */
export const KERNEL_RUNS: Readonly<Record<string, KindRun>> = { pluginReload };

/** One cell through the plugin, in a fresh sandbox kernel with the plugin. */
export function runKernelCell(
  scenario: Scenario,
  clean: CleanCommit,
  kind: KernelKind,
): Promise<CellResult> {
  return runCell(scenario, clean, kind, { env: startKernelEnv, runs: KERNEL_RUNS });
}
