import { spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { describe, expect, it } from "vitest";
import {
  acquireDataDirLock,
  describeDataDirPermissions,
  pidAlive,
  readAuthorityRecord,
  readLocalCredential,
  readPrivateFile,
  removeLocalCredential,
  secureDataDir,
  writeAuthorityRecord,
  writeLocalCredential,
} from "./data-dir.js";
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

  it("counts an exited but unreaped holder (a zombie under a non-reaping init) as dead", async () => {
    // The child exits after its parent `exec`ed into `sleep`, which never waits for it: a zombie.
    // (A child that ended before the exec could be reaped by the shell itself.)
    const parent = spawn("sh", ["-c", "sleep 0.5 & echo $!; exec sleep 20"], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    try {
      const zombie = Number(
        await new Promise<string>((r) => parent.stdout.once("data", (b: Buffer) => r(String(b)))),
      );
      await waitFor(() => readFileSync(`/proc/${zombie}/stat`, "latin1").includes(") Z "), {
        what: "the child to exit unreaped",
      });
      expect(() => process.kill(zombie, 0)).not.toThrow(); // signal 0 still reaches a zombie
      expect(pidAlive(zombie)).toBe(false);
      expect(pidAlive(parent.pid as number)).toBe(true);
      const d = mkdtempSync(join(tmpdir(), "sisyphus-dd-"));
      writeFileSync(
        join(d, "authority.lock"),
        JSON.stringify({ pid: zombie, url: "http://127.0.0.1:9/mcp", startedAt: 1 }),
      );
      const lock = await acquireDataDirLock(d);
      await lock.release();
    } finally {
      parent.kill("SIGKILL");
      await new Promise((r) => parent.once("exit", r));
    }
  });

  it("lets exactly one of many simultaneous starters take the lock (never a half-written lock)", async () => {
    for (let round = 0; round < 20; round++) {
      const d = mkdtempSync(join(tmpdir(), "sisyphus-dd-"));
      const attempts = await Promise.allSettled(
        Array.from({ length: 12 }, () => acquireDataDirLock(d)),
      );
      const won = attempts.filter((a) => a.status === "fulfilled");
      expect(won.length, `round ${round}`).toBe(1);
      for (const a of attempts) {
        if (a.status === "rejected") {
          expect(isNodeServerError(a.reason) && a.reason.code).toBe("data_dir_locked");
        }
      }
      await (
        won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof acquireDataDirLock>>>
      ).value.release();
    }
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

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe.skipIf(process.platform === "win32")("data directory permissions", () => {
  it("creates a missing directory 0700 and every file 0600, whatever the umask", async () => {
    const d = join(mkdtempSync(join(tmpdir(), "sisyphus-dd-")), "nested", "data");
    const previous = process.umask(0o000);
    try {
      expect(secureDataDir(d)).toEqual({ status: "created" });
      const lock = await acquireDataDirLock(d);
      await lock.announce("http://127.0.0.1:1/mcp");
      await writeAuthorityRecord(d, { url: "u", pid: 1, epoch: "e", kind: "node-http" });
      expect(modeOf(d)).toBe(0o700);
      expect(modeOf(join(d, "authority.lock"))).toBe(0o600);
      expect(modeOf(join(d, "authority.json"))).toBe(0o600);
      await lock.release();
    } finally {
      process.umask(previous);
    }
  });

  it("tightens a wider directory holding only Sisyphus files, and its files", () => {
    const d = mkdtempSync(join(tmpdir(), "sisyphus-dd-"));
    writeFileSync(join(d, "ledger.wal"), "", { mode: 0o644 });
    mkdirSync(join(d, "demo-workspace"));
    chmodSync(d, 0o755);
    chmodSync(join(d, "ledger.wal"), 0o644);
    const result = secureDataDir(d);
    expect(result).toEqual({ status: "tightened", previousMode: 0o755 });
    expect(modeOf(d)).toBe(0o700);
    expect(modeOf(join(d, "ledger.wal"))).toBe(0o600);
    expect(describeDataDirPermissions(d, result)).toContain("(mode 0755); tightened it to 0700");
    expect(secureDataDir(d)).toEqual({ status: "private" });
    expect(describeDataDirPermissions(d, { status: "private" })).toBeUndefined();
  });

  it("leaves a shared directory as it is but says so, and still makes the data files 0600", () => {
    const d = mkdtempSync(join(tmpdir(), "sisyphus-dd-"));
    writeFileSync(join(d, "notes.txt"), "not ours");
    writeFileSync(join(d, "reservations.wal"), "", { mode: 0o644 });
    chmodSync(join(d, "reservations.wal"), 0o644);
    chmodSync(d, 0o775);
    const result = secureDataDir(d);
    expect(result).toEqual({
      status: "left_wider",
      mode: 0o775,
      foreign: ["notes.txt"],
      otherOwner: false,
    });
    expect(modeOf(d)).toBe(0o775);
    expect(modeOf(join(d, "reservations.wal"))).toBe(0o600);
    const line = describeDataDirPermissions(d, result) as string;
    expect(line).toContain("WARNING");
    expect(line).toContain("mode 0775");
    expect(line).toContain("notes.txt");
    expect(line).toContain("can delete or replace them");
  });
});

describe.skipIf(process.platform === "win32")("the local credential and trusted files", () => {
  it("writes a fresh random credential 0600, and removes it only while it is still this one", async () => {
    const d = mkdtempSync(join(tmpdir(), "sisyphus-dd-"));
    const previous = process.umask(0o000);
    let first: string;
    try {
      first = await writeLocalCredential(d);
    } finally {
      process.umask(previous);
    }
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(modeOf(join(d, "authority.credential"))).toBe(0o600);
    expect(await readLocalCredential(d)).toBe(first);
    // A successor's credential replaced it: the predecessor's cleanup leaves it alone.
    const second = await writeLocalCredential(d);
    expect(second).not.toBe(first);
    await removeLocalCredential(d, first);
    expect(await readLocalCredential(d)).toBe(second);
    await removeLocalCredential(d, second);
    expect(existsSync(join(d, "authority.credential"))).toBe(false);
    expect(await readLocalCredential(d)).toBeUndefined();
  });

  it("trusts only a private regular file of this user: a readable-by-others file or a symlink is untrusted", async () => {
    const d = mkdtempSync(join(tmpdir(), "sisyphus-dd-"));
    const file = join(d, "authority.json");
    await writeAuthorityRecord(d, {
      url: "http://127.0.0.1:5/mcp",
      pid: 1,
      epoch: "e",
      kind: "node-http",
    });
    expect(typeof (await readAuthorityRecord(d))).toBe("object");
    chmodSync(file, 0o644);
    expect(await readPrivateFile(file)).toBe("untrusted");
    expect(await readAuthorityRecord(d)).toBe("untrusted");
    chmodSync(file, 0o600);
    const elsewhere = join(mkdtempSync(join(tmpdir(), "sisyphus-dd-")), "planted");
    writeFileSync(elsewhere, "token", { mode: 0o600 });
    symlinkSync(elsewhere, join(d, "authority.credential"));
    expect(await readLocalCredential(d)).toBe("untrusted");
    expect(await readPrivateFile(join(d, "absent"))).toBeUndefined();
  });
});
