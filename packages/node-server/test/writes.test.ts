import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEMO_IDS, isSerialisationExempt, type RequestLogEntry } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { describe, expect, it } from "vitest";
import {
  answerConfirmations,
  authorityFor,
  authorityPid,
  blockPreflight,
  delegatingClient,
  errorCode,
  healthOf,
  httpClient,
  sc,
  sharedDemoAuthority,
  strictUpdate,
  tempDataDir,
  updatePreflight,
} from "./harness.js";

const UPDATE = "/api/block/updateBlock";
const DELETE = "/api/block/deleteBlock";

const shared = sharedDemoAuthority();

/**
 * The pairs of kernel write requests (the paths the kernel serialises) in `log` whose times
 * overlap: one started before the other had answered.
 */
function overlappingWrites(log: RequestLogEntry[]): string[] {
  const writes = log
    .filter((e) => !isSerialisationExempt(e.path))
    .sort((x, y) => x.startedAtMs - y.startedAtMs);
  const overlaps: string[] = [];
  for (const [i, w] of writes.entries()) {
    for (const earlier of writes.slice(0, i)) {
      if (w.startedAtMs < earlier.startedAtMs + earlier.durationMs) {
        overlaps.push(`#${w.seq} ${w.path} began while #${earlier.seq} ${earlier.path} ran`);
      }
    }
  }
  return overlaps;
}

describe("strict writes through the one authority", () => {
  it("runs a full strict write from a stdio process that delegates to the HTTP authority", async () => {
    const client = await delegatingClient(shared.sandbox, shared.dataDir);
    const before = shared.sandbox.control.count(UPDATE);
    const { pre, commit, commitArgs } = await strictUpdate(
      client,
      DEMO_IDS.paragraphStatus,
      "Status: delegated write",
    );
    expect(pre["writeAttempted"]).toBe(false);
    expect(commit.isError).not.toBe(true);
    expect(sc(commit)["status"]).toBe("committed");
    expect(shared.sandbox.control.count(UPDATE)).toBe(before + 1);
    expect(shared.sandbox.control.kramdown(DEMO_IDS.paragraphStatus)).toContain(
      "Status: delegated write",
    );
    // The lease and ledger live in the authority: a replay of the same request does not write again.
    const replay = await client.callTool({ name: "block", arguments: commitArgs });
    expect(replay.isError).not.toBe(true);
    expect(shared.sandbox.control.count(UPDATE)).toBe(before + 1);
    await client.close();
  });

  it("fails a delegated write with write_coordinator_unavailable when no authority runs and starting one is off, writing nothing", async () => {
    const dir = tempDataDir();
    const client = await delegatingClient(shared.sandbox, dir, { extraArgs: ["--no-autostart"] });
    const before = shared.sandbox.control.count(UPDATE);
    const res = await updatePreflight(client, DEMO_IDS.paragraphStatus);
    expect(sc(res)["error"]).toMatchObject({
      code: "write_coordinator_unavailable",
      reason: "no_authority",
    });
    expect(sc(res)["writeAttempted"]).toBe(false);
    expect(sc(res)["error"]).toMatchObject({ writeAttempted: false });
    expect(authorityPid(dir)).toBeUndefined();
    expect(shared.sandbox.control.count(UPDATE)).toBe(before);
    await client.close();
  });

  it("serialises two HTTP clients and a stdio client writing at once: no two kernel writes overlap in time", async () => {
    const a = await httpClient(shared.authority.url, { era: "modern" });
    const b = await httpClient(shared.authority.url, { era: "legacy" });
    const c = await delegatingClient(shared.sandbox, shared.dataDir);
    const before = shared.sandbox.control.count(UPDATE);
    const since = Math.max(0, ...shared.sandbox.control.log().map((e) => e.seq));
    const targets = [
      DEMO_IDS.paragraphGoals,
      DEMO_IDS.paragraphDecision,
      DEMO_IDS.paragraphJournal,
    ] as const;
    // Each kernel write takes 300 ms, so writes that were not serialised would overlap.
    shared.sandbox.control.armFault({ endpoint: UPDATE, kind: "delay", delayMs: 300, times: 3 });
    const writing = Promise.all([
      strictUpdate(a, targets[0], "Goals from client A"),
      strictUpdate(b, targets[1], "Decision from client B"),
      strictUpdate(c, targets[2], "Journal from stdio C"),
    ]);
    // /health reports the lane that matters, the coordinator's: the others wait in it.
    const sawQueued = waitFor(
      async () => ((await healthOf(shared.authority.url))["writesQueued"] ?? 0) >= 1,
      { what: "a write queued in the coordinator's lane" },
    ).then(
      () => true,
      () => false,
    );
    const results = await writing;
    shared.sandbox.control.clearFaults();
    for (const r of results) expect(sc(r.commit)["status"]).toBe("committed");
    expect(shared.sandbox.control.count(UPDATE)).toBe(before + 3);
    expect(shared.sandbox.control.kramdown(targets[2])).toContain("Journal from stdio C");
    // One lane: in the kernel's own request log, no write request starts before the previous ends.
    const log = shared.sandbox.control.log().filter((e) => e.seq > since);
    expect(log.filter((e) => e.path === UPDATE)).toHaveLength(3);
    expect(overlappingWrites(log)).toEqual([]);
    expect(await sawQueued).toBe(true);
    await Promise.all([a.close(), b.close(), c.close()]);
  });
});

