/**
 * Runs the probes against a fresh in-process sandbox kernel (`@sisyphus/siyuan-sandbox`, real
 * loopback HTTP), the way the product's tests start one: default write queue, no kernel-exact
 * replies. Its loop is slowed to "flush on demand" and its clock steps one second per reading, so
 * a run is deterministic and needs no wall-clock waits. The probe plugin runs in the goja engine
 * (SiYuan 3.7.3's own JavaScript engine), so its answers can match the recording byte for byte.
 */
import { startSandbox } from "@sisyphus/siyuan-sandbox";
import type { ProbeRecord } from "./probe.js";
import { type RunOptions, runProbes } from "./runner.js";

/** The sandbox's write-queue interval in probe runs: long, so only flushes apply the queue. */
export const SANDBOX_FLUSH_INTERVAL_MS = 600_000;

/** Starts a sandbox, runs the probes, stops it. */
export async function runAgainstSandbox(
  opts: Omit<RunOptions, "sleep"> = {},
): Promise<Record<string, ProbeRecord>> {
  const sb = await startSandbox({
    token: "sandbox-probe-token-7f3a",
    seed: "empty",
    flushIntervalMs: SANDBOX_FLUSH_INTERVAL_MS,
    deterministic: true,
    // the probe plugin runs in goja, SiYuan 3.7.3's engine, whatever the run's default engine
    pluginHost: { engine: "goja" },
    // `/__sandbox/repo-key`: the repo probes' key (a real kernel's is set with initRepoKey)
    controlRoute: true,
  });
  // the repo probes call the three paths history.snapshot_* call (the suite's /api/repo audit)
  sb.control.expectSnapshotActions();
  try {
    return await runProbes({ url: sb.url, token: sb.token }, { ...opts, sleep: async () => {} });
  } finally {
    await sb.stop();
  }
}
