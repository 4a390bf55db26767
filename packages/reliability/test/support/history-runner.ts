/**
 * Runs a history plan against real processes: a sandbox kernel in this process (loopback HTTP),
 * the built Node server spawned as the authority, one official MCP client per agent. A tap on the
 * kernel's write endpoint records every body the kernel handles, so applications are observed,
 * not inferred; external edits go straight to the kernel tree, not through Sisyphus.
 */
import type { Client } from "@modelcontextprotocol/client";
import { DEMO_IDS, type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import {
  type Authority,
  authorityFor,
  delegatingClient,
  httpClient,
  sc,
  tempDataDir,
} from "../../../node-server/test/harness.js";
import type { AgentOp, Plan, Round } from "./history-generator.js";
import { type FinalState, markersIn, Recorder } from "./history-recorder.js";

export const UPDATE = "/api/block/updateBlock";
/** The target blocks, by the plan's block index. */
export const TARGETS = [
  DEMO_IDS.paragraphGoals,
  DEMO_IDS.paragraphDecision,
  DEMO_IDS.paragraphJournal,
  DEMO_IDS.paragraphStatus,
] as const;
/** How long the kernel holds the commit the authority dies during (ms). */
const CRASH_HOLD_MS = 1_500;
/** How long a kernel restart keeps the listener away (ms). */
const KERNEL_DOWN_MS = 300;

/**
 * How agents reach the authority: MCP over HTTP, or each through its own delegating stdio front
 * (`sisyphus-server --stdio --no-autostart`, which outlives the authority's crashes and finds the
 * restarted one in the data directory).
 */
export type Via = "http" | "stdio";

/**
 * A running system under test: the kernel, the authority and one MCP client per agent. `crash`
 * takes the authority down between rounds and brings it back; `crashDuring` takes it down while a
 * commit is inside the kernel call (then `restart` brings it back). The Node server is SIGKILLed;
 * the kernel plugin (support/kernel-history.ts) is reloaded.
 */
export interface HistorySystem {
  readonly sandbox: Sandbox;
  clients: Client[];
  start(): Promise<void>;
  crash(): Promise<void>;
  crashDuring(): Promise<void>;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** The Node server spawned as the authority. */
class System implements HistorySystem {
  authority!: Authority;
  clients: Client[] = [];
  readonly dataDir = tempDataDir();
  constructor(
    readonly sandbox: Sandbox,
    private readonly agents: number,
    private readonly via: Via,
  ) {}

  async start(): Promise<void> {
    this.authority = await authorityFor(this.sandbox, this.dataDir);
    if (this.via === "stdio" && this.clients.length > 0) return;
    const connect = () =>
      this.via === "stdio"
        ? delegatingClient(this.sandbox, this.dataDir, { extraArgs: ["--no-autostart"] })
        : httpClient(this.authority.url, { era: "modern" });
    this.clients = await Promise.all(Array.from({ length: this.agents }, connect));
  }

  /** SIGKILL the authority (its clients go with it) and start it again on the same data dir. */
  async crash(): Promise<void> {
    await this.authority.stop("SIGKILL");
    await this.restart();
  }

  crashDuring(): Promise<void> {
    return this.authority.stop("SIGKILL");
  }

  async restart(): Promise<void> {
    if (this.via === "http")
      await Promise.all(this.clients.map((c) => c.close().catch(() => undefined)));
    await this.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.clients.map((c) => c.close().catch(() => undefined)));
    await this.authority.stop("SIGKILL");
  }
}

/** One history run: its recorder, and the steps that execute a plan. */
class Run {
  readonly rec: Recorder;
  constructor(
    readonly sys: HistorySystem,
    readonly plan: Plan,
  ) {
    this.rec = new Recorder(plan.seed);
  }

  private get control() {
    return this.sys.sandbox.control;
  }

  private args(block: number, marker: string) {
    return {
      action: "update",
      id: TARGETS[block] as string,
      dataType: "markdown",
      data: `Note ${marker}`,
    };
  }

  /** Preflight through the agent's client; the commit arguments, or null when it failed. */
  private async preflight(agent: number, block: number, marker: string) {
    const args = this.args(block, marker);
    const { call, result } = await this.rec.call(
      { process: `agent-${agent}`, kind: "preflight", block: args.id },
      () =>
        (this.sys.clients[agent] as Client).callTool({
          name: "block",
          arguments: { ...args, validateOnly: true },
        }),
    );
    if (call.outcome !== "ok") return null;
    const p = sc(result);
    const field = p["preconditionField"] as string;
    return { ...args, requestId: p["requestId"], [field]: p[field] };
  }

  /** One commit call of `marker` with `commitArgs` (the same requestId on every retry). */
  private commit(agent: number, marker: string, commitArgs: Record<string, unknown>) {
    return this.rec.call(
      {
        process: `agent-${agent}`,
        kind: "commit",
        marker,
        block: commitArgs["id"] as string,
        requestId: String(commitArgs["requestId"]),
      },
      () => (this.sys.clients[agent] as Client).callTool({ name: "block", arguments: commitArgs }),
    );
  }

  private external(block: number, marker: string): void {
    const id = TARGETS[block] as string;
    const call = this.rec.invoke({ process: "external", kind: "external", marker, block: id });
    this.control.external.updateBlock(id, `Outside ${marker}`);
    this.rec.applied(marker, id, "external");
    this.rec.complete(call, "ok", "applied");
  }

  private async op(op: AgentOp): Promise<void> {
    if (op.kind === "external") return this.external(op.block, op.marker);
    if (op.kind === "preflight") {
      await this.preflight(op.agent, op.block, `m${this.plan.seed}x0`);
      return;
    }
    const commitArgs = await this.preflight(op.agent, op.block, op.marker);
    if (!commitArgs) return;
    if (op.kind === "stale") {
      this.external(op.block, op.extMarker);
      const first = await this.commit(op.agent, op.marker, commitArgs);
      if (first.call.outcome === "unknown") await this.commit(op.agent, op.marker, commitArgs);
      return;
    }
    if (op.retry === "concurrent") {
      await Promise.all([
        this.commit(op.agent, op.marker, commitArgs),
        this.commit(op.agent, op.marker, commitArgs),
      ]);
      return;
    }
    const first = await this.commit(op.agent, op.marker, commitArgs);
    // after an unknown outcome the caller reconciles with the same requestId, never a new one
    if (op.retry === "sequential" || first.call.outcome === "unknown")
      await this.commit(op.agent, op.marker, commitArgs);
  }

  private nemesisCall(kind: string) {
    return this.rec.invoke({ process: `nemesis-${kind}`, kind: "nemesis" });
  }

  /** The round whose one commit is inside the kernel call when the authority is killed. */
  private async crashDuringCommit(op: AgentOp): Promise<void> {
    if (op.kind !== "write") return;
    const commitArgs = await this.preflight(op.agent, op.block, op.marker);
    if (!commitArgs) return;
    const before = this.control.count(UPDATE);
    const hold = this.control.armFault({ endpoint: UPDATE, kind: "delay", delayMs: CRASH_HOLD_MS });
    const pending = this.commit(op.agent, op.marker, commitArgs);
    const reached = await waitFor(() => this.control.count(UPDATE) > before, {
      timeoutMs: 15_000,
    }).then(
      () => true,
      () => false,
    );
    const n = this.nemesisCall("crashDuringCommit");
    await this.sys.crashDuring();
    await pending;
    this.control.disarmFault(hold);
    await this.sys.restart();
    this.rec.complete(n, "ok", reached ? "killed during the kernel call" : "killed");
    await this.commit(op.agent, op.marker, commitArgs);
    // the held write lands after the crash; wait for it so later rounds see it applied
    await waitFor(() => this.rec.history.applications.some((a) => a.marker === op.marker), {
      timeoutMs: CRASH_HOLD_MS * 4,
    }).catch(() => undefined);
  }

  async round(round: Round): Promise<void> {
    const { nemesis, ops } = round;
    if (nemesis.kind === "crashDuringCommit") return this.crashDuringCommit(ops[0] as AgentOp);
    if (nemesis.kind === "crash") {
      const n = this.nemesisCall("crash");
      await this.sys.crash();
      this.rec.complete(n, "ok", "killed between rounds");
    }
    let fault: string | null = null;
    if (nemesis.kind === "resetAfterApply" || nemesis.kind === "http5xx") {
      this.rec.complete(this.nemesisCall(nemesis.kind), "ok", "armed");
      fault = this.control.armFault({ endpoint: UPDATE, kind: nemesis.kind });
    }
    const restart =
      nemesis.kind === "kernelRestart" ? this.kernelRestart() : Promise.resolve(undefined);
    await Promise.all([...ops.map((o) => this.op(o)), restart]);
    if (fault) this.control.disarmFault(fault);
  }

  private async kernelRestart(): Promise<void> {
    const n = this.nemesisCall("kernelRestart");
    await this.sys.sandbox.plugins.restartKernel(KERNEL_DOWN_MS);
    this.rec.complete(n, "ok", `down ${KERNEL_DOWN_MS} ms`);
  }

  /** Flushes the kernel queue and reads the targets straight from the tree. */
  async final(): Promise<FinalState> {
    await this.control.flush();
    const blocks: Record<string, string> = {};
    for (const id of TARGETS.slice(0, this.plan.blocks))
      blocks[id] = this.control.kramdown(id) ?? "";
    const handled = this.control
      .log()
      .filter(
        (e) => e.path === UPDATE && !e.faults.includes("http5xx") && !e.faults.includes("refuse"),
      ).length;
    return { blocks, kernelWritesLogged: handled };
  }
}

/**
 * Executes `plan` on a fresh demo sandbox and authority — the Node server reached `via` HTTP or
 * stdio, or the system `via` opens on its own kernel (the kernel plugin's) — and returns the
 * history and final state.
 */
export async function runPlan(
  plan: Plan,
  via: Via | ((agents: number) => Promise<HistorySystem>) = "http",
) {
  if (plan.blocks > TARGETS.length) throw new Error(`at most ${TARGETS.length} blocks`);
  const sys =
    typeof via === "function"
      ? await via(plan.agents)
      : new System(await startSandbox({ seed: "demo" }), plan.agents, via);
  const sandbox = sys.sandbox;
  const run = new Run(sys, plan);
  try {
    // the tap: every body the write endpoint hands to the kernel, unchanged
    sandbox.control.armFault({
      endpoint: UPDATE,
      kind: "corrupt",
      times: "always",
      corrupt: (body) => {
        for (const m of markersIn(String(body["data"] ?? "")))
          run.rec.applied(m, String(body["id"]), "kernel");
        return body;
      },
    });
    sandbox.control.resetLog();
    await sys.start();
    for (const round of plan.rounds) await run.round(round);
    const final = await run.final();
    return { history: run.rec.history, final };
  } finally {
    await sys.stop().catch(() => undefined);
    await sandbox.stop();
  }
}
