/**
 * "One authority, everywhere" (issue 15): when the settings select the kernel plugin
 * (`kernelEndpointEnabled`), the Node HTTP server and a stdio process send every strict call to the
 * plugin's `/mcp` and never coordinate on their own — no lock, no ledger in their data directory —
 * while reads run locally. The plugin not serving → `write_coordinator_unavailable`, nothing
 * written; the settings changed under a running process → `write_coordinator_changed`.
 * The built plugin zip runs in the sandbox's plugin host; the official client drives both shells.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createSiyuanClient, type SiyuanClient, undiciTransport } from "@sisyphus/siyuan-api";
import { DEMO_IDS, type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  answerConfirmations,
  authorityFor,
  authorityPid,
  blockPreflight,
  errorCode,
  healthOf,
  httpClient,
  killAll,
  PLUGIN_PACKAGE_ZIP,
  sc,
  stdioClient,
  strictUpdate,
  tempDataDir,
  updatePreflight,
} from "./harness.js";

const PLUGIN = "siyuan-plugins-mcp-sisyphus";
const UPDATE = "/api/block/updateBlock";
const DELETE = "/api/block/deleteBlock";
const ROUTE = `/plugin/private/${PLUGIN}/mcp`;

let sandbox: Sandbox;
let files: SiyuanClient;

async function putFile(path: string, text: string): Promise<void> {
  await files.file.putFile({ path, file: text });
}

async function setKernelEndpoint(enabled: boolean): Promise<void> {
  await putFile(
    `/data/storage/petal/${PLUGIN}/settings.json`,
    JSON.stringify({ kernelEndpointEnabled: enabled }),
  );
}

/** Segment files of the plugin's ledger (what the kernel authority recorded). */
async function kernelLedgerSegments(): Promise<string[]> {
  const entries = await files.file.readDir({ path: `/data/storage/petal/${PLUGIN}/ledger` });
  return (entries ?? []).map((e) => e.name).filter((n) => n.startsWith("seg-"));
}

beforeAll(async () => {
  sandbox = await startSandbox({ seed: "demo", plugins: [PLUGIN_PACKAGE_ZIP] });
  files = createSiyuanClient({
    transport: undiciTransport({ baseUrl: sandbox.url, token: sandbox.token }),
  });
  await setKernelEndpoint(true);
});
afterAll(async () => {
  await killAll();
  await files?.close();
  await sandbox?.stop();
});