/** The kernel reads of a `block.update` preview (each preview makes one of each). */
const PREVIEW_READS = ["/api/block/getBlockInfo", "/api/block/getBlockKramdown"];

/** The `write_preview` call of a `block.update` of `id` to `data`. */
function previewOf(id: string, data: string) {
  return {
    name: "write_preview",
    arguments: {
      tool: "block",
      arguments: { action: "update", id, dataType: "markdown", data, validateOnly: true },
    },
  };
}

describe("the App's entry point in the authority's FIFO write lane", () => {
  it("queues previews from an HTTP client and a delegating stdio client behind a held commit, and runs them one at a time in order", async () => {
    const control = shared.sandbox.control;
    const a = await httpClient(shared.authority.url, { era: "modern" });
    const c = await delegatingClient(shared.sandbox, shared.dataDir);
    const { commitArgs } = await blockPreflight(a, {
      action: "update",
      id: DEMO_IDS.paragraphTaskParser,
      dataType: "markdown",
      data: "held commit",
    });
    const health = () => healthOf(shared.authority.url);
    const since = Math.max(0, ...control.log().map((e) => e.seq));
    const readsSince = (seq: number) =>
      control.log().filter((e) => e.seq > seq && PREVIEW_READS.includes(e.path));
    const answered: string[] = [];
    const call = (label: string, client: typeof a, params: Parameters<typeof a.callTool>[0]) =>
      client.callTool(params).then((r) => {
        answered.push(label);
        return sc(r);
      });
    control.armFault({ endpoint: UPDATE, kind: "hold" });
    const commit = call("commit", a, { name: "block", arguments: commitArgs });
    await waitFor(() => control.held() === 1, { what: "the held commit's write" });
    const holdSeq = control.log().find((e) => e.seq > since && e.path === UPDATE)?.seq ?? 0;
    const first = call("http preview", a, previewOf(DEMO_IDS.paragraphJournal, "first"));
    await waitFor(async () => (await health())["writesQueued"] === 1, {
      what: "the HTTP client's preview queued behind the commit",
    });
    const second = call("stdio preview", c, previewOf(DEMO_IDS.paragraphStatus, "second"));
    await waitFor(async () => (await health())["writesQueued"] === 2, {
      what: "the delegated preview queued behind it",
    });
    // While the commit holds the lane, neither preview reads anything, and nobody has answered.
    expect(readsSince(holdSeq)).toEqual([]);
    expect(answered).toEqual([]);
    expect(control.releaseHeld()).toBe(1);
    const [done, p1, p2] = await Promise.all([commit, first, second]);
    expect(done["status"]).toBe("committed");
    expect(p1).toMatchObject({ supported: true, target: { ids: [DEMO_IDS.paragraphJournal] } });
    expect(p2).toMatchObject({ supported: true, target: { ids: [DEMO_IDS.paragraphStatus] } });
    expect(answered).toEqual(["commit", "http preview", "stdio preview"]);
    // One at a time: the second preview's reads began after the first's had all answered.
    const previews = readsSince(holdSeq).slice(-4);
    const firstEnd = Math.max(...previews.slice(0, 2).map((e) => e.startedAtMs + e.durationMs));
    for (const e of previews.slice(2)) expect(e.startedAtMs).toBeGreaterThanOrEqual(firstEnd);
    await Promise.all([a.close(), c.close()]);
  });
});

