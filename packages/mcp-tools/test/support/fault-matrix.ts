/**
 * The fault matrix's machinery: a fresh sandbox kernel per run, a real client whose transport a
 * test-side decorator can make refuse one request for real (ECONNREFUSED), a real coordinator, one
 * scenario per strict mutation, and the judge that says which promises an answer broke.
 *
 * A run is: setup → preflight → commit (the attempt under test, with at most one fault armed) →
 * live state read straight from the kernel → replay with the same requestId → live state again.
 * The commit's kernel calls come from the sandbox's request log of a clean run; a cell is one
 * (call, fault kind) pair of that list.
 */
import { subscribe } from "node:diagnostics_channel";
import type { Socket } from "node:net";
import { seededRandomSource } from "@sisyphus/core-hash";
import {
  createSiyuanClient,
  ENDPOINTS,
  isSiyuanApiError,
  type SiyuanClient,
  type Transport,
  type TransportRequest,
  type TransportResponse,
  undiciTransport,
} from "@sisyphus/siyuan-api";
import { type RequestLogEntry, type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import {
  createWriteCoordinator,
  isWireErrorCode,
  type LedgerStore,
  MemoryLedgerStore,
  MemoryReservationStore,
  type ReservationStore,
  WIRE_ERRORS,
} from "@sisyphus/write-safety";
import {
  ACTIONS,
  createToolRuntime,
  findAction,
  type SourceBytes,
  type ToolResult,
} from "../../src/index.js";

// ---------------------------------------------------------------- kernel endpoints

const ENDPOINT_KIND = new Map<string, string>(
  Object.values(ENDPOINTS).map((e) => [e.path, e.kind]),
);

/** True for a kernel write endpoint; an endpoint the client does not know counts as a write. */
export function isWriteEndpoint(path: string): boolean {
  return ENDPOINT_KIND.get(path) !== "read";
}

// ---------------------------------------------------------------- the refusing transport

/** One request as the client's transport sent it. */
export interface SentRequest {
  readonly endpoint: string;
  /** The JSON body as sent (`[bytes]` for a binary body). */
  readonly body: string;
  /** The n-th request to this endpoint in the current phase (0-based). */
  readonly occurrence: number;
  /** This request was sent while the decorator made the kernel refuse connections. */
  refused: boolean;
  /** HTTP status of the answer, or undefined when the transport threw. */
  status?: number;
  /** The client error code when the transport threw (`not_dispatched`, `outcome_unknown`). */
  error?: string;
}

/** Where the decorator refuses the connection, and what happened. */
interface Refusal {
  readonly endpoint: string;
  readonly occurrence: number;
  fired: boolean;
  /** The client error code the refused request got (`not_dispatched` when the injection is pure). */
  outcome?: string;
}

/**
 * The client-side sockets undici opened, by the port they connected to, each until it closes
 * (undici publishes every connection on `undici:client:connected`; its own `close` listener, which
 * takes the socket out of the pool, runs before the one added here).
 */
const openClientSockets = new Map<Socket, number>();
subscribe("undici:client:connected", (message) => {
  const socket = (message as { socket?: Socket }).socket;
  if (socket === undefined || socket.remotePort === undefined) return;
  openClientSockets.set(socket, socket.remotePort);
  socket.once("close", () => openClientSockets.delete(socket));
});

/** Whether a client socket to `port` is still open (its pool has not seen it close yet). */
function clientSocketOpenTo(port: number): boolean {
  for (const p of openClientSockets.values()) if (p === port) return true;
  return false;
}

/**
 * A transport decorator: records every request (per phase) and, when told to, makes the kernel
 * refuse connections right before forwarding one given request, then accepts again once that
 * request failed — so the real client really sees ECONNREFUSED for that one call.
 */
export class MatrixTransport implements Transport {
  readonly name = "fault-matrix";
  private sentList: SentRequest[] = [];
  private readonly perEndpoint = new Map<string, number>();
  private refusal: Refusal | null = null;

  constructor(
    private readonly inner: Transport,
    private readonly sandbox: Sandbox,
  ) {}

  /** Starts a new phase: clears the record and the per-endpoint counters. */
  begin(): void {
    this.sentList = [];
    this.perEndpoint.clear();
    this.refusal = null;
  }

  /** Requests sent in this phase, in send order. */
  sent(): readonly SentRequest[] {
    return this.sentList;
  }

  /** Refuse the `occurrence`-th request (0-based) to `endpoint` of this phase. */
  refuseAt(endpoint: string, occurrence: number): void {
    this.refusal = { endpoint, occurrence, fired: false };
  }

  /** The armed refusal's state (undefined when none was armed). */
  refusalState(): Readonly<Refusal> | undefined {
    return this.refusal ?? undefined;
  }

  async send(req: TransportRequest): Promise<TransportResponse> {
    const occurrence = this.perEndpoint.get(req.endpoint) ?? 0;
    this.perEndpoint.set(req.endpoint, occurrence + 1);
    const rec: SentRequest = {
      endpoint: req.endpoint,
      body: req.body.kind === "json" ? req.body.text : "[bytes]",
      occurrence,
      refused: false,
    };
    this.sentList.push(rec);
    const r = this.refusal;
    const refuse =
      r !== null && !r.fired && r.endpoint === req.endpoint && r.occurrence === occurrence;
    if (refuse) {
      r.fired = true;
      rec.refused = true;
      await this.sandbox.control.refuseConnections(true);
      // The client's pool sees its keep-alive sockets closed, so the request needs a new connection.
      await waitFor(() => !clientSocketOpenTo(this.sandbox.port), {
        what: "the client's keep-alive sockets to the refusing kernel to close",
        intervalMs: 1,
      });
    }
    try {
      const res = await this.inner.send(req);
      rec.status = res.status;
      if (refuse && r) r.outcome = "answered";
      return res;
    } catch (e) {
      rec.error = isSiyuanApiError(e) ? e.code : "error";
      if (refuse && r) r.outcome = rec.error;
      throw e;
    } finally {
      if (refuse) await this.sandbox.control.refuseConnections(false);
    }
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

// ---------------------------------------------------------------- one environment per run

/** A fresh kernel, the tools over a refusing transport, and a plain client to read live state. */
export interface Env {
  readonly sandbox: Sandbox;
  readonly transport: MatrixTransport;
  /** A client outside the fault path, for setup and for reading the live state. */
  readonly verify: SiyuanClient;
  /** Holds bytes as an upload source (as a staging area would) and returns its handle. */
  stage(fileName: string, bytes: Uint8Array): string;
  call(tool: string, args: Record<string, unknown>, confirmed: boolean): Promise<ToolResult>;
  stop(): Promise<void>;
}

/** The tools a matrix calls: a strict coordinator on a fixed clock and staged upload sources. */
export interface MatrixTools {
  /** Stages bytes as the kernel plugin would; returns the `uploadSource` handle. */
  stage(fileName: string, bytes: Uint8Array): string;
  call(tool: string, args: Record<string, unknown>, confirmed: boolean): Promise<ToolResult>;
}

/**
 * The tools over `client`, with a strict coordinator (fixed clock, seeded IDs) on `ledgerStore`
 * and `reservationStore` (a fresh in-memory one by default).
 */
export async function matrixTools(
  client: SiyuanClient,
  ledgerStore: LedgerStore,
  epoch: string,
  reservationStore: ReservationStore = new MemoryReservationStore(),
): Promise<MatrixTools> {
  const coordinator = await createWriteCoordinator({
    clock: { now: () => 1_790_000_000_000 },
    random: seededRandomSource(7),
    epoch,
    ledgerStore,
    reservationStore,
    strict: true,
  });
  const staged = new Map<string, SourceBytes>();
  const runtime = createToolRuntime({
    client,
    coordinator,
    config: { loadPermissions: () => ({ default: "delete" }) },
    sources: {
      read: async (ref) =>
        ("uploadSource" in ref ? staged.get(ref.uploadSource) : undefined) ?? {
          error: "not_found",
          message: "no such source",
        },
    },
  });
  return {
    stage(fileName, bytes) {
      const handle = `stage-${staged.size + 1}`;
      staged.set(handle, { fileName, bytes });
      return handle;
    },
    call: (tool, args, confirmed) => runtime.callTool(tool, args, { confirmed }),
  };
}

/** A synthetic request-log entry (a handled POST that succeeded), for tests of the judges. */
export function logEntry(path: string, over: Partial<RequestLogEntry> = {}): RequestLogEntry {
  return {
    seq: 0,
    method: "POST",
    path,
    status: 200,
    code: 0,
    faults: [],
    startedAtMs: 0,
    durationMs: 0,
    ...over,
  };
}

/** Runs `fn` over `items` with at most `limit` at a time, keeping order. */
export async function pool<T, R>(
  items: readonly T[],
  limit: number,
  fn: (t: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i] as T);
      }
    }),
  );
  return out;
}

