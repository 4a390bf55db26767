import { describe, expect, it } from "vitest";
import { monotonicFromWall } from "./monotonic.js";

describe("monotonicFromWall", () => {
  it("counts forward progress, treats a backwards step as zero elapsed, never decreases", () => {
    let wall = 1_000_000;
    const clock = monotonicFromWall(() => wall);
    expect(clock.now()).toBe(0);
    wall += 500;
    expect(clock.now()).toBe(500);
    wall -= 3_600_000;
    expect(clock.now()).toBe(500);
    wall += 200;
    expect(clock.now()).toBe(700);
    wall += 3_600_000;
    expect(clock.now()).toBe(3_600_700);
  });
});