describe("crash between executing and committed", () => {
  it("answers outcome_unknown after a SIGKILL and restart, without a second kernel write", async () => {
    const dir = tempDataDir();
    let auth = await authorityFor(shared.sandbox, dir);
    const client = await httpClient(auth.url, { era: "modern" });
    const id = DEMO_IDS.paragraphQuote;
    const { commitArgs } = await blockPreflight(client, {
      action: "update",
      id,
      dataType: "markdown",
      data: "Quote after crash",
    });
    const before = shared.sandbox.control.count(UPDATE);
    shared.sandbox.control.armFault({ endpoint: UPDATE, kind: "delay", delayMs: 3_000 });
    const pending = client
      .callTool({ name: "block", arguments: commitArgs })
      .catch((e: unknown) => e);
    await waitFor(() => shared.sandbox.control.count(UPDATE) > before, { timeoutMs: 15_000 });
    expect(shared.sandbox.control.count(UPDATE)).toBe(before + 1);
    await auth.stop("SIGKILL");
    await pending;
    await client.close().catch(() => undefined);
    shared.sandbox.control.clearFaults();

    auth = await authorityFor(shared.sandbox, dir);
    const again = await httpClient(auth.url, { era: "modern" });
    const replay = await again.callTool({ name: "block", arguments: commitArgs });
    expect(errorCode(replay)).toBe("outcome_unknown");
    // Let the delayed first write land, then check nothing else reached the kernel.
    await waitFor(() => String(shared.sandbox.control.kramdown(id)).includes("Quote after crash"), {
      timeoutMs: 15_000,
    });
    expect(shared.sandbox.control.count(UPDATE)).toBe(before + 1);
    await again.close();
    await auth.stop();
  });
});

describe("admission", () => {
  it("refuses calls beyond 128 in flight with queue_full, running none of them", async () => {
    const client = await httpClient(shared.authority.url, { era: "modern" });
    const endpoint = "/api/block/getBlockKramdown";
    const read = () =>
      client.callTool({
        name: "block",
        arguments: { action: "get_kramdown", id: DEMO_IDS.paragraphGoals },
      });
    const health = () => healthOf(shared.authority.url);
    // The first four reads hold the read slots; the other 124 wait in the queue. The hold is long
    // enough that a loaded machine still admits all 128 before a slot frees.
    const start = shared.sandbox.control.count(endpoint);
    shared.sandbox.control.armFault({ endpoint, kind: "delay", delayMs: 20_000, times: 4 });
    const admitted = Array.from({ length: 128 }, read);
    await waitFor(async () => (await health())["inFlight"] === 128, { timeoutMs: 18_000 });
    // The four held reads have reached the kernel; nothing else may until a slot frees.
    await waitFor(() => shared.sandbox.control.count(endpoint) === start + 4, {
      timeoutMs: 18_000,
    });
    const before = shared.sandbox.control.count(endpoint);
    const extra = await Promise.all(Array.from({ length: 4 }, read));
    for (const r of extra) expect(errorCode(r)).toBe("queue_full");
    expect(shared.sandbox.control.count(endpoint)).toBe(before);
    const results = await Promise.all(admitted);
    shared.sandbox.control.clearFaults();
    expect(results.filter((r) => r.isError !== true)).toHaveLength(128);
    await client.close();
  });
});

