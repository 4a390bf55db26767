/**
 * Reload of the plugin runtime (contract §7; the sandbox host's "plugin reload" and "kernel
 * restart" faults): a commit already running finishes before the runtime unloads; afterwards the
 * leases are gone (`preflight_lease_invalid`, `other_epoch`), while the ledger and reservations on
 * `siyuan.storage` remain, so a replay answers from the ledger and writes nothing.
 */
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { describe, expect, it } from "vitest";
import { commitArgs, kernelClient, PLUGIN_NAME, sc, useSandboxWithPlugin } from "./harness.js";

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
