/**
 * One clean run of a fault-matrix scenario on the real kernel, then its replay: the workspace
 * emptied, the scenario's setup, the preflight, the commit (its answer and the live state read
 * back with the scenario's own `shows()`), then the same commit again, which must answer
 * `replayed: true` and write nothing (no write endpoint through the proxy where the road's kernel
 * calls pass it, and on every road no file under `data/` changed: see `fingerprint`).
 */
import type { SiyuanClient } from "@sisyphus/siyuan-api";
import { findAction, type ToolResult } from "../../mcp-tools/src/index.js";
import {
  describeAnswer,
  isWriteEndpoint,
  runScenario,
  type Scenario,
} from "../../mcp-tools/test/support/fault-matrix.js";
import type { Front } from "./fronts.js";
import { emptyWorkspace, fingerprint, fingerprintDiff, flush, type Kernel } from "./kernel.js";
import type { ProxiedCall, RecordingProxy } from "./proxy.js";
import { realEnv } from "./real-env.js";

/** One call of a scenario run as the report shows it. */
export interface CallRecord {
  readonly answer: string;
  readonly ms: number;
  /** The kernel requests of this call through the proxy (`null`: not seen on this road). */
  readonly kernelCalls: readonly string[] | null;
  readonly structured: Record<string, unknown>;
}

export interface ScenarioResult {
  readonly scenario: string;
  readonly key: string;
  readonly ok: boolean;
  readonly problems: readonly string[];
  readonly preflight?: CallRecord;
  readonly commit?: CallRecord;
  /** `ok`, or why the live state does not show the request. */
  readonly readback?: string;
  readonly replay?: CallRecord;
  /** `ok`, or what the replay did that a replay must not. */
  readonly replayVerdict?: string;
  /**
   * The commit's kernel calls beside the same scenario's clean commit in the sandbox (the fault
   * matrix's own run), where this road's calls reach the kernel straight from the tools: `same (n)`
   * or both lists. Not a verdict: a difference is a lead to a sandbox divergence.
   */
  readonly callsVsSandbox?: string;
  readonly ms: number;
}

const SUCCESS = new Set(["committed", "no_change"]);

/** The plugin's settings file: the Node roads read it before their calls. */
const SETTINGS_READ = /petal\/siyuan-plugins-mcp-sisyphus\/settings\.json/;

/** A proxied call as the report names it: the path, `(settings)` for a settings read, a status other than 200. */
function callName(c: ProxiedCall): string {
  const settings =
    c.path === "/api/file/getFile" && SETTINGS_READ.test(c.body) ? " (settings)" : "";
  return `${c.path}${settings}${c.status === 200 ? "" : ` ${c.status}`}`;
}

function kernelPaths(calls: readonly ProxiedCall[] | null): string[] | null {
  return calls === null ? null : calls.map(callName);
}

async function timed(
  proxy: RecordingProxy | null,
  tool: string,
  args: Record<string, unknown>,
  confirmed: boolean,
  env: { call: (t: string, a: Record<string, unknown>, c: boolean) => Promise<ToolResult> },
): Promise<{ record: CallRecord; result: ToolResult }> {
  proxy?.mark();
  const t0 = performance.now();
  const result = await env.call(tool, args, confirmed);
  const ms = Math.round(performance.now() - t0);
  return {
    result,
    record: {
      answer: describeAnswer(result),
      ms,
      kernelCalls: kernelPaths(proxy === null ? null : proxy.calls()),
      structured: result.structuredContent,
    },
  };
}

