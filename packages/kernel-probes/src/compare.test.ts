import { describe, expect, it } from "vitest";
import { ABSENT, compareRecords, covers, type Mismatch, parseAccepted } from "./compare.js";
import type { ProbeRecord } from "./probe.js";

const rec = (body: unknown): ProbeRecord => ({
  title: "t",
  endpoints: [],
  steps: { read: { request: { method: "POST", path: "/x" }, status: 200, body } },
});

describe("compareRecords", () => {
  it("reports differing fields by path; key order does not count", () => {
    const m = compareRecords(
      { p: rec({ code: 0, data: { a: 1, b: [1, 2] } }) },
      { p: rec({ data: { b: [1, 3], a: 1 }, code: 0, extra: true }) },
    );
    expect(m).toEqual([
      { probe: "p", path: "read.body.data.b.1", expected: 2, actual: 3 },
      { probe: "p", path: "read.body.extra", expected: ABSENT, actual: true },
    ]);
  });
});

describe("accepted differences", () => {
  const m: Mismatch = {
    probe: "block.reads",
    path: "dom of list.body.data.dom",
    expected: 1,
    actual: 2,
  };

  it("match by probe and path glob (`*` one segment, `**` any)", () => {
    const row = (probe: string, path: string) => ({ probe, path, why: "w", racy: false });
    expect(covers(row("block.reads", "dom of list.body.data.dom"), m)).toBe(true);
    expect(covers(row("block.reads", "*.body.data.dom"), m)).toBe(true);
    expect(covers(row("block.reads", "dom of list.**"), m)).toBe(true);
    expect(covers(row("block.*", "**.dom"), m)).toBe(true);
    expect(covers(row("block.reads", "*.dom"), m)).toBe(false);
    expect(covers(row("attr.batch", "**"), m)).toBe(false);
  });

  it("are read from the table between the markers", () => {
    const md = [
      "intro",
      "<!-- kernel-probes:accepted:start -->",
      "| probe | field path | why |",
      "| --- | --- | --- |",
      "| `block.reads` | `dom of list.body.data.dom` | the sandbox has no ZWSP \\| pipes |",
      "| `block.deleteBlock` | `exists right after.body.data` | Racy: the delete is queued |",
      "<!-- kernel-probes:accepted:end -->",
    ].join("\n");
    expect(parseAccepted(md)).toEqual([
      {
        probe: "block.reads",
        path: "dom of list.body.data.dom",
        why: "the sandbox has no ZWSP | pipes",
        racy: false,
      },
      {
        probe: "block.deleteBlock",
        path: "exists right after.body.data",
        why: "Racy: the delete is queued",
        racy: true,
      },
    ]);
    expect(() => parseAccepted("no table")).toThrow(/no <!-- kernel-probes:accepted:start -->/);
  });
});
