/**
 * The settings the kernel authority honours besides the authority switch and permissions: turned-off
 * tools and actions (not listed; a call answers `action_disabled` with no kernel request; a name the
 * catalog lacks makes the settings unusable), the kernel options (`pageSize` default, `readRetries`
 * attempts, `allowedOrigins` at the routes), Strict Safe Writes read at load, and `/tasks`
 * answering `access_changed` once the access differs. Official client, built zip, sandbox host.
 */
import { randomUUID } from "node:crypto";
import type { Client } from "@modelcontextprotocol/client";
import { DEMO_IDS, type Sandbox } from "@sisyphus/siyuan-sandbox";
import { afterEach, describe, expect, it } from "vitest";
import {
  kernelClient,
  PLUGIN_NAME,
  routeOf,
  sc,
  useSandboxWithPlugin,
  writeSettings,
} from "./harness.js";

const box = useSandboxWithPlugin();
const TASK = "io.siyuan.sisyphus/taskId";
const get = { action: "get_kramdown", id: DEMO_IDS.paragraphStatus };

/** Kernel API requests so far (the plugin's own route and storage excluded). */
function apiRequests(sb: Sandbox): number {
  return Object.entries(sb.control.counts())
    .filter(([path]) => path.startsWith("/api/"))
    .reduce((n, [, c]) => n + (c as number), 0);
}

async function settle(settings: Record<string, unknown>) {
  await writeSettings(box.current, { kernelEndpointEnabled: true, ...settings });
}

async function listed(client: Client) {
  const { tools } = await client.listTools();
  return Object.fromEntries(tools.map((t) => [t.name, t]));
}

function actionsOf(tool: { inputSchema: Record<string, unknown> } | undefined): string[] {
  const properties = tool?.inputSchema["properties"] as Record<string, { enum?: string[] }>;
  return properties["action"]?.enum ?? [];
}

