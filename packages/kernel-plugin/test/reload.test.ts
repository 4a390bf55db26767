/**
 * Reload of the plugin runtime (contract §7; the sandbox host's "plugin reload" and "kernel
 * restart" faults): a commit already running finishes before the runtime unloads; afterwards the
 * leases are gone (`preflight_lease_invalid`, `other_epoch`), while the ledger and reservations on
 * `siyuan.storage` remain, so a replay answers from the ledger and writes nothing. Result caches
 * (`/tasks`) and SSE connections do not survive a reload either (spec: "Result caches, SSE
 * connections and upload staging do not survive reload"; staging: `transfer.test.ts`).
 */
import { randomUUID } from "node:crypto";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { DEMO_IDS, type Sandbox } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { afterAll, describe, expect, it } from "vitest";
import { LIST_CHANGED_EVENT } from "../src/kernel/sse.js";
import {
  commitArgs,
  healthOf,
  kernelClient,
  PLUGIN_NAME,
  routeOf,
  sandboxWithPlugin,
  sc,
  useSandboxWithPlugin,
} from "./harness.js";

const UPDATE = "/api/block/updateBlock";
const box = useSandboxWithPlugin();

describe("plugin reload", () => {
  it("lets a running commit finish, then forgets leases but keeps the ledger", async () => {
    let client = await kernelClient(box.current);
    const committed = await commitArgs(client, DEMO_IDS.paragraphGoals, "Goals before the reload");
    expect(sc(await client.callTool({ name: "block", arguments: committed }))["status"]).toBe(
      "committed",
    );
    const leased = await commitArgs(client, DEMO_IDS.paragraphJournal, "Journal leased before");
    const held = await commitArgs(client, DEMO_IDS.paragraphDecision, "Decision during reload");
    const before = box.current.control.count(UPDATE);
    box.current.control.armFault({ endpoint: UPDATE, kind: "hold" });
    const running = client.callTool({ name: "block", arguments: held });
    await waitFor(() => box.current.control.held() === 1, { what: "the commit's write held" });
    expect(box.current.control.count(UPDATE)).toBe(before + 1);
    // The reload starts while the commit is running, and waits for it.
    const reloading = box.current.plugins.reload(PLUGIN_NAME);
    await waitFor(() => box.current.plugins.status(PLUGIN_NAME)?.state === "stopping", {
      what: "the plugin to be stopping",
    });
    expect(box.current.control.releaseHeld()).toBe(1);
    await reloading;
    // The reload waited for the commit (onunload drains the coordinator): it is recorded.
    expect(sc(await running)["status"]).toBe("committed");
    expect(box.current.plugins.status(PLUGIN_NAME)).toMatchObject({ state: "running", starts: 2 });
    await client.close();
    client = await kernelClient(box.current);

    const updates = box.current.control.count(UPDATE);
    const replay = sc(await client.callTool({ name: "block", arguments: committed }));
    expect(replay).toMatchObject({ status: "committed", replayed: true, executedNow: false });
    const replayHeld = sc(await client.callTool({ name: "block", arguments: held }));
    expect(replayHeld).toMatchObject({ status: "committed", replayed: true });
    const stale = sc(await client.callTool({ name: "block", arguments: leased }));
    expect(stale["error"]).toMatchObject({
      code: "preflight_lease_invalid",
      details: { reason: "other_epoch" },
    });
    expect(box.current.control.count(UPDATE)).toBe(updates);
    const listing = await fetch(`${box.current.url}/api/file/readDir`, {
      method: "POST",
      headers: { authorization: `Token ${box.current.token}` },
      body: JSON.stringify({ path: `/data/storage/petal/${PLUGIN_NAME}/ledger` }),
    });
    const entries = ((await listing.json()) as { data: Array<{ name: string }> }).data;
    expect(entries.map((e) => e.name).some((n) => /^seg-\d{10}\.log$/.test(n))).toBe(true);
    await client.close();
  });

  it("survives a kernel restart the same way: connections refused meanwhile, the ledger kept", async () => {
    const client = await kernelClient(box.current);
    const committed = await commitArgs(client, DEMO_IDS.paragraphStatus, "Status before restart");
    expect(sc(await client.callTool({ name: "block", arguments: committed }))["status"]).toBe(
      "committed",
    );
    await client.close();
    await box.current.plugins.restartKernel(300);
    const again = await kernelClient(box.current);
    const replay = sc(await again.callTool({ name: "block", arguments: committed }));
    expect(replay).toMatchObject({ status: "committed", replayed: true, executedNow: false });
    await again.close();
  });
});

