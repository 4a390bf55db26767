/**
 * Every endpoint in the client's table is served by the sandbox, except the ones listed below
 * (typed from the contract, not yet served there, so without sandbox tests).
 */
import { type Sandbox, SNAPSHOT_ACTION_REPO_PATHS } from "@sisyphus/siyuan-sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENDPOINTS } from "../src/index.js";
import { startDemoSandbox } from "./support/sandbox.js";

/** Client endpoints the sandbox did not serve when these tests were written. */
const NOT_SERVED_BY_SANDBOX = new Set([
  "/api/asset/upload",
  "/api/file/renameFile",
  "/api/av/getAttributeView",
  "/api/av/renderAttributeView",
  "/api/av/getAttributeViewKeysByAvID",
  "/api/av/addAttributeViewKey",
  "/api/av/removeAttributeViewKey",
  "/api/av/addAttributeViewBlocks",
  "/api/av/removeAttributeViewBlocks",
  "/api/av/setAttributeViewBlockAttr",
  "/api/av/batchSetAttributeViewBlockAttrs",
]);

/**
 * The repo paths history.snapshot_* call: the suite's audit forbids `/api/repo/*` here, so their
 * routes are tested in siyuan-sandbox's test/repo.test.ts.
 */
const REPO_PATHS = SNAPSHOT_ACTION_REPO_PATHS;

let sb: Sandbox;
beforeAll(async () => {
  sb = await startDemoSandbox();
});
afterAll(async () => {
  await sb.stop();
});

describe("endpoint coverage", () => {
  it("the sandbox answers every other endpoint of the table (not HTTP 404)", async () => {
    const served = Object.values(ENDPOINTS)
      .map((e) => e.path)
      .filter((p) => !NOT_SERVED_BY_SANDBOX.has(p) && !REPO_PATHS.has(p));
    expect(served.length).toBeGreaterThan(50);
    for (const path of served) {
      // An empty JSON object: handlers reject or no-op it; only the route's existence matters here.
      const res = await fetch(sb.url + path, {
        method: "POST",
        headers: { authorization: `Token ${sb.token}`, "content-type": "application/json" },
        body: "{}",
      });
      await res.arrayBuffer();
      expect(res.status, path).not.toBe(404);
    }
    const unknown = await fetch(`${sb.url}/api/no/suchEndpoint`, {
      method: "POST",
      headers: { authorization: `Token ${sb.token}` },
      body: "{}",
    });
    expect(unknown.status).toBe(404);
  });
});
