import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { acquireDataDirLock, readAuthorityRecord, writeAuthorityRecord } from "./data-dir.js";
import { isNodeServerError } from "./errors.js";

describe("data directory lock", () => {
  it("refuses a second owner and names the holder", async () => {
    const d = mkdtempSync(join(tmpdir(), "sisyphus-dd-"));
    const lock = await acquireDataDirLock(d);
    await lock.announce("http://127.0.0.1:1/mcp");
    const err = await acquireDataDirLock(d).catch((e: unknown) => e);
    expect(isNodeServerError(err) && err.code).toBe("data_dir_locked");
    expect(isNodeServerError(err) && err.details.holderUrl).toBe("http://127.0.0.1:1/mcp");
    await lock.release();
    const again = await acquireDataDirLock(d);
    await again.release();
  });

  it("reports a live foreign holder and replaces a dead one's stale lock", async () => {
    const d = mkdtempSync(join(tmpdir(), "sisyphus-dd-"));
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 20000)"], {
      stdio: "ignore",
    });
    try {
      writeFileSync(
        join(d, "authority.lock"),
        JSON.stringify({ pid: child.pid, url: "http://127.0.0.1:9/mcp", startedAt: 1 }),
      );
      const err = await acquireDataDirLock(d).catch((e: unknown) => e);
      expect(isNodeServerError(err) && err.code).toBe("data_dir_locked");
      expect(isNodeServerError(err) && err.details.holderPid).toBe(child.pid);
      expect(isNodeServerError(err) && err.message).toContain(String(child.pid));
    } finally {
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
    }
    const lock = await acquireDataDirLock(d);
    await lock.release();
  });

  it("round-trips authority.json without any token field", async () => {
    const d = mkdtempSync(join(tmpdir(), "sisyphus-dd-"));
    await writeAuthorityRecord(d, {
      url: "http://127.0.0.1:5/mcp",
      pid: 1,
      epoch: "e1",
      kind: "node-http",
    });
    expect(await readAuthorityRecord(d)).toEqual({
      url: "http://127.0.0.1:5/mcp",
      pid: 1,
      epoch: "e1",
      kind: "node-http",
    });
  });
});
