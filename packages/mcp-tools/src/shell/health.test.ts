import { describe, expect, it } from "vitest";
import { Admission } from "./admission.js";
import * as constants from "./constants.js";
import { authorityHealth } from "./health.js";

const lane = { running: 1, queued: 2, leases: 3, ledgerEntries: 4, reservations: 5 };

describe("authorityHealth", () => {
  it("gives both authorities the same fields, each meaning one thing", () => {
    const admission = new Admission();
    const common = {
      strict: true,
      draining: false,
      admission: admission.counts(),
      lane,
      legacySessions: 2,
      readBudget: { reads: 7, exceededCalls: 1, exceededBytes: 0 },
    };
    const node = authorityHealth({ authority: "node-http", ...common });
    const kernel = authorityHealth({ authority: "kernel", ...common, more: { taskResults: 0 } });
    expect(Object.keys(kernel).sort()).toEqual(
      [...Object.keys(node), "authority", "taskResults"].sort(),
    );
    // `inFlight` is the admission gate's (spec: 128 in flight including preparation), at both.
    for (const h of [node, kernel]) {
      expect(h).toMatchObject({
        ok: true,
        inFlight: 0,
        callsInFlight: 0,
        admissionCap: admission.cap,
        writesRunning: 1,
        running: 1,
        writesQueued: 2,
        queued: 2,
        leases: 3,
        legacySessions: 2,
        readBudgetReads: 7,
        readBudgetExceededCalls: 1,
      });
    }
    // The Node authority's body is numbers and booleans only.
    for (const v of Object.values(node)) expect(["number", "boolean"]).toContain(typeof v);
  });

  it("leaves the lane out where there is none (a kernel-front Node server), the rest alike", () => {
    const front = authorityHealth({
      authority: "kernel",
      strict: true,
      draining: true,
      admission: new Admission().counts(),
      legacySessions: 0,
    });
    expect(front).toMatchObject({ authority: "kernel", draining: true, readBudgetReads: 0 });
    expect(front).not.toHaveProperty("writesQueued");
    expect(front).not.toHaveProperty("ledgerEntries");
  });
});

describe("the shell's wire names", () => {
  it("puts every _meta key and the extension's name under the one prefix", () => {
    const names = Object.entries(constants).filter(
      ([k]) => k.endsWith("_META_KEY") || k === "TASK_CONTROL_EXTENSION",
    );
    expect(names.map(([k]) => k).sort()).toEqual([
      "AUTHORITY_EPOCH_META_KEY",
      "PRECHECK_META_KEY",
      "PRECHECK_SUBJECT_META_KEY",
      "TASK_CONTROL_EXTENSION",
      "TASK_ID_META_KEY",
    ]);
    for (const [k, v] of names) expect(v, k).toMatch(/^io\.siyuan\.sisyphus\/[A-Za-z-]+$/);
    // The spec names the task key.
    expect(constants.TASK_ID_META_KEY).toBe("io.siyuan.sisyphus/taskId");
  });
});
