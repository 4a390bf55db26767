/**
 * The history check (history.test.ts) with every agent behind its own delegating stdio front
 * (`sisyphus-server --stdio`, the official MCP client's stdio transport) instead of MCP over HTTP:
 * the same seeded plans (concurrent agents, retries with the same requestId, external edits,
 * kernel faults and restarts, the authority SIGKILLed between rounds and during a commit), the
 * same checker over the history and the final kernel state. The fronts outlive the authority's
 * crashes. Every run prints its seed; replay one with RELIABILITY_SEED=<n>; RELIABILITY_LONG=1
 * runs three longer histories.
 */
import { describe, expect, it } from "vitest";
import { killAll } from "../../node-server/test/harness.js";
import { checkHistory } from "./support/history-checker.js";
import { generatePlan } from "./support/history-generator.js";
import { runPlan } from "./support/history-runner.js";

const LONG = process.env["RELIABILITY_LONG"] === "1";
const SEED_ENV = process.env["RELIABILITY_SEED"];
const OPERATIONS = LONG ? 120 : 30;
const REPLAY = LONG ? "RELIABILITY_LONG=1 " : "";

/** The first seed from `from` whose plan kills the authority both between rounds and mid-commit. */
function crashingSeed(from: number): number {
  const kills = (seed: number) =>
    new Set(generatePlan({ seed, operations: OPERATIONS }).rounds.map((r) => r.nemesis.kind));
  let seed = from;
  while (!(kills(seed).has("crash") && kills(seed).has("crashDuringCommit"))) seed++;
  return seed;
}

/** Seeds whose plans crash the authority (the fronts must outlive it): printed, replayable. */
function seeds(): number[] {
  if (SEED_ENV !== undefined) return [Number.parseInt(SEED_ENV, 10)];
  const out = [crashingSeed(Date.now() % 1_000_000)];
  while (out.length < (LONG ? 3 : 1)) out.push(crashingSeed((out.at(-1) as number) + 1));
  return out;
}

describe("history check through stdio fronts delegating to the Node authority", () => {
  for (const seed of seeds()) {
    it(`seed ${seed}: no lost ack, no double application, every unknown resolvable`, async () => {
      const plan = generatePlan({ seed, operations: OPERATIONS });
      const replay = `${REPLAY}RELIABILITY_SEED=${seed} pnpm exec vitest run test/delegation-history.test.ts`;
      console.log(
        `[history/stdio] seed ${seed} (replay: ${replay}): ${plan.operations} operations in ${plan.rounds.length} rounds, nemeses ${plan.rounds.map((r) => r.nemesis.kind).join(",")}`,
      );
      try {
        const { history, final } = await runPlan(plan, "stdio");
        const anomalies = checkHistory(history, final);
        const outcomes: Record<string, number> = {};
        for (const c of history.calls) {
          const k = `${c.kind}:${c.outcome ?? "open"}`;
          outcomes[k] = (outcomes[k] ?? 0) + 1;
        }
        console.log(
          `[history/stdio] seed ${seed}: ${history.calls.length} calls ${JSON.stringify(outcomes)}, ${history.applications.length} applications, ${anomalies.length} anomalies`,
        );
        expect(anomalies, `replay: ${replay}`).toEqual([]);
        // the run exercised what it claims: writes were acknowledged through the fronts
        expect(history.calls.some((c) => c.kind === "commit" && c.outcome === "ok")).toBe(true);
      } finally {
        await killAll();
      }
    }, 240_000);
  }
});
