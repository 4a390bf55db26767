import { describe, expect, it } from "vitest";
import { isSandboxError } from "./errors.js";
import * as testing from "./testing.js";
import { waitFor } from "./testing.js";

describe("waitFor", () => {
  it("exports exactly the documented runtime names", () => {
    expect(Object.keys(testing).sort()).toEqual(
      ["WAIT_FOR_INTERVAL_MS", "WAIT_FOR_TIMEOUT_MS", "waitFor"].sort(),
    );
  });

  it("resolves with the first truthy value of a sync or async condition", async () => {
    let checks = 0;
    expect(await waitFor(() => (++checks >= 3 ? `after ${checks}` : ""), { intervalMs: 1 })).toBe(
      "after 3",
    );
    expect(await waitFor(async () => ({ ok: true }))).toEqual({ ok: true });
  });

  it("fails with wait_timeout naming what it waited for and the last value", async () => {
    const e = await waitFor(() => 0, { timeoutMs: 30, intervalMs: 5, what: "the queue" }).catch(
      (error: unknown) => error,
    );
    expect(isSandboxError(e)).toBe(true);
    expect(e).toMatchObject({
      code: "wait_timeout",
      details: { what: "the queue", timeoutMs: 30, last: 0 },
    });
    expect(String((e as Error).message)).toContain("the queue");
  });

  it("lets an error thrown by the condition propagate", async () => {
    await expect(
      waitFor(() => {
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
  });
});
