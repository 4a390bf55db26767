/**
 * The shared gateway's order of admission and settings: a call is admitted (or refused with
 * `queue_full`) before its settings snapshot is read, so a refused call costs the kernel nothing,
 * and every admitted call reads the settings once, afresh. Against the sandbox kernel over loopback;
 * the snapshot reads `settings.json` through `/api/file/getFile` as the Node server's does.
 */
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { describe, expect, it } from "vitest";
import { parseSettings, SETTINGS_WORKSPACE_PATH } from "../src/settings.js";
import { Admission } from "../src/shell/index.js";
import { useHarness } from "./harness.js";
import { gatewayCall, kernelRequests, sc } from "./support/gateway-driver.js";

const h = useHarness();
const GET_FILE = "/api/file/getFile";
const KRAMDOWN = "/api/block/getBlockKramdown";

/** The gateway over the harness's runtime; each call's snapshot is one kernel read of the settings. */
function gatewayWith(admission: Admission) {
  return gatewayCall(h, admission, async () => {
    const file = await h.client.file.getFile({ path: SETTINGS_WORKSPACE_PATH });
    const text = file === null ? undefined : new TextDecoder().decode(file.bytes);
    return { settings: parseSettings(text) };
  });
}

describe("admission before the settings snapshot", () => {
  it("refuses calls beyond the cap with queue_full and zero kernel requests", async () => {
    const call = gatewayWith(new Admission({ cap: 3 }));
    const read = () => call("block", { action: "get_kramdown", id: DEMO_IDS.paragraphGoals });
    h.sandbox.control.armFault({ endpoint: KRAMDOWN, kind: "hold", times: 3 });
    const start = h.sandbox.control.count(KRAMDOWN);
    const held = [read(), read(), read()];
    await waitFor(() => h.sandbox.control.count(KRAMDOWN) === start + 3, {
      what: "the three admitted reads at the kernel",
    });
    const before = kernelRequests(h);
    const refusedRead = await read();
    const refusedWrite = await call("block", {
      action: "update",
      id: DEMO_IDS.paragraphGoals,
      dataType: "markdown",
      data: "refused",
      validateOnly: true,
    });
    for (const refused of [refusedRead, refusedWrite]) {
      expect(refused.isError).toBe(true);
      expect(sc(refused)["error"]).toMatchObject({ code: "queue_full", limit: 3 });
    }
    // Not the settings, not the tool: the sandbox's request log saw nothing of either call.
    expect(kernelRequests(h)).toBe(before);
    h.sandbox.control.releaseHeld();
    const answers = await Promise.all(held);
    for (const a of answers) expect(a.isError).not.toBe(true);
  });

  it("reads the settings once per admitted call, so a change applies to the next call", async () => {
    const call = gatewayWith(new Admission());
    const reads = () => h.sandbox.control.count(GET_FILE);
    const before = reads();
    const args = { action: "get_kramdown", id: DEMO_IDS.paragraphGoals };
    expect((await call("block", args)).isError).not.toBe(true);
    expect(reads()).toBe(before + 1);
    await h.client.file.putFile({
      path: SETTINGS_WORKSPACE_PATH,
      file: new TextEncoder().encode(JSON.stringify({ disabled: ["block.get_kramdown"] })),
    });
    const readsSoFar = reads();
    const off = await call("block", args);
    expect(sc(off)["error"]).toMatchObject({ code: "action_disabled", action: "get_kramdown" });
    expect(reads()).toBe(readsSoFar + 1);
    await h.client.file.putFile({
      path: SETTINGS_WORKSPACE_PATH,
      file: new TextEncoder().encode("{}"),
    });
    expect((await call("block", args)).isError).not.toBe(true);
  });
});
