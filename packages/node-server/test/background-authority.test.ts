/**
 * "A stdio configuration that can write" (issue 13): a host configured with nothing but
 * `sisyphus-server --stdio --siyuan-url … ` (token in the environment, no auth token, no HTTP
 * server) commits strict writes. The first delegated call starts the Node HTTP authority as a
 * detached background process on the data directory; later stdio processes use the same one; it
 * stops when no client is left; a dead one is never a fallback. Driven with the official client
 * over real stdio against the sandbox kernel over loopback HTTP.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { DEMO_IDS, type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { observeQuietFor, waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  alive,
  authorityPid,
  blockPreflight,
  errorCode,
  killAll,
  sc,
  stdioClient,
  strictUpdate,
  tempDataDir,
} from "./harness.js";

const UPDATE = "/api/block/updateBlock";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ seed: "demo" });
});
afterAll(async () => {
  await killAll();
  await sandbox.stop();
});

/** A stdio client configured the way a host's pasted entry is: kernel URL and token, nothing else. */
function stdioOnly(dataDir: string, extraArgs: string[] = [], kernel: Sandbox = sandbox) {
  return stdioClient({
    era: "modern",
    dataDir,
    siyuanUrl: kernel.url,
    siyuanToken: kernel.token,
    extraArgs,
  });
}

interface Record_ {
  url: string;
  pid: number;
  epoch: string;
  kind: string;
  siyuanUrl?: string;
  idleStopMs?: number;
}
const recordOf = (dir: string) =>
  JSON.parse(readFileSync(join(dir, "authority.json"), "utf8")) as Record_;
const credentialOf = (dir: string) => readFileSync(join(dir, "authority.credential"), "utf8");
const modeOf = (path: string) => statSync(path).mode & 0o777;