export async function startEnv(): Promise<Env> {
  // Local-time timestamps, as a real kernel's: the daily note's date is the same local day the
  // tools render (a UTC kernel clock would name another day in a zone far from UTC).
  const sandbox = await startSandbox({
    seed: "empty",
    flushIntervalMs: 5,
    deterministic: true,
    utcTimestamps: false,
  });
  const transport = new MatrixTransport(
    undiciTransport({ baseUrl: sandbox.url, token: sandbox.token, timeoutMs: 5000 }),
    sandbox,
  );
  // Reads retried after a refusal wait 25 ms, longer than the refusal window.
  const client = createSiyuanClient({ transport, random: () => 0.5 });
  const verify = createSiyuanClient({
    transport: undiciTransport({ baseUrl: sandbox.url, token: sandbox.token, timeoutMs: 5000 }),
  });
  const tools = await matrixTools(client, new MemoryLedgerStore(), "fault-matrix");
  return {
    sandbox,
    transport,
    verify,
    ...tools,
    async stop() {
      await sandbox.control.refuseConnections(false);
      await client.close();
      await verify.close();
      await sandbox.stop();
    },
  };
}

// ---------------------------------------------------------------- live-state helpers

/** One top-level block of a document, as its live Kramdown shows it. */
export interface LiveBlock {
  readonly id: string;
  readonly body: string;
  readonly attrs: Readonly<Record<string, string>>;
}