/** Runs one scenario clean on the real kernel, then its replay. */
export async function runRealScenario(
  k: Kernel,
  front: Front,
  verify: SiyuanClient,
  proxy: RecordingProxy | null,
  scenario: Scenario,
): Promise<ScenarioResult> {
  const started = performance.now();
  const [tool, action] = scenario.key.split(".") as [string, string];
  const surface = findAction(tool, action);
  const base = { scenario: scenario.name, key: scenario.key };
  if (surface === undefined) {
    return { ...base, ok: false, problems: [`${scenario.key} is not in the catalog`], ms: 0 };
  }
  const confirmed = surface.dangerous !== false;
  const problems: string[] = [];
  const finish = (rest: Partial<ScenarioResult>): ScenarioResult => ({
    ...base,
    ok: problems.length === 0,
    problems,
    ...rest,
    ms: Math.round(performance.now() - started),
  });

  await emptyWorkspace(k);
  const env = realEnv(k, front, verify);
  let fx: Awaited<ReturnType<Scenario["setup"]>>;
  try {
    fx = await scenario.setup(env);
  } catch (e) {
    problems.push(`setup failed: ${e instanceof Error ? e.message : String(e)}`);
    return finish({});
  }
  const pre = await timed(proxy, surface.tool, { ...fx.args, validateOnly: true }, confirmed, env);
  if (pre.result.isError) {
    problems.push(`preflight answered ${pre.record.answer}`);
    return finish({ preflight: pre.record });
  }
  const p = pre.result.structuredContent;
  const commitArgs: Record<string, unknown> = { ...fx.args, requestId: p["requestId"] };
  const field = p["preconditionField"];
  if (typeof field === "string") commitArgs[field] = p[field];

  const commit = await timed(proxy, surface.tool, commitArgs, confirmed, env);
  const status = String(commit.result.structuredContent["status"]);
  if (commit.result.isError || !SUCCESS.has(status)) {
    problems.push(`commit answered ${commit.record.answer}`);
  } else if (status === "no_change") {
    problems.push("commit answered no_change for a request that differs from the state before it");
  }
  await flush(k);
  let readback: string;
  try {
    readback = (await fx.shows()) ?? "ok";
  } catch (e) {
    readback = `readback threw: ${e instanceof Error ? e.message : String(e)}`;
  }
  if (readback !== "ok") problems.push(`live state: ${readback}`);

  const before = await fingerprint(k);
  const replay = await timed(proxy, surface.tool, commitArgs, confirmed, env);
  await flush(k);
  const after = await fingerprint(k);
  const r = replay.result.structuredContent;
  const replayProblems: string[] = [];
  if (replay.result.isError) replayProblems.push(`answered ${replay.record.answer}`);
  else {
    if (r["replayed"] !== true) replayProblems.push(`replayed=${String(r["replayed"])}`);
    if (r["executedNow"] !== false) replayProblems.push(`executedNow=${String(r["executedNow"])}`);
    if (String(r["status"]) !== status)
      replayProblems.push(`status ${String(r["status"])}, commit ${status}`);
  }
  const writes = (replay.record.kernelCalls ?? []).filter(
    (c) => c.startsWith("/api/") && isWriteEndpoint(c.split(" ")[0] as string),
  );
  if (writes.length > 0) replayProblems.push(`kernel writes: ${writes.join(", ")}`);
  const changed = fingerprintDiff(before, after);
  if (changed.length > 0) replayProblems.push(`files changed: ${changed.join(", ")}`);
  let replayShows: string;
  try {
    replayShows = (await fx.shows()) ?? "ok";
  } catch (e) {
    replayShows = `threw: ${e instanceof Error ? e.message : String(e)}`;
  }
  if (replayShows !== "ok") replayProblems.push(`live state after the replay: ${replayShows}`);
  const replayVerdict = replayProblems.length === 0 ? "ok" : replayProblems.join("; ");
  if (replayProblems.length > 0) problems.push(`replay: ${replayVerdict}`);
  const compared = await compareWithSandbox(scenario, commit.record.kernelCalls);
  return finish({
    ...(compared === undefined ? {} : { callsVsSandbox: compared }),
    preflight: pre.record,
    commit: commit.record,
    readback,
    replay: replay.record,
    replayVerdict,
  });
}

/**
 * The commit's `/api/` calls (settings reads left out) beside the sandbox's for the same scenario,
 * when the road's calls reach the kernel straight from the tools (no plugin route among them).
 */
async function compareWithSandbox(
  scenario: Scenario,
  real: readonly string[] | null,
): Promise<string | undefined> {
  if (real === null || real.some((c) => !c.startsWith("/api/"))) return undefined;
  const mine = real.filter((c) => !c.includes("(settings)"));
  // Both lists name a status other than 200 after the path (see callName).
  let theirs: string[];
  try {
    const run = await runScenario(scenario);
    theirs = (run.commit?.log ?? [])
      .filter((e) => e.path.startsWith("/api/"))
      .map((e) => `${e.path}${e.status === 200 ? "" : ` ${e.status}`}`);
  } catch (e) {
    return `sandbox run failed: ${e instanceof Error ? e.message : String(e)}`;
  }
  // Reads sent together finish in either order: the same calls in another order count as the same.
  const sorted = (l: readonly string[]) => JSON.stringify([...l].sort());
  if (sorted(mine) === sorted(theirs)) return `same (${mine.length})`;
  return `real ${mine.length}: ${mine.join(" ")} | sandbox ${theirs.length}: ${theirs.join(" ")}`;
}