describe("legacy cancellation", () => {
  it("stops a queued call on notifications/cancelled before it runs", async () => {
    const client = await httpClient(shared.authority.url, { era: "legacy" });
    const preflight = async (id: string, data: string) =>
      (await blockPreflight(client, { action: "update", id, dataType: "markdown", data }))
        .commitArgs;
    const first = await preflight(DEMO_IDS.headingGoals, "# Goals (first)");
    const second = await preflight(DEMO_IDS.headingTasks, "## Tasks (cancelled)");
    const before = shared.sandbox.control.count(UPDATE);
    // Held long enough that a loaded machine queues the second call behind it.
    shared.sandbox.control.armFault({ endpoint: UPDATE, kind: "delay", delayMs: 8_000, times: 1 });
    const running = client.callTool({ name: "block", arguments: first });
    const ctl = new AbortController();
    const queued = client
      .callTool({ name: "block", arguments: second }, { signal: ctl.signal })
      .catch((e: unknown) => e);
    const health = () => healthOf(shared.authority.url);
    // Queued in the coordinator's lane behind the held write.
    await waitFor(async () => (await health())["writesQueued"] === 1);
    ctl.abort("user stopped it");
    const q = await queued;
    expect(q, JSON.stringify(q)).toBeInstanceOf(Error);
    expect(sc(await running)["status"]).toBe("committed");
    expect(shared.sandbox.control.count(UPDATE)).toBe(before + 1);
    expect((await health())["inFlight"]).toBe(0);
    // It never started: the same request can still execute once.
    const later = await client.callTool({ name: "block", arguments: second });
    expect(sc(later)["status"]).toBe("committed");
    expect(shared.sandbox.control.count(UPDATE)).toBe(before + 2);
    await client.close();
  });
});

