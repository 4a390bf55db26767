/**
 * The performance report's deterministic tables (issue 19): figures that do not depend on machine
 * speed, generated from the catalog so that a new tool or action appears without an edit here.
 * - the `tools/list` token cost per tool (o200k_base, everything enabled) and the App client's extra;
 * - the kernel calls of every strict mutation's preflight and commit, from the fault matrix's
 *   scenarios (one registry for both), counted in the sandbox's request log, with the sequential
 *   round trips derived from when the client had each request in flight.
 */
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { withApp } from "../src/app/index.js";
import {
  ACTIONS,
  describeTools,
  findAction,
  type PreconditionKind,
  preconditionFieldName,
  SERVER_INSTRUCTIONS,
} from "../src/index.js";
import {
  callsOf,
  catalogMutations,
  type Env,
  type Scenario,
  startEnv,
} from "../test/support/fault-matrix.js";
import { SCENARIOS } from "../test/support/fault-scenarios.js";

/** Budgets of issue 16 (tokens per action tightened to 45 by issue 33) and goals of issue 19. */
export const BUDGETS = {
  tokensPerAction: 45,
  instructionsTokens: 1500,
  statePreflightCalls: 2,
  stateCommitCalls: 6,
} as const;

/** o200k_base tokens of a value as it goes over the wire (JSON, or the string itself). */
export function tokens(value: unknown): number {
  return encode(typeof value === "string" ? value : JSON.stringify(value)).length;
}

// ---------------------------------------------------------------- tool surface

export interface ToolTokens {
  readonly tool: string;
  readonly actions: number;
  readonly tokens: number;
}

export interface SurfaceTable {
  readonly rows: readonly ToolTokens[];
  readonly totalActions: number;
  readonly totalTokens: number;
  readonly instructionsTokens: number;
  /** The whole `tools/list` answer's tools array for a client that declares MCP Apps. */
  readonly appTokens: number;
  /** Tools whose entry links the App's resource for such a client. */
  readonly appLinkedTools: readonly string[];
  /** Tokens of the app-only entry point (hosts keep it from the model). */
  readonly appEntryTokens: number;
  /** `tools/list` with strict mode off (no safety fields), for comparison. */
  readonly legacyTokens: number;
}

/** The `tools/list` entries as the shells send them (register.ts: the four fields). */
function listed(strict: boolean) {
  return describeTools(strict).map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema as { type: "object"; [key: string]: unknown },
    annotations: t.annotations,
  }));
}

export function surfaceTable(): SurfaceTable {
  const entries = listed(true);
  const rows = entries.map((t) => ({
    tool: t.name,
    actions: ACTIONS.filter((a) => a.tool === t.name).length,
    tokens: tokens(t),
  }));
  const app = withApp(entries);
  const names = new Set<string>(entries.map((t) => t.name));
  return {
    rows,
    totalActions: rows.reduce((n, r) => n + r.actions, 0),
    totalTokens: rows.reduce((n, r) => n + r.tokens, 0),
    instructionsTokens: tokens(SERVER_INSTRUCTIONS),
    appTokens: app.reduce((n, t) => n + tokens(t), 0),
    appLinkedTools: app
      .filter((t) => names.has(t.name) && t._meta !== undefined)
      .map((t) => t.name),
    appEntryTokens: app.filter((t) => !names.has(t.name)).reduce((n, t) => n + tokens(t), 0),
    legacyTokens: listed(false).reduce((n, t) => n + tokens(t), 0),
  };
}

const perAction = (t: number, a: number) => (a === 0 ? "–" : (t / a).toFixed(1));

