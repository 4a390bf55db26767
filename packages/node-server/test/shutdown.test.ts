/**
 * SIGTERM/SIGINT on the Node authority: stop admitting writes, let admitted calls settle for the
 * grace period, then close the stores; calls still running when it ends answer outcome_unknown.
 * The commit is held inside the kernel with the sandbox's `holdQueue` (the write is queued and
 * answered, its readback's flush waits) so the signal lands between dispatch and readback.
 */
import type { ChildProcess } from "node:child_process";
import type { Client } from "@modelcontextprotocol/client";
import { DEMO_IDS, type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Authority,
  answerConfirmations,
  authorityFor,
  blockPreflight,
  errorCode,
  healthOf,
  httpClient,
  killAll,
  sc,
  spawnAuthority,
  tempDataDir,
  updatePreflight,
} from "./harness.js";

const UPDATE = "/api/block/updateBlock";
const DELETE = "/api/block/deleteBlock";
const WAIT_MS = 15_000;

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ seed: "demo" });
});
afterAll(async () => {
  sandbox.control.releaseQueue();
  await killAll();
  await sandbox.stop();
});

/** Waits until `condition` holds (`waitFor`, with this file's longer deadline). */
const until = (condition: () => boolean) => waitFor(condition, { timeoutMs: WAIT_MS });

function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: string | null }> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
}

async function preflight(client: Client, args: Record<string, unknown>) {
  const { p, commitArgs } = await blockPreflight(client, args);
  expect(typeof p["requestId"], JSON.stringify(p)).toBe("string");
  return commitArgs;
}

describe("SIGTERM drains the Node authority", () => {
  it("refuses new writes with draining, lets the held commit finish, then exits 0 with the commit durable", async () => {
    const dir = tempDataDir();
    const auth: Authority = await authorityFor(sandbox, dir);
    const client = await httpClient(auth.url, { era: "modern" });
    const id = DEMO_IDS.paragraphGoals;
    const commitArgs = await preflight(client, {
      action: "update",
      id,
      dataType: "markdown",
      data: "Goals, committed during shutdown",
    });
    const before = sandbox.control.count(UPDATE);
    sandbox.control.holdQueue();
    const pending = client.callTool({ name: "block", arguments: commitArgs });
    await until(() => sandbox.control.count(UPDATE) === before + 1);
    expect(sandbox.control.count(UPDATE)).toBe(before + 1);
    const exited = exitOf(auth.child);

    auth.child.kill("SIGTERM");
    await until(() => auth.stderr().includes("SIGTERM: draining"));
    expect(auth.stderr()).toContain("SIGTERM: draining");
    // A new write (here a preflight, over a new connection) is refused before anything runs.
    const late = await httpClient(auth.url, { era: "modern" });
    const refused = await updatePreflight(late, DEMO_IDS.paragraphDecision);
    expect(errorCode(refused)).toBe("write_coordinator_unavailable");
    expect(sc(refused)["error"]).toMatchObject({ reason: "draining" });
    expect(auth.child.exitCode).toBeNull();

    sandbox.control.releaseQueue();
    const res = await pending;
    expect(sc(res)["status"], JSON.stringify(sc(res))).toBe("committed");
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(auth.stderr()).toContain("every admitted call settled");
    expect(sandbox.control.kramdown(id)).toContain("Goals, committed during shutdown");
    await Promise.all([client.close(), late.close()]).catch(() => undefined);

    // The ledger was closed after the commit was recorded: a replay at the next start is a replay.
    const next = await authorityFor(sandbox, dir);
    const again = await httpClient(next.url, { era: "modern" });
    const replay = await again.callTool({ name: "block", arguments: commitArgs });
    expect(sc(replay)).toMatchObject({ status: "committed", replayed: true });
    expect(sandbox.control.count(UPDATE)).toBe(before + 1);
    await again.close();
    await next.stop();
  });

  it("answers outcome_unknown to the call running when the grace ends and write_coordinator_unavailable to the one queued behind it, exits 1; the replays prove which ran", async () => {
    const dir = tempDataDir();
    const auth = await spawnAuthority({
      dataDir: dir,
      siyuanUrl: sandbox.url,
      siyuanToken: sandbox.token,
      extraArgs: ["--shutdown-grace-ms", "300"],
    });
    const client = await httpClient(auth.url, { era: "modern" });
    const id = DEMO_IDS.paragraphQuote;
    const commitArgs = await preflight(client, { action: "delete", id });
    const queuedArgs = await preflight(client, {
      action: "update",
      id: DEMO_IDS.paragraphMilestones,
      dataType: "markdown",
      data: "Milestones that never ran",
    });
    const before = sandbox.control.count(DELETE);
    const updatesBefore = sandbox.control.count(UPDATE);
    sandbox.control.holdQueue();
    const pending = client.callTool({ name: "block", arguments: { ...commitArgs, confirm: true } });
    await until(() => sandbox.control.count(DELETE) === before + 1);
    expect(sandbox.control.count(DELETE)).toBe(before + 1);
    const queued = client.callTool({ name: "block", arguments: queuedArgs });
    // Queued in the coordinator's lane behind the held commit.
    await waitFor(async () => (await healthOf(auth.url))["writesQueued"] === 1, {
      timeoutMs: WAIT_MS,
    });
    const exited = exitOf(auth.child);

    auth.child.kill("SIGINT");
    const waited = await queued;
    expect(sc(waited)["error"], JSON.stringify(sc(waited))).toMatchObject({
      code: "write_coordinator_unavailable",
      reason: "shutdown",
    });
    expect(sc(waited)["writeAttempted"]).toBe(false);
    const res = await pending;
    expect(sc(res)["error"], JSON.stringify(sc(res))).toMatchObject({
      code: "outcome_unknown",
      reason: "shutdown_grace_expired",
      requestId: commitArgs["requestId"],
    });
    expect(sc(res)["writeAttempted"]).toBe(true);
    expect(await exited).toEqual({ code: 1, signal: null });
    expect(auth.stderr()).toContain("2 call(s) still running were answered outcome_unknown");
    await client.close().catch(() => undefined);

    sandbox.control.releaseQueue();
    await until(() => sandbox.control.kramdown(id) === null);
    expect(sandbox.control.kramdown(id)).toBeNull();

    // The ledger still says `executing`: the replay is outcome_unknown, checked before any
    // confirmation is asked, and nothing is written again.
    const next = await authorityFor(sandbox, dir);
    const again = await httpClient(next.url, { era: "modern", elicitation: { form: {} } });
    const asked = answerConfirmations(again);
    const replay = await again.callTool({ name: "block", arguments: commitArgs });
    expect(errorCode(replay)).toBe("outcome_unknown");
    expect(asked.count).toBe(0);
    expect(sandbox.control.count(DELETE)).toBe(before + 1);
    // The queued update never started: its request ID is still only `issued` (by the old process).
    const never = await again.callTool({ name: "block", arguments: queuedArgs });
    expect(sc(never)["error"]).toMatchObject({
      code: "preflight_lease_invalid",
      details: { reason: "other_epoch" },
    });
    expect(sandbox.control.count(UPDATE)).toBe(updatesBefore);
    await again.close();
    await next.stop();
  });
});