async function route(path: string, init: { method?: string; origin?: string; body?: unknown }) {
  const res = await fetch(routeOf(box.current, path), {
    method: init.method ?? "GET",
    headers: {
      authorization: `Token ${box.current.token}`,
      "content-type": "application/json",
      ...(init.origin === undefined ? {} : { origin: init.origin }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

afterEach(async () => {
  await settle({});
});

describe("turned-off tools and actions at the kernel authority", () => {
  it("leaves a turned-off tool out of the next list and answers its calls action_disabled, with no kernel request", async () => {
    for (const era of ["modern", "legacy"] as const) {
      const client = await kernelClient(box.current, era);
      expect(Object.keys(await listed(client))).toContain("search");
      await settle({ disabled: ["search"] });
      expect(Object.keys(await listed(client))).not.toContain("search");
      const before = apiRequests(box.current);
      const r = await client.callTool({
        name: "search",
        arguments: { action: "fulltext", query: "goals" },
      });
      expect(sc(r)).toMatchObject({
        writeAttempted: false,
        error: { code: "action_disabled", tool: "search" },
      });
      expect(apiRequests(box.current)).toBe(before);
      await settle({});
      expect(Object.keys(await listed(client))).toContain("search");
      await client.close();
    }
  });

  it("offers a tool without its turned-off action and refuses that action alone", async () => {
    const client = await kernelClient(box.current);
    await settle({ disabled: ["block.get_kramdown"] });
    const block = (await listed(client))["block"];
    expect(actionsOf(block)).not.toContain("get_kramdown");
    expect(actionsOf(block)).toContain("get_attrs");
    expect(block?.description).not.toMatch(/get_kramdown/);
    const before = apiRequests(box.current);
    expect(sc(await client.callTool({ name: "block", arguments: get }))["error"]).toMatchObject({
      code: "action_disabled",
      action: "get_kramdown",
    });
    expect(apiRequests(box.current)).toBe(before);
    const attrs = await client.callTool({
      name: "block",
      arguments: { action: "get_attrs", id: DEMO_IDS.paragraphStatus },
    });
    expect(attrs.isError).not.toBe(true);
    await client.close();
  });

  it("refuses every call while a turned-off name is not in the catalog", async () => {
    const client = await kernelClient(box.current);
    await settle({ disabled: ["block.explode"] });
    const r = await client.callTool({ name: "block", arguments: get });
    expect(sc(r)["error"]).toMatchObject({ code: "permission_denied" });
    expect(JSON.stringify(sc(r))).toMatch(/block\.explode/);
    await client.close();
  });
});

describe("kernel options at the kernel authority", () => {
  it("uses the configured pageSize when a paged read gives none", async () => {
    const client = await kernelClient(box.current);
    await settle({ options: { pageSize: 3 } });
    const r = sc(
      await client.callTool({ name: "search", arguments: { action: "fulltext", query: "the" } }),
    );
    expect(r["pageSize"]).toBe(3);
    expect((r["hits"] as unknown[]).length).toBeLessThanOrEqual(3);
    await client.close();
  });

  it("makes readRetries the attempts of each kernel read: 1 does not retry a 503", async () => {
    const client = await kernelClient(box.current);
    const endpoint = "/api/notebook/lsNotebooks";
    const list = () => client.callTool({ name: "notebook", arguments: { action: "list" } });
    await settle({ options: { readRetries: 1 } });
    box.current.control.armFault({ endpoint, kind: "http5xx", status: 503 });
    let before = box.current.control.count(endpoint);
    expect(sc(await list())["error"]).toMatchObject({ code: "kernel_unavailable" });
    expect(box.current.control.count(endpoint) - before).toBe(1);
    await settle({});
    box.current.control.armFault({ endpoint, kind: "http5xx", status: 503 });
    before = box.current.control.count(endpoint);
    expect((await list()).isError).not.toBe(true);
    expect(box.current.control.count(endpoint) - before).toBe(2);
    await client.close();
  });

  it("refuses a foreign Origin at every route (403 before any work) unless it is listed", async () => {
    const evil = "http://notes.example:8080";
    const refused = await route("/health", { origin: evil });
    expect(refused).toEqual({ status: 403, body: { error: "origin_not_allowed" } });
    const before = apiRequests(box.current);
    const mcp = await route("/mcp", {
      method: "POST",
      origin: evil,
      body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
    });
    expect(mcp.status).toBe(403);
    expect((await route("/tasks", { method: "POST", origin: evil, body: {} })).status).toBe(403);
    expect(apiRequests(box.current)).toBe(before);
    expect((await route("/health", { origin: "http://localhost:5173" })).status).toBe(200);
    expect((await route("/health", { origin: "https://[::1]" })).status).toBe(200);
    expect((await route("/health", {})).status).toBe(200);
    await settle({ options: { allowedOrigins: [evil] } });
    expect((await route("/health", { origin: evil })).status).toBe(200);
    expect((await route("/health", { origin: "http://notes.example" })).status).toBe(403);
  });
});

describe("Strict Safe Writes from the settings", () => {
  it("is read at load: off after a reload with strictSafeWrites false, and a running runtime keeps its value", async () => {
    const sb = box.current;
    const client = await kernelClient(sb);
    const preflight = {
      action: "update",
      id: DEMO_IDS.paragraphStatus,
      dataType: "markdown",
      data: "x",
      validateOnly: true,
    };
    await settle({ strictSafeWrites: false });
    // Not reloaded yet: the runtime keeps the value it loaded with.
    expect(sc(await client.callTool({ name: "block", arguments: preflight }))).toHaveProperty(
      "requestId",
    );
    await client.close();
    await sb.plugins.reload(PLUGIN_NAME);
    const off = await kernelClient(sb);
    const r = sc(await off.callTool({ name: "block", arguments: preflight }));
    expect(r["error"]).toMatchObject({
      code: "preflight_unavailable",
      details: { reason: "strict_mode_disabled" },
    });
    const boot = sc(await off.callTool({ name: "system", arguments: { action: "bootstrap" } }));
    expect(boot["strictSafeWrites"]).toBe(false);
    expect((await route("/health", {})).body["strict"]).toBe(false);
    await off.close();
    await settle({});
    await sb.plugins.reload(PLUGIN_NAME);
    const on = await kernelClient(sb);
    expect(sc(await on.callTool({ name: "block", arguments: preflight }))).toHaveProperty(
      "requestId",
    );
    expect((await route("/health", {})).body["strict"]).toBe(true);
    await on.close();
  });
});

describe("/tasks after an access change", () => {
  it("answers a result recorded under other access with access_changed and no body", async () => {
    const client = await kernelClient(box.current);
    const taskId = randomUUID();
    const res = await client.callTool({ name: "block", arguments: get, _meta: { [TASK]: taskId } });
    expect(res.isError).not.toBe(true);
    const result = await route("/tasks", { method: "POST", body: { taskId, operation: "result" } });
    expect(result.body["result"]).toMatchObject({ structuredContent: sc(res) });
    await settle({ permissions: { default: "read" } });
    const changed = await route("/tasks", {
      method: "POST",
      body: { taskId, operation: "result" },
    });
    expect(changed.body).toEqual({
      found: true,
      state: "completed",
      cancelRequested: false,
      committing: false,
      error: "access_changed",
    });
    // status carries no body: it answers as before.
    expect(
      (await route("/tasks", { method: "POST", body: { taskId, operation: "status" } })).body,
    ).toMatchObject({ found: true, state: "completed" });
    // Unusable settings disclose nothing either.
    await settle({ disabled: ["nothing.here"] });
    expect(
      (await route("/tasks", { method: "POST", body: { taskId, operation: "result" } })).body,
    ).toMatchObject({ error: "access_changed" });
    expect(JSON.stringify(changed.body)).not.toContain("kramdown");
    await client.close();
  });
});
