/**
 * Lease expiry in the kernel plugin follows a monotonic clock (issue 18, "Clock and time"): the
 * plugin's wall clock (`Date.now()` in the sandbox plugin host, stepped with
 * `plugins.stepClock`) going back an hour does not keep a lease alive. The plugin runs in goja,
 * which has no `performance.now()`, so its monotonic clock is built from `Date.now()`
 * (kernel-plugin `src/kernel/monotonic.ts`): a backwards step counts as zero elapsed time, forward
 * progress counts in full; it reads the wall clock every second, so each step is seen on its own
 * (the test waits past that interval after each step). Driven with the official MCP client over
 * loopback HTTP.
 */
import type { Client } from "@modelcontextprotocol/client";
import { DEMO_IDS, type Sandbox } from "@sisyphus/siyuan-sandbox";
import { letTimePass } from "@sisyphus/siyuan-sandbox/testing";
import { LEASE_TTL_MS } from "@sisyphus/write-safety";
import { afterEach, describe, expect, it } from "vitest";
import {
  commitArgs,
  kernelClient,
  sc,
  useSandboxWithPlugin,
} from "../../kernel-plugin/test/harness.js";

const UPDATE = "/api/block/updateBlock";
const HOUR = 60 * 60 * 1000;
const SECOND = 1000;
/** Longer than the plugin's clock sampling interval (1 s), so it sees each step on its own. */
const SAMPLED_MS = 2500;

describe("kernel plugin: lease expiry on a monotonic clock", () => {
  const box = useSandboxWithPlugin();
  afterEach(() => {
    // Undo every step: the next test starts on the real wall clock.
    const sb: Sandbox = box.current;
    sb.plugins.stepClock(-sb.plugins.stepClock(0));
  });

  /** Preflight, wall stepped by `steps` in turn, then commit: the answer and the writes it made. */
  async function leaseAcross(id: string, data: string, steps: readonly number[]) {
    const sb = box.current;
    const client: Client = await kernelClient(sb);
    try {
      const args = await commitArgs(client, id, data);
      for (const ms of steps) {
        sb.plugins.stepClock(ms);
        await letTimePass(SAMPLED_MS, "the plugin's clock sampler sees this step on its own");
      }
      const before = sb.control.count(UPDATE);
      const answer = sc(await client.callTool({ name: "block", arguments: args }));
      await sb.control.flush();
      return { answer, writes: sb.control.count(UPDATE) - before, live: sb.control.kramdown(id) };
    } finally {
      await client.close();
    }
  }

  it("wall stepped back 1 h, then 10 min pass: the lease has expired and nothing is written", async () => {
    // On the wall clock the lease would still have 50 minutes to live (the old behaviour wrote).
    const r = await leaseAcross(DEMO_IDS.paragraphMilestones, "Milestones after a clock step", [
      -HOUR,
      LEASE_TTL_MS + SECOND,
    ]);
    expect(r.answer["error"], JSON.stringify(r.answer)).toMatchObject({
      code: "preflight_lease_invalid",
      writeAttempted: false,
      details: { reason: "expired" },
    });
    expect(r.writes).toBe(0);
    expect(r.live).not.toContain("Milestones after a clock step");
  });

  it("wall stepped back 1 h, then 9 min pass: the lease is still live and commits once", async () => {
    const r = await leaseAcross(DEMO_IDS.paragraphJournal, "Journal after a clock step", [
      -HOUR,
      LEASE_TTL_MS - 60 * SECOND,
    ]);
    expect(r.answer, JSON.stringify(r.answer)).toMatchObject({ status: "committed" });
    expect(r.writes).toBe(1);
    expect(r.live).toContain("Journal after a clock step");
  });

  it("the residual: a forward jump past the lease's life expires it (shortened, never lengthened)", async () => {
    const r = await leaseAcross(DEMO_IDS.paragraphGoals, "Goals after a forward jump", [
      LEASE_TTL_MS + SECOND,
    ]);
    // The request ID's first-execution deadline is on the wall clock and has the same length, so
    // either refusal may come first; both write nothing.
    expect(r.answer["error"], JSON.stringify(r.answer)).toMatchObject({
      code: "preflight_lease_invalid",
      writeAttempted: false,
    });
    expect(["expired", "request_id_expired"]).toContain(
      (r.answer["error"] as { details?: { reason?: string } }).details?.reason,
    );
    expect(r.writes).toBe(0);
  });
});
