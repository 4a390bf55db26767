/**
 * Crash points of both authorities (issue 18, fault matrix: "authority SIGKILL after `executing`
 * and before `committed`", "plugin reload between preflight and commit").
 *
 * Node authority, a real process: node-server's test crash point freezes it at an exact step (the
 * `executing` record just fsynced, before the kernel write; or the write applied and read back,
 * before `committed` is recorded), the test SIGKILLs it there and restarts it on the same data
 * directory. The replay of the same request ID must answer honestly (`outcome_unknown`: the
 * ledger says execution began), the sandbox's request log must show 0 or 1 applications, and a
 * new preflight must work. A kill right after a preflight answer must leave the request ID
 * reserved on disk, so it is never issued again.
 *
 * Kernel plugin, in the sandbox's plugin host: a reload between preflight and commit forgets the
 * lease (`preflight_lease_invalid`, `other_epoch`) and writes nothing; a reload while a commit is
 * held between `executing` and `committed` waits for it, and a replay afterwards writes nothing.
 */
import type { Client } from "@modelcontextprotocol/client";
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { describe, expect, it } from "vitest";
import {
  kernelClient,
  commitArgs as kernelCommitArgs,
  sc as kernelSc,
  PLUGIN_NAME,
  useSandboxWithPlugin,
} from "../../kernel-plugin/test/harness.js";
import { withTestCrashPoint } from "../../node-server/src/test-crash-point.js";
import {
  authorityFor,
  blockPreflight,
  httpClient,
  sc,
  strictUpdate,
  tempDataDir,
} from "../../node-server/test/harness.js";
import {
  authorityWithCrashPoint,
  type CrashPoint,
  durableLedgerRecord,
  durableReservations,
  frozenAt,
} from "./support/crash-node.js";
import { useDemoKernel } from "./support/demo-kernel.js";

const UPDATE = "/api/block/updateBlock";
const INSERT = "/api/block/insertBlock";
const WAIT_MS = 15_000;

