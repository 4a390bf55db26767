/**
 * The staging timeout (spec "Kernel file transfer": "the staging timeout is 120 seconds"): a Node
 * front or the CLI staging a local file at the kernel plugin's `/transfer/*` gives up after 120 s
 * with `write_coordinator_unavailable` (`reason: "staging_timeout"`), nothing sent on. The sandbox
 * holds the staging request; the deadline runs on a fake clock the test advances.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  KERNEL_TRANSFER_LOOKUP_PATH,
  KERNEL_TRANSFER_UPLOAD_PATH,
} from "@sisyphus/mcp-tools/settings";
import { type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STAGING_TIMEOUT_MS, stagedUploadCall } from "../src/kernel-staging.js";
import { FakeTimers } from "./fake-timers.js";
import { sc, tempDataDir } from "./harness.js";

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ seed: "demo" });
});

afterAll(async () => {
  sandbox.control.releaseHeld();
  await sandbox?.stop();
});

describe("the staging timeout", () => {
  it("gives up a staging the kernel does not take within 120 s: staging_timeout, nothing sent on", async () => {
    expect(STAGING_TIMEOUT_MS).toBe(120_000);
    const dir = join(tempDataDir(), "files");
    mkdirSync(dir);
    const path = join(dir, "slow.bin");
    writeFileSync(path, Buffer.from("staged slowly\n"));
    const control = sandbox.control;
    const before = {
      lookup: control.count(KERNEL_TRANSFER_LOOKUP_PATH),
      upload: control.count(KERNEL_TRANSFER_UPLOAD_PATH),
    };
    control.armFault({ endpoint: KERNEL_TRANSFER_LOOKUP_PATH, kind: "hold" });
    const clock = new FakeTimers();
    let forwarded = 0;
    const answering = stagedUploadCall(
      { siyuanUrl: sandbox.url, siyuanToken: sandbox.token },
      { action: "upload_asset", localFilePath: path, validateOnly: true },
      undefined,
      async () => {
        forwarded += 1;
        return { content: [] };
      },
      undefined,
      (ms) => clock.deadline(ms),
    );
    await waitFor(() => control.held() === 1, { what: "the staging's lookup held" });
    // One deadline for the whole staging, 120 s from its start.
    expect(clock.asked).toEqual([{ kind: "deadline", ms: 120_000 }]);
    clock.advance(119_999);
    expect(clock.pending("deadline")).toEqual([clock.now + 1]);
    clock.advance(1);
    const answer = await answering;
    expect(answer.isError).toBe(true);
    expect(sc(answer)).toMatchObject({
      writeAttempted: false,
      error: { code: "write_coordinator_unavailable", reason: "staging_timeout" },
    });
    expect(String((sc(answer)["error"] as { message?: unknown }).message)).toContain("120 s");
    // Nothing went on: no upload, no business call.
    expect(forwarded).toBe(0);
    expect(control.count(KERNEL_TRANSFER_LOOKUP_PATH)).toBe(before.lookup + 1);
    expect(control.count(KERNEL_TRANSFER_UPLOAD_PATH)).toBe(before.upload);
    expect(control.releaseHeld()).toBe(1);
  });
});
