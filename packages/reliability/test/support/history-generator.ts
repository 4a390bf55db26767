/**
 * The seeded plan of a history run (issue 18, history check): rounds of concurrent agent
 * operations separated by nemesis events. The plan is a pure function of the seed, so a failing
 * seed replays the same operations, faults and crashes (only the interleaving inside one round
 * depends on timing).
 */

/** A small fast PRNG (mulberry32): the same seed gives the same sequence on every machine. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** One agent operation inside a round. */
export type AgentOp =
  /** Preflight then commit; `retry` re-sends the same commit (same requestId) afterwards. */
  | {
      kind: "write";
      agent: number;
      block: number;
      marker: string;
      retry: "none" | "sequential" | "concurrent";
    }
  /** Preflight, an external edit of the same block, then the commit (expects state_changed). */
  | { kind: "stale"; agent: number; block: number; marker: string; extMarker: string }
  /** A preflight whose lease is never used. */
  | { kind: "preflight"; agent: number; block: number }
  /** A direct kernel write, not through Sisyphus. */
  | { kind: "external"; block: number; marker: string };

/** Something done to the system at the start of a round. */
export type Nemesis =
  | { kind: "none" }
  /** The next kernel write is applied, then its connection reset (no answer). */
  | { kind: "resetAfterApply" }
  /** The next kernel write gets a 5xx before anything is applied. */
  | { kind: "http5xx" }
  /** SIGKILL the authority while a commit is inside the kernel call, restart it on the same data dir. */
  | { kind: "crashDuringCommit" }
  /** SIGKILL the authority between rounds and restart it. */
  | { kind: "crash" }
  /** The sandbox kernel goes away for a moment while the round runs. */
  | { kind: "kernelRestart" };

export interface Round {
  nemesis: Nemesis;
  ops: AgentOp[];
}

export interface Plan {
  seed: number;
  agents: number;
  blocks: number;
  rounds: Round[];
  /** Agent operations in the plan (writes, stale commits, preflights, external edits). */
  operations: number;
}

export interface PlanOptions {
  seed: number;
  /** Agent operations to generate (at least). */
  operations: number;
  agents?: number;
  blocks?: number;
}

const NEMESES: [Nemesis["kind"], number][] = [
  ["none", 10],
  ["resetAfterApply", 3],
  ["http5xx", 2],
  ["kernelRestart", 1],
  ["crash", 1],
  ["crashDuringCommit", 1],
];

function pickWeighted<T>(rnd: () => number, table: [T, number][]): T {
  const total = table.reduce((s, [, w]) => s + w, 0);
  let x = rnd() * total;
  for (const [v, w] of table) {
    x -= w;
    if (x < 0) return v;
  }
  return (table[table.length - 1] as [T, number])[0];
}

/** Builds the plan of `seed`: every write's marker is unique in the plan (`m<seed>x<n>`). */
export function generatePlan(options: PlanOptions): Plan {
  const agents = options.agents ?? 3;
  const blocks = options.blocks ?? 3;
  const rnd = prng(options.seed);
  const int = (n: number) => Math.floor(rnd() * n);
  let n = 0;
  const marker = () => `m${options.seed}x${++n}`;
  const rounds: Round[] = [];
  let operations = 0;
  while (operations < options.operations) {
    const kind = pickWeighted(rnd, NEMESES);
    if (kind === "crashDuringCommit") {
      // a round of its own: one commit, held in the kernel while the authority dies
      const op: AgentOp = {
        kind: "write",
        agent: int(agents),
        block: int(blocks),
        marker: marker(),
        retry: "sequential",
      };
      rounds.push({ nemesis: { kind }, ops: [op] });
      operations += 1;
      continue;
    }
    const ops: AgentOp[] = [];
    const size = 1 + int(agents);
    for (let i = 0; i < size; i++) {
      const agent = (i + int(agents)) % agents;
      const block = int(blocks);
      const r = rnd();
      if (r < 0.55) {
        const q = rnd();
        const retry = q < 0.6 ? "none" : q < 0.8 ? "sequential" : "concurrent";
        ops.push({ kind: "write", agent, block, marker: marker(), retry });
      } else if (r < 0.7) ops.push({ kind: "external", block, marker: marker() });
      else if (r < 0.85)
        ops.push({ kind: "stale", agent, block, marker: marker(), extMarker: marker() });
      else ops.push({ kind: "preflight", agent, block });
    }
    rounds.push({ nemesis: { kind }, ops });
    operations += ops.length;
  }
  return { seed: options.seed, agents, blocks, rounds, operations };
}
