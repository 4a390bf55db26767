import { describe, expect, it } from "vitest";
import { mask, Normaliser } from "./normalise.js";

describe("Normaliser", () => {
  it("numbers sent IDs probe-wide and answer-only IDs per step", () => {
    const n = new Normaliser();
    n.beginStep();
    expect(n.request({ id: "20261201232116-llb831g" })).toEqual({ id: "<id:1>" });
    expect(n.value({ a: "20261201232116-llb831g", b: "20261201232116-n2asopd" })).toEqual({
      a: "<id:1>",
      b: "<new:1>",
    });
    n.beginStep();
    expect(n.value("x 20261201232116-kxu390b 20261201232116-n2asopd")).toBe("x <new:1> <new:2>");
  });

  it("replaces times, dates, hashes, workspace roots and aliased literals", () => {
    const n = new Normaliser();
    n.alias("sekret", "<token>");
    expect(n.string('updated="20261201232116" on 2026-12-01 sekret')).toBe(
      'updated="<time>" on <date> <token>',
    );
    expect(n.string("date: 2026-12-01T23:36:10Z")).toBe("date: <datetime>");
    expect(n.string("/daily note/2026/12/2026-12-01")).toBe("/daily note/<yyyy>/<mm>/<date>");
    expect(n.string(`temp/export/${"ab".repeat(16)}-x.zip`)).toBe("temp/export/<hex32>-x.zip");
    expect(n.string("open /work/ws/data/x.sy: no such file")).toBe(
      "open <workspace>/data/x.sy: no such file",
    );
    expect(n.value({ mtime: 1796167276, size: 1496, hMtime: "2 minutes ago" })).toEqual({
      hMtime: "<htime>",
      mtime: "<time>",
      size: 1496,
    });
  });

  it("sorts object keys and the pairs of an IAL", () => {
    const n = new Normaliser();
    expect(Object.keys(n.value({ b: 1, a: 2 }) as object)).toEqual(["a", "b"]);
    expect(
      n.string('x\n{: updated="20261201232116" custom-b="1" id="20261201232116-llb831g"}'),
    ).toBe('x\n{: custom-b="1" id="<new:1>" updated="<time>"}');
  });
});

describe("mask", () => {
  it("replaces the values at dot paths, `*` for any key or index", () => {
    expect(mask({ data: [{ t: 1, k: 2 }, { t: 3 }] }, ["data.*.t"])).toEqual({
      data: [{ t: "<volatile>", k: 2 }, { t: "<volatile>" }],
    });
  });
});
