/**
 * `/api/repo/*` snapshots as SiYuan 3.7.3 answers them (kernel-probes repo.*), and the suite's
 * audit of them: only a sandbox marked for history.snapshot_* tests keeps its three paths out.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { takeRepoRequests } from "../src/audit.js";
import type { Sandbox } from "../src/index.js";
import { post, start } from "./helpers.js";

const NO_KEY =
  "Please initialize the data repo key first in [Settings - Account & Sync - Data repo key]";

interface Snapshot {
  id: string;
  memo: string;
  created: number;
  count: number;
  size: number;
  tag: string;
  typesCount: Array<{ type: string; count: number }>;
}
interface Page {
  snapshots: Snapshot[];
  pageCount: number;
  totalCount: number;
}
interface DiffFile {
  title: string;
  path: string;
}
interface Diff {
  addsLeft: DiffFile[];
  updatesLeft: DiffFile[];
  updatesRight: DiffFile[];
  removesRight: DiffFile[];
  left: { id: string };
  right: { id: string };
}

let sb: Sandbox;
beforeAll(async () => {
  sb = await start({ seed: "empty" });
  sb.control.expectSnapshotActions();
});
afterAll(() => sb.stop());

const conf = async () =>
  (await post<{ conf: { repo: { key: string | null } } }>(sb, "/api/system/getConf", {})).body.data
    .conf.repo;
const page = async (n = 1) =>
  (await post<Page>(sb, "/api/repo/getRepoSnapshots", { page: n })).body;
const create = async (memo: unknown) => (await post(sb, "/api/repo/createSnapshot", { memo })).body;

describe("/api/repo/* without a data repo key (a fresh workspace)", () => {
  it("getConf says repo.key null and every call answers code -1 with the settings message", async () => {
    expect((await conf()).key).toBeNull();
    expect(await page()).toEqual({ code: -1, msg: NO_KEY, data: null });
    expect(await create("x")).toEqual({
      code: -1,
      msg: `Failed to create data snapshot: ${NO_KEY}`,
      data: { closeTimeout: 5000 },
    });
    const diff = await post(sb, "/api/repo/diffRepoSnapshots", { left: "a", right: "b" });
    expect(diff.body).toEqual({ code: -1, msg: NO_KEY, data: null });
  });

  it("checks its arguments first", async () => {
    expect((await post(sb, "/api/repo/getRepoSnapshots", {})).body.msg).toBe(
      "Field [page] is required",
    );
    expect((await post(sb, "/api/repo/getRepoSnapshots", { page: "1" })).body.msg).toBe(
      "Field [page] should be of type [Number]",
    );
    expect((await post(sb, "/api/repo/createSnapshot", {})).body.msg).toBe(
      "Field [memo] is required",
    );
    expect(
      (await post(sb, "/api/repo/diffRepoSnapshots", { left: " ", right: "x" })).body.msg,
    ).toBe("Field [left] must not be empty");
  });
});

describe("/api/repo/* with a key", () => {
  let init: Snapshot;
  let first: Snapshot;

  it("setRepoKey gives getConf a base64 key and an [Init] snapshot", async () => {
    sb.control.setRepoKey();
    expect((await conf()).key).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    const p = await page();
    expect(p.code).toBe(0);
    expect(p.data).toMatchObject({ pageCount: 1, totalCount: 1 });
    init = p.data.snapshots[0]!;
    expect(init).toMatchObject({ memo: "[Init] Init local data repo", tag: "", files: null });
    expect(init.id).toMatch(/^[0-9a-f]{40}$/);
  });

  it("createSnapshot answers data null, makes a snapshot only when the data changed", async () => {
    const nb = sb.control.external.createNotebook("Notes");
    const doc = sb.control.external.createDoc(nb, "/One", "hello");
    await sb.control.flush();
    expect(await create("  fi\trst\u200b\u00a0one\u2003\n ")).toEqual({
      code: 0,
      msg: "",
      data: null,
    });
    const p = (await page()).data;
    first = p.snapshots[0]!;
    expect(p.totalCount).toBe(2);
    // printable characters only (a no-break space becomes a space), trimmed
    expect(first.memo).toBe("first one");
    // .siyuan/syncignore, the notebook's conf.json and sort.json, the document
    expect(first.count).toBe(4);
    expect(first.typesCount).toEqual([
      { type: ".json", count: 2 },
      { type: "NoExt", count: 1 },
      { type: ".sy", count: 1 },
    ]);
    // nothing changed: no snapshot, the same answer
    expect(await create("second")).toEqual({ code: 0, msg: "", data: null });
    expect((await page()).data.totalCount).toBe(2);
    expect(await create(" \u200b ")).toEqual({
      code: -1,
      msg: "Failed to create data snapshot: Input can not be empty",
      data: { closeTimeout: 5000 },
    });
    sb.control.external.updateBlock(doc, "hello changed");
    sb.control.external.createDoc(nb, "/Two", "two");
    await sb.control.flush();
    await create("third");
    expect((await page()).data.snapshots.map((s) => s.memo)).toEqual([
      "third",
      "first one",
      "[Init] Init local data repo",
    ]);
    expect((await page(2)).data).toEqual({ snapshots: [], pageCount: 1, totalCount: 3 });
    expect(await page(0)).toEqual({ code: 0, msg: "", data: null });
  });

  it("diffRepoSnapshots answers added, updated and removed files from left to right", async () => {
    const third = (await page()).data.snapshots[0]!;
    const d = await post<Diff>(sb, "/api/repo/diffRepoSnapshots", {
      left: first.id,
      right: third.id,
    });
    expect(d.body.code).toBe(0);
    expect(d.body.data.addsLeft.map((f) => f.title)).toEqual(["Two"]);
    expect(d.body.data.updatesLeft.map((f) => f.title)).toEqual(["sort.json", "One"]);
    expect(d.body.data.updatesRight.map((f) => f.title)).toEqual(["sort.json", "One"]);
    expect(d.body.data.removesRight).toEqual([]);
    expect(d.body.data.left.id).toBe(first.id);
    const back = await post<Diff>(sb, "/api/repo/diffRepoSnapshots", {
      left: third.id,
      right: first.id,
    });
    expect(back.body.data.removesRight.map((f) => f.title)).toEqual(["Two"]);
    const unknown = await post(sb, "/api/repo/diffRepoSnapshots", {
      left: first.id,
      right: "0".repeat(40),
    });
    expect(unknown.body.code).toBe(-1);
    expect(unknown.body.msg).toMatch(/repo\/indexes\/0{40}: no such file or directory$/);
  });
});

describe("the suite's /api/repo/* audit", () => {
  it("a marked sandbox keeps only the snapshot actions' three paths out of it", async () => {
    takeRepoRequests();
    await post(sb, "/api/repo/getRepoSnapshots", { page: 1 });
    // an endpoint the sandbox does not serve (404) is audited all the same
    await (await fetch(`${sb.url}/api/repo/initRepoKey`, { method: "POST", body: "{}" })).text();
    expect(takeRepoRequests()).toEqual(["/api/repo/initRepoKey"]);
  });

  it("an unmarked sandbox reports the snapshot actions' paths too", async () => {
    const other = await start({ seed: "empty" });
    try {
      await post(other, "/api/repo/getRepoSnapshots", { page: 1 });
      expect(takeRepoRequests()).toEqual(["/api/repo/getRepoSnapshots"]);
    } finally {
      await other.stop();
    }
  });
});
