/**
 * The settings snapshot read beside a call's first kernel reads (issue 30): the Node authority
 * starts each call's `getFile` of the settings together with the call's own first reads, and
 * decides from that call's snapshot before any write leaves and before any answer. Checked in the
 * sandbox kernel's request log (built `dist/bin.cjs`, official MCP client over loopback): a strict
 * `block.update` preflight takes 1 sequential kernel step and its commit 4; a call the settings
 * refuse, even when their read is the slowest request, dispatches no write and answers no content;
 * a settings read that fails still fails closed with the codes it always had.
 */
import type { Client } from "@modelcontextprotocol/client";
import { createSiyuanClient, type SiyuanClient, undiciTransport } from "@sisyphus/siyuan-api";
import { DEMO_IDS, type RequestLogEntry } from "@sisyphus/siyuan-sandbox";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  blockPreflight,
  errorCode,
  healthOf,
  httpClient,
  sc,
  sharedDemoAuthority,
} from "./harness.js";

const SETTINGS = "/data/storage/petal/siyuan-plugins-mcp-sisyphus/settings.json";
const GET_FILE = "/api/file/getFile";
const UPDATE = "/api/block/updateBlock";
const KRAMDOWN = "/api/block/getBlockKramdown";
/** Every kernel write path a `block.update` could take. */
const WRITES = [UPDATE, "/api/attr/setBlockAttrs", "/api/block/insertBlock"];
/** Injected on every kernel path: long enough that steps cannot be confused on a busy machine. */
const STEP_DELAY_MS = 60;

const shared = sharedDemoAuthority();
let files: SiyuanClient;
let client: Client;

async function settle(settings: Record<string, unknown>): Promise<void> {
  await files.file.putFile({ path: SETTINGS, file: JSON.stringify(settings) });
}

/** The kernel's request log from here on: `take()` returns what came since and moves on. */
function logSince() {
  let since = Math.max(0, ...shared.sandbox.control.log().map((e) => e.seq));
  return {
    take(): RequestLogEntry[] {
      const log = shared.sandbox.control.log().filter((e) => e.seq > since);
      since = Math.max(since, ...log.map((e) => e.seq));
      return log;
    },
  };
}

/**
 * Sequential steps of `log`: requests sorted by start, a new step for each one sent after every
 * earlier one had answered (requests of one step overlap).
 */
function steps(log: readonly RequestLogEntry[]): number {
  let n = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const e of [...log].sort((a, b) => a.startedAtMs - b.startedAtMs)) {
    if (e.startedAtMs >= end) n++;
    end = Math.max(end, e.startedAtMs + e.durationMs);
  }
  return n;
}

const paths = (log: readonly RequestLogEntry[]) => log.map((e) => e.path).sort();

function update(id: string, data: string) {
  return { action: "update", id, dataType: "markdown", data };
}

/** Requests of `log` to `path` that started before the settings read of `log` had answered. */
function startedDuringSettings(log: readonly RequestLogEntry[], path: string): number {
  const read = log.find((e) => e.path === GET_FILE);
  if (read === undefined) return 0;
  return log.filter((e) => e.path === path && e.startedAtMs < read.startedAtMs + read.durationMs)
    .length;
}

beforeAll(async () => {
  files = createSiyuanClient({
    transport: undiciTransport({ baseUrl: shared.sandbox.url, token: shared.sandbox.token }),
  });
  await settle({});
  client = await httpClient(shared.authority.url, { era: "modern" });
  // A process's first call reads its settings first: there is no earlier snapshot to start under.
  await client.callTool({ name: "system", arguments: { action: "version" } });
});
afterEach(async () => {
  shared.sandbox.control.clearFaults();
  await settle({});
  // The next test's calls start under the defaults again.
  await client.callTool({ name: "system", arguments: { action: "version" } });
});
afterAll(async () => {
  await client?.close();
  await files?.close();
});

