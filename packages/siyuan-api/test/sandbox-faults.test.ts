/**
 * Failure classification with the sandbox's faults, checked against its request log: refused
 * connections, resets before/after apply, 5xx, timeouts, on both transports.
 */
import type { Sandbox } from "@sisyphus/siyuan-sandbox";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SiyuanClient } from "../src/index.js";
import {
  armFault,
  failure,
  DEMO_IDS as I,
  kernelClientFor,
  startDemoSandbox,
  undiciClientFor,
} from "./support/sandbox.js";

const UPDATE = "/api/block/updateBlock";
const KRAMDOWN = "/api/block/getBlockKramdown";

let sb: Sandbox;
beforeEach(async () => {
  sb = await startDemoSandbox();
});
afterEach(async () => {
  await sb.stop();
});

for (const [name, make] of [
  ["undici", undiciClientFor],
  ["kernel-fetch", kernelClientFor],
] as const) {
  describe(`faults over the ${name} transport`, () => {
    let client: SiyuanClient;
    beforeEach(() => {
      client = make(sb);
    });
    afterEach(async () => {
      await client.close();
    });

    it("reset after apply → outcome_unknown; exactly one write request; the write was applied", async () => {
      armFault(sb, UPDATE, "reset_after_apply");
      const e = await failure(
        client.block.updateBlock({
          id: I.paragraphGoals,
          dataType: "markdown",
          data: "applied once",
        }),
      );
      expect(e.code).toBe("outcome_unknown");
      expect(e.writeDispatched).toBe(true);
      expect(sb.control.count(UPDATE)).toBe(1);
      expect(sb.control.log().filter((l) => l.path === UPDATE)).toHaveLength(1);
      expect(sb.control.kramdown(I.paragraphGoals)).toContain("applied once");
    });

    it("dropped before apply → outcome_unknown; one write request; nothing applied", async () => {
      const before = sb.control.kramdown(I.paragraphGoals);
      armFault(sb, UPDATE, "drop_before_apply");
      const e = await failure(
        client.block.updateBlock({ id: I.paragraphGoals, dataType: "markdown", data: "never" }),
      );
      expect(e.code).toBe("outcome_unknown");
      expect(sb.control.count(UPDATE)).toBe(1);
      expect(sb.control.kramdown(I.paragraphGoals)).toBe(before);
    });

    it("5xx on a write → outcome_unknown, one request on the wire, not applied", async () => {
      const before = sb.control.kramdown(I.paragraphGoals);
      armFault(sb, UPDATE, "http_5xx_before_apply", { status: 503 });
      const e = await failure(
        client.block.updateBlock({ id: I.paragraphGoals, dataType: "markdown", data: "never" }),
      );
      expect(e.code).toBe("outcome_unknown");
      expect(e.details.httpStatus).toBe(503);
      expect(sb.control.count(UPDATE)).toBe(1);
      expect(sb.control.kramdown(I.paragraphGoals)).toBe(before);
    });

    it("5xx before apply on a read → retried and succeeds", async () => {
      armFault(sb, KRAMDOWN, "http_5xx_before_apply", { status: 503, times: 2 });
      const k = await client.block.getBlockKramdown({ id: I.paragraphGoals });
      expect(k?.kramdown).toContain("sandbox");
      expect(sb.control.count(KRAMDOWN)).toBe(3);
      expect(client.stats().attempts[KRAMDOWN]).toBe(3);
      expect(client.stats().calls[KRAMDOWN]).toBe(1);
    });

    it("a dropped read is retried and succeeds", async () => {
      armFault(sb, KRAMDOWN, "drop_before_apply");
      expect(await client.block.getBlockKramdown({ id: I.paragraphGoals })).not.toBeNull();
      expect(sb.control.count(KRAMDOWN)).toBe(2);
    });

    it("refused connection → not_dispatched, nothing in the log", async () => {
      const url = sb.url;
      await sb.stop();
      const e = await failure(
        client.attr.setBlockAttrs({ id: I.paragraphGoals, attrs: { "custom-a": "1" } }),
      );
      expect(e.code).toBe("not_dispatched");
      expect(e.writeDispatched).toBe(false);
      expect(e.details.attempts).toBe(1);
      expect(sb.control.count("/api/attr/setBlockAttrs")).toBe(0);
      sb = await startDemoSandbox(); // afterEach stops it again
      expect(url).not.toBe("");
    });
  });
}

describe("timeouts", () => {
  it("a write slower than the timeout → outcome_unknown (timeout), one request", async () => {
    const client = undiciClientFor(sb, { timeoutMs: 200 });
    armFault(sb, "/api/attr/setBlockAttrs", "delay", { delayMs: 1_500 });
    const e = await failure(
      client.attr.setBlockAttrs({ id: I.paragraphGoals, attrs: { "custom-slow": "1" } }),
    );
    expect(e.code).toBe("outcome_unknown");
    expect(e.details.reason).toBe("timeout");
    expect(sb.control.count("/api/attr/setBlockAttrs")).toBe(1);
    await client.close();
  });
});
