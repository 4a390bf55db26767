/** `sisyphus-server --help` prints the usage and exits 0; a bad flag names it, without a stack trace. */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { BIN } from "./harness.js";

describe("the executable's usage", () => {
  it("prints every mode and flag on --help and -h, exit 0", () => {
    for (const flag of ["--help", "-h"]) {
      const r = spawnSync(process.execPath, [BIN, flag], { encoding: "utf8" });
      expect(r.status).toBe(0);
      expect(r.stdout).toContain("sisyphus-server --stdio");
      expect(r.stdout).toContain("--idle-stop-ms");
      expect(r.stderr).toBe("");
    }
  });

  it("names an unknown flag and exits 1 without a stack trace", () => {
    const r = spawnSync(process.execPath, [BIN, "--bogus"], { encoding: "utf8" });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("--bogus");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