describe("the settings read beside the first reads", () => {
  it("takes 1 sequential kernel step for a strict block.update preflight and 4 for its commit", async () => {
    const id = DEMO_IDS.paragraphGoals;
    shared.sandbox.control.armFault({
      endpoint: "*",
      kind: "delay",
      delayMs: STEP_DELAY_MS,
      times: "always",
    });
    const log = logSince();
    const pre = await blockPreflight(client, update(id, "Goals, stepped"));
    expect(pre.p).toHaveProperty("requestId");
    const preLog = log.take();
    expect(paths(preLog)).toEqual([GET_FILE, "/api/block/getBlockDOM", KRAMDOWN].sort());
    expect(steps(preLog)).toBe(1);

    const commit = await client.callTool({ name: "block", arguments: pre.commitArgs });
    expect(sc(commit)["status"]).toBe("committed");
    const commitLog = log.take();
    // settings ‖ re-probe (2), updateBlock, flushTransaction, readback (2)
    expect(commitLog).toHaveLength(7);
    expect(commitLog.filter((e) => e.path === GET_FILE)).toHaveLength(1);
    expect(steps(commitLog)).toBe(4);

    const read = await client.callTool({
      name: "block",
      arguments: { action: "get_kramdown", id },
    });
    expect(read.isError).not.toBe(true);
    const readLog = log.take();
    expect(paths(readLog)).toEqual([GET_FILE, KRAMDOWN].sort());
    expect(steps(readLog)).toBe(1);
  });

  it("reads the settings first for a dangerous commit: nobody is asked before they allow it", async () => {
    const fresh = await httpClient(shared.authority.url, { era: "modern" });
    shared.sandbox.control.armFault({
      endpoint: "*",
      kind: "delay",
      delayMs: STEP_DELAY_MS,
      times: "always",
    });
    // A dangerous commit asks the user only once its settings allow it: settings, then the rest.
    const { commitArgs } = await blockPreflight(fresh, {
      action: "delete",
      id: DEMO_IDS.paragraphQuote,
    });
    const log = logSince();
    const refused = await fresh.callTool({ name: "block", arguments: commitArgs });
    expect(errorCode(refused)).toBe("confirmation_required");
    const commitLog = log.take();
    const settings = commitLog.filter((e) => e.path === GET_FILE);
    expect(settings).toHaveLength(1);
    const allowedAt =
      (settings[0] as RequestLogEntry).startedAtMs + (settings[0] as RequestLogEntry).durationMs;
    // Nothing else started before the settings had answered: nobody is asked before they allow it.
    expect(commitLog.filter((e) => e.path !== GET_FILE && e.startedAtMs < allowedAt)).toEqual([]);
    // Then only the reads of what the person is shown (docs/decisions.md D-264), nothing written.
    expect(paths(commitLog.filter((e) => e.path !== GET_FILE))).toEqual([
      "/api/block/getBlockKramdowns",
      "/api/query/sql",
      "/api/query/sql",
      "/api/sqlite/flushTransaction",
    ]);
    await fresh.close();
  });
});

