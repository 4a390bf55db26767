import { describe, expect, it } from "vitest";
import { IdleStop } from "./background-authority.js";

describe("IdleStop", () => {
  it("fires once after the idle period without activity, and never while busy", () => {
    let now = 0;
    let busy = false;
    let fired = 0;
    const idle = new IdleStop(
      1_000,
      () => busy,
      () => fired++,
      () => now,
    );
    now = 999;
    expect(idle.check()).toBe(false);
    idle.touch();
    now = 1_500;
    expect(idle.check()).toBe(false);
    // Work in flight postpones the stop, and the idle period starts again when it ends.
    busy = true;
    now = 5_000;
    expect(idle.check()).toBe(false);
    busy = false;
    now = 5_999;
    expect(idle.check()).toBe(false);
    expect(fired).toBe(0);
    now = 6_000;
    expect(idle.check()).toBe(true);
    expect(fired).toBe(1);
    now = 20_000;
    expect(idle.check()).toBe(true);
    expect(fired).toBe(1);
  });
});
