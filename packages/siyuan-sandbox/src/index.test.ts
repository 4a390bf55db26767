import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("public surface", () => {
  it("exports exactly the documented runtime names", () => {
    expect(Object.keys(api).sort()).toEqual(
      [
        "CONTROL_ROUTE_PREFIX",
        "CORRUPTION_MARKER",
        "DEFAULT_FLUSH_INTERVAL_MS",
        "DEMO_IDS",
        "KERNEL_VERSION",
        "PACKAGE_NAME",
        "SQL_DEFAULT_LIMIT_ROWS",
        "REPO_AUDIT_ENV",
        "SNAPSHOT_ACTION_REPO_PATHS",
        "SandboxError",
        "applyDefaultLimit",
        "defaultCorrupt",
        "formatTimestamp",
        "isSandboxError",
        "isSerialisationExempt",
        "isValidNodeId",
        "seededRandom",
        "startSandbox",
        "steppingClock",
        "takeRepoRequests",
        // the kernel-plugin host (docs/plugin-host.md)
        "DEFAULT_KERNEL_RESTART_DOWN_MS",
        "checkLanguageLevel",
        "readZip",
        "writeZip",
      ].sort(),
    );
  });

  it("isSandboxError brand-checks without instanceof", () => {
    const e = new api.SandboxError("invalid_option", "x", { a: 1 }, { cause: new Error("c") });
    expect(api.isSandboxError(e)).toBe(true);
    expect(api.isSandboxError(new Error("x"))).toBe(false);
    expect(api.isSandboxError({ code: "invalid_option" })).toBe(false);
    expect(e.cause).toBeInstanceOf(Error);
  });

  it("isSerialisationExempt follows the kernel's prefixes and verbs", () => {
    expect(api.isSerialisationExempt("/api/block/getBlockKramdown")).toBe(true);
    expect(api.isSerialisationExempt("/api/notebook/lsNotebooks")).toBe(true);
    expect(api.isSerialisationExempt("/api/query/sql")).toBe(true);
    expect(api.isSerialisationExempt("/api/block/updateBlock")).toBe(false);
    expect(api.isSerialisationExempt("/plugin/private/x/mcp")).toBe(false);
  });

  it("startSandbox rejects a bad flush interval", async () => {
    await expect(api.startSandbox({ flushIntervalMs: 0 })).rejects.toSatisfy(
      (e: unknown) => api.isSandboxError(e) && e.code === "invalid_option",
    );
  });
});
