/**
 * The kernel contract probes against the sandbox (issue 30): every probe of the suite runs against
 * a fresh in-process sandbox kernel over loopback, and its normalised record must equal the
 * committed recording of a real SiYuan 3.7.3, field by field, except where `docs/fidelity.md`'s
 * accepted-differences table says why a difference is acceptable. A row that no longer matches any
 * difference fails too, so the table stays true.
 */
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { compareRecords, covers, type Mismatch, parseAccepted } from "../src/compare.js";
import { FIDELITY_DOC, RECORDING_FILE } from "../src/files.js";
import type { ProbeRecord } from "../src/probe.js";
import { PROBES } from "../src/probes/index.js";
import type { Recording } from "../src/runner.js";
import { runAgainstSandbox } from "../src/sandbox-run.js";

const recording = JSON.parse(readFileSync(RECORDING_FILE, "utf8")) as Recording;
const accepted = parseAccepted(readFileSync(FIDELITY_DOC, "utf8"));

let sandbox: Record<string, ProbeRecord>;
let all: Mismatch[];
beforeAll(async () => {
  sandbox = await runAgainstSandbox();
  all = compareRecords(recording.probes, sandbox);
}, 120_000);

const show = (m: Mismatch) =>
  `${m.path}: SiYuan ${JSON.stringify(m.expected)} / sandbox ${JSON.stringify(m.actual)}`;

describe("the committed recording", () => {
  it("says which kernel, commit, day and command made it", () => {
    expect(recording.kernel).toBe("SiYuan 3.7.3");
    expect(recording.commit).toBe("eef10568384e2e7cf547adb029ae46a72e43c287");
    expect(recording.recordedAt).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(recording.command).toContain("pnpm --filter @sisyphus/kernel-probes record");
    expect(recording.command).not.toContain("--only");
  });

  it("holds every probe of the suite, none of them failed, and no other", () => {
    expect(Object.keys(recording.probes).sort()).toEqual(PROBES.map((p) => p.id).sort());
    expect(recording.probeCount).toBe(PROBES.length);
    const failed = Object.entries(recording.probes).filter(([, r]) => r.error !== undefined);
    expect(failed.map(([id, r]) => `${id}: ${r.error}`)).toEqual([]);
  });
});

describe("the sandbox against SiYuan 3.7.3, probe by probe", () => {
  it.each(PROBES.map((p) => [p.id] as const))("%s", (id) => {
    const open = all.filter((m) => m.probe === id && !accepted.some((r) => covers(r, m)));
    expect(open.map(show), "differences not accepted in docs/fidelity.md").toEqual([]);
  });
});

describe("docs/fidelity.md's accepted differences", () => {
  it("each row still matches a difference (remove the rows the sandbox has fixed; racy rows may rest)", () => {
    const stale = accepted.filter((r) => !r.racy && !all.some((m) => covers(r, m)));
    expect(stale.map((r) => `${r.probe} ${r.path}`)).toEqual([]);
  });

  it("each row names a probe of the suite", () => {
    const ids = new Set(PROBES.map((p) => p.id));
    const unknown = accepted.filter((r) => !r.probe.includes("*") && !ids.has(r.probe));
    expect(unknown.map((r) => r.probe)).toEqual([]);
  });
});
