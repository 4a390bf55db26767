/**
 * Response recovery's timing at the kernel link (spec: after losing the response, CLI/Node "query
 * only that task's result up to 3 times (2-second timeout each, 100 ms between attempts)"): the
 * link asks the sandbox's plugin route `/tasks`, which holds every request, so each try ends at its
 * deadline. The link's timers are a fake clock the test advances: nothing waits in real time.
 */
import { randomUUID } from "node:crypto";
import { PLUGIN_NAME } from "@sisyphus/mcp-tools/settings";
import { type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  TASK_RECOVERY_ATTEMPTS,
  TASK_RECOVERY_PAUSE_MS,
  TASK_RECOVERY_TIMEOUT_MS,
} from "../src/constants.js";
import { KernelAuthorityLink } from "../src/kernel-authority-link.js";
import { FakeTimers } from "./fake-timers.js";

const TASKS = `/plugin/private/${PLUGIN_NAME}/tasks`;

/** The kernel link with its recovery callable from the test. */
class RecoveringLink extends KernelAuthorityLink {
  recoverNow(taskId: string) {
    return this.recover(taskId);
  }
}

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ seed: "demo" });
});

afterAll(async () => {
  sandbox.control.releaseHeld();
  await sandbox?.stop();
});

describe("response recovery at the kernel link", () => {
  it("asks /tasks 3 times, each try cut off at 2 s, 100 ms apart, then gives up", async () => {
    const clock = new FakeTimers();
    const link = new RecoveringLink({
      kernel: { siyuanUrl: sandbox.url, siyuanToken: sandbox.token },
      taskTimers: clock,
    });
    const control = sandbox.control;
    const before = control.count(TASKS);
    control.armFault({ endpoint: TASKS, kind: "hold", times: "always" });
    const recovering = link.recoverNow(randomUUID());
    for (let attempt = 1; attempt <= 3; attempt++) {
      await waitFor(() => control.count(TASKS) === before + attempt, {
        what: `/tasks try ${attempt}`,
      });
      // This try waits on one deadline, 2 s from when it was sent.
      expect(clock.pending("deadline")).toEqual([clock.now + 2_000]);
      clock.advance(1_999);
      expect(clock.pending("deadline")).toEqual([clock.now + 1]);
      clock.advance(1);
      if (attempt === 3) break;
      // Cut off at its deadline, the try is followed by a 100 ms pause, and no try before it ends.
      await waitFor(() => clock.pending("pause").length === 1, { what: `pause ${attempt}` });
      expect(clock.pending("pause")).toEqual([clock.now + 100]);
      clock.advance(99);
      expect(control.count(TASKS)).toBe(before + attempt);
      clock.advance(1);
    }
    await expect(recovering).resolves.toBeUndefined();
    // Three tries and no fourth; on the clock, 3 × 2 s of tries and 2 × 100 ms between them.
    expect(control.count(TASKS)).toBe(before + 3);
    expect(clock.now).toBe(3 * 2_000 + 2 * 100);
    expect(clock.asked).toEqual([
      { kind: "deadline", ms: 2_000 },
      { kind: "pause", ms: 100 },
      { kind: "deadline", ms: 2_000 },
      { kind: "pause", ms: 100 },
      { kind: "deadline", ms: 2_000 },
    ]);
    expect([TASK_RECOVERY_ATTEMPTS, TASK_RECOVERY_TIMEOUT_MS, TASK_RECOVERY_PAUSE_MS]).toEqual([
      3, 2_000, 100,
    ]);
    control.clearFaults();
    control.releaseHeld();
  });
});