export function renderSurface(s: SurfaceTable): string {
  const avg = s.totalTokens / s.totalActions;
  const lines = [
    "| tool | actions | tokens | tokens/action |",
    "| --- | ---: | ---: | ---: |",
    ...s.rows.map(
      (r) => `| ${r.tool} | ${r.actions} | ${r.tokens} | ${perAction(r.tokens, r.actions)} |`,
    ),
    `| **all** | ${s.totalActions} | ${s.totalTokens} | **${avg.toFixed(1)}** |`,
    "",
    `- Average ${avg.toFixed(1)} tokens per action (budget ≤ ${BUDGETS.tokensPerAction}: ${avg <= BUDGETS.tokensPerAction ? "holds" : "**over**"}).`,
    `- Server instructions: ${s.instructionsTokens} tokens (budget < ${BUDGETS.instructionsTokens}: ${s.instructionsTokens < BUDGETS.instructionsTokens ? "holds" : "**over**"}).`,
    `- Client declaring MCP Apps: ${s.appTokens} tokens (+${s.appTokens - s.totalTokens}). Each tool with a strict write (${s.appLinkedTools.join(", ")}) carries \`_meta.ui.resourceUri\`, and the app-only entry point \`write_preview\` is listed (${s.appEntryTokens} tokens, \`_meta.ui.visibility: ["app"]\`: the host keeps it from the model).`,
    `- Strict mode off (no safety fields): ${s.legacyTokens} tokens.`,
  ];
  return lines.join("\n");
}

// ---------------------------------------------------------------- kernel calls per mutation

/** One kernel request as the client had it in flight (ms, `performance.now`). */
interface Flight {
  readonly endpoint: string;
  readonly start: number;
  end: number;
}

/**
 * Sequential round trips: the longest chain of requests each sent after the previous one's answer
 * arrived (requests in flight together count once).
 */
export function roundTrips(flights: readonly { start: number; end: number }[]): number {
  const sorted = [...flights].sort((a, b) => a.start - b.start);
  const depth: number[] = [];
  sorted.forEach((f, i) => {
    let before = 0;
    for (let j = 0; j < i; j++)
      if ((sorted[j] as Flight).end <= f.start) before = Math.max(before, depth[j] as number);
    depth.push(before + 1);
  });
  return Math.max(0, ...depth);
}

export interface PhaseCalls {
  readonly calls: number;
  readonly writes: number;
  readonly roundTrips: number;
  readonly endpoints: readonly string[];
}

export interface MutationRow {
  /** `tool.action` of the catalog. */
  readonly key: string;
  /** The scenario's label (a mutation may have several). */
  readonly scenario: string;
  /** The precondition kind of the preflight's answer (`none` when it names no field). */
  readonly kind: PreconditionKind;
  readonly preflight: PhaseCalls;
  readonly commit: PhaseCalls;
  /** The commit's status, or its error code. */
  readonly result: string;
}

const KIND_OF_FIELD = new Map<string, PreconditionKind>(
  (["state", "structure", "manifest", "source"] as const).map((k) => [preconditionFieldName(k), k]),
);

/** Records when each request is in flight at the client (the transport the tools send through). */
function recordFlights(env: Env): Flight[] {
  const flights: Flight[] = [];
  const send = env.transport.send.bind(env.transport);
  env.transport.send = async (req) => {
    const f: Flight = { endpoint: req.endpoint, start: performance.now(), end: Number.NaN };
    flights.push(f);
    try {
      return await send(req);
    } finally {
      f.end = performance.now();
    }
  };
  return flights;
}

async function phase(
  env: Env,
  flights: Flight[],
  run: () => Promise<Record<string, unknown>>,
): Promise<{ calls: PhaseCalls; answer: Record<string, unknown> }> {
  env.sandbox.control.resetLog();
  flights.length = 0;
  const answer = await run();
  const calls = callsOf(env.sandbox.control.log());
  return {
    answer,
    calls: {
      calls: calls.length,
      writes: calls.filter((c) => c.write).length,
      roundTrips: roundTrips(flights),
      endpoints: calls.map((c) => c.endpoint),
    },
  };
}

