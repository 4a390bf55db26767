/**
 * The legacy `tools/list_changed` stream (spec "Tool notifications and response recovery") on both
 * host kinds: on a host that does not serialise plugin paths, legacy sessions get the capability
 * and a `GET /mcp` stream (initial invalidation, one per changed snapshot, 4 per authentication
 * context, closed with the endpoint, the settings or the session); on a host that serialises them
 * (SiYuan 3.7.3), neither — and the official client works all the same.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Sandbox } from "@sisyphus/siyuan-sandbox";
import { WAIT_FOR_TIMEOUT_MS, waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { afterAll, describe, expect, it } from "vitest";
import { LIST_CHANGED_EVENT, SSE_CHECK_INTERVAL_MS } from "../src/kernel/sse.js";
import {
  kernelClient,
  PLUGIN_NAME,
  putWorkspaceFile,
  routeOf,
  SETTINGS_PATH,
  sandboxWithPlugin,
  sc,
  writeSettings,
} from "./harness.js";

const started: Sandbox[] = [];
const clients: Client[] = [];
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await Promise.all(started.map((s) => s.stop()));
});

async function health(sb: Sandbox): Promise<Record<string, number | boolean>> {
  const res = await fetch(routeOf(sb, "/health"), {
    headers: { authorization: `Token ${sb.token}` },
  });
  return (await res.json()) as Record<string, number | boolean>;
}

/** A sandbox with the plugin whose host probe has answered. */
async function sandbox(serialisePaths: boolean): Promise<Sandbox> {
  const sb = await sandboxWithPlugin({ serialisePaths });
  started.push(sb);
  await waitFor(async () => (await health(sb))["hostProbed"] === true);
  return sb;
}

/** An official client in a 2025-11-25 session, counting `tools/list_changed` notifications. */
async function legacyClient(sb: Sandbox) {
  const client = new Client(
    { name: "sse-e2e", version: "1.0.0" },
    { versionNegotiation: { mode: "legacy" } },
  );
  clients.push(client);
  const seen = { notifications: 0, errors: [] as Error[] };
  client.setNotificationHandler("notifications/tools/list_changed", () => {
    seen.notifications += 1;
  });
  client.onerror = (e) => seen.errors.push(e);
  const transport = new StreamableHTTPClientTransport(new URL(routeOf(sb, "/mcp")), {
    requestInit: { headers: { authorization: `Token ${sb.token}` } },
  });
  await client.connect(transport);
  expect(client.getNegotiatedProtocolVersion()).toBe("2025-11-25");
  return { client, transport, seen, sessionId: transport.sessionId as string };
}

/** `GET /mcp` with `Accept` exactly `text/event-stream`, as the official client sends it. */
function getStream(sb: Sandbox, sessionId?: string, signal?: AbortSignal): Promise<Response> {
  return fetch(routeOf(sb, "/mcp"), {
    headers: {
      authorization: `Token ${sb.token}`,
      accept: "text/event-stream",
      ...(sessionId === undefined ? {} : { "mcp-session-id": sessionId }),
    },
    ...(signal === undefined ? {} : { signal }),
  });
}

/** A raw stream of a session: its events so far, and whether the server ended it. */
async function rawStream(sb: Sandbox, sessionId: string) {
  const abort = new AbortController();
  const res = await getStream(sb, sessionId, abort.signal);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/event-stream");
  const state = { text: "", ended: false };
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      state.text += decoder.decode(value, { stream: true });
    }
    state.ended = true;
  })().catch(() => undefined); // aborted by the test
  return {
    state,
    events: () => state.text.split("\n").filter((l) => l === `data:${LIST_CHANGED_EVENT}`).length,
    abort: () => abort.abort(),
  };
}

/** The kernel's answer to a refused stream: 500 with the refusal's status and code first. */
async function refusalText(res: Response): Promise<string> {
  expect(res.status).toBe(500);
  return res.text();
}

/** Waits until two checks completed after now: the second surely read what was written before. */
async function twoChecksLater(sb: Sandbox): Promise<void> {
  const checks = (await health(sb))["sseChecks"] as number;
  await waitFor(async () => ((await health(sb))["sseChecks"] as number) >= checks + 2, {
    timeoutMs: 2 * SSE_CHECK_INTERVAL_MS + WAIT_FOR_TIMEOUT_MS,
    what: "two more settings checks",
  });
}

