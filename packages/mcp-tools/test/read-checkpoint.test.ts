/**
 * Read checkpoints (spec, "Kernel concurrency and queued cancellation": running reads stop at
 * checkpoints after the current host call settles): a read cancelled while its first kernel call
 * is held in the sandbox kernel answers `cancelled` once that call settles, and sends no further
 * kernel call; the checkpoint itself, in front of every kernel call and retry of a read.
 */
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { describe, expect, it } from "vitest";
import { isToolError } from "../src/index.js";
import { ReadCheckpoint } from "../src/read-checkpoint.js";
import { errorCode, useHarness } from "./harness.js";

const h = useHarness();

const LS_NOTEBOOKS = "/api/notebook/lsNotebooks";
const LIST_DOCS = "/api/filetree/listDocsByPath";

describe("a read cancelled while it runs", () => {
  it("stops at the checkpoint after its held kernel call settles: no later kernel call is sent", async () => {
    const args = { action: "list_tree", notebook: DEMO_IDS.notebookResearch, depth: 2 };
    const listings = h.sandbox.control.count(LIST_DOCS);
    h.sandbox.control.armFault({ endpoint: LS_NOTEBOOKS, kind: "hold", times: 1 });
    const ctl = new AbortController();
    const answer = h.runtime.callTool("document", args, { signal: ctl.signal });
    await waitFor(() => h.sandbox.control.held() === 1, { what: "the read's first kernel call" });
    ctl.abort();
    expect(h.sandbox.control.releaseHeld()).toBe(1);
    const r = await answer;
    expect(errorCode(r), JSON.stringify(r.structuredContent)).toBe("cancelled");
    expect(r.structuredContent["error"]).toMatchObject({ writeAttempted: false });
    expect(h.sandbox.control.count(LIST_DOCS)).toBe(listings);
    // Not cancelled, the same read goes on to its listings.
    const whole = await h.runtime.callTool("document", args, {
      signal: new AbortController().signal,
    });
    expect(errorCode(whole)).toBeUndefined();
    expect(h.sandbox.control.count(LIST_DOCS)).toBeGreaterThan(listings);
  });
});

describe("ReadCheckpoint", () => {
  it("lets every call through until the signal aborts, then throws `cancelled` before each call and retry", () => {
    const ctl = new AbortController();
    const checkpoint = new ReadCheckpoint(ctl.signal);
    const call = { endpoint: LIST_DOCS, kind: "read" as const };
    expect(checkpoint.reserveCall(call)).toBe(true);
    expect(checkpoint.reserveRetry(call)).toBe(true);
    expect(checkpoint.stopped).toBeUndefined();
    ctl.abort();
    let thrown: unknown;
    try {
      checkpoint.reserveCall(call);
    } catch (e) {
      thrown = e;
    }
    expect(isToolError(thrown) && thrown.code).toBe("cancelled");
    expect(checkpoint.stopped).toBe(thrown);
    expect(() => checkpoint.reserveRetry(call)).toThrow(/cancelled/);
    // Without a signal a read is never stopped.
    expect(new ReadCheckpoint(undefined).reserveCall(call)).toBe(true);
  });
});
