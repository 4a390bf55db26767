/**
 * The fault kinds the tools-level matrix lacks (issue 18), one representative cell per
 * (strict-mutation scenario, kind). Each cell runs in a fresh kernel: setup → preflight → the kind's
 * fault around the commit → live state → replay. It answers what happened (the answers, the number
 * of applications the sandbox log proves) and the promises it broke (empty: none).
 *
 * "Applications" per write endpoint = the applied entries in the sandbox log divided by that
 * endpoint's writes in the clean commit (rounded up), maximised over endpoints: 0 or 1, never 2.
 */

import type { TransportRequest } from "@sisyphus/siyuan-api";
import type { RequestLogEntry } from "@sisyphus/siyuan-sandbox";
import { policyOf } from "../../../mcp-tools/src/catalog.js";
import { findAction, type ToolResult } from "../../../mcp-tools/src/index.js";
import {
  type Attempt,
  describeAnswer,
  type Fixture,
  isWriteEndpoint,
  judge,
  type Run,
  type Scenario,
} from "../../../mcp-tools/test/support/fault-matrix.js";
import { type FrontFactory, type KindsEnv, startKindsEnv } from "./matrix-env.js";

/** The fault kinds of this matrix. */
export const KINDS = [
  "corruptedWrite",
  "editBeforeCommit",
  "editRacingApply",
  "kernelRestart",
  "ledgerFailsBefore",
  "ledgerFailsAfter",
  "duplicateConcurrent",
  "twoAgents",
] as const;
export type Kind = (typeof KINDS)[number];

/** A clean run's commit: its writes per endpoint and the request bodies, in order. */
export interface CleanCommit {
  readonly writesPerPath: ReadonlyMap<string, number>;
  readonly writes: readonly { endpoint: string; body: string; occurrence: number }[];
}

/** One cell's outcome. */
export interface CellResult {
  readonly scenario: string;
  /** A {@link Kind}, or a kind another runtime's matrix adds (see `runCell`'s `runs`). */
  readonly kind: string;
  readonly precondition: string;
  /** False when the kind cannot apply to this scenario (then `note` says why). */
  readonly applicable: boolean;
  readonly note?: string;
  readonly expected: string;
  readonly answers: readonly string[];
  readonly applications: number;
  readonly violations: readonly string[];
}

export const errorOf = (r: ToolResult | undefined) =>
  (r?.structuredContent["error"] ?? {}) as Record<string, unknown>;
export const codeOf = (r: ToolResult | undefined) =>
  r?.isError ? String(errorOf(r)["code"]) : String(r?.structuredContent["status"]);
export const isSuccess = (r: ToolResult | undefined) =>
  r !== undefined && !r.isError && ["committed", "no_change"].includes(codeOf(r));

/** True when the sandbox applied this logged write (code 0, not dropped, not a 5xx). */
function applied(e: RequestLogEntry): boolean {
  if (!e.path.startsWith("/api/") || !isWriteEndpoint(e.path)) return false;
  if (e.faults.includes("http5xx") || e.faults.includes("silentDrop")) return false;
  if (e.faults.includes("resetAfterApply")) return true;
  return e.status === 200 && e.code === 0;
}

/** Applications of the commit's writes proven by `log` (see the file comment). */
export function applications(log: readonly RequestLogEntry[], clean: CleanCommit): number {
  const per = new Map<string, number>();
  for (const e of log) if (applied(e)) per.set(e.path, (per.get(e.path) ?? 0) + 1);
  let max = 0;
  for (const [path, n] of per)
    max = Math.max(max, Math.ceil(n / (clean.writesPerPath.get(path) ?? 1)));
  return max;
}

/** The clean commit's writes, from a clean run. */
export function cleanCommitOf(run: Run): CleanCommit {
  const writes = (run.commit?.sent ?? [])
    .filter((s) => isWriteEndpoint(s.endpoint))
    .map((s) => ({ endpoint: s.endpoint, body: s.body, occurrence: s.occurrence }));
  const writesPerPath = new Map<string, number>();
  for (const w of writes) writesPerPath.set(w.endpoint, (writesPerPath.get(w.endpoint) ?? 0) + 1);
  return { writes, writesPerPath };
}

/** Keys whose string values are written content (names, bodies, cell texts), at any depth. */
const CONTENT_KEYS = new Set(["data", "markdown", "md", "title", "name", "keyName", "content"]);