/** Writes the settings file with any text (a file that does not parse). */
async function writeSettingsText(sb: Sandbox, text: string): Promise<void> {
  await putWorkspaceFile(sb, SETTINGS_PATH, text);
}

describe("tools/list_changed on a host that does not serialise plugin paths", () => {
  it("advertises listChanged to legacy sessions, invalidates once at open and once per changed snapshot, never for an unchanged one; calls run meanwhile", async () => {
    const sb = await sandbox(false);
    expect(await health(sb)).toMatchObject({ hostParallel: true, sseStreams: 0 });
    const modern = await kernelClient(sb);
    clients.push(modern);
    // a legacy channel only: stateless modern MCP gets no listChanged
    expect(modern.getServerCapabilities()?.tools?.listChanged).toBe(false);

    const legacy = await legacyClient(sb);
    expect(legacy.client.getServerCapabilities()?.tools?.listChanged).toBe(true);
    await waitFor(() => legacy.seen.notifications === 1);
    expect(await health(sb)).toMatchObject({ sseStreams: 1, sseNotifications: 1 });

    // the stream stays open while a call is answered on the same path
    const listed = sc(
      await legacy.client.callTool({ name: "notebook", arguments: { action: "list" } }),
    );
    expect(listed["error"]).toBeUndefined();
    expect((await health(sb))["sseStreams"]).toBe(1);

    // a changed snapshot: one more; then the same file again, and a change outside the access
    // fingerprint: none, over two whole checks after the last write
    await writeSettings(sb, { kernelEndpointEnabled: true, disabled: ["fs"] });
    await waitFor(() => legacy.seen.notifications === 2);
    await writeSettings(sb, { kernelEndpointEnabled: true, disabled: ["fs"] });
    await writeSettings(sb, {
      kernelEndpointEnabled: true,
      disabled: ["fs"],
      options: { pageSize: 8 },
    });
    await twoChecksLater(sb);
    expect(legacy.seen.notifications).toBe(2);
    expect(await health(sb)).toMatchObject({ sseStreams: 1, sseNotifications: 2 });
    expect(legacy.seen.errors).toEqual([]);
  }, 90_000);

  it("refuses a 5th stream of the authentication context (429), and a freed place is taken again", async () => {
    const sb = await sandbox(false);
    const four: Array<Awaited<ReturnType<typeof legacyClient>>> = [];
    for (let i = 0; i < 4; i++) four.push(await legacyClient(sb));
    await waitFor(() => four.every((c) => c.seen.notifications === 1));
    expect((await health(sb))["sseStreams"]).toBe(4);

    // the 5th client's own stream is refused; the client works all the same
    const fifth = await legacyClient(sb);
    await waitFor(() => fifth.seen.errors.length > 0);
    expect(fifth.seen.notifications).toBe(0);
    // refused once the settings were read: SiYuan's text has no message, the kernel log says why
    expect(await refusalText(await getStream(sb, fifth.sessionId))).toContain(
      "promise rejected: <nil>",
    );
    expect(sb.plugins.logs(PLUGIN_NAME).map((l) => l.text)).toContainEqual(
      expect.stringMatching(
        /SSE stream refused: 429 too_many_streams: 4 streams of this authentication context are open/,
      ),
    );
    expect((await fifth.client.listTools()).tools.length).toBeGreaterThan(0);

    // closing a stream (its client leaves) frees its place
    await four[0]?.client.close();
    await waitFor(async () => (await health(sb))["sseStreams"] === 3);
    const again = await rawStream(sb, fifth.sessionId);
    await waitFor(() => again.events() === 1);
    expect((await health(sb))["sseStreams"]).toBe(4);
    again.abort();
  }, 60_000);

  it("closes streams when the kernel endpoint is turned off or the settings become unusable, and refuses new ones", async () => {
    const sb = await sandbox(false);
    const legacy = await legacyClient(sb);
    await waitFor(() => legacy.seen.notifications === 1);

    const raw = await rawStream(sb, legacy.sessionId);
    await waitFor(() => raw.events() === 1);
    await writeSettings(sb, { kernelEndpointEnabled: false });
    await waitFor(() => raw.state.ended);
    expect(raw.events()).toBe(1);
    // decided after the settings read: SiYuan 3.7.3's text for a rejection has no message, the
    // kernel log has the reason
    expect(await refusalText(await getStream(sb, legacy.sessionId))).toBe(
      "[plugin:siyuan-plugins-mcp-sisyphus] Error occurred while handling SSE request: promise rejected: <nil>",
    );
    expect(sb.plugins.logs(PLUGIN_NAME).map((l) => l.text)).toContainEqual(
      expect.stringMatching(/SSE stream refused: 503 kernel_endpoint_disabled: /),
    );
    // reads still run with the endpoint off
    expect((await legacy.client.listTools()).tools.length).toBeGreaterThan(0);

    await writeSettings(sb, { kernelEndpointEnabled: true });
    const second = await rawStream(sb, legacy.sessionId);
    await waitFor(() => second.events() === 1);
    await writeSettingsText(sb, "{not json");
    await waitFor(() => second.state.ended);
    expect(await refusalText(await getStream(sb, legacy.sessionId))).toContain(
      "promise rejected: <nil>",
    );
    expect(sb.plugins.logs(PLUGIN_NAME).map((l) => l.text)).toContainEqual(
      expect.stringMatching(/SSE stream refused: 503 settings_invalid: /),
    );
    await waitFor(async () => (await health(sb))["sseStreams"] === 0);
  }, 60_000);

  it("closes a session's streams when the session is deleted, without touching a call in flight", async () => {
    const sb = await sandbox(false);
    const legacy = await legacyClient(sb);
    const other = await legacyClient(sb);
    const raw = await rawStream(sb, legacy.sessionId);
    const bystander = await rawStream(sb, other.sessionId);
    await waitFor(() => raw.events() === 1 && bystander.events() === 1);

    // a call of the other session, held in the kernel while streams close around it
    sb.control.armFault({ endpoint: "/api/notebook/lsNotebooks", kind: "delay", delayMs: 500 });
    const call = other.client.callTool({ name: "notebook", arguments: { action: "list" } });
    await legacy.transport.terminateSession(); // DELETE /mcp
    await waitFor(() => raw.state.ended);
    bystander.abort();
    expect(sc(await call)["error"]).toBeUndefined();
    expect(await refusalText(await getStream(sb, legacy.sessionId))).toContain(
      "404 session_not_found",
    );
    expect(await refusalText(await getStream(sb))).toContain("400 session_required");
    const foreign = await fetch(routeOf(sb, "/mcp"), {
      headers: {
        authorization: `Token ${sb.token}`,
        accept: "text/event-stream",
        origin: "https://elsewhere.example",
        "mcp-session-id": other.sessionId,
      },
    });
    // a foreign Origin is judged against the settings' list: refused after reading it
    expect(await refusalText(foreign)).toContain("promise rejected: <nil>");
    expect(sb.plugins.logs(PLUGIN_NAME).map((l) => l.text)).toContainEqual(
      expect.stringMatching(/SSE stream refused: 403 origin_not_allowed/),
    );
  }, 60_000);
});

