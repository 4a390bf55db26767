/**
 * A process-wide audit of what every sandbox started in this process was asked, for suite-wide
 * invariants. Today one: no request to `/api/repo/*` (the strict-write lease never calls it, spec
 * "Strict Safe Writes"). Recorded before routing, auth and faults; `control.resetLog()` does not
 * clear it. Sandboxes in other processes keep their own.
 */

/** The prefix of SiYuan's repository (snapshot) API. */
const REPO_API_PREFIX = "/api/repo/";

const repoRequests: string[] = [];

/** Notes one request path (every sandbox's front calls this for every request). */
export function auditRequest(path: string): void {
  if (path.startsWith(REPO_API_PREFIX)) repoRequests.push(path);
}

/**
 * The `/api/repo/*` paths any sandbox in this process received since the last call, oldest first;
 * clears them (a test-suite hook calls this after each test).
 */
export function takeRepoRequests(): string[] {
  return repoRequests.splice(0);
}