/** `attrs`: every string is an attribute value; `conf`: every number is a setting. */
type Within = "attrs" | "conf" | null;

function corruptValue(key: string, v: unknown, within: Within): unknown {
  if (typeof v === "string")
    return within === "attrs" || CONTENT_KEYS.has(key) ? `${v}§corrupted§` : v;
  if (typeof v === "number") return within === "conf" ? v + 1 : v;
  if (Array.isArray(v)) return v.map((x) => corruptValue(key, x, within));
  if (v && typeof v === "object") {
    const inner = key === "attrs" || key === "conf" ? key : within;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, corruptValue(k, x, inner)]));
  }
  return v;
}

/**
 * The matrix's corruption, a superset of the sandbox's default one: written content at any depth
 * (block bodies, titles, names, database cells and column names), attribute values, and the numbers
 * of a configuration. IDs and paths stay intact, so the kernel still applies the write — wrongly.
 */
export function corruptDeep(body: Record<string, unknown>): Record<string, unknown> {
  return corruptValue("", body, null) as Record<string, unknown>;
}

/** A write body altered by {@link corruptDeep}; null for a binary body. */
function altered(body: string): string | null {
  if (body === "[bytes]") return null;
  return JSON.stringify(corruptDeep(JSON.parse(body) as Record<string, unknown>));
}

/** True when the corruption transform changes this write body. */
function alters(body: string): boolean {
  const a = altered(body);
  return a !== null && a !== JSON.stringify(JSON.parse(body));
}

// ---------------------------------------------------------------- one prepared scenario

export interface Prepared {
  readonly env: KindsEnv;
  readonly fx: Fixture;
  readonly tool: string;
  readonly confirmed: boolean;
  readonly precondition: string;
  /** Preflights once more and returns the commit arguments (a new request ID). */
  readonly preflight: () => Promise<Record<string, unknown> | ToolResult>;
}

async function prepare(
  scenario: Scenario,
  persisted: boolean,
  options: CellOptions,
): Promise<Prepared> {
  const [tool, action] = scenario.key.split(".") as [string, string];
  const surface = findAction(tool, action);
  if (!surface) throw new Error(`${scenario.key} is not in the catalog`);
  const env = await (options.env?.(persisted) ?? startKindsEnv(persisted, options.front));
  try {
    const fx = await scenario.setup(env);
    const policy = policyOf(surface, fx.args);
    const confirmed = surface.dangerous !== false;
    const preflight = async () => {
      const pre = await env.call(tool, { ...fx.args, validateOnly: true }, confirmed);
      if (pre.isError) return pre;
      const s = pre.structuredContent;
      const args: Record<string, unknown> = { ...fx.args, requestId: s["requestId"] };
      const field = s["preconditionField"];
      if (typeof field === "string") args[field] = s[field];
      return args;
    };
    const precondition = policy.kind === "mutation" ? policy.precondition : policy.kind;
    return { env, fx, tool, confirmed, precondition, preflight };
  } catch (e) {
    await env.stop();
    throw e;
  }
}

/** Starts a phase: fresh request logs and transport records. */
export function begin(env: KindsEnv): void {
  env.sandbox.control.resetLog();
  env.logBeforeRestart.length = 0;
  env.transport.begin();
  env.hooks.begin();
}

/** Ends a phase: its log, after the kernel applied its queue; the live state. */
export async function end(p: Prepared, answer: ToolResult): Promise<Attempt> {
  const log = [...p.env.logBeforeRestart, ...p.env.sandbox.control.log()].filter(
    (e) => !p.env.externalSeqs.has(e.seq),
  );
  const sent = [...p.env.transport.sent()];
  await p.env.sandbox.control.flush();
  return { answer, log, sent, shows: await p.fx.shows() };
}

export async function attempt(p: Prepared, args: Record<string, unknown>, arm?: () => void) {
  begin(p.env);
  arm?.();
  return end(p, await p.env.call(p.tool, args, p.confirmed));
}

// ---------------------------------------------------------------- the kinds

export type Outcome = Omit<CellResult, "scenario" | "kind" | "precondition">;
export type KindRun = (
  p: Prepared,
  clean: CleanCommit,
  args: Record<string, unknown>,
) => Promise<Outcome>;

