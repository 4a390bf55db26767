/**
 * Legacy cancellation at the Node authority (spec, "Kernel concurrency and queued cancellation"):
 * `notifications/cancelled` names a request by its original, type-sensitive JSON-RPC ID, and a
 * running read it names stops at its next checkpoint, once the kernel call it is in settles: no
 * later kernel call of that read reaches the kernel, and its read slot is freed. The read's first
 * kernel call is held by the sandbox's `hold` fault; the sandbox's request log shows what reached
 * the kernel.
 */
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { describe, expect, it } from "vitest";
import {
  errorCode,
  healthOf,
  httpClient,
  legacyInitialize,
  RAW_HEADERS,
  sharedDemoAuthority,
} from "./harness.js";

const LS_NOTEBOOKS = "/api/notebook/lsNotebooks";
const LIST_DOCS = "/api/filetree/listDocsByPath";
/** A read of several kernel calls: the notebooks first, then one listing per level. */
const LIST_TREE = { action: "list_tree", notebook: DEMO_IDS.notebookResearch, depth: 2 };

const shared = sharedDemoAuthority();

/** The sequence number of the last request the sandbox kernel logged for `path`. */
function lastSeq(path: string): number {
  const seqs = shared.sandbox.control
    .log()
    .filter((e) => e.path === path)
    .map((e) => e.seq);
  return Math.max(0, ...seqs);
}

/** Kernel listings logged after request `seq`. */
function listingsAfter(seq: number): number {
  return shared.sandbox.control.log().filter((e) => e.path === LIST_DOCS && e.seq > seq).length;
}

/** Waits until no read runs at the authority, the cancelled ones included, and nothing is in flight. */
async function readSlotsFree(): Promise<void> {
  await waitFor(
    async () => {
      const h = await healthOf(shared.authority.url);
      return h["readsRunning"] === 0 && h["readsCancelledRunning"] === 0 && h["inFlight"] === 0;
    },
    { what: "every read slot free" },
  );
}

/** Holds the next `lsNotebooks` and waits until `start()`'s read is in it; its log sequence. */
async function holdFirstKernelCall(start: () => void): Promise<number> {
  shared.sandbox.control.armFault({ endpoint: LS_NOTEBOOKS, kind: "hold", times: 1 });
  start();
  await waitFor(() => shared.sandbox.control.held() === 1, {
    what: "the read's first kernel call",
  });
  return lastSeq(LS_NOTEBOOKS);
}

describe("a running read cancelled in a legacy session", () => {
  it("stops after its held kernel call settles: no later call of it reaches the kernel, and its slot is freed", async () => {
    const client = await httpClient(shared.authority.url, { era: "legacy" });
    const ctl = new AbortController();
    let read: Promise<unknown> | undefined;
    const held = await holdFirstKernelCall(() => {
      read = client
        .callTool({ name: "document", arguments: LIST_TREE }, { signal: ctl.signal })
        .catch((e: unknown) => e);
    });
    ctl.abort("the user stopped it"); // the client sends notifications/cancelled in its session
    await expect(read).resolves.toBeInstanceOf(Error);
    // The authority saw the cancellation while the read was still in its kernel call.
    await waitFor(
      async () => (await healthOf(shared.authority.url))["readsCancelledRunning"] === 1,
      { what: "the read counted as cancelled but running" },
    );
    expect(shared.sandbox.control.releaseHeld()).toBe(1);
    await readSlotsFree();
    expect(listingsAfter(held)).toBe(0);
    // The slot is free: another read is admitted, and it makes the listings the cancelled one did not.
    const next = await client.callTool({ name: "document", arguments: LIST_TREE });
    expect(errorCode(next), JSON.stringify(next)).toBeUndefined();
    expect(listingsAfter(held)).toBeGreaterThan(0);
    await client.close();
  });
});

/** A raw legacy (2025-11-25) session at the authority: POSTs with its session ID. */
async function rawSession() {
  const init = await legacyInitialize(shared.authority.url);
  const session = init.headers.get("mcp-session-id") as string;
  await init.text();
  const headers = {
    ...RAW_HEADERS,
    "mcp-session-id": session,
    "mcp-protocol-version": "2025-11-25",
  };
  const post = (message: Record<string, unknown>) =>
    fetch(shared.authority.url, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", ...message }),
    });
  const initialized = await post({ method: "notifications/initialized" });
  await initialized.text();
  return {
    /** Sends `tools/call` with JSON-RPC `id`; the POST's answer (an SSE stream). */
    call: (id: unknown, name: string, args: Record<string, unknown>) =>
      post({ id, method: "tools/call", params: { name, arguments: args } }),
    /** Sends `notifications/cancelled` naming `requestId`; resolves once it was accepted. */
    async cancel(requestId: unknown): Promise<void> {
      const res = await post({
        method: "notifications/cancelled",
        params: { requestId, reason: "stop" },
      });
      await res.text();
      expect(res.status).toBe(202);
    },
    close: () => fetch(shared.authority.url, { method: "DELETE", headers }),
  };
}

/** The JSON-RPC messages of an SSE answer (its `data:` lines). */
async function sseMessages(res: Response): Promise<Array<Record<string, unknown>>> {
  const text = await res.text();
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice("data: ".length)) as Record<string, unknown>);
}

describe("cancellation by the original, type-sensitive JSON-RPC ID", () => {
  it('"8" does not cancel the request whose ID is the number 8; 8 does', async () => {
    const s = await rawSession();
    // The string "8" names no request: the read of ID 8 runs to the end and answers.
    let answer: Promise<Response> | undefined;
    const first = await holdFirstKernelCall(() => {
      answer = s.call(8, "document", LIST_TREE);
    });
    await s.cancel("8");
    expect((await healthOf(shared.authority.url))["readsCancelledRunning"]).toBe(0);
    expect(shared.sandbox.control.releaseHeld()).toBe(1);
    const messages = await sseMessages(await (answer as Promise<Response>));
    const reply = messages.find((m) => m["id"] === 8);
    expect(reply, JSON.stringify(messages)).toBeDefined();
    const result = reply?.["result"] as { isError?: boolean; structuredContent?: unknown };
    expect(result.isError, JSON.stringify(reply)).not.toBe(true);
    expect(result.structuredContent).toMatchObject({ notebook: DEMO_IDS.notebookResearch });
    expect(listingsAfter(first)).toBeGreaterThan(0);
    await readSlotsFree();

    // The number 8 names it: the read of ID 8 stops at its checkpoint, no listing sent.
    const ctl = new AbortController();
    const second = await holdFirstKernelCall(() => {
      // Its answer is never sent (the SDK drops a cancelled request's answer): the stream is
      // closed by the test.
      void s.call(8, "document", LIST_TREE).then(
        (res) => ctl.signal.addEventListener("abort", () => void res.body?.cancel()),
        () => undefined,
      );
    });
    await s.cancel(8);
    await waitFor(
      async () => (await healthOf(shared.authority.url))["readsCancelledRunning"] === 1,
      { what: "the read of ID 8 counted as cancelled" },
    );
    expect(shared.sandbox.control.releaseHeld()).toBe(1);
    await readSlotsFree();
    expect(listingsAfter(second)).toBe(0);
    ctl.abort();
    await s.close();
  });
});
