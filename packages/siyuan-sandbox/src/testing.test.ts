import { describe, expect, it } from "vitest";
import { isSandboxError } from "./errors.js";
import * as testing from "./testing.js";
import { letTimePass, observeQuietFor, waitFor } from "./testing.js";

describe("waitFor", () => {
  it("exports exactly the documented runtime names", () => {
    expect(Object.keys(testing).sort()).toEqual(
      [
        "EXPECT_POLL_TIMEOUT_MS",
        "WAIT_FOR_INTERVAL_MS",
        "WAIT_FOR_TIMEOUT_MS",
        "letTimePass",
        "observeQuietFor",
        "waitFor",
      ].sort(),
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

describe("observeQuietFor", () => {
  it("resolves once the check stayed falsy for the whole period, checking more than once", async () => {
    let checks = 0;
    const started = Date.now();
    await observeQuietFor(
      40,
      () => {
        checks++;
        return false;
      },
      { intervalMs: 5 },
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);
    expect(checks).toBeGreaterThan(1);
  });

  it("fails with not_quiet, naming what happened and when, as soon as a check is truthy", async () => {
    let checks = 0;
    const e = await observeQuietFor(10_000, () => (++checks >= 3 ? "answered" : ""), {
      intervalMs: 1,
      what: "an answer",
    }).catch((error: unknown) => error);
    expect(isSandboxError(e)).toBe(true);
    expect(e).toMatchObject({
      code: "not_quiet",
      details: { what: "an answer", quietMs: 10_000, value: "answered" },
    });
    expect((e as { details: { afterMs: number } }).details.afterMs).toBeLessThan(10_000);
    expect(String((e as Error).message)).toContain("an answer");
  });
});

describe("letTimePass", () => {
  it("lets the time pass, and only with a reason", async () => {
    const started = Date.now();
    await letTimePass(20, "a client's backoff");
    expect(Date.now() - started).toBeGreaterThanOrEqual(19);
    await expect(letTimePass(1, " ")).rejects.toMatchObject({ code: "invalid_argument" });
  });
});