export const notApplicable = (note: string): Outcome => ({
  applicable: false,
  note,
  expected: "n/a",
  answers: [],
  applications: 0,
  violations: [],
});

const additive = (p: Prepared) => p.precondition === "none";

/** Answers meaning "what the request creates already exists": honest for a second creator. */
const TAKEN = ["already_exists", "no_change"];

/** Commit then replay; the replay's log counts towards the applications. */
export async function commitAndReplay(
  p: Prepared,
  args: Record<string, unknown>,
  arm?: () => void,
) {
  const commit = await attempt(p, args, arm);
  const replay = await attempt(p, args);
  return { commit, replay, run: { preflight: commit.answer, commit, replay, injected: true } };
}

export function expectError(
  out: string[],
  label: string,
  r: ToolResult,
  codes: readonly string[],
  writeAttempted: boolean,
): void {
  const e = errorOf(r);
  if (!r.isError || !codes.includes(String(e["code"])) || e["writeAttempted"] !== writeAttempted)
    out.push(
      `${label} answered ${describeAnswer(r)}; expected ${codes.join("/")} writeAttempted=${writeAttempted}`,
    );
}

const corruptedWrite: KindRun = async (p, clean, args) => {
  const target = clean.writes.find((w) => alters(w.body));
  if (!target) return notApplicable("no write carries content the corruption can alter");
  let faultId = "";
  const { commit, replay, run } = await commitAndReplay(p, args, () => {
    faultId = p.env.sandbox.control.armFault({
      endpoint: target.endpoint,
      kind: "corrupt",
      skip: target.occurrence,
      corrupt: corruptDeep,
    });
  });
  const fired = p.env.sandbox.control.faults().find((f) => f.id === faultId)?.fired ?? 0;
  const violations = judge(run);
  if (fired === 0) violations.push(`the corruption of ${target.endpoint} never fired`);
  // A later step of the same commit may rewrite what the corrupted one wrote: a success is then
  // honest exactly when the live state shows the request, which the judge checks.
  if (commit.answer.isError)
    expectError(
      violations,
      "the commit",
      commit.answer,
      ["readback_mismatch", "outcome_unknown"],
      true,
    );
  return {
    applicable: true,
    expected: `${target.endpoint}[${target.occurrence}] corrupted: readback_mismatch/outcome_unknown, never a committed answer the live state contradicts`,
    answers: [describeAnswer(commit.answer), describeAnswer(replay.answer)],
    applications: applications([...commit.log, ...replay.log], clean),
    violations,
  };
};

const editBeforeCommit: KindRun = async (p, clean, args) => {
  const first = clean.writes[0];
  const body = first ? altered(first.body) : null;
  if (!first || body === null) return notApplicable("the first write is not a JSON request");
  const code = await p.env.external(first.endpoint, body);
  if (code !== 0) return notApplicable(`the outside edit (${first.endpoint}) was refused: ${code}`);
  const commit = await attempt(p, args);
  const apps = applications(commit.log, clean);
  const violations: string[] = [];
  const taken = TAKEN.includes(codeOf(commit.answer));
  if (additive(p)) {
    // The outside edit may have made the very thing the request creates (same path, same day).
    if (codeOf(commit.answer) !== "committed" && !taken)
      violations.push(
        `an additive commit answered ${describeAnswer(commit.answer)} after an outside edit`,
      );
    if (apps !== (taken ? 0 : 1))
      violations.push(`${apps} applications, expected ${taken ? 0 : 1}`);
  } else {
    // An outside delete leaves nothing to compare: not_found is the honest refusal then.
    expectError(violations, "the commit", commit.answer, ["state_changed", "not_found"], false);
    if (apps !== 0) violations.push(`${apps} applications after a refusal`);
  }
  return {
    applicable: true,
    expected: additive(p)
      ? "committed (additive) with 1 application, or already_exists/no_change with 0 when the edit made it"
      : "state_changed (not_found when the edit removed the target), 0 applications",
    answers: [describeAnswer(commit.answer)],
    applications: apps,
    violations,
  };
};

