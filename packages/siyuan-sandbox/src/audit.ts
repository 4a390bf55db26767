/**
 * A suite-wide audit of what sandboxes were asked, for invariants that hold across every test.
 * Today one: no request to `/api/repo/*` (the strict-write lease never calls it, spec "Strict Safe
 * Writes"). Only history.snapshot_list, snapshot_create and snapshot_diff call the repo API, when
 * asked: a sandbox their tests mark (`control.expectSnapshotActions()`) does not report those
 * three actions' paths; every other `/api/repo/*` path, and those three on any other sandbox, is
 * reported. Recorded before routing, auth and faults; `control.resetLog()` does not clear it.
 * Sandboxes in this process record in memory; a sandbox in a spawned process (the Node server's
 * embedded demo, the `siyuan-sandbox` bin) also appends each such path, one per line, to the file
 * named by `SISYPHUS_SANDBOX_REPO_AUDIT` when its parent set it.
 */
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";

/** The prefix of SiYuan's repository (snapshot) API. */
const REPO_API_PREFIX = "/api/repo/";

/** The `/api/repo/*` paths history.snapshot_* call (and no other action). */
export const SNAPSHOT_ACTION_REPO_PATHS: ReadonlySet<string> = new Set([
  "/api/repo/getRepoSnapshots",
  "/api/repo/createSnapshot",
  "/api/repo/diffRepoSnapshots",
]);

/** The environment variable naming the audit file shared with spawned sandboxes. */
export const REPO_AUDIT_ENV = "SISYPHUS_SANDBOX_REPO_AUDIT";

const repoRequests: string[] = [];

/** Notes one request path (every sandbox's front calls this for every request). */
export function auditRequest(path: string): void {
  if (!path.startsWith(REPO_API_PREFIX)) return;
  repoRequests.push(path);
  const file = process.env[REPO_AUDIT_ENV];
  if (file) appendFileSync(file, `${path}\n`);
}

/**
 * The `/api/repo/*` paths any sandbox received since the last call — in this process, and in
 * spawned processes through the audit file — oldest first per source; clears both (a test-suite
 * hook calls this after each test).
 */
export function takeRepoRequests(): string[] {
  const taken = repoRequests.splice(0);
  const file = process.env[REPO_AUDIT_ENV];
  if (!file) return taken;
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return taken;
  }
  writeFileSync(file, "");
  // The file holds this process's paths too (auditRequest appends every one).
  return text.split("\n").filter((line) => line !== "");
}
