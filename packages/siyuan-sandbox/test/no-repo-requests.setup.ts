/**
 * Suite-wide check (issue 11), shared by every package whose tests start sandbox kernels: no
 * sandbox — in this test process or spawned by it — is ever asked for `/api/repo/*`; the
 * strict-write lease never calls the repository API. Runs after every test.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect } from "vitest";
import { REPO_AUDIT_ENV, takeRepoRequests } from "../src/audit.js";

// Spawned processes inherit the variable (test harnesses pass it on explicitly where they
// build a minimal environment).
process.env[REPO_AUDIT_ENV] ??= join(mkdtempSync(join(tmpdir(), "sisyphus-repo-audit-")), "log");

afterEach(() => {
  expect(takeRepoRequests(), "kernel requests to /api/repo/* (the lease never calls it)").toEqual(
    [],
  );
});