describe("plugin reload and what lives only in the runtime", () => {
  const TASK = "io.siyuan.sisyphus/taskId";
  let parallel: Sandbox | undefined;
  afterAll(async () => {
    await parallel?.stop();
  });

  /** `/tasks` of `sb` for `taskId`. */
  async function tasks(sb: Sandbox, taskId: string, operation: string) {
    const res = await fetch(routeOf(sb, "/tasks"), {
      method: "POST",
      headers: { authorization: `Token ${sb.token}`, "content-type": "application/json" },
      body: JSON.stringify({ taskId, operation }),
    });
    return (await res.json()) as Record<string, unknown>;
  }

  /** A raw `GET /mcp` stream of a legacy session: its text so far, and whether it ended. */
  async function rawStream(sb: Sandbox, sessionId: string) {
    const res = await fetch(routeOf(sb, "/mcp"), {
      headers: {
        authorization: `Token ${sb.token}`,
        accept: "text/event-stream",
        "mcp-session-id": sessionId,
      },
    });
    expect(res.status).toBe(200);
    const state = { text: "", ended: false };
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    void (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        state.text += decoder.decode(value, { stream: true });
      }
    })()
      .catch(() => undefined) // a connection cut instead of ended counts as ended too
      .finally(() => {
        state.ended = true;
      });
    return state;
  }

  it("forgets task results and closes SSE streams; their task ID and session are unknown afterwards", async () => {
    // SSE streams are offered on a host that does not serialise plugin paths.
    parallel = await sandboxWithPlugin({ serialisePaths: false });
    const sb = parallel;
    await waitFor(async () => (await healthOf(sb))["hostProbed"] === true, {
      what: "the plugin's host probe",
    });
    // A finished call's result, kept for /tasks.
    const client = await kernelClient(sb);
    const taskId = randomUUID();
    const read = await client.callTool({
      name: "block",
      arguments: { action: "get_kramdown", id: DEMO_IDS.paragraphGoals },
      _meta: { [TASK]: taskId },
    });
    expect(read.isError).not.toBe(true);
    expect(await tasks(sb, taskId, "result")).toMatchObject({
      found: true,
      state: "completed",
      result: { structuredContent: sc(read) },
    });
    await client.close();
    // A legacy session and its SSE stream, open and invalidated once.
    const legacy = new Client(
      { name: "reload-sse", version: "1.0.0" },
      { versionNegotiation: { mode: "legacy" } },
    );
    legacy.onerror = () => undefined; // its own stream is cut by the reload
    const transport = new StreamableHTTPClientTransport(new URL(routeOf(sb, "/mcp")), {
      requestInit: { headers: { authorization: `Token ${sb.token}` } },
    });
    await legacy.connect(transport);
    const sessionId = transport.sessionId as string;
    const stream = await rawStream(sb, sessionId);
    await waitFor(() => stream.text.includes(`data:${LIST_CHANGED_EVENT}`), {
      what: "the stream's first invalidation",
    });
    await waitFor(async () => (await healthOf(sb))["sseStreams"] === 2, {
      what: "the client's and the raw stream open",
    });
    expect(stream.ended).toBe(false);

    await sb.plugins.reload(PLUGIN_NAME);
    expect(sb.plugins.status(PLUGIN_NAME)).toMatchObject({ state: "running", starts: 2 });
    // The streams of the old runtime ended with it; the new one has none and knows no session.
    await waitFor(() => stream.ended, { what: "the stream to end with the old runtime" });
    expect(await healthOf(sb)).toMatchObject({ sseStreams: 0, taskResults: 0 });
    await waitFor(async () => (await healthOf(sb))["hostProbed"] === true, {
      what: "the new runtime's host probe",
    });
    const stale = await fetch(routeOf(sb, "/mcp"), {
      headers: {
        authorization: `Token ${sb.token}`,
        accept: "text/event-stream",
        "mcp-session-id": sessionId,
      },
    });
    // A refused stream reaches the caller as the kernel's 500, its status and code first.
    expect(stale.status).toBe(500);
    expect(await stale.text()).toContain("404 session_not_found");
    // The task's result is gone with the old runtime's cache.
    expect(await tasks(sb, taskId, "status")).toEqual({ found: false });
    expect(await tasks(sb, taskId, "result")).toEqual({ found: false });
    await legacy.close().catch(() => undefined);
  });
});
