/**
 * Legacy cancellation at the kernel authority: in a 2025 session, `notifications/cancelled` with the
 * original, type-sensitive request ID stops a call that is still waiting (here: a commit queued in
 * the write lane behind a held one), so it never writes, and a running read at its next
 * checkpoint, once the kernel call it is in settles (no later kernel call of it is sent; its slot
 * is freed). The 3.7.3 host serialises `/mcp`, so there the notification waits behind the call it
 * names; on a host that does not (the sandbox's option) it arrives while the call waits.
 */
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { describe, expect, it } from "vitest";
import {
  commitArgs,
  healthOf,
  kernelClient,
  PLUGIN_NAME,
  routeOf,
  sc,
  useSandboxWithPlugin,
} from "./harness.js";

const UPDATE = "/api/block/updateBlock";
const LS_NOTEBOOKS = "/api/notebook/lsNotebooks";
const LIST_DOCS = "/api/filetree/listDocsByPath";
/** A read of several kernel calls: the notebooks first, then one listing per level. */
const LIST_TREE = { action: "list_tree", notebook: DEMO_IDS.notebookResearch, depth: 2 };
const box = useSandboxWithPlugin({ serialisePaths: false });

describe("legacy notifications/cancelled at the kernel authority", () => {
  it("stops a commit queued behind a held one; it never writes, and the same request can run later", async () => {
    const holder = await kernelClient(box.current, "legacy");
    const client = await kernelClient(box.current, "legacy");
    const a = await commitArgs(holder, DEMO_IDS.paragraphGoals, "Goals, held");
    const b = await commitArgs(
      client,
      DEMO_IDS.paragraphJournal,
      "Journal, cancelled while queued",
    );
    const before = box.current.control.count(UPDATE);
    box.current.control.armFault({ endpoint: UPDATE, kind: "hold" });
    const held = holder.callTool({ name: "block", arguments: a });
    await waitFor(() => box.current.control.held() === 1, { what: "the held commit's write" });
    const ctl = new AbortController();
    const queued = client.callTool({ name: "block", arguments: b }, { signal: ctl.signal });
    // The race the test names: the cancellation lands while the call waits in the write lane.
    await waitFor(async () => (await healthOf(box.current))["queued"] === 1, {
      what: "the second commit queued in the write lane",
    });
    ctl.abort("the user stopped it"); // the client sends notifications/cancelled in its session
    await expect(queued).rejects.toThrow("the user stopped it");
    await waitFor(async () => (await healthOf(box.current))["queued"] === 0, {
      what: "the cancelled commit to leave the write lane",
    });
    expect(box.current.control.releaseHeld()).toBe(1);
    expect(sc(await held)["status"]).toBe("committed");
    expect(box.current.control.count(UPDATE)).toBe(before + 1);
    expect(box.current.control.kramdown(DEMO_IDS.paragraphJournal)).not.toContain(
      "cancelled while queued",
    );
    // It never started, so the same request can still execute, once.
    const later = sc(await client.callTool({ name: "block", arguments: b }));
    expect(later["status"], JSON.stringify(later)).toBe("committed");
    expect(box.current.control.count(UPDATE)).toBe(before + 2);
    await Promise.all([holder.close(), client.close()]);
    // The cancelled request's POST was answered too (the SDK drops a cancelled request's answer):
    // nothing is left being answered, so a reload, which waits for every answer, completes.
    await box.current.plugins.reload(PLUGIN_NAME);
    expect(box.current.plugins.status(PLUGIN_NAME)).toMatchObject({ state: "running" });
  });
});

/** Kernel listings logged after request `seq`. */
function listingsAfter(seq: number): number {
  return box.current.control.log().filter((e) => e.path === LIST_DOCS && e.seq > seq).length;
}

/** Holds the next `lsNotebooks` and waits until `start()`'s read is in it; its log sequence. */
async function holdFirstKernelCall(start: () => void): Promise<number> {
  box.current.control.armFault({ endpoint: LS_NOTEBOOKS, kind: "hold", times: 1 });
  start();
  await waitFor(() => box.current.control.held() === 1, { what: "the read's first kernel call" });
  const seqs = box.current.control
    .log()
    .filter((e) => e.path === LS_NOTEBOOKS)
    .map((e) => e.seq);
  return Math.max(0, ...seqs);
}

