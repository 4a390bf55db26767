/**
 * Legacy cancellation at the kernel authority: in a 2025 session, `notifications/cancelled` with the
 * original request ID stops a call that is still waiting (here: a commit queued in the write lane
 * behind a held one), so it never writes. The 3.7.3 host serialises `/mcp`, so there the
 * notification waits behind the call it names; on a host that does not (the sandbox's option) it
 * arrives while the call waits.
 */
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { describe, expect, it } from "vitest";
import {
  commitArgs,
  healthOf,
  kernelClient,
  PLUGIN_NAME,
  sc,
  useSandboxWithPlugin,
} from "./harness.js";

const UPDATE = "/api/block/updateBlock";
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
