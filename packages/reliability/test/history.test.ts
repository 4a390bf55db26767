/**
 * History check (issue 18): seeded concurrent agents against the real Node server and the
 * sandbox kernel, with faults, external edits, authority crashes and kernel restarts; a checker
 * over the recorded history and the final kernel state. Every run prints its seeds; replay one
 * with RELIABILITY_SEED=<n>; RELIABILITY_LONG=1 runs more and longer histories. A history with
 * anomalies (or every history, with RELIABILITY_HISTORY_DIR=<dir>) is saved as JSON for reading.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { killAll } from "../../node-server/test/harness.js";
import { checkHistory } from "./support/history-checker.js";
import { generatePlan } from "./support/history-generator.js";
import type { Call, FinalState, History, Outcome } from "./support/history-recorder.js";
import { runPlan } from "./support/history-runner.js";
import { historySeeds, LONG, REPLAY } from "./support/history-seeds.js";

const OPERATIONS = LONG ? 150 : 40;
const HISTORY_DIR = process.env["RELIABILITY_HISTORY_DIR"];

/** Saves a history next to its checker verdict; returns the file. */
function save(seed: number, data: unknown): string {
  const dir = HISTORY_DIR ?? tmpdir();
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `history-${seed}.json`);
  writeFileSync(file, JSON.stringify(data, null, 1));
  return file;
}

describe("history check against the Node authority", () => {
  for (const seed of historySeeds(3, 10)) {
    it(`seed ${seed}: no lost ack, no double application, every unknown resolvable`, async () => {
      const plan = generatePlan({ seed, operations: OPERATIONS });
      console.log(
        `[history] seed ${seed} (replay: ${REPLAY}RELIABILITY_SEED=${seed}): ${plan.operations} operations in ${plan.rounds.length} rounds`,
      );
      try {
        const { history, final } = await runPlan(plan);
        const anomalies = checkHistory(history, final);
        const outcomes = tally(history.calls);
        console.log(
          `[history] seed ${seed}: ${history.calls.length} calls ${JSON.stringify(outcomes)}, ${history.applications.length} applications, ${anomalies.length} anomalies`,
        );
        if (anomalies.length > 0 || HISTORY_DIR !== undefined) {
          console.log(`[history] seed ${seed}: saved ${save(seed, { anomalies, final, history })}`);
        }
        expect(anomalies, `replay with ${REPLAY}RELIABILITY_SEED=${seed}`).toEqual([]);
        // the run exercised what it claims: at least one write was acknowledged
        expect(history.calls.some((c) => c.kind === "commit" && c.outcome === "ok")).toBe(true);
      } finally {
        await killAll();
      }
    });
  }
});

function tally(calls: Call[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of calls) {
    const k = `${c.kind === "nemesis" ? c.process : c.kind}:${c.outcome}:${c.detail?.startsWith("exception") ? "exception" : c.detail}`;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

describe("the checker itself", () => {
  const B = "20260101120102-pgoals1";
  let id = 0;
  const commit = (marker: string, outcome: Outcome, detail: string, at = 0): Call => ({
    id: ++id,
    process: "agent-0",
    kind: "commit",
    marker,
    block: B,
    requestId: `r${marker}`,
    invokeAt: at,
    completeAt: at + 1,
    outcome,
    detail,
  });
  const final = (text: string, logged: number): FinalState => ({
    blocks: { [B]: text },
    kernelWritesLogged: logged,
  });

  it("accepts a correct history: an ack superseded by a later external edit, an unknown resolved as applied", () => {
    const history: History = {
      seed: 1,
      calls: [
        commit("m1x1", "ok", "committed", 0),
        commit("m1x2", "unknown", "outcome_unknown", 5),
      ],
      applications: [
        { marker: "m1x1", block: B, at: 1, source: "kernel" },
        { marker: "m1x2", block: B, at: 6, source: "kernel" },
        { marker: "m1x3", block: B, at: 9, source: "external" },
      ],
    };
    expect(checkHistory(history, final("Outside m1x3", 2))).toEqual([]);
  });

  it("reports a double application and a lost acknowledged write", () => {
    const history: History = {
      seed: 2,
      calls: [
        commit("m2x1", "unknown", "outcome_unknown", 0),
        commit("m2x1", "ok", "committed", 3),
        commit("m2x2", "ok", "committed", 10),
      ],
      applications: [
        { marker: "m2x1", block: B, at: 1, source: "kernel" },
        { marker: "m2x1", block: B, at: 4, source: "kernel" },
        { marker: "m2x2", block: B, at: 11, source: "kernel" },
      ],
    };
    // m2x2 was acknowledged last, yet the block shows m2x1: m2x2 is lost
    const kinds = checkHistory(history, final("Note m2x1", 3)).map((a) => `${a.kind}:${a.marker}`);
    expect(kinds).toContain("double_application:m2x1");
    expect(kinds).toContain("lost_ack:m2x2");
  });

  it("reports execution after state_changed, an ack that never reached the kernel, phantom content, a write nobody committed and a log mismatch", () => {
    const history: History = {
      seed: 3,
      calls: [
        commit("m3x1", "fail", "state_changed", 0),
        commit("m3x2", "ok", "committed", 5),
        commit("m3x3", "unknown", "outcome_unknown", 8),
      ],
      applications: [
        { marker: "m3x1", block: B, at: 1, source: "kernel" },
        { marker: "m3x0", block: B, at: 2, source: "kernel" },
      ],
    };
    const kinds = checkHistory(history, final("Note m3x1 m3x3", 3)).map(
      (a) => `${a.kind}:${a.marker ?? ""}`,
    );
    expect(kinds).toEqual(
      expect.arrayContaining([
        "executed_after_refusal:m3x1",
        "ack_not_applied:m3x2",
        "phantom_content:m3x3",
        "unresolvable_unknown:m3x3",
        "unrequested_application:m3x0",
        "log_mismatch:",
      ]),
    );
  });
});
