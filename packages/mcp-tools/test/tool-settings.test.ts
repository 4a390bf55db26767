/**
 * The settings' tool switches and kernel options in the runtime and the shared gateway: a
 * turned-off tool or action is not listed and a call of it answers `action_disabled` before any
 * kernel request; a `disabled` entry naming nothing makes the settings unusable; `pageSize` is the
 * default page size of a paged read; `readRetries` is the attempts of each kernel read of the call.
 * Against the sandbox kernel over loopback.
 */
import { describe, expect, it } from "vitest";
import { turnedOff } from "../src/index.js";
import { DEFAULT_SETTINGS, type SisyphusSettings } from "../src/settings.js";
import { Admission } from "../src/shell/index.js";
import { errorCode, useHarness } from "./harness.js";
import { gatewayCall, kernelRequests, sc } from "./support/gateway-driver.js";

const h = useHarness();

function settings(over: Partial<SisyphusSettings>): SisyphusSettings {
  return { ...DEFAULT_SETTINGS, ...over };
}

/** The gateway over the harness's runtime, with `current` as every call's settings snapshot. */
function gatewayWith(current: () => SisyphusSettings) {
  return gatewayCall(h, new Admission(), async () => ({ settings: current() }));
}

describe("turned-off tools and actions", () => {
  it("resolves entries against the catalog: tools, actions, aliases, and names it lacks", () => {
    const off = turnedOff(["fs", "block.delete", "document.set_attr", "nope", "block.nope", "x.y"]);
    expect(off.unknown).toEqual(["nope", "block.nope", "x.y"]);
    expect(off.has("fs")).toBe(true);
    expect(off.has("fs", "read")).toBe(true);
    expect(off.has("block", "delete")).toBe(true);
    // `set_attr` is an alias of `set_attrs`: the canonical action is off.
    expect(off.has("document", "set_attrs")).toBe(true);
    expect(off.has("block", "update")).toBe(false);
    expect(off.has("block")).toBe(false);
    expect(off.enabledActions("block").map((a) => a.action)).not.toContain("delete");
  });

  it("lists neither a turned-off tool nor a turned-off action; unknown names list every tool", () => {
    const all = h.runtime.listTools();
    const listed = h.runtime.listTools(["fs", "block.delete"]);
    expect(listed.map((t) => t.name)).toEqual(all.map((t) => t.name).filter((n) => n !== "fs"));
    const block = listed.find((t) => t.name === "block");
    const properties = block?.inputSchema["properties"] as Record<string, { enum?: string[] }>;
    const actions = properties["action"]?.enum;
    expect(actions).not.toContain("delete");
    expect(actions).toContain("update");
    expect(block?.description).not.toMatch(/delete\(/);
    expect(all.find((t) => t.name === "block")?.description).toMatch(/delete\(/);
    expect(h.runtime.listTools(["fs", "bogus"])).toEqual(all);
  });

  it("answers action_disabled through the gateway with no kernel request, and refuses unknown names", async () => {
    let current = settings({ disabled: ["search", "block.get_kramdown"] });
    const call = gatewayWith(() => current);
    const before = kernelRequests(h);
    const tool = await call("search", { action: "fulltext", query: "x" });
    expect(sc(tool)).toMatchObject({
      writeAttempted: false,
      error: { code: "action_disabled", tool: "search" },
    });
    const action = await call("block", { action: "get_kramdown", id: "20200101000000-aaaaaaa" });
    expect(sc(action)["error"]).toMatchObject({ code: "action_disabled", action: "get_kramdown" });
    // Invalid arguments do not get past a turned-off action either.
    expect(sc(await call("block", { action: "get_kramdown" }))["error"]).toMatchObject({
      code: "action_disabled",
    });
    expect(kernelRequests(h)).toBe(before);
    current = settings({ disabled: ["block.frobnicate"] });
    const unknown = await call("notebook", { action: "list" });
    expect(sc(unknown)["error"]).toMatchObject({ code: "permission_denied" });
    expect(JSON.stringify(sc(unknown))).toMatch(/block\.frobnicate/);
    const strict = await call("block", {
      action: "update",
      id: "20200101000000-aaaaaaa",
      data: "x",
      validateOnly: true,
    });
    expect(sc(strict)["error"]).toMatchObject({
      code: "write_coordinator_unavailable",
      reason: "settings_invalid",
    });
    expect(kernelRequests(h)).toBe(before);
    current = settings({ disabled: ["block.delete"] });
    expect((await call("notebook", { action: "list" })).isError).not.toBe(true);
  });
});

describe("kernel options", () => {
  it("makes the configured pageSize the default of a paged read, and leaves a given one alone", async () => {
    const options = { ...DEFAULT_SETTINGS.options, pageSize: 5 };
    const byDefault = await h.runtime.callTool(
      "search",
      { action: "fulltext", query: "the" },
      { options },
    );
    expect(errorCode(byDefault)).toBeUndefined();
    expect(byDefault.structuredContent["pageSize"]).toBe(5);
    expect((byDefault.structuredContent["hits"] as unknown[]).length).toBeLessThanOrEqual(5);
    const given = await h.runtime.callTool(
      "search",
      { action: "fulltext", query: "the", pageSize: 2 },
      { options },
    );
    expect(given.structuredContent["pageSize"]).toBe(2);
    const none = await h.call("search", { action: "fulltext", query: "the" });
    expect(none.structuredContent["pageSize"]).toBe(16);
  });

  it("makes readRetries the attempts of each read: 1 answers the first retryable failure", async () => {
    const endpoint = "/api/notebook/lsNotebooks";
    const count = () => h.sandbox.control.count(endpoint);
    h.sandbox.control.armFault({ endpoint, kind: "http5xx", status: 503 });
    let before = count();
    const once = await h.runtime.callTool(
      "notebook",
      { action: "list" },
      { options: { ...DEFAULT_SETTINGS.options, readRetries: 1 } },
    );
    expect(errorCode(once)).toBe("kernel_unavailable");
    expect(count() - before).toBe(1);
    h.sandbox.control.armFault({ endpoint, kind: "http5xx", status: 503 });
    before = count();
    const retried = await h.runtime.callTool(
      "notebook",
      { action: "list" },
      { options: { ...DEFAULT_SETTINGS.options, readRetries: 2 } },
    );
    expect(errorCode(retried)).toBeUndefined();
    expect(count() - before).toBe(2);
  });
});

describe("the template budget", () => {
  it("is the call's settings snapshot's templateBudgetBytes, checked before any kernel request", async () => {
    let current = settings({ options: { ...DEFAULT_SETTINGS.options, templateBudgetBytes: 4 } });
    const call = gatewayWith(() => current);
    const args = {
      action: "create_template",
      name: "budget.md",
      content: "12345",
      validateOnly: true,
    };
    const before = kernelRequests(h);
    const refused = await call("file", args);
    expect(sc(refused)["error"]).toMatchObject({
      code: "invalid_arguments",
      reason: "template_budget",
      limit: 4,
      size: 5,
      writeAttempted: false,
    });
    expect(kernelRequests(h)).toBe(before);
    // The next call reads the settings again: a larger budget admits the same template.
    current = settings({ options: { ...DEFAULT_SETTINGS.options, templateBudgetBytes: 5 } });
    const admitted = await call("file", args);
    expect(sc(admitted)["error"], JSON.stringify(sc(admitted))).toBeUndefined();
    expect(sc(admitted)["templatePath"]).toBe("/data/templates/budget.md");
  });
});