const IAL_LINE = /^\s*\{:\s*(.*)\}\s*$/;

function parseIal(inner: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of inner.matchAll(/([\w-]+)="([^"]*)"/g)) out[m[1] as string] = m[2] as string;
  return out;
}

/**
 * The top-level blocks of a document, read straight from the sandbox's tree (flat documents of
 * paragraphs only: each block is its body lines followed by its own IAL line). `null` when the
 * document does not exist.
 */
export function docBlocks(env: Env, docId: string): LiveBlock[] | null {
  const kramdown = env.sandbox.control.kramdown(docId);
  if (kramdown === null) return null;
  const blocks: LiveBlock[] = [];
  let body: string[] = [];
  for (const line of kramdown.split("\n")) {
    const ial = IAL_LINE.exec(line);
    if (ial) {
      const attrs = parseIal(ial[1] as string);
      if (attrs["type"] !== "doc" && attrs["id"] !== docId)
        blocks.push({ id: attrs["id"] ?? "", body: body.join("\n").trim(), attrs });
      body = [];
    } else if (line.trim() !== "" || body.length > 0) body.push(line);
  }
  return blocks;
}

/** Creates a document of paragraphs from outside (the UI would) and returns its block IDs. */
export async function fixtureDoc(
  env: Env,
  notebook: string,
  hpath: string,
  paragraphs: readonly string[],
): Promise<{ id: string; blocks: string[] }> {
  const id = env.sandbox.control.external.createDoc(notebook, hpath, paragraphs.join("\n\n"));
  await env.sandbox.control.flush();
  return { id, blocks: (docBlocks(env, id) ?? []).map((b) => b.id) };
}

/** `undefined` when `actual` equals `expected`, else a short description of the difference. */
export function differ(what: string, actual: unknown, expected: unknown): string | undefined {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  return a === e ? undefined : `${what}: live ${a}, requested ${e}`;
}

// ---------------------------------------------------------------- scenarios