describe("Node authority: SIGKILL between executing and committed", () => {
  const box = useDemoKernel();

  /**
   * Commits an update of `id` on an authority frozen at `point`, SIGKILLs it there and restarts
   * it on the same data directory. Returns what a test needs to judge the aftermath.
   */
  async function crashDuringCommit(id: string, data: string, point: CrashPoint) {
    const dir = tempDataDir();
    const crashing = await authorityWithCrashPoint(box.current, dir, point);
    const client = await httpClient(crashing.url, { era: "modern" });
    const kramdownBefore = box.current.control.kramdown(id);
    const pre = await blockPreflight(client, { action: "update", id, dataType: "markdown", data });
    const requestId = pre.p["requestId"] as string;
    expect(typeof requestId, JSON.stringify(pre.p)).toBe("string");
    const updatesBefore = box.current.control.count(UPDATE);
    const pending = client
      .callTool({ name: "block", arguments: pre.commitArgs })
      .catch((e: unknown) => e);
    await frozenAt(crashing, point);
    // Frozen: what the data directory holds now is what survives the kill.
    const record = durableLedgerRecord(dir, requestId);
    await crashing.stop("SIGKILL");
    expect(crashing.child.signalCode).toBe("SIGKILL");
    const lost = await pending;
    await client.close().catch(() => undefined);
    const restarted = await authorityFor(box.current, dir);
    const again = await httpClient(restarted.url, { era: "modern" });
    return { requestId, record, lost, kramdownBefore, updatesBefore, again, restarted, pre };
  }

  it("after `executing` is durable, before dispatch: the replay answers outcome_unknown and nothing was applied", async () => {
    const id = DEMO_IDS.paragraphGoals;
    const data = "Goals written across a crash before dispatch";
    const c = await crashDuringCommit(id, data, "after-executing");
    expect(c.record).toMatchObject({ state: "executing", requestId: c.requestId });
    // The killed call never got an answer claiming anything.
    expect(sc(c.lost)["status"]).toBeUndefined();
    expect(box.current.control.count(UPDATE)).toBe(c.updatesBefore);

    const replay = await c.again.callTool({ name: "block", arguments: c.pre.commitArgs });
    expect(sc(replay)["error"], JSON.stringify(sc(replay))).toMatchObject({
      code: "outcome_unknown",
      writeExecuted: "unknown",
      details: {
        requestId: c.requestId,
        ledgerState: "executing",
        reason: "replay_of_unsettled_request",
      },
    });
    // Inspecting the target, as outcome_unknown asks: untouched, and the log shows 0 applications.
    expect(box.current.control.kramdown(id)).toBe(c.kramdownBefore);
    expect(box.current.control.count(UPDATE)).toBe(c.updatesBefore);
    // A second replay is as honest, and still writes nothing.
    const replay2 = await c.again.callTool({ name: "block", arguments: c.pre.commitArgs });
    expect(sc(replay2)["error"]).toMatchObject({ code: "outcome_unknown" });
    expect(box.current.control.count(UPDATE)).toBe(c.updatesBefore);

    // A new preflight works and its commit applies once.
    const fresh = await strictUpdate(c.again, id, data);
    expect(sc(fresh.commit), JSON.stringify(sc(fresh.commit))).toMatchObject({
      status: "committed",
    });
    expect(fresh.pre["requestId"]).not.toBe(c.requestId);
    expect(box.current.control.count(UPDATE)).toBe(c.updatesBefore + 1);
    expect(box.current.control.kramdown(id)).toContain(data);
    await c.again.close();
    await c.restarted.stop();
  });

  it("after the write and its readback, before `committed`: the replay answers outcome_unknown and the write was applied once", async () => {
    const id = DEMO_IDS.paragraphDecision;
    const data = "Decision written across a crash before committed";
    const c = await crashDuringCommit(id, data, "before-committed");
    expect(c.record).toMatchObject({ state: "executing", requestId: c.requestId });
    expect(sc(c.lost)["status"]).toBeUndefined();
    expect(box.current.control.count(UPDATE)).toBe(c.updatesBefore + 1);
    expect(box.current.control.kramdown(id)).toContain(data);

    const replay = await c.again.callTool({ name: "block", arguments: c.pre.commitArgs });
    expect(sc(replay)["error"], JSON.stringify(sc(replay))).toMatchObject({
      code: "outcome_unknown",
      writeExecuted: "unknown",
      details: {
        requestId: c.requestId,
        ledgerState: "executing",
        reason: "replay_of_unsettled_request",
      },
    });
    expect(box.current.control.count(UPDATE)).toBe(c.updatesBefore + 1);

    // A new preflight sees the applied state: a commit of other content applies once more.
    const next = "Decision after the restart";
    const fresh = await strictUpdate(c.again, id, next);
    expect(sc(fresh.commit), JSON.stringify(sc(fresh.commit))).toMatchObject({
      status: "committed",
    });
    expect(box.current.control.count(UPDATE)).toBe(c.updatesBefore + 2);
    expect(box.current.control.kramdown(id)).toContain(next);
    // The old request ID still never executes again.
    const late = await c.again.callTool({ name: "block", arguments: c.pre.commitArgs });
    expect(sc(late)["error"]).toMatchObject({ code: "outcome_unknown" });
    expect(box.current.control.count(UPDATE)).toBe(c.updatesBefore + 2);
    await c.again.close();
    await c.restarted.stop();
  });

  it.each(["after-executing", "before-committed"] as const)(
    "a resumable av.create killed %s resumes on replay: committed once, proven by the kernel",
    async (point) => {
      const dir = tempDataDir();
      const crashing = await authorityWithCrashPoint(box.current, dir, point);
      const client = await httpClient(crashing.url, { era: "modern" });
      const name = `Crash ${point}`;
      const args = {
        action: "create",
        parentID: DEMO_IDS.docMilestones,
        name,
        columns: [{ name: "Done", type: "checkbox" }],
      };
      const pre = sc(
        await client.callTool({ name: "av", arguments: { ...args, validateOnly: true } }),
      );
      const commitArgs = { ...args, requestId: pre["requestId"] };
      const inserts = box.current.control.count(INSERT);
      const pending = client
        .callTool({ name: "av", arguments: commitArgs })
        .catch((e: unknown) => e);
      await frozenAt(crashing, point);
      await crashing.stop("SIGKILL");
      await pending;
      await client.close().catch(() => undefined);
      expect(box.current.control.count(INSERT)).toBe(
        inserts + (point === "after-executing" ? 0 : 1),
      );

      const restarted = await authorityFor(box.current, dir);
      const again = await httpClient(restarted.url, { era: "modern" });
      const resumed = sc(await again.callTool({ name: "av", arguments: commitArgs }));
      expect(resumed, JSON.stringify(resumed)).toMatchObject({ status: "committed", name });
      const avID = String(resumed["avID"]);
      // The kernel shows one carrier block and one creation, whichever step the kill hit.
      expect(box.current.control.avBlocks(avID)).toEqual([resumed["id"]]);
      expect(box.current.control.avLog(avID).filter((e) => e.kind === "created")).toHaveLength(1);
      expect(box.current.control.count(INSERT)).toBe(inserts + 1);
      const replay = sc(await again.callTool({ name: "av", arguments: commitArgs }));
      expect(replay).toMatchObject({ replayed: true, executedNow: false, avID });
      expect(box.current.control.count(INSERT)).toBe(inserts + 1);
      await again.close();
      await restarted.stop();
    },
  );

  it("a kill right after a preflight answer leaves its request ID reserved: never issued again", async () => {
    const dir = tempDataDir();
    let auth = await authorityFor(box.current, dir);
    let client = await httpClient(auth.url, { era: "modern" });
    const id = DEMO_IDS.paragraphStatus;
    const pre = await blockPreflight(client, {
      action: "update",
      id,
      dataType: "markdown",
      data: "Status never committed",
    });
    const requestId = pre.p["requestId"] as string;
    await auth.stop("SIGKILL");
    await client.close().catch(() => undefined);
    // Durable before the answer: the reservation and the `issued` record are on disk.
    expect(durableReservations(dir)).toContain(requestId);
    expect(durableLedgerRecord(dir, requestId)).toMatchObject({ state: "issued" });

    const updates = box.current.control.count(UPDATE);
    auth = await authorityFor(box.current, dir);
    client = await httpClient(auth.url, { era: "modern" });
    const stale = await client.callTool({ name: "block", arguments: pre.commitArgs });
    expect(sc(stale)["error"], JSON.stringify(sc(stale))).toMatchObject({
      code: "preflight_lease_invalid",
      details: { reason: "other_epoch" },
    });
    const issued = await preflightMany(client, 40);
    expect(issued).not.toContain(requestId);
    expect(new Set(issued).size).toBe(issued.length);
    const reserved = durableReservations(dir);
    for (const rid of issued) expect(reserved).toContain(rid);
    expect(reserved.filter((r) => r === requestId)).toHaveLength(1);
    expect(box.current.control.count(UPDATE)).toBe(updates);
    await client.close();
    await auth.stop();
  });
});

