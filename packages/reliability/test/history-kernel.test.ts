/**
 * History check through the kernel plugin (issue 18, the spec's primary authority): the seeded
 * generator and checker of history.test.ts, run against the built plugin in the sandbox's plugin
 * host with the official MCP client over loopback HTTP. Plugin reloads stand where the Node run
 * SIGKILLs its server (between rounds, and while a commit is held inside the kernel call); kernel
 * restarts, resets after apply, 5xx, retries with the same requestId and external edits as there.
 * Every run prints its seeds; replay one with RELIABILITY_SEED=<n>; RELIABILITY_LONG=1 runs more and
 * longer histories. A history with anomalies is saved as JSON.
 *
 * Run: `pnpm exec vitest run test/history-kernel.test.ts` in packages/reliability (needs the built
 * plugin: `pnpm --filter @sisyphus/kernel-plugin build`).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkHistory } from "./support/history-checker.js";
import { generatePlan } from "./support/history-generator.js";
import { runPlan } from "./support/history-runner.js";
import { historySeeds, LONG, REPLAY } from "./support/history-seeds.js";
import { openKernelSystem } from "./support/kernel-history.js";

const OPERATIONS = LONG ? 150 : 25;

describe("history check against the kernel plugin", () => {
  for (const seed of historySeeds(2, 6)) {
    it(`seed ${seed}: no lost ack, no double application, every unknown resolvable`, async () => {
      const plan = generatePlan({ seed, operations: OPERATIONS });
      console.log(
        `[history-kernel] seed ${seed} (replay: ${REPLAY}RELIABILITY_SEED=${seed}): ${plan.operations} operations in ${plan.rounds.length} rounds`,
      );
      const { history, final } = await runPlan(plan, openKernelSystem);
      const anomalies = checkHistory(history, final);
      const outcomes: Record<string, number> = {};
      for (const c of history.calls) {
        const k = `${c.kind === "nemesis" ? c.process : c.kind}:${c.outcome}`;
        outcomes[k] = (outcomes[k] ?? 0) + 1;
      }
      console.log(
        `[history-kernel] seed ${seed}: ${history.calls.length} calls ${JSON.stringify(outcomes)}, ${history.applications.length} applications, ${anomalies.length} anomalies`,
      );
      if (anomalies.length > 0) {
        const dir = join(tmpdir(), "history-kernel");
        mkdirSync(dir, { recursive: true });
        const file = join(dir, `history-kernel-${seed}.json`);
        writeFileSync(file, JSON.stringify({ anomalies, final, history }, null, 1));
        console.log(`[history-kernel] seed ${seed}: saved ${file}`);
      }
      expect(anomalies, `replay with ${REPLAY}RELIABILITY_SEED=${seed}`).toEqual([]);
      // The run exercised what it claims: writes were acknowledged and the authority went down.
      expect(history.calls.some((c) => c.kind === "commit" && c.outcome === "ok")).toBe(true);
    });
  }
});
