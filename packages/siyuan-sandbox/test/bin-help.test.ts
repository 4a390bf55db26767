import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SOURCE_BIN = fileURLToPath(new URL("../src/bin.ts", import.meta.url));
// the installed command (needs the package build, which turbo runs before the tests)
const INSTALLED_BIN = fileURLToPath(new URL("../bin/siyuan-sandbox.js", import.meta.url));

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => {
    stdout += c;
  });
  child.stderr.setEncoding("utf8").on("data", (c: string) => {
    stderr += c;
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

const source = (...args: string[]) =>
  run(["--import", "tsx", "--conditions=source", SOURCE_BIN, ...args]);

// each case spawns Node with tsx: slow on a loaded machine
const SPAWN_TIMEOUT_MS = 30_000;

describe("siyuan-sandbox --help", () => {
  it(
    "prints the usage and exits 0 (source bin)",
    async () => {
      for (const flag of ["--help", "-h"]) {
        const r = await source(flag);
        expect(r.code).toBe(0);
        expect(r.stdout).toMatch(/^usage: siyuan-sandbox --token T/);
        expect(r.stdout).toContain("--data-dir DIR");
        expect(r.stderr).toBe("");
      }
    },
    SPAWN_TIMEOUT_MS,
  );

  it(
    "names an unknown option, prints the usage, exits 2 without a stack trace",
    async () => {
      const r = await source("--bogus");
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("Unknown option '--bogus'");
      expect(r.stderr).toContain("usage: siyuan-sandbox");
      expect(r.stderr).not.toMatch(/\n\s+at /);
    },
    SPAWN_TIMEOUT_MS,
  );

  it(
    "the installed bin/siyuan-sandbox.js prints the usage and exits 0",
    async () => {
      const r = await run([INSTALLED_BIN, "--help"]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^usage: siyuan-sandbox --token T/);
    },
    SPAWN_TIMEOUT_MS,
  );
});