describe("the kernel plugin as the write authority", () => {
  it("the Node HTTP server delegates strict writes to it, keeps no ledger, and reads locally", async () => {
    const dir = tempDataDir();
    const node = await authorityFor(sandbox, dir);
    expect(node.stderr()).toContain("the write authority is the SiYuan kernel plugin");
    const client = await httpClient(node.url, { era: "modern" });
    const boot = sc(await client.callTool({ name: "system", arguments: { action: "bootstrap" } }));
    expect(boot["authority"]).toBe("kernel");
    const before = sandbox.control.count(UPDATE);
    const segmentsBefore = (await kernelLedgerSegments()).length;
    const { commit, commitArgs } = await strictUpdate(
      client,
      DEMO_IDS.paragraphGoals,
      "Goals via the kernel",
    );
    expect(sc(commit)["status"], JSON.stringify(sc(commit))).toBe("committed");
    expect(sandbox.control.count(UPDATE)).toBe(before + 1);
    expect((await kernelLedgerSegments()).length).toBeGreaterThanOrEqual(
      Math.max(1, segmentsBefore),
    );
    // The ledger that answers the replay is the kernel's: this data directory has none.
    const replay = sc(await client.callTool({ name: "block", arguments: commitArgs }));
    expect(replay).toMatchObject({ status: "committed", replayed: true, executedNow: false });
    for (const file of ["ledger.wal", "reservations.wal", "authority.json", "authority.lock"]) {
      expect(existsSync(join(dir, file)), file).toBe(false);
    }
    expect((await healthOf(node.url))["authority"]).toBe("kernel");
    await client.close();
    await node.stop();
  });

  it("a stdio process delegates to it too, and starts no background authority", async () => {
    const dir = tempDataDir();
    const client = await stdioClient({
      era: "modern",
      dataDir: dir,
      siyuanUrl: sandbox.url,
      siyuanToken: sandbox.token,
    });
    const { commit } = await strictUpdate(
      client,
      DEMO_IDS.paragraphDecision,
      "Decision via the kernel",
    );
    expect(sc(commit)["status"], JSON.stringify(sc(commit))).toBe("committed");
    expect(authorityPid(dir)).toBeUndefined();
    await client.close();
  });

  it("a dangerous call confirmed by a Node front's MCP client is answered on the internal hop: the kernel commits it once, asking nobody again", async () => {
    // Spec: "Node calls already confirmed at ingress answer confirmation on the internal hop".
    const stdio = await stdioClient({
      era: "modern",
      dataDir: tempDataDir(),
      siyuanUrl: sandbox.url,
      siyuanToken: sandbox.token,
      elicitation: { form: {} },
    });
    const node = await authorityFor(sandbox, tempDataDir());
    const http = await httpClient(node.url, { era: "modern", elicitation: { form: {} } });
    const fronts = [
      ["stdio", stdio, DEMO_IDS.paragraphMilestones],
      ["HTTP", http, DEMO_IDS.paragraphQuote],
    ] as const;
    for (const [front, client, id] of fronts) {
      const asked = answerConfirmations(client);
      const { p, commitArgs } = await blockPreflight(client, { action: "delete", id });
      expect(p["confirmationRequired"], `${front}: ${JSON.stringify(p)}`).toBe(true);
      const before = sandbox.control.count(DELETE);
      const routed = sandbox.control.count(ROUTE);
      const res = await client.callTool({ name: "block", arguments: commitArgs });
      expect(sc(res)["status"], `${front}: ${JSON.stringify(sc(res))}`).toBe("committed");
      // The front asked its own client once; the kernel (the authority) wrote once.
      expect(asked.count, front).toBe(1);
      expect(sandbox.control.count(DELETE), front).toBe(before + 1);
      expect(sandbox.control.count(ROUTE), front).toBeGreaterThan(routed);
      expect(sandbox.control.kramdown(id), front).toBeNull();
    }
    await stdio.close();
    await http.close();
    await node.stop();
  });

  it("answers write_coordinator_unavailable while the plugin is not serving, writes nothing, still reads", async () => {
    const dir = tempDataDir();
    const node = await authorityFor(sandbox, dir);
    const client = await httpClient(node.url, { era: "modern" });
    await putFile(
      "/data/storage/petal/petals.json",
      JSON.stringify([{ name: PLUGIN, enabled: false }]),
    );
    await sandbox.plugins.reload(PLUGIN);
    try {
      const before = sandbox.control.count(UPDATE);
      const pre = await updatePreflight(client, DEMO_IDS.paragraphJournal);
      expect(sc(pre)["error"], JSON.stringify(sc(pre))).toMatchObject({
        code: "write_coordinator_unavailable",
      });
      expect(sandbox.control.count(UPDATE)).toBe(before);
      const read = await client.callTool({ name: "notebook", arguments: { action: "list" } });
      expect(read.isError).not.toBe(true);
    } finally {
      await putFile(
        "/data/storage/petal/petals.json",
        JSON.stringify([{ name: PLUGIN, enabled: true }]),
      );
      await sandbox.plugins.reload(PLUGIN);
    }
    const { commit } = await strictUpdate(
      client,
      DEMO_IDS.paragraphJournal,
      "Journal after the plugin is back",
    );
    expect(sc(commit)["status"]).toBe("committed");
    await client.close();
    await node.stop();
  });

  it("refuses strict calls with write_coordinator_changed once the settings select another authority", async () => {
    const dir = tempDataDir();
    const node = await authorityFor(sandbox, dir);
    const client = await httpClient(node.url, { era: "modern" });
    await setKernelEndpoint(false);
    try {
      const pre = await updatePreflight(client, DEMO_IDS.paragraphStatus);
      expect(sc(pre)["error"]).toMatchObject({
        code: "write_coordinator_changed",
        reason: "other_kind",
      });
      expect(
        errorCode(await client.callTool({ name: "notebook", arguments: { action: "list" } })),
      ).toBeUndefined();
    } finally {
      await setKernelEndpoint(true);
    }
    await client.close();
    await node.stop();
    // And the other way round: a Node authority started while the settings chose Node.
    await setKernelEndpoint(false);
    const own = await authorityFor(sandbox, tempDataDir());
    const c2 = await httpClient(own.url, { era: "modern" });
    await setKernelEndpoint(true);
    const refused = await updatePreflight(c2, DEMO_IDS.paragraphStatus);
    expect(sc(refused)["error"]).toMatchObject({ code: "write_coordinator_changed" });
    await c2.close();
    await own.stop();
  });

  it("recovers a commit whose answer was lost from the kernel's /tasks, without sending it again", async () => {
    const dir = tempDataDir();
    const node = await authorityFor(sandbox, dir);
    const client = await httpClient(node.url, { era: "modern" });
    const { commitArgs } = await blockPreflight(client, {
      action: "update",
      id: DEMO_IDS.headingJournal,
      dataType: "markdown",
      data: "## Journal (answer lost, recovered)",
    });
    const route = `/plugin/private/${PLUGIN}/mcp`;
    const before = { update: sandbox.control.count(UPDATE), route: sandbox.control.count(route) };
    // The plugin handles the commit, then the connection is reset before its answer arrives.
    sandbox.control.armFault({ endpoint: route, kind: "resetAfterApply" });
    const res = sc(await client.callTool({ name: "block", arguments: commitArgs }));
    expect(res, JSON.stringify(res)).toMatchObject({ status: "committed", executedNow: true });
    expect(sandbox.control.count(UPDATE)).toBe(before.update + 1);
    expect(sandbox.control.count(route)).toBe(before.route + 1);
    expect(sandbox.control.count(`/plugin/private/${PLUGIN}/tasks`)).toBeGreaterThanOrEqual(1);
    await client.close();
    await node.stop();
  });

  it("the Node authority applies the permissions in the settings, read fresh for every call", async () => {
    const write = (permissions: Record<string, unknown>) =>
      putFile(
        `/data/storage/petal/${PLUGIN}/settings.json`,
        JSON.stringify({ kernelEndpointEnabled: false, permissions }),
      );
    await write({ default: "delete" });
    const node = await authorityFor(sandbox, tempDataDir());
    const client = await httpClient(node.url, { era: "modern" });
    try {
      await write({ default: "read" });
      const denied = await updatePreflight(client, DEMO_IDS.paragraphStatus);
      expect(sc(denied)["error"]).toMatchObject({ code: "permission_denied" });
      const read = await client.callTool({
        name: "block",
        arguments: { action: "get_kramdown", id: DEMO_IDS.paragraphStatus },
      });
      expect(read.isError).not.toBe(true);
      await write({ default: "none" });
      const none = await client.callTool({
        name: "block",
        arguments: { action: "get_kramdown", id: DEMO_IDS.paragraphStatus },
      });
      expect(errorCode(none)).toBe("permission_denied");
      await write({ default: "read", notebooks: { "not-this-one": "write" } });
      expect(errorCode(await updatePreflight(client, DEMO_IDS.paragraphStatus))).toBe(
        "permission_denied",
      );
      await write({ default: "write" });
      const { commit } = await strictUpdate(client, DEMO_IDS.paragraphStatus, "Status, permitted");
      expect(sc(commit)["status"]).toBe("committed");
    } finally {
      await setKernelEndpoint(true);
    }
    await client.close();
    await node.stop();
  });
});