/** Runs one scenario clean in a fresh sandbox kernel and counts its preflight's and commit's calls. */
export async function measureScenario(scenario: Scenario): Promise<MutationRow> {
  const [tool, action] = scenario.key.split(".") as [string, string];
  const surface = findAction(tool, action);
  if (!surface) throw new Error(`scenario ${scenario.name}: ${scenario.key} is not in the catalog`);
  const confirmed = surface.dangerous !== false;
  const env = await startEnv();
  try {
    const fx = await scenario.setup(env);
    const flights = recordFlights(env);
    const pre = await phase(env, flights, async () => {
      const r = await env.call(tool, { ...fx.args, validateOnly: true }, confirmed);
      if (r.isError) throw new Error(`${scenario.name}: preflight failed ${JSON.stringify(r)}`);
      return r.structuredContent;
    });
    const field = pre.answer["preconditionField"];
    const commitArgs: Record<string, unknown> = { ...fx.args, requestId: pre.answer["requestId"] };
    if (typeof field === "string") commitArgs[field] = pre.answer[field];
    const commit = await phase(env, flights, async () => {
      const r = await env.call(tool, commitArgs, confirmed);
      const e = r.structuredContent["error"] as { code?: string } | undefined;
      return { result: r.isError ? (e?.code ?? "error") : String(r.structuredContent["status"]) };
    });
    return {
      key: scenario.key,
      scenario: scenario.name,
      kind: (typeof field === "string" && KIND_OF_FIELD.get(field)) || "none",
      preflight: pre.calls,
      commit: commit.calls,
      result: String(commit.answer["result"]),
    };
  } finally {
    await env.stop();
  }
}

/** The scenarios the table runs: every scenario of the fault matrix's registry, in its order. */
export function tableScenarios(): readonly Scenario[] {
  return SCENARIOS;
}

/** Catalog mutations without a scenario (the table would miss them). */
export function unmeasuredMutations(scenarios: readonly Scenario[] = SCENARIOS): string[] {
  const keys = new Set(scenarios.map((s) => s.key));
  return catalogMutations().filter((k) => !keys.has(k));
}

/** One row per scenario, run one after another (each in its own sandbox kernel). */
export async function mutationRows(scenarios = tableScenarios()): Promise<MutationRow[]> {
  const rows: MutationRow[] = [];
  for (const s of scenarios) rows.push(await measureScenario(s));
  return rows;
}

/** Why a state-kind row misses the goal (≤ 2 calls in the preflight, ≤ 6 in the commit), or null. */
export function overGoal(r: MutationRow): string | null {
  if (r.kind !== "state") return null;
  const over: string[] = [];
  if (r.preflight.calls > BUDGETS.statePreflightCalls) over.push("preflight");
  if (r.commit.calls > BUDGETS.stateCommitCalls) over.push("commit");
  return over.length === 0 ? null : `over (${over.join(", ")})`;
}

export function renderMutations(rows: readonly MutationRow[]): string {
  const lines = [
    "| mutation | scenario | precondition | preflight calls | preflight round trips | commit calls | of which writes | commit round trips | result | goal |",
    "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |",
    ...rows.map((r) => {
      const goal = r.kind === "state" ? (overGoal(r) ?? "ok") : "–";
      return `| ${r.key} | ${md(r.scenario)} | ${r.kind} | ${r.preflight.calls} | ${r.preflight.roundTrips} | ${r.commit.calls} | ${r.commit.writes} | ${r.commit.roundTrips} | ${r.result} | ${goal} |`;
    }),
  ];
  const missing = unmeasuredMutations();
  if (missing.length > 0)
    lines.push("", `Catalog mutations without a scenario: ${missing.join(", ")}.`);
  return lines.join("\n");
}

/** The commit's endpoints per row, for the appendix (the order the kernel logged them). */
export function renderEndpoints(rows: readonly MutationRow[]): string {
  return rows
    .map(
      (r) =>
        `- **${md(r.scenario)}**: preflight ${r.preflight.endpoints.map(short).join(", ") || "(none)"}; commit ${r.commit.endpoints.map(short).join(", ") || "(none)"}`,
    )
    .join("\n");
}

/** Text safe inside a Markdown table cell or emphasis. */
export const md = (text: string) => text.replace(/[|*_`]/g, (c) => `\\${c}`);

const short = (endpoint: string) => endpoint.replace(/^\/api\//, "");
