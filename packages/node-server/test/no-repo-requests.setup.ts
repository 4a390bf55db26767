/**
 * Suite-wide check (issue 11): no sandbox kernel started in this test process is ever asked for
 * `/api/repo/*` — the strict-write lease never calls the repository API. Runs after every test.
 */

import { takeRepoRequests } from "@sisyphus/siyuan-sandbox";
import { afterEach, expect } from "vitest";

afterEach(() => {
  expect(takeRepoRequests(), "kernel requests to /api/repo/* (the lease never calls it)").toEqual(
    [],
  );
});