/** `GET /health` of the background authority of `dir`, with the credential a same-user process reads. */
async function health(dir: string, token = credentialOf(dir)) {
  const res = await fetch(new URL("/health", recordOf(dir).url), {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.status, body: (await res.json()) as Record<string, number> };
}

async function stopped(pid: number) {
  await waitFor(() => !alive(pid), { what: `process ${pid} to exit`, timeoutMs: 20_000 });
}

describe("a stdio-only configuration", () => {
  it("commits a strict write: the first delegated call starts the Node authority in the background", async () => {
    const dir = tempDataDir();
    const client = await stdioOnly(dir);
    // Reads run in the stdio process and start nothing.
    const listed = await client.callTool({ name: "notebook", arguments: { action: "list" } });
    expect(listed.isError).not.toBe(true);
    expect(authorityPid(dir)).toBeUndefined();

    const before = sandbox.control.count(UPDATE);
    const { pre, commit } = await strictUpdate(
      client,
      DEMO_IDS.paragraphStatus,
      "Status: written from a stdio-only configuration",
    );
    expect(pre["writeAttempted"]).toBe(false);
    expect(sc(commit)["status"], JSON.stringify(sc(commit))).toBe("committed");
    expect(sandbox.control.count(UPDATE)).toBe(before + 1);
    expect(sandbox.control.kramdown(DEMO_IDS.paragraphStatus)).toContain(
      "written from a stdio-only configuration",
    );

    const record = recordOf(dir);
    expect(record).toMatchObject({
      kind: "node-http",
      siyuanUrl: sandbox.url,
      idleStopMs: 600_000,
    });
    expect(record.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(alive(record.pid)).toBe(true);
    // Same-user only: the directory is 0700, the credential and the log 0600.
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(join(dir, "authority.credential"))).toBe(0o600);
    expect(modeOf(join(dir, "authority.log"))).toBe(0o600);
    expect((await health(dir)).status).toBe(200);
    expect((await health(dir, "not-the-credential")).status).toBe(401);
    // No secret in a file: neither the kernel token nor the credential is in the log or the record.
    const log = readFileSync(join(dir, "authority.log"), "utf8");
    expect(log).toContain("background authority for stdio processes");
    for (const text of [log, readFileSync(join(dir, "authority.json"), "utf8")]) {
      expect(text).not.toContain(sandbox.token);
      expect(text).not.toContain(credentialOf(dir));
    }
    await client.close();
    // It outlives the stdio process that started it (detached), until its idle period ends.
    expect(alive(record.pid)).toBe(true);
    process.kill(record.pid, "SIGTERM");
    await stopped(record.pid);
  });

  it("two stdio clients started at once share one authority, one lease pool and one write lane", async () => {
    const dir = tempDataDir();
    const [a, b] = (await Promise.all([stdioOnly(dir), stdioOnly(dir)])) as [Client, Client];
    // Both race to start it: one wins the data directory's lock, the other's start gives way.
    const [pa, pb] = await Promise.all([
      blockPreflight(a, {
        action: "update",
        id: DEMO_IDS.paragraphGoals,
        dataType: "markdown",
        data: "Goals from stdio A",
      }),
      blockPreflight(b, {
        action: "update",
        id: DEMO_IDS.paragraphDecision,
        dataType: "markdown",
        data: "Decision from stdio B",
      }),
    ]);
    expect(pa.result.isError, JSON.stringify(pa.p)).not.toBe(true);
    expect(pb.result.isError, JSON.stringify(pb.p)).not.toBe(true);
    const log = readFileSync(join(dir, "authority.log"), "utf8");
    expect(log.match(/listening on /g)?.length).toBe(1);

    // One lane: each commit's kernel write takes 400 ms, so the second waits in the lane behind it.
    const before = sandbox.control.count(UPDATE);
    sandbox.control.armFault({ endpoint: UPDATE, kind: "delay", delayMs: 400, times: 2 });
    // One lease pool: B commits what A preflighted, and A what B preflighted.
    const commits = Promise.all([
      b.callTool({ name: "block", arguments: pa.commitArgs }),
      a.callTool({ name: "block", arguments: pb.commitArgs }),
    ]);
    await waitFor(async () => (await health(dir)).body["writesQueued"] === 1, {
      what: "a commit queued behind the other in the one lane",
    });
    const [ca, cb] = await commits;
    sandbox.control.clearFaults();
    expect(sc(ca)["status"], JSON.stringify(sc(ca))).toBe("committed");
    expect(sc(cb)["status"], JSON.stringify(sc(cb))).toBe("committed");
    expect(sandbox.control.count(UPDATE)).toBe(before + 2);
    await Promise.all([a.close(), b.close()]);
  });

  it("killing the background authority mid-commit never double-writes; the next call starts a new one", async () => {
    const dir = tempDataDir();
    const client = await stdioOnly(dir);
    const id = DEMO_IDS.headingJournal;
    const lost = await blockPreflight(client, {
      action: "update",
      id,
      dataType: "markdown",
      data: "## Journal (authority killed)",
    });
    const old = await blockPreflight(client, {
      action: "update",
      id: DEMO_IDS.paragraphJournal,
      dataType: "markdown",
      data: "Journal: leased before the kill",
    });
    const first = recordOf(dir);
    const before = sandbox.control.count(UPDATE);
    sandbox.control.armFault({ endpoint: UPDATE, kind: "delay", delayMs: 1_500 });
    const pending = client.callTool({ name: "block", arguments: lost.commitArgs });
    await waitFor(() => sandbox.control.count(UPDATE) > before, { timeoutMs: 15_000 });
    process.kill(first.pid, "SIGKILL");
    const res = await pending;
    expect(sc(res)["error"], JSON.stringify(sc(res))).toMatchObject({
      code: "outcome_unknown",
      requestId: lost.p["requestId"],
    });
    await waitFor(() => sandbox.control.kramdown(id)?.includes("authority killed") === true);
    sandbox.control.clearFaults();

    // The retry starts a new authority on the same ledger: `executing` was recorded, so it answers
    // outcome_unknown and writes nothing again.
    const retry = await client.callTool({ name: "block", arguments: lost.commitArgs });
    expect(errorCode(retry), JSON.stringify(sc(retry))).toBe("outcome_unknown");
    const second = recordOf(dir);
    expect(second.pid).not.toBe(first.pid);
    expect(second.epoch).not.toBe(first.epoch);
    expect(sandbox.control.count(UPDATE)).toBe(before + 1);
    // A lease of the dead authority is refused, naming why.
    const stale = await client.callTool({ name: "block", arguments: old.commitArgs });
    expect(sc(stale)["error"]).toMatchObject({
      code: "preflight_lease_invalid",
      details: { reason: "other_epoch" },
    });
    expect(sandbox.control.count(UPDATE)).toBe(before + 1);
    // A fresh preflight and commit go through the new one.
    const { commit } = await strictUpdate(client, DEMO_IDS.paragraphJournal, "Journal: after");
    expect(sc(commit)["status"]).toBe("committed");
    expect(sandbox.control.count(UPDATE)).toBe(before + 2);
    await client.close();
  });

  it("stays while a stdio client lives (heartbeats), stops after the idle period once none is left", async () => {
    const dir = tempDataDir();
    const client = await stdioOnly(dir, ["--idle-stop-ms", "1500"]);
    const { commit } = await strictUpdate(client, DEMO_IDS.paragraphGoals, "Goals: idle test");
    expect(sc(commit)["status"]).toBe("committed");
    const { pid, idleStopMs } = recordOf(dir);
    expect(idleStopMs).toBe(1500);
    // Three idle periods with an idle client: its heartbeats keep the authority serving.
    await observeQuietFor(4_500, () => !alive(pid), {
      what: "the authority to stop while a stdio client lives",
    });
    expect(alive(pid)).toBe(true);
    expect(
      errorCode(await client.callTool({ name: "notebook", arguments: { action: "list" } })),
    ).toBeUndefined();
    await client.close();
    await stopped(pid);
    // It cleaned up after itself: no record or credential left to mislead the next process.
    expect(authorityPid(dir)).toBeUndefined();
    expect(() => credentialOf(dir)).toThrow();
    expect(readFileSync(join(dir, "authority.log"), "utf8")).toContain(
      "nothing in flight: stopping",
    );
  });

  it("refuses an authority that writes to another kernel, and says when the background start fails", async () => {
    const dir = tempDataDir();
    const first = await stdioOnly(dir);
    const { commit } = await strictUpdate(first, DEMO_IDS.paragraphGoals, "Goals: kernel A");
    expect(sc(commit)["status"]).toBe("committed");
    const other = await startSandbox({ seed: "demo" });
    try {
      const client = await stdioOnly(dir, [], other);
      const before = other.control.count(UPDATE);
      const res = await blockPreflight(client, {
        action: "update",
        id: DEMO_IDS.paragraphGoals,
        dataType: "markdown",
        data: "x",
      });
      expect(res.p["error"]).toMatchObject({
        code: "write_coordinator_unavailable",
        reason: "other_kernel",
      });
      expect(other.control.count(UPDATE)).toBe(before);
      await client.close();
    } finally {
      await other.stop();
    }
    await first.close();

    // A data directory whose ledger is damaged: the background authority refuses to start, and the
    // stdio process says so (with the authority's own words from its log), writing nothing.
    const broken = tempDataDir();
    writeFileSync(join(broken, "ledger.wal"), "{not json\n{also not json\n", { mode: 0o600 });
    const client = await stdioOnly(broken);
    const before = sandbox.control.count(UPDATE);
    const res = await blockPreflight(client, {
      action: "update",
      id: DEMO_IDS.paragraphGoals,
      dataType: "markdown",
      data: "x",
    });
    expect(res.p["error"], JSON.stringify(res.p)).toMatchObject({
      code: "write_coordinator_unavailable",
      reason: "start_failed",
    });
    expect(String((res.p["error"] as { message: string }).message)).toMatch(/exited \(code 1\)/);
    expect(sandbox.control.count(UPDATE)).toBe(before);
    await client.close();
  });
});