/** `n` preflights (block updates of the demo paragraphs, nothing committed); their request IDs. */
async function preflightMany(client: Client, n: number): Promise<string[]> {
  const targets = [DEMO_IDS.paragraphGoals, DEMO_IDS.paragraphJournal, DEMO_IDS.paragraphQuote];
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const { p } = await blockPreflight(client, {
      action: "update",
      id: targets[i % targets.length],
      dataType: "markdown",
      data: `preflight ${i}`,
    });
    ids.push(p["requestId"] as string);
  }
  return ids;
}

describe("kernel plugin: reload between the steps of a commit", () => {
  const box = useSandboxWithPlugin();

  it("between preflight and commit: the lease is gone (other_epoch), nothing is written, a new preflight commits once", async () => {
    const sb = box.current;
    const id = DEMO_IDS.paragraphMilestones;
    let client = await kernelClient(sb);
    const kramdownBefore = sb.control.kramdown(id);
    const leased = await kernelCommitArgs(client, id, "Milestones leased before a reload");
    const updates = sb.control.count(UPDATE);
    await sb.plugins.reload(PLUGIN_NAME);
    await client.close();
    client = await kernelClient(sb);
    const stale = kernelSc(await client.callTool({ name: "block", arguments: leased }));
    expect(stale["error"], JSON.stringify(stale)).toMatchObject({
      code: "preflight_lease_invalid",
      details: { reason: "other_epoch" },
    });
    expect(sb.control.count(UPDATE)).toBe(updates);
    expect(sb.control.kramdown(id)).toBe(kramdownBefore);

    const fresh = await kernelCommitArgs(client, id, "Milestones after a reload");
    expect(fresh["requestId"]).not.toBe(leased["requestId"]);
    const done = kernelSc(await client.callTool({ name: "block", arguments: fresh }));
    expect(done, JSON.stringify(done)).toMatchObject({ status: "committed" });
    expect(sb.control.count(UPDATE)).toBe(updates + 1);
    // The stale request ID still writes nothing after the fresh commit.
    const late = kernelSc(await client.callTool({ name: "block", arguments: leased }));
    expect((late["error"] as { code?: string } | undefined)?.code).toBe("preflight_lease_invalid");
    expect(sb.control.count(UPDATE)).toBe(updates + 1);
    await client.close();
  });

  it("between executing and committed (write queued in the kernel): the reload waits, the commit is recorded once, a replay writes nothing", async () => {
    const sb = box.current;
    const id = DEMO_IDS.paragraphJournal;
    const data = "Journal committed across a reload";
    let client = await kernelClient(sb);
    const args = await kernelCommitArgs(client, id, data);
    const updates = sb.control.count(UPDATE);
    // The write is answered but its transaction waits in the queue: readback cannot finish.
    sb.control.armFault({ endpoint: UPDATE, kind: "holdQueue" });
    const running = client.callTool({ name: "block", arguments: args });
    await waitFor(() => sb.control.count(UPDATE) > updates, { timeoutMs: WAIT_MS });
    let reloaded = false;
    const reloading = sb.plugins.reload(PLUGIN_NAME).then(() => {
      reloaded = true;
    });
    // The runtime is stopping while the commit is held; the reload cannot finish before it settles.
    await waitFor(() => sb.plugins.status(PLUGIN_NAME)?.state === "stopping", {
      timeoutMs: WAIT_MS,
    });
    expect(reloaded).toBe(false);
    sb.control.releaseQueue();
    await reloading;
    const answer = kernelSc(await running);
    expect(answer, JSON.stringify(answer)).toMatchObject({ status: "committed" });
    expect(sb.control.count(UPDATE)).toBe(updates + 1);
    expect(sb.control.kramdown(id)).toContain(data);
    sb.control.clearFaults();

    await client.close();
    client = await kernelClient(sb);
    const replay = kernelSc(await client.callTool({ name: "block", arguments: args }));
    expect(replay, JSON.stringify(replay)).toMatchObject({
      status: "committed",
      replayed: true,
      executedNow: false,
    });
    expect(sb.control.count(UPDATE)).toBe(updates + 1);
    const next = await kernelCommitArgs(client, id, "Journal after the reload");
    expect(kernelSc(await client.callTool({ name: "block", arguments: next }))).toMatchObject({
      status: "committed",
    });
    expect(sb.control.count(UPDATE)).toBe(updates + 2);
    await client.close();
  });
});

describe("the test crash point is inert unless armed", () => {
  it("returns the store unchanged without the variable, and refuses an unknown point", () => {
    const store = {
      loadAll: async () => [],
      put: async () => undefined,
      delete: async () => undefined,
    };
    expect(withTestCrashPoint(store, {})).toBe(store);
    expect(withTestCrashPoint(store, { SISYPHUS_TEST_CRASH_POINT: "" })).toBe(store);
    expect(() => withTestCrashPoint(store, { SISYPHUS_TEST_CRASH_POINT: "anywhere" })).toThrow(
      expect.objectContaining({ code: "config_invalid" }),
    );
  });
});