/** What a scenario's setup hands the matrix. */
export interface Fixture {
  /** The business arguments, `action` included. */
  readonly args: Record<string, unknown>;
  /** Reads the live state: `undefined` when it shows the request, else why not. */
  readonly shows: () => Promise<string | undefined>;
}

/** One strict-mutation scenario: a setup in a fresh kernel, and the request. */
export interface Scenario {
  /** `tool.action` of the catalog. */
  readonly key: string;
  /** Unique label in the matrix. */
  readonly name: string;
  readonly setup: (env: Env) => Promise<Fixture>;
}

/** The catalog's strict mutations (`tool.action`), from the policy table. */
export function catalogMutations(): string[] {
  return ACTIONS.filter((a) => a.policy.kind === "mutation").map((a) => `${a.tool}.${a.action}`);
}

/** The catalog surface of a scenario's mutation. */
export function surfaceOf(s: Scenario) {
  const [tool, action] = s.key.split(".") as [string, string];
  const surface = findAction(tool, action);
  if (!surface) throw new Error(`scenario ${s.name}: ${s.key} is not in the catalog`);
  return surface;
}

// ---------------------------------------------------------------- runs

/** One fault kind of the matrix. */
export type FaultKind = "refused" | "resetAfterApply" | "http5xx" | "silentDrop";
export const FAULT_KINDS: readonly FaultKind[] = [
  "refused",
  "resetAfterApply",
  "http5xx",
  "silentDrop",
];

/** One kernel call of a clean commit. */
export interface KernelCall {
  /** Position in the commit's request log (0-based). */
  readonly index: number;
  readonly endpoint: string;
  /** The n-th call to this endpoint in the commit (0-based). */
  readonly occurrence: number;
  readonly write: boolean;
}

/** One cell: a call of the commit and the fault injected there. */
export interface Cell {
  readonly call: KernelCall;
  readonly fault: FaultKind;
}

/** What one attempt (commit or replay) did and answered. */
export interface Attempt {
  readonly answer: ToolResult;
  readonly log: readonly RequestLogEntry[];
  readonly sent: readonly SentRequest[];
  /** Live state after the attempt: `undefined` when it shows the request, else why not. */
  readonly shows: string | undefined;
}

/** One run of a scenario: the commit under test and its replay. */
export interface Run {
  readonly preflight: ToolResult;
  readonly commit?: Attempt;
  readonly replay?: Attempt;
  /** The fault was injected where the cell says (always true for a clean run). */
  readonly injected: boolean;
  /** Why the injection did not happen as planned. */
  readonly injectionNote?: string;
}

/** The commit's kernel calls, from the sandbox's request log. */
export function callsOf(log: readonly RequestLogEntry[]): KernelCall[] {
  const seen = new Map<string, number>();
  return log
    .filter((e) => e.path.startsWith("/api/"))
    .map((e, index) => {
      const occurrence = seen.get(e.path) ?? 0;
      seen.set(e.path, occurrence + 1);
      return { index, endpoint: e.path, occurrence, write: isWriteEndpoint(e.path) };
    });
}

/** The cells of a clean commit's call list: every fault at every call (silentDrop at writes only). */
export function cellsOf(calls: readonly KernelCall[]): Cell[] {
  return calls.flatMap((call) =>
    FAULT_KINDS.filter((f) => f !== "silentDrop" || call.write).map((fault) => ({ call, fault })),
  );
}

async function attempt(
  env: Env,
  fx: Fixture,
  tool: string,
  args: Record<string, unknown>,
  confirmed: boolean,
  arm: () => void,
): Promise<Attempt> {
  env.sandbox.control.resetLog();
  env.transport.begin();
  arm();
  const answer = await env.call(tool, args, confirmed);
  const log = env.sandbox.control.log();
  const sent = [...env.transport.sent()];
  // Apply whatever the kernel queued, then read the live state outside the fault path.
  await env.sandbox.control.flush();
  return { answer, log, sent, shows: await fx.shows() };
}