describe("tools/list_changed on a host that serialises plugin paths (SiYuan 3.7.3)", () => {
  it("does not advertise listChanged, refuses GET /mcp, and the official client works", async () => {
    const sb = await sandbox(true);
    expect(await health(sb)).toMatchObject({ hostProbed: true, hostParallel: false });
    const legacy = await legacyClient(sb);
    expect(legacy.client.getServerCapabilities()?.tools?.listChanged).toBe(false);
    // the client's own GET reached the `es` slot, which cannot set a status: the kernel's 500
    await waitFor(() => legacy.seen.errors.length > 0);
    expect(await refusalText(await getStream(sb, legacy.sessionId))).toContain(
      "405 method_not_allowed: ",
    );
    const plain = await fetch(routeOf(sb, "/mcp"), {
      headers: {
        authorization: `Token ${sb.token}`,
        accept: "application/json, text/event-stream",
      },
    });
    expect(plain.status).toBe(405);
    const listed = sc(
      await legacy.client.callTool({ name: "notebook", arguments: { action: "list" } }),
    );
    expect(listed["error"]).toBeUndefined();
    expect(legacy.seen.notifications).toBe(0);
    expect(await health(sb)).toMatchObject({ sseStreams: 0, sseChecks: 0 });
  }, 60_000);
});