describe("a call its own settings refuse", () => {
  it("writes nothing when write permission was withdrawn, even with the settings read slower than the re-probe", async () => {
    const id = DEMO_IDS.paragraphDecision;
    const before = shared.sandbox.control.kramdown(id);
    const { commitArgs } = await blockPreflight(client, update(id, "Decision, refused"));
    // The next call starts under full access (the last snapshot) while its own says read-only.
    await settle({ permissions: { default: "read" } });
    shared.sandbox.control.armFault({ endpoint: GET_FILE, kind: "delay", delayMs: 400 });
    const log = logSince();
    const r = await client.callTool({ name: "block", arguments: commitArgs });
    expect(sc(r)).toMatchObject({
      error: { code: "permission_denied", needed: "write", writeAttempted: false },
    });
    const seen = log.take();
    // The re-probe ran beside the slow settings read, and no write left after it.
    expect(startedDuringSettings(seen, KRAMDOWN)).toBeGreaterThanOrEqual(1);
    for (const path of WRITES) expect(seen.filter((e) => e.path === path)).toEqual([]);
    expect(shared.sandbox.control.kramdown(id)).toBe(before);
    // Nothing was consumed or recorded: once allowed again, the same lease commits.
    await settle({});
    const again = await client.callTool({ name: "block", arguments: commitArgs });
    expect(sc(again)["status"]).toBe("committed");
  });

  it("issues no request ID when write permission was withdrawn before a preflight", async () => {
    const ledger = async () => (await healthOf(shared.authority.url))["ledgerEntries"];
    const entries = await ledger();
    await settle({ permissions: { default: "read" } });
    shared.sandbox.control.armFault({ endpoint: GET_FILE, kind: "delay", delayMs: 400 });
    const log = logSince();
    const pre = await blockPreflight(client, update(DEMO_IDS.paragraphJournal, "refused"));
    expect(pre.p).toMatchObject({ error: { code: "permission_denied" } });
    expect(pre.p).not.toHaveProperty("requestId");
    expect(startedDuringSettings(log.take(), KRAMDOWN)).toBeGreaterThanOrEqual(1);
    expect(await ledger()).toBe(entries);
  });

  it("returns no content of a read its settings forbid, though the read ran beside them", async () => {
    const id = DEMO_IDS.paragraphStatus;
    const text = String(shared.sandbox.control.kramdown(id));
    await settle({ permissions: { default: "none" } });
    shared.sandbox.control.armFault({ endpoint: GET_FILE, kind: "delay", delayMs: 400 });
    const log = logSince();
    const r = await client.callTool({ name: "block", arguments: { action: "get_kramdown", id } });
    expect(sc(r)).toMatchObject({ error: { code: "permission_denied", granted: "none" } });
    expect(JSON.stringify(r)).not.toContain(text.slice(0, 24));
    expect(startedDuringSettings(log.take(), KRAMDOWN)).toBe(1);
  });

  it("answers action_disabled and writes nothing when the action was turned off", async () => {
    const id = DEMO_IDS.paragraphGoals;
    const { commitArgs } = await blockPreflight(client, update(id, "Goals, turned off"));
    await settle({ disabled: ["block.update"] });
    shared.sandbox.control.armFault({ endpoint: GET_FILE, kind: "delay", delayMs: 400 });
    const log = logSince();
    const r = await client.callTool({ name: "block", arguments: commitArgs });
    expect(sc(r)).toMatchObject({
      writeAttempted: false,
      error: { code: "action_disabled", action: "update" },
    });
    const seen = log.take();
    for (const path of WRITES) expect(seen.filter((e) => e.path === path)).toEqual([]);
  });

  it("sees settings changed between two calls in the second one", async () => {
    const id = DEMO_IDS.paragraphGoals;
    const ok = await client.callTool({ name: "block", arguments: { action: "get_kramdown", id } });
    expect(ok.isError).not.toBe(true);
    await settle({ permissions: { default: "none" } });
    const refused = await client.callTool({
      name: "block",
      arguments: { action: "get_kramdown", id },
    });
    expect(errorCode(refused)).toBe("permission_denied");
    await settle({});
    const back = await client.callTool({
      name: "block",
      arguments: { action: "get_kramdown", id },
    });
    expect(back.isError).not.toBe(true);
  });
});

describe("a settings read that fails", () => {
  it("fails closed as before: kernel_unavailable for a 5xx or a reset, nothing written, no content", async () => {
    const id = DEMO_IDS.paragraphJournal;
    const text = String(shared.sandbox.control.kramdown(id));
    const { commitArgs } = await blockPreflight(client, update(id, "Journal, unread settings"));
    for (const kind of ["http5xx", "refuse"] as const) {
      shared.sandbox.control.armFault({ endpoint: GET_FILE, kind, times: "always" });
      const log = logSince();
      const read = await client.callTool({
        name: "block",
        arguments: { action: "get_kramdown", id },
      });
      expect(sc(read)).toMatchObject({
        error: { code: "kernel_unavailable", writeAttempted: false },
      });
      expect(JSON.stringify(read)).not.toContain(text.slice(0, 24));
      const commit = await client.callTool({ name: "block", arguments: commitArgs });
      expect(sc(commit)).toMatchObject({
        error: { code: "kernel_unavailable", writeAttempted: false },
      });
      expect(JSON.stringify(commit)).toContain("Cannot read the Sisyphus settings");
      const seen = log.take();
      for (const path of WRITES) expect(seen.filter((e) => e.path === path)).toEqual([]);
      shared.sandbox.control.clearFaults();
    }
    // Nothing was consumed: with the settings readable again the same lease commits.
    const again = await client.callTool({ name: "block", arguments: commitArgs });
    expect(sc(again)["status"]).toBe("committed");
  });

  it("refuses with the unusable-settings codes when the file is not settings", async () => {
    const id = DEMO_IDS.paragraphGoals;
    const { commitArgs } = await blockPreflight(client, update(id, "Goals, bad settings"));
    await files.file.putFile({ path: SETTINGS, file: "{ not json" });
    const log = logSince();
    const read = await client.callTool({
      name: "block",
      arguments: { action: "get_kramdown", id },
    });
    expect(sc(read)).toMatchObject({ error: { code: "permission_denied" } });
    const commit = await client.callTool({ name: "block", arguments: commitArgs });
    expect(sc(commit)).toMatchObject({
      writeAttempted: false,
      error: { code: "write_coordinator_unavailable", reason: "settings_invalid" },
    });
    const seen = log.take();
    for (const path of WRITES) expect(seen.filter((e) => e.path === path)).toEqual([]);
  });
});