/** Runs a scenario once: clean when `cell` is absent, else with the cell's fault at the commit. */
export async function runScenario(scenario: Scenario, cell?: Cell): Promise<Run> {
  const surface = surfaceOf(scenario);
  const confirmed = surface.dangerous !== false;
  const env = await startEnv();
  try {
    const fx = await scenario.setup(env);
    const tool = surface.tool;
    const preflight = await env.call(tool, { ...fx.args, validateOnly: true }, confirmed);
    if (preflight.isError) return { preflight, injected: false, injectionNote: "preflight failed" };
    const pre = preflight.structuredContent;
    const commitArgs: Record<string, unknown> = { ...fx.args, requestId: pre["requestId"] };
    const field = pre["preconditionField"];
    if (typeof field === "string") commitArgs[field] = pre[field];

    let faultId: string | undefined;
    const commit = await attempt(env, fx, tool, commitArgs, confirmed, () => {
      if (!cell) return;
      if (cell.fault === "refused")
        env.transport.refuseAt(cell.call.endpoint, cell.call.occurrence);
      else
        faultId = env.sandbox.control.armFault({
          endpoint: cell.call.endpoint,
          kind: cell.fault,
          skip: cell.call.occurrence,
        });
    });
    let injected = true;
    let injectionNote: string | undefined;
    if (cell?.fault === "refused") {
      const r = env.transport.refusalState();
      injected = r?.fired === true && r.outcome === "not_dispatched";
      if (!injected)
        injectionNote = r?.fired
          ? `the refused request got ${r.outcome}, not not_dispatched`
          : "the commit never made this call";
    } else if (cell) {
      const f = env.sandbox.control.faults().find((x) => x.id === faultId);
      injected = (f?.fired ?? 0) > 0;
      if (!injected) injectionNote = "the commit never made this call";
    }
    env.sandbox.control.clearFaults();
    const replay = await attempt(env, fx, tool, commitArgs, confirmed, () => {});
    return injectionNote === undefined
      ? { preflight, commit, replay, injected }
      : { preflight, commit, replay, injected, injectionNote };
  } finally {
    await env.stop();
  }
}

// ---------------------------------------------------------------- the judge

/** A compact view of an answer for reports. */
export function describeAnswer(r: ToolResult | undefined): string {
  if (!r) return "(none)";
  const s = r.structuredContent;
  if (!r.isError) return `ok status=${String(s["status"])}`;
  const e = (s["error"] ?? {}) as Record<string, unknown>;
  const details = (e["details"] ?? {}) as Record<string, unknown>;
  const reason = details["reason"] ?? e["kernelCode"];
  return `error ${String(e["code"])} writeAttempted=${String(e["writeAttempted"])}${
    reason === undefined ? "" : ` (${String(reason)})`
  }`;
}

const SUCCESS = new Set(["committed", "no_change"]);
const AFTER_DISPATCH_ERRORS = new Set(["outcome_unknown", "readback_mismatch"]);

/** True when the sandbox applied this logged write (code 0, not dropped, not refused by a 5xx). */
function applied(e: RequestLogEntry): boolean {
  if (e.faults.includes("http5xx") || e.faults.includes("silentDrop")) return false;
  if (e.faults.includes("resetAfterApply")) return true;
  return e.status === 200 && e.code === 0;
}

/**
 * Applications of each write (endpoint + body), pairing the transport's non-refused sends of a
 * write endpoint with the sandbox's log entries for it, in order.
 */
function applications(a: Attempt, into: Map<string, number>): void {
  const byPath = new Map<string, RequestLogEntry[]>();
  for (const e of a.log) {
    if (!isWriteEndpoint(e.path) || !e.path.startsWith("/api/")) continue;
    byPath.set(e.path, [...(byPath.get(e.path) ?? []), e]);
  }
  const sentByPath = new Map<string, SentRequest[]>();
  for (const s of a.sent) {
    if (!isWriteEndpoint(s.endpoint) || s.error === "not_dispatched") continue;
    sentByPath.set(s.endpoint, [...(sentByPath.get(s.endpoint) ?? []), s]);
  }
  for (const [path, entries] of byPath) {
    const sends = sentByPath.get(path) ?? [];
    entries.forEach((e, i) => {
      if (!applied(e)) return;
      const key = `${path} ${sends[i]?.body ?? `#${i}`}`;
      into.set(key, (into.get(key) ?? 0) + 1);
    });
  }
}

