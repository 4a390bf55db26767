import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, type SisyphusSettings } from "../settings.js";
import type { ToolDescriptor } from "../surface.js";
import { perCallSettings, type SettingsRead } from "./endpoint.js";

const kernelOn: SisyphusSettings = { ...DEFAULT_SETTINGS, kernelEndpointEnabled: true };
const nodeOn: SisyphusSettings = { ...DEFAULT_SETTINGS, kernelEndpointEnabled: false };
const TOOLS = ["block", "tag"] as const;

/** The runtime's listing over two tools: those `disabled` leaves on. */
function listTools(disabled: readonly string[]): ToolDescriptor[] {
  return TOOLS.filter((name) => !disabled.includes(name)).map((name) => ({
    name,
    description: name,
    inputSchema: {},
    annotations: { readOnlyHint: true, destructiveHint: false },
  }));
}

function over(read: SettingsRead, need: Parameters<typeof perCallSettings>[0]["strictCallsNeed"]) {
  return perCallSettings({
    read: async () => read,
    strictCallsNeed: need,
    listTools,
  });
}

function codeOf(s: Awaited<ReturnType<ReturnType<typeof over>["snapshot"]>>): unknown {
  return "refusal" in s
    ? (s.refusal.structuredContent as { error: { code: string; reason?: string } }).error
    : "settings";
}

describe("perCallSettings", () => {
  it("refuses a strict call at the plugin while its endpoint is off, reads run", async () => {
    const s = over({ ok: true, settings: nodeOn }, { kind: "kernel-plugin" });
    expect(codeOf(await s.snapshot(true))).toMatchObject({
      code: "write_coordinator_unavailable",
      reason: "kernel_endpoint_disabled",
    });
    expect(codeOf(await s.snapshot(false))).toBe("settings");
    const on = over({ ok: true, settings: kernelOn }, { kind: "kernel-plugin" });
    expect(codeOf(await on.snapshot(true))).toBe("settings");
  });

  it("refuses a strict call in a Node process once the settings select another authority", async () => {
    const s = over(
      { ok: true, settings: kernelOn },
      { kind: "started-with", authority: "node-http" },
    );
    expect(codeOf(await s.snapshot(true))).toMatchObject({
      code: "write_coordinator_changed",
      reason: "other_kind",
    });
    expect(codeOf(await s.snapshot(false))).toBe("settings");
  });

  it("answers kernel_unavailable for an unreachable kernel, and an unusable file per class", async () => {
    const need = { kind: "started-with", authority: "node-http" } as const;
    const down = over({ ok: false, reason: "unreachable", message: "down" }, need);
    expect(codeOf(await down.snapshot(false))).toMatchObject({ code: "kernel_unavailable" });
    const bad = over({ ok: false, reason: "invalid", message: "bad" }, need);
    expect(codeOf(await bad.snapshot(true))).toMatchObject({
      code: "write_coordinator_unavailable",
      reason: "settings_invalid",
    });
    expect(codeOf(await bad.snapshot(false))).toMatchObject({ code: "permission_denied" });
  });

  it("lists what the settings leave on, every tool when they cannot be used", async () => {
    const off = { ...nodeOn, disabled: ["tag"] };
    const need = { kind: "kernel-plugin" } as const;
    const names = async (s: ReturnType<typeof over>) => (await s.listing()).map((t) => t.name);
    expect(await names(over({ ok: true, settings: off }, need))).toEqual(["block"]);
    expect(await names(over({ ok: false, reason: "invalid", message: "bad" }, need))).toEqual([
      "block",
      "tag",
    ]);
  });
});
