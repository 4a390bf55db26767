/**
 * The settings the Node server honours besides the authority switch and permissions, read through
 * the kernel's `getFile` like the kernel plugin reads them: turned-off tools and actions (not
 * listed; a call answers `action_disabled` with no kernel request besides the one settings read,
 * or — when the call before it still had the action on — besides the action's own first read sent
 * beside the settings read and never answered; a name the catalog lacks makes the settings
 * unusable), the kernel options (`pageSize` default,
 * `readRetries` attempts), and Strict Safe Writes read at start. The HTTP authority and a
 * delegating stdio process, driven by the official client against the sandbox kernel.
 */
import { resolve } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { createSiyuanClient, type SiyuanClient, undiciTransport } from "@sisyphus/siyuan-api";
import { DEMO_IDS, type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  authorityFor,
  delegatingClient,
  healthOf,
  httpClient,
  killAll,
  sc,
  tempDataDir,
  updatePreflight,
} from "./harness.js";

const SETTINGS = "/data/storage/petal/siyuan-plugins-mcp-sisyphus/settings.json";
const GET_FILE = "/api/file/getFile";
const get = { action: "get_kramdown", id: DEMO_IDS.paragraphStatus };

let sandbox: Sandbox;
let files: SiyuanClient;
let url: string;

async function settle(settings: Record<string, unknown>): Promise<void> {
  await files.file.putFile({ path: SETTINGS, file: JSON.stringify(settings) });
}

/** Kernel API requests so far, the settings reads (`getFile`) apart. */
function toolRequests(): number {
  return Object.entries(sandbox.control.counts())
    .filter(([path]) => path.startsWith("/api/") && path !== GET_FILE)
    .reduce((n, [, c]) => n + (c as number), 0);
}

async function listed(client: Client) {
  const { tools } = await client.listTools();
  return Object.fromEntries(tools.map((t) => [t.name, t]));
}

function actionsOf(tool: { inputSchema: Record<string, unknown> } | undefined): string[] {
  const properties = tool?.inputSchema["properties"] as Record<string, { enum?: string[] }>;
  return properties["action"]?.enum ?? [];
}

beforeAll(async () => {
  sandbox = await startSandbox({ seed: "demo" });
  files = createSiyuanClient({
    transport: undiciTransport({ baseUrl: sandbox.url, token: sandbox.token }),
  });
  url = (await authorityFor(sandbox, tempDataDir())).url;
});
afterEach(async () => {
  await settle({});
});
afterAll(async () => {
  await killAll();
  await files?.close();
  await sandbox?.stop();
});

describe("turned-off tools and actions at the Node server", () => {
  it("leaves a turned-off tool out of the next list and answers its calls action_disabled, with one settings read and no other kernel request", async () => {
    for (const era of ["modern", "legacy"] as const) {
      const client = await httpClient(url, { era });
      expect(Object.keys(await listed(client))).toContain("search");
      await settle({ disabled: ["search"] });
      const reads = sandbox.control.count(GET_FILE);
      expect(Object.keys(await listed(client))).not.toContain("search");
      expect(sandbox.control.count(GET_FILE) - reads).toBe(1);
      const before = toolRequests();
      const r = await client.callTool({
        name: "search",
        arguments: { action: "fulltext", query: "goals" },
      });
      expect(sc(r)).toMatchObject({
        writeAttempted: false,
        error: { code: "action_disabled", tool: "search" },
      });
      expect(toolRequests()).toBe(before);
      expect(sandbox.control.count(GET_FILE) - reads).toBe(2);
      await settle({});
      expect(Object.keys(await listed(client))).toContain("search");
      await client.close();
    }
  });

  it("offers a tool without its turned-off action and refuses that action alone", async () => {
    const client = await httpClient(url, { era: "modern" });
    await settle({ disabled: ["block.get_kramdown"] });
    const block = (await listed(client))["block"];
    expect(actionsOf(block)).not.toContain("get_kramdown");
    expect(actionsOf(block)).toContain("get_attrs");
    const before = toolRequests();
    const kramdown = sandbox.control.count("/api/block/getBlockKramdown");
    const refused = await client.callTool({ name: "block", arguments: get });
    expect(sc(refused)["error"]).toMatchObject({
      code: "action_disabled",
      action: "get_kramdown",
    });
    // The call before this one still had the action on, so the call started under those settings:
    // its one read went out beside its own settings read, and its answer is not given.
    expect(toolRequests() - before).toBe(1);
    expect(sandbox.control.count("/api/block/getBlockKramdown")).toBe(kramdown + 1);
    const text = String(sandbox.control.kramdown(DEMO_IDS.paragraphStatus)).split("\n")[0] ?? "";
    expect(text.length).toBeGreaterThan(4);
    expect(JSON.stringify(refused)).not.toContain(text.slice(0, 20));
    const attrs = await client.callTool({
      name: "block",
      arguments: { action: "get_attrs", id: DEMO_IDS.paragraphStatus },
    });
    expect(attrs.isError).not.toBe(true);
    await client.close();
  });

  it("refuses reads and strict calls while a turned-off name is not in the catalog", async () => {
    const client = await httpClient(url, { era: "modern" });
    await settle({ disabled: ["block.explode"] });
    const r = await client.callTool({ name: "block", arguments: get });
    expect(sc(r)["error"]).toMatchObject({ code: "permission_denied" });
    expect(JSON.stringify(sc(r))).toMatch(/block\.explode/);
    expect(sc(await updatePreflight(client, DEMO_IDS.paragraphStatus))["error"]).toMatchObject({
      code: "write_coordinator_unavailable",
      reason: "settings_invalid",
    });
    await client.close();
  });

  it("is honoured by a delegating stdio process too", async () => {
    const client = await delegatingClient(sandbox, tempDataDir(), {
      extraArgs: ["--no-autostart"],
    });
    await settle({ disabled: ["tag"] });
    expect(Object.keys(await listed(client))).not.toContain("tag");
    expect(
      sc(await client.callTool({ name: "tag", arguments: { action: "list" } }))["error"],
    ).toMatchObject({ code: "action_disabled" });
    await client.close();
  });
});