/** Write requests of an attempt that may have reached the kernel (sent, not provably refused). */
function writesMaybeDispatched(a: Attempt): SentRequest[] {
  return a.sent.filter((s) => isWriteEndpoint(s.endpoint) && s.error !== "not_dispatched");
}

/** An error answer says `writeAttempted: true` only with a code whose `WIRE_ERRORS` row allows it. */
function checkWriteAttempted(label: string, a: Attempt, out: string[]): void {
  if (!a.answer.isError) return;
  const e = (a.answer.structuredContent["error"] ?? {}) as Record<string, unknown>;
  const code = e["code"];
  if (e["writeAttempted"] !== true) return;
  if (!(isWireErrorCode(code) && WIRE_ERRORS[code].writeAttempted === "possible"))
    out.push(
      `${label} answered ${String(code)} with writeAttempted=true, which that code never allows`,
    );
}

function checkSuccess(label: string, a: Attempt, out: string[]): void {
  const r = a.answer;
  if (r.isError) return;
  const status = String(r.structuredContent["status"]);
  if (!SUCCESS.has(status)) {
    out.push(`${label} answered status ${status}`);
    return;
  }
  if (a.shows !== undefined)
    out.push(`${label} claims ${status} but the live state does not show the request (${a.shows})`);
  // Every scenario asks for a change: no_change is only right when the state already was the request.
  if (status === "no_change")
    out.push(`${label} claims no_change for a request that differs from the state before it`);
}

/**
 * The promises of Strict Safe Writes for one run: the violated ones, as sentences (empty: none).
 * - an answer claims committed/no_change only when the live state shows the request;
 * - once a write of the commit may have reached the kernel, a failure is outcome_unknown or
 *   readback_mismatch with writeAttempted: true (never writeAttempted: false, never a kernel code);
 * - each write is applied at most once over the commit and its replay;
 * - a replay after a dispatched write writes nothing, unless it resumed a staged creation;
 * - an error says writeAttempted: true only with a code whose `WIRE_ERRORS` row allows it.
 */
export function judge(run: Run): string[] {
  const out: string[] = [];
  const commit = run.commit;
  const replay = run.replay;
  if (!commit || !replay) return [`no commit: preflight answered ${describeAnswer(run.preflight)}`];
  if (!run.injected) out.push(`fault not injected: ${run.injectionNote ?? "?"}`);

  checkSuccess("the commit", commit, out);
  checkWriteAttempted("the commit", commit, out);
  const dispatched = writesMaybeDispatched(commit);
  if (dispatched.length > 0 && commit.answer.isError) {
    const e = (commit.answer.structuredContent["error"] ?? {}) as Record<string, unknown>;
    const first = dispatched[0]?.endpoint;
    if (e["writeAttempted"] !== true)
      out.push(
        `the commit answered writeAttempted=${String(e["writeAttempted"])} after ${first} may have reached the kernel`,
      );
    if (!AFTER_DISPATCH_ERRORS.has(String(e["code"])))
      out.push(
        `the commit answered ${String(e["code"])} after ${first} may have reached the kernel (expected outcome_unknown or readback_mismatch)`,
      );
  }

  checkSuccess("the replay", replay, out);
  checkWriteAttempted("the replay", replay, out);
  const replayWrites = replay.sent.filter((s) => isWriteEndpoint(s.endpoint));
  // A staged creation's replay finishes the stages the commit left (`resumed`): the check that
  // no write is applied twice still holds it.
  const resumed = !replay.answer.isError && replay.answer.structuredContent["resumed"] === true;
  if (dispatched.length > 0 && replayWrites.length > 0 && !resumed)
    out.push(
      `the replay wrote again: ${replayWrites.map((s) => s.endpoint).join(", ")} (the commit had dispatched ${dispatched
        .map((s) => s.endpoint)
        .join(", ")})`,
    );

  const counts = new Map<string, number>();
  applications(commit, counts);
  applications(replay, counts);
  for (const [write, n] of counts)
    if (n > 1) out.push(`the kernel applied one write ${n} times: ${write.slice(0, 160)}`);
  return out;
}