const editRacingApply: KindRun = async (p, clean, args) => {
  const first = clean.writes[0];
  if (!first || !alters(first.body))
    return notApplicable("the first write carries no content an outside edit could overwrite");
  let code: number | undefined;
  const { commit, replay, run } = await commitAndReplay(p, args, () => {
    // Once the kernel answered the write (its apply is queued), an outside edit of the same
    // target lands before the tool reads back.
    p.env.hooks.hook = {
      write: 0,
      when: "after",
      run: async (req: TransportRequest) => {
        const text = req.body.kind === "json" ? req.body.text : "[bytes]";
        code = await p.env.external(req.endpoint, altered(text) ?? text);
      },
    };
  });
  if (code !== 0) return notApplicable(`the racing edit was refused: ${String(code)}`);
  // An additive target's outside edit adds a sibling: the exact live-state check cannot hold, but a
  // success must still have applied once.
  const violations = judge(run).filter(
    (v) => !(additive(p) && v.includes("the live state does not show")),
  );
  if (additive(p) && isSuccess(commit.answer) && applications(commit.log, clean) !== 1)
    violations.push("an additive success that did not apply once");
  const apps = applications([...commit.log, ...replay.log], clean);
  return {
    applicable: true,
    expected: "no committed answer the final state contradicts; ≤1 application",
    answers: [describeAnswer(commit.answer), describeAnswer(replay.answer)],
    applications: apps,
    violations,
  };
};

const kernelRestart: KindRun = async (p, clean, args) => {
  let restarted = false;
  const { commit, replay, run } = await commitAndReplay(p, args, () => {
    p.env.hooks.hook = {
      write: 0,
      when: "after",
      run: async () => {
        await p.env.restart();
        restarted = true;
      },
    };
  });
  const violations = judge(run);
  if (!restarted) violations.push("the restart never happened");
  const settled = isSuccess(replay.answer) || codeOf(replay.answer) === "outcome_unknown";
  if (!settled) violations.push(`the replay answered ${describeAnswer(replay.answer)}`);
  return {
    applicable: true,
    expected: "honest commit; replay committed (state shows it) or outcome_unknown; ≤1 application",
    answers: [describeAnswer(commit.answer), describeAnswer(replay.answer)],
    applications: applications([...commit.log, ...replay.log], clean),
    violations,
  };
};

const ledgerFailsBefore: KindRun = async (p, clean, args) => {
  p.env.ledger.failNext("executing");
  const { commit, replay, run } = await commitAndReplay(p, args);
  const violations: string[] = [];
  if (p.env.ledger.failed !== "executing") violations.push("no executing record was written");
  expectError(violations, "the commit", commit.answer, ["write_coordinator_unavailable"], false);
  const commitApps = applications(commit.log, clean);
  if (commitApps !== 0) violations.push(`${commitApps} applications before the ledger recorded`);
  violations.push(...judge(run));
  return {
    applicable: true,
    expected: "write_coordinator_unavailable writeAttempted=false, 0 applications; replay ≤1",
    answers: [describeAnswer(commit.answer), describeAnswer(replay.answer)],
    applications: applications([...commit.log, ...replay.log], clean),
    violations,
  };
};

const ledgerFailsAfter: KindRun = async (p, clean, args) => {
  p.env.ledger.failNext("committed");
  const { commit, replay, run } = await commitAndReplay(p, args);
  const violations = judge(run);
  if (p.env.ledger.failed !== "committed") violations.push("no committed record was written");
  expectError(violations, "the commit", commit.answer, ["outcome_unknown"], true);
  const apps = applications([...commit.log, ...replay.log], clean);
  if (apps !== 1) violations.push(`${apps} applications, expected 1`);
  return {
    applicable: true,
    expected: "outcome_unknown writeAttempted=true (never failed), 1 application; replay honest",
    answers: [describeAnswer(commit.answer), describeAnswer(replay.answer)],
    applications: apps,
    violations,
  };
};

/** Two commits at once in one phase: both answers and the shared log. */
async function both(p: Prepared, a: Record<string, unknown>, b: Record<string, unknown>) {
  begin(p.env);
  const answers = await Promise.all([
    p.env.call(p.tool, a, p.confirmed),
    p.env.call(p.tool, b, p.confirmed),
  ]);
  const log = [...p.env.sandbox.control.log()];
  await p.env.sandbox.control.flush();
  return { answers, log, shows: await p.fx.shows() };
}