describe("delegation edge cases", () => {
  /** A form-capable stdio client delegating to the shared authority; it accepts every confirmation. */
  async function confirmingStdioClient() {
    const client = await delegatingClient(shared.sandbox, shared.dataDir, {
      elicitation: { form: {} },
    });
    return { client, asked: answerConfirmations(client) };
  }

  it("confirms a dangerous call at the stdio ingress, then the authority runs it once", async () => {
    const { client, asked } = await confirmingStdioClient();
    const id = DEMO_IDS.paragraphMilestones;
    const { commitArgs } = await blockPreflight(client, { action: "delete", id });
    const before = shared.sandbox.control.count(DELETE);
    const res = await client.callTool({ name: "block", arguments: commitArgs });
    expect(res.isError, JSON.stringify(sc(res))).not.toBe(true);
    expect(asked.count).toBe(1);
    expect(shared.sandbox.control.count(DELETE)).toBe(before + 1);
    await client.close();
  });

  it("checks the request at the authority before the stdio ingress asks, so a doomed commit is never confirmed", async () => {
    const { client, asked } = await confirmingStdioClient();
    const id = DEMO_IDS.paragraphJournal;
    const { field, commitArgs } = await blockPreflight(client, { action: "delete", id });
    const before = shared.sandbox.control.count(DELETE);
    const unknownId = await client.callTool({
      name: "block",
      arguments: { ...commitArgs, requestId: "fedcba98" },
    });
    expect(sc(unknownId)["error"]).toMatchObject({
      code: "preflight_lease_invalid",
      details: { reason: "unknown_request_id" },
    });
    const wrongHash = await client.callTool({
      name: "block",
      arguments: { ...commitArgs, [field]: "0000" },
    });
    expect(errorCode(wrongHash)).toBe("preflight_lease_invalid");
    expect(asked.count).toBe(0);
    expect(shared.sandbox.control.count(DELETE)).toBe(before);
    // The right credential passes the check, is confirmed once, and runs once.
    const ok = await client.callTool({ name: "block", arguments: commitArgs });
    expect(ok.isError, JSON.stringify(sc(ok))).not.toBe(true);
    expect(asked.count).toBe(1);
    expect(shared.sandbox.control.count(DELETE)).toBe(before + 1);
    await client.close();
  });

  it("uses a restarted authority of the same kind, whose lease pool refuses the old leases; another kind answers write_coordinator_changed", async () => {
    const dir = tempDataDir();
    let auth = await authorityFor(shared.sandbox, dir);
    const client = await delegatingClient(shared.sandbox, dir, { extraArgs: ["--no-autostart"] });
    const pre = () => updatePreflight(client, DEMO_IDS.paragraphDecision);
    const first = await blockPreflight(client, {
      action: "update",
      id: DEMO_IDS.paragraphDecision,
      dataType: "markdown",
      data: "Decision: after restart",
    });
    expect(first.result.isError).not.toBe(true);
    await auth.stop();
    const refused = await pre();
    expect(sc(refused)["error"]).toMatchObject({ code: "write_coordinator_unavailable" });
    expect(sc(refused)["writeAttempted"]).toBe(false);
    auth = await authorityFor(shared.sandbox, dir);
    // The successor on the same data directory (same ledger) serves; the lease from before is gone.
    const before = shared.sandbox.control.count(UPDATE);
    const old = await client.callTool({ name: "block", arguments: first.commitArgs });
    expect(sc(old)["error"], JSON.stringify(sc(old))).toMatchObject({
      code: "preflight_lease_invalid",
      details: { reason: "other_epoch" },
    });
    expect(shared.sandbox.control.count(UPDATE)).toBe(before);
    expect((await pre()).isError).not.toBe(true);
    // The record now names another kind of authority: no delegation to it.
    const file = join(dir, "authority.json");
    const record = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...record, kind: "kernel" }), { mode: 0o600 });
    expect(sc(await pre())["error"]).toMatchObject({
      code: "write_coordinator_changed",
      reason: "other_kind",
    });
    writeFileSync(file, JSON.stringify(record), { mode: 0o600 });
    await client.close();
    await auth.stop();
  });
});

describe("delegation: response lost after dispatch", () => {
  it("answers outcome_unknown in the stdio process when the authority dies during a delegated commit", async () => {
    const dir = tempDataDir();
    const auth = await authorityFor(shared.sandbox, dir);
    const client = await delegatingClient(shared.sandbox, dir);
    const id = DEMO_IDS.headingJournal;
    const { p: pre, commitArgs } = await blockPreflight(client, {
      action: "update",
      id,
      dataType: "markdown",
      data: "## Journal (lost response)",
    });
    const before = shared.sandbox.control.count(UPDATE);
    shared.sandbox.control.armFault({ endpoint: UPDATE, kind: "delay", delayMs: 2_000 });
    const pending = client.callTool({ name: "block", arguments: commitArgs });
    await waitFor(() => shared.sandbox.control.count(UPDATE) > before, { timeoutMs: 15_000 });
    await auth.stop("SIGKILL");
    const res = await pending;
    shared.sandbox.control.clearFaults();
    expect(errorCode(res)).toBe("outcome_unknown");
    expect(sc(res)["error"]).toMatchObject({ requestId: pre["requestId"] });
    // The write left this process: never "nothing written".
    expect(sc(res)["writeAttempted"]).toBe(true);
    expect(sc(res)["error"]).toMatchObject({ writeAttempted: true });
    await client.close();
  });
});