describe("a Node front of the kernel authority", () => {
  it("refuses a turned-off strict action itself: nothing reaches the plugin", async () => {
    const zip = resolve(import.meta.dirname, "..", "..", "kernel-plugin", "dist", "package.zip");
    const kernel = await startSandbox({ seed: "demo", plugins: [zip] });
    const kernelFiles = createSiyuanClient({
      transport: undiciTransport({ baseUrl: kernel.url, token: kernel.token }),
    });
    try {
      const write = (settings: Record<string, unknown>) =>
        kernelFiles.file.putFile({ path: SETTINGS, file: JSON.stringify(settings) });
      await write({ kernelEndpointEnabled: true });
      const front = await authorityFor(kernel, tempDataDir());
      expect(front.stderr()).toContain("the write authority is the SiYuan kernel plugin");
      const client = await httpClient(front.url, { era: "modern" });
      await write({ kernelEndpointEnabled: true, disabled: ["block.update"] });
      const plugin = "/plugin/private/siyuan-plugins-mcp-sisyphus/mcp";
      const before = kernel.control.count(plugin);
      expect(sc(await updatePreflight(client, DEMO_IDS.paragraphStatus))).toMatchObject({
        writeAttempted: false,
        error: { code: "action_disabled", action: "update" },
      });
      expect(kernel.control.count(plugin)).toBe(before);
      expect(actionsOf((await listed(client))["block"])).not.toContain("update");
      await write({ kernelEndpointEnabled: true });
      expect(sc(await updatePreflight(client, DEMO_IDS.paragraphStatus))).toHaveProperty(
        "requestId",
      );
      expect(kernel.control.count(plugin)).toBeGreaterThan(before);
      await client.close();
      await front.stop();
    } finally {
      await kernelFiles.close();
      await kernel.stop();
    }
  });
});

describe("kernel options at the Node server", () => {
  it("uses the configured pageSize when a paged read gives none", async () => {
    const client = await httpClient(url, { era: "modern" });
    await settle({ options: { pageSize: 3 } });
    const r = sc(
      await client.callTool({ name: "search", arguments: { action: "fulltext", query: "the" } }),
    );
    expect(r["pageSize"]).toBe(3);
    expect((r["hits"] as unknown[]).length).toBeLessThanOrEqual(3);
    await client.close();
  });

  it("makes readRetries the attempts of each kernel read: 1 does not retry a 503", async () => {
    const client = await httpClient(url, { era: "modern" });
    const endpoint = "/api/notebook/lsNotebooks";
    const list = () => client.callTool({ name: "notebook", arguments: { action: "list" } });
    await settle({ options: { readRetries: 1 } });
    sandbox.control.armFault({ endpoint, kind: "http5xx", status: 503 });
    let before = sandbox.control.count(endpoint);
    expect(sc(await list())["error"]).toMatchObject({ code: "kernel_unavailable" });
    expect(sandbox.control.count(endpoint) - before).toBe(1);
    await settle({});
    sandbox.control.armFault({ endpoint, kind: "http5xx", status: 503 });
    before = sandbox.control.count(endpoint);
    expect((await list()).isError).not.toBe(true);
    expect(sandbox.control.count(endpoint) - before).toBe(2);
    await client.close();
  });
});

describe("Strict Safe Writes from the settings", () => {
  it("is read at start: off when the settings turn it off, and a running server keeps its value", async () => {
    await settle({ strictSafeWrites: false });
    const off = await authorityFor(sandbox, tempDataDir());
    const client = await httpClient(off.url, { era: "modern" });
    const unavailable = {
      code: "preflight_unavailable",
      details: { reason: "strict_mode_disabled" },
    };
    expect(sc(await updatePreflight(client, DEMO_IDS.paragraphStatus))["error"]).toMatchObject(
      unavailable,
    );
    const boot = sc(await client.callTool({ name: "system", arguments: { action: "bootstrap" } }));
    expect(boot["strictSafeWrites"]).toBe(false);
    expect((await healthOf(off.url))["strict"]).toBe(false);
    await settle({ strictSafeWrites: true });
    expect(sc(await updatePreflight(client, DEMO_IDS.paragraphStatus))["error"]).toMatchObject(
      unavailable,
    );
    await client.close();
    await off.stop();
    // The server started with the settings' default keeps Strict Safe Writes on.
    const on = await httpClient(url, { era: "modern" });
    expect(sc(await updatePreflight(on, DEMO_IDS.paragraphStatus))).toHaveProperty("requestId");
    expect((await healthOf(url))["strict"]).toBe(true);
    await on.close();
  });
});
