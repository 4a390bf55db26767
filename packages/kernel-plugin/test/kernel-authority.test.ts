/**
 * The kernel authority end to end: the built `package.zip` in the sandbox's plugin host (goja's
 * globals and language level), the official MCP client on its private route, strict writes
 * through the plugin's own coordinator.
 */
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { describe, expect, it } from "vitest";
import { kernelClient, PLUGIN_NAME, sc, useSandboxWithPlugin, writeSettings } from "./harness.js";

const UPDATE = "/api/block/updateBlock";
const box = useSandboxWithPlugin();

describe("the kernel authority", () => {
  it("runs in the plugin host and serves the same tools in both eras", async () => {
    expect(box.current.plugins.status(PLUGIN_NAME)).toMatchObject({
      state: "running",
      error: null,
    });
    for (const era of ["modern", "legacy"] as const) {
      const client = await kernelClient(box.current, era);
      const tools = (await client.listTools()).tools.map((t) => t.name).sort();
      expect(tools).toEqual([
        "av",
        "block",
        "document",
        "extension",
        "feedback",
        "file",
        "flashcard",
        "fs",
        "history",
        "notebook",
        "search",
        "system",
        "tag",
      ]);
      await client.close();
    }
  });

  it("commits a strict write through its own coordinator, and a replay writes nothing", async () => {
    const client = await kernelClient(box.current);
    const args = {
      action: "update",
      id: DEMO_IDS.paragraphGoals,
      dataType: "markdown",
      data: "Goals: written by the kernel authority",
    };
    const pre = sc(
      await client.callTool({ name: "block", arguments: { ...args, validateOnly: true } }),
    );
    expect(pre["error"]).toBeUndefined();
    const field = pre["preconditionField"] as string;
    const commitArgs = { ...args, requestId: pre["requestId"], [field]: pre[field] };
    const before = box.current.control.count(UPDATE);
    const commit = sc(await client.callTool({ name: "block", arguments: commitArgs }));
    expect(commit["status"], JSON.stringify(commit)).toBe("committed");
    expect(box.current.control.count(UPDATE)).toBe(before + 1);
    expect(box.current.control.kramdown(DEMO_IDS.paragraphGoals)).toContain(
      "written by the kernel authority",
    );
    const replay = sc(await client.callTool({ name: "block", arguments: commitArgs }));
    expect(replay).toMatchObject({ status: "committed", replayed: true, executedNow: false });
    expect(box.current.control.count(UPDATE)).toBe(before + 1);
    const bootstrap = sc(
      await client.callTool({ name: "system", arguments: { action: "bootstrap" } }),
    );
    expect(bootstrap["authority"]).toBe("kernel");
    await client.close();
  });

  it("refuses strict calls while its settings turn the kernel endpoint off (the Node server is the authority then), and still reads", async () => {
    const client = await kernelClient(box.current);
    await writeSettings(box.current, { kernelEndpointEnabled: false });
    try {
      const before = box.current.control.count(UPDATE);
      const pre = sc(
        await client.callTool({
          name: "block",
          arguments: {
            action: "update",
            id: DEMO_IDS.paragraphJournal,
            dataType: "markdown",
            data: "x",
            validateOnly: true,
          },
        }),
      );
      expect(pre["error"]).toMatchObject({
        code: "write_coordinator_unavailable",
        reason: "kernel_endpoint_disabled",
      });
      expect(box.current.control.count(UPDATE)).toBe(before);
      const read = await client.callTool({ name: "notebook", arguments: { action: "list" } });
      expect(read.isError).not.toBe(true);
      await writeSettings(box.current, { kernelEndpointEnabled: "yes" });
      const invalid = sc(
        await client.callTool({
          name: "block",
          arguments: { action: "delete", id: DEMO_IDS.paragraphJournal, validateOnly: true },
        }),
      );
      expect(invalid["error"]).toMatchObject({ reason: "settings_invalid" });
    } finally {
      await writeSettings(box.current, { kernelEndpointEnabled: true });
    }
    await client.close();
  });

  it("applies the permissions in its settings, read fresh for every call", async () => {
    const client = await kernelClient(box.current);
    const get = { action: "get_kramdown", id: DEMO_IDS.paragraphStatus };
    try {
      await writeSettings(box.current, {
        kernelEndpointEnabled: true,
        permissions: { default: "read" },
      });
      const pre = sc(
        await client.callTool({
          name: "block",
          arguments: {
            action: "update",
            id: DEMO_IDS.paragraphStatus,
            dataType: "markdown",
            data: "x",
            validateOnly: true,
          },
        }),
      );
      expect(pre["error"]).toMatchObject({ code: "permission_denied" });
      expect((await client.callTool({ name: "block", arguments: get })).isError).not.toBe(true);
      await writeSettings(box.current, {
        kernelEndpointEnabled: true,
        permissions: { default: "none" },
      });
      expect(sc(await client.callTool({ name: "block", arguments: get }))["error"]).toMatchObject({
        code: "permission_denied",
      });
    } finally {
      await writeSettings(box.current, { kernelEndpointEnabled: true });
    }
    expect((await client.callTool({ name: "block", arguments: get })).isError).not.toBe(true);
    await client.close();
  });
});
