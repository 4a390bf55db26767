import { describe, expect, it } from "vitest";
import { LEGACY_SESSION_IDLE_MS } from "./constants.js";
import { LegacySessionTable } from "./endpoint.js";

function fakeSession() {
  const s = {
    closed: 0,
    close: async () => {
      s.closed += 1;
    },
  };
  return s;
}

describe("LegacySessionTable", () => {
  it("expires a session after 30 idle minutes, not before", () => {
    let now = 1_000;
    const table = new LegacySessionTable({ now: () => now });
    const s = fakeSession();
    table.add("a", s);
    now += LEGACY_SESSION_IDLE_MS - 1;
    expect(table.touch("a")).toBe(s);
    now += LEGACY_SESSION_IDLE_MS - 1;
    expect(table.sweep()).toBe(0);
    now += 1;
    expect(table.sweep()).toBe(1);
    expect(s.closed).toBe(1);
    expect(table.touch("a")).toBeUndefined();
  });

  it("refuses an idle-expired session on lookup even before a sweep", () => {
    let now = 0;
    const table = new LegacySessionTable({ now: () => now });
    const s = fakeSession();
    table.add("a", s);
    now = LEGACY_SESSION_IDLE_MS;
    expect(table.touch("a")).toBeUndefined();
    expect(s.closed).toBe(1);
    expect(table.size).toBe(0);
  });
});