/** Waits until no read runs at the plugin, the cancelled ones included, and nothing is in flight. */
async function readSlotsFree(): Promise<void> {
  await waitFor(
    async () => {
      const h = await healthOf(box.current);
      return h["readsRunning"] === 0 && h["readsCancelledRunning"] === 0 && h["inFlight"] === 0;
    },
    { what: "every read slot free" },
  );
}

describe("a running read cancelled at the kernel authority", () => {
  it("stops after its held kernel call settles: no later call of it reaches the kernel, and its slot is freed", async () => {
    const client = await kernelClient(box.current, "legacy");
    const ctl = new AbortController();
    let read: Promise<unknown> | undefined;
    const held = await holdFirstKernelCall(() => {
      read = client
        .callTool({ name: "document", arguments: LIST_TREE }, { signal: ctl.signal })
        .catch((e: unknown) => e);
    });
    ctl.abort("the user stopped it");
    await expect(read).resolves.toBeInstanceOf(Error);
    await waitFor(async () => (await healthOf(box.current))["readsCancelledRunning"] === 1, {
      what: "the read counted as cancelled but running",
    });
    expect(box.current.control.releaseHeld()).toBe(1);
    await readSlotsFree();
    expect(listingsAfter(held)).toBe(0);
    const next = sc(await client.callTool({ name: "document", arguments: LIST_TREE }));
    expect(next["error"], JSON.stringify(next)).toBeUndefined();
    expect(listingsAfter(held)).toBeGreaterThan(0);
    await client.close();
  });
});

/** A raw legacy (2025-11-25) session on the plugin's `/mcp` (JSON answers). */
async function rawSession() {
  const url = routeOf(box.current, "/mcp");
  const base = {
    authorization: `Token ${box.current.token}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  const init = await fetch(url, {
    method: "POST",
    headers: base,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "raw", version: "1" },
      },
    }),
  });
  const headers = {
    ...base,
    "mcp-session-id": init.headers.get("mcp-session-id") as string,
    "mcp-protocol-version": "2025-11-25",
  };
  await init.text();
  const post = (message: Record<string, unknown>) =>
    fetch(url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", ...message }) });
  await (await post({ method: "notifications/initialized" })).text();
  return {
    /** `tools/call` with JSON-RPC `id`: its one JSON answer. */
    call: async (id: unknown, args: Record<string, unknown>) =>
      (await (
        await post({ id, method: "tools/call", params: { name: "document", arguments: args } })
      ).json()) as Record<string, unknown>,
    /** `notifications/cancelled` naming `requestId`, accepted (202). */
    async cancel(requestId: unknown): Promise<void> {
      const res = await post({ method: "notifications/cancelled", params: { requestId } });
      await res.text();
      expect(res.status).toBe(202);
    },
    close: () => fetch(url, { method: "DELETE", headers }),
  };
}

describe("cancellation by the original, type-sensitive JSON-RPC ID at the kernel authority", () => {
  it('"8" does not cancel the request whose ID is the number 8; 8 does, and its POST answers -32800', async () => {
    const s = await rawSession();
    let answer: Promise<Record<string, unknown>> | undefined;
    const first = await holdFirstKernelCall(() => {
      answer = s.call(8, LIST_TREE);
    });
    await s.cancel("8");
    expect((await healthOf(box.current))["readsCancelledRunning"]).toBe(0);
    expect(box.current.control.releaseHeld()).toBe(1);
    const reply = await (answer as Promise<Record<string, unknown>>);
    expect(reply["id"], JSON.stringify(reply)).toBe(8);
    expect(reply["result"]).toMatchObject({
      structuredContent: { notebook: DEMO_IDS.notebookResearch },
    });
    expect(listingsAfter(first)).toBeGreaterThan(0);
    await readSlotsFree();

    let cancelled: Promise<Record<string, unknown>> | undefined;
    const second = await holdFirstKernelCall(() => {
      cancelled = s.call(8, LIST_TREE);
    });
    await s.cancel(8);
    // Answered while its kernel call is still held: the SDK drops a cancelled request's answer.
    expect(await (cancelled as Promise<Record<string, unknown>>)).toMatchObject({
      id: 8,
      error: { code: -32800 },
    });
    expect((await healthOf(box.current))["readsCancelledRunning"]).toBe(1);
    expect(box.current.control.releaseHeld()).toBe(1);
    await readSlotsFree();
    expect(listingsAfter(second)).toBe(0);
    await s.close();
  });
});