const duplicateConcurrent: KindRun = async (p, clean, args) => {
  const { answers, log, shows } = await both(p, args, args);
  const violations: string[] = [];
  const apps = applications(log, clean);
  if (apps !== 1) violations.push(`${apps} applications, expected exactly 1`);
  const committed = answers.filter((r) => codeOf(r) === "committed");
  const replayed = committed.filter((r) => r.structuredContent["replayed"] === true);
  const refusedInFlight = answers.filter((r) => codeOf(r) === "outcome_unknown");
  if (committed.length === 0) violations.push("neither commit answered committed");
  if (committed.length === 2 && replayed.length !== 1)
    violations.push(`two committed answers, ${replayed.length} replayed`);
  if (committed.length === 1 && refusedInFlight.length !== 1)
    violations.push(`the other answer is ${describeAnswer(answers.find((r) => !isSuccess(r)))}`);
  if (committed.length > 0 && shows !== undefined)
    violations.push(`committed, but the live state does not show it (${shows})`);
  return {
    applicable: true,
    expected: "1 application: committed + replayed, or committed + outcome_unknown (in flight)",
    answers: answers.map(describeAnswer),
    applications: apps,
    violations,
  };
};

const twoAgents: KindRun = async (p, clean, args) => {
  const other = await p.preflight();
  if (!("action" in other))
    return notApplicable(`second preflight: ${describeAnswer(other as ToolResult)}`);
  const { answers, log, shows } = await both(p, args, other);
  const violations: string[] = [];
  const apps = applications(log, clean);
  const committed = answers.filter((r) => codeOf(r) === "committed").length;
  const taken = answers.filter((r) => TAKEN.includes(codeOf(r))).length;
  if (additive(p)) {
    // Two requests with the same writes: 2 applications here are one each; a creation the first
    // made leaves the second already_exists/no_change.
    if (committed + taken !== 2 || committed === 0)
      violations.push(`${committed} committed and ${taken} already made, of 2 additive commits`);
    if (apps !== committed) violations.push(`${apps} applications for ${committed} commits`);
  } else {
    // Same arguments share one lease: the loser finds it consumed (preflight_lease_invalid) or
    // the state changed (state_changed); either way nothing is written.
    const refused = answers.filter(
      (r) =>
        ["state_changed", "preflight_lease_invalid"].includes(codeOf(r)) &&
        errorOf(r)["writeAttempted"] === false,
    ).length;
    if (committed !== 1 || refused !== 1)
      violations.push(`${committed} committed and ${refused} refused, expected 1 and 1`);
    if (apps !== 1) violations.push(`${apps} applications, expected 1`);
    if (committed === 1 && shows !== undefined)
      violations.push(`committed, but the live state does not show it (${shows})`);
  }
  return {
    applicable: true,
    expected: additive(p)
      ? "both commit (additive), each applied once; or committed + already_exists/no_change"
      : "one committed + one state_changed/preflight_lease_invalid, 1 application",
    answers: answers.map(describeAnswer),
    applications: additive(p) && committed > 0 ? Math.ceil(apps / committed) : apps,
    violations,
  };
};

const RUNS: Record<Kind, KindRun> = {
  corruptedWrite,
  editBeforeCommit,
  editRacingApply,
  kernelRestart,
  ledgerFailsBefore,
  ledgerFailsAfter,
  duplicateConcurrent,
  twoAgents,
};

/** Where a cell runs when not through the in-process tools, and the kinds that runtime adds. */
export interface CellOptions {
  readonly front?: FrontFactory;
  /** Starts the cell's environment instead of startKindsEnv (the kernel plugin's: kernel-env.ts). */
  readonly env?: (persisted: boolean) => Promise<KindsEnv>;
  readonly runs?: Readonly<Record<string, KindRun>>;
}

/** Runs one cell in a fresh kernel. */
export async function runCell(
  scenario: Scenario,
  clean: CleanCommit,
  kind: string,
  options: CellOptions = {},
): Promise<CellResult> {
  const run = options.runs?.[kind] ?? RUNS[kind as Kind];
  const p = await prepare(scenario, kind === "kernelRestart", options);
  try {
    const args = await p.preflight();
    const base = { scenario: scenario.name, kind, precondition: p.precondition };
    if (!("action" in args)) {
      const answer = describeAnswer(args as ToolResult);
      return {
        ...base,
        ...notApplicable(""),
        applicable: true,
        answers: [answer],
        violations: [`preflight answered ${answer}`],
      };
    }
    return { ...base, ...(await run(p, clean, args)) };
  } finally {
    await p.env.stop();
  }
}
