import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  FILE_NAME_MAX_BYTES,
  fileNameProblem,
  STAGING_LIMITS,
  type StageOutcome,
  StagingArea,
} from "./staging.js";

const KIB = 1024;
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const bytesOf = (n: number, seed = 1) => Uint8Array.from({ length: n }, (_, i) => (i * seed) & 255);

/** A staging area on a fake clock; `yields` counts the yields between hashing batches. */
function area(limits: Partial<typeof STAGING_LIMITS> = {}) {
  const t = { now: 1_000, yields: 0 };
  const staging = new StagingArea({
    clock: { now: () => t.now },
    yieldFn: async () => {
      t.yields++;
    },
    limits,
  });
  return { staging, t };
}

function ok(o: StageOutcome) {
  if (!o.ok) throw new Error(`refused: ${JSON.stringify(o.refusal)}`);
  return o;
}
function refusal(o: StageOutcome) {
  if (o.ok) throw new Error("staged");
  return o.refusal;
}

describe("StagingArea", () => {
  it("has the spec's limits by default", () => {
    expect(STAGING_LIMITS).toEqual({
      fileBytes: 10 * 1024 * KIB,
      totalBytes: 32 * 1024 * KIB,
      entries: 64,
      ttlMs: 600_000,
      concurrency: 2,
    });
    expect(
      new StagingArea({
        clock: { now: () => 0 },
        yieldFn: async () => {},
      }).limits,
    ).toEqual(STAGING_LIMITS);
  });

  it("hashes in 64 KiB batches with a yield between batches, and answers the full SHA-256", async () => {
    const { staging, t } = area();
    const bytes = bytesOf(1024 * KIB + 1);
    const staged = ok(await staging.stage("photo.png", bytes));
    // 17 batches of at most 64 KiB: 16 yields between them
    expect(t.yields).toBe(16);
    expect(staged.reused).toBe(false);
    expect(staged.file).toEqual({
      uploadSource: expect.stringMatching(/^stg_[0-9a-f]{32}$/),
      fileName: "photo.png",
      sha256: sha(bytes),
      size: bytes.length,
      expiresAt: 1_000 + 600_000,
    });
    const got = staging.get(staged.file.uploadSource)!;
    expect({ ...got, bytes: undefined }).toEqual({
      fileName: "photo.png",
      bytes: undefined,
      sha256: sha(bytes),
      size: bytes.length,
    });
    expect(Buffer.from(got.bytes).equals(bytes)).toBe(true);
  });

  it("keeps an immutable snapshot: writing into what get returned changes nothing", async () => {
    const { staging } = area();
    const { file } = ok(await staging.stage("a.bin", bytesOf(100)));
    const first = staging.get(file.uploadSource)!;
    first.bytes[1] = 42;
    expect(sha(staging.get(file.uploadSource)!.bytes)).toBe(file.sha256);
  });

  it("answers the same handle for the same name and content, and a new one otherwise", async () => {
    const { staging, t } = area();
    const a = ok(await staging.stage("a.txt", bytesOf(10)));
    t.now += 60_000;
    const again = ok(await staging.stage("a.txt", bytesOf(10)));
    expect(again.reused).toBe(true);
    expect(again.file.uploadSource).toBe(a.file.uploadSource);
    // staged anew: its lifetime starts again
    expect(again.file.expiresAt).toBe(t.now + 600_000);
    expect(staging.counts()).toMatchObject({ stagingEntries: 1, stagingBytes: 10 });
    const renamed = ok(await staging.stage("b.txt", bytesOf(10)));
    const changed = ok(await staging.stage("a.txt", bytesOf(10, 3)));
    expect(new Set([a, renamed, changed].map((o) => o.file.uploadSource)).size).toBe(3);
    expect(staging.counts()).toMatchObject({ stagingEntries: 3, stagingBytes: 30 });
  });

  it("gives the same file the same handle after a clear (a reload), in another area too", async () => {
    const { staging } = area();
    const first = ok(await staging.stage("a.txt", bytesOf(10)));
    staging.clear();
    expect(staging.get(first.file.uploadSource)).toBeUndefined();
    const again = ok(await staging.stage("a.txt", bytesOf(10)));
    expect(again.reused).toBe(false);
    expect(again.file.uploadSource).toBe(first.file.uploadSource);
    const other = area().staging;
    expect(ok(await other.stage("a.txt", bytesOf(10))).file.uploadSource).toBe(
      first.file.uploadSource,
    );
    expect(ok(await other.stage("a.txt", bytesOf(10, 3))).file.uploadSource).not.toBe(
      first.file.uploadSource,
    );
  });

  it("refuses bad names, empty files and files over the per-file cap before hashing", async () => {
    const { staging, t } = area({ fileBytes: 100 });
    const cases: Array<[string, string]> = [
      ["", "empty"],
      ["   ", "empty"],
      [".", "dot_segment"],
      ["..", "dot_segment"],
      ["../x", "separator"],
      ["a/b", "separator"],
      ["/", "separator"],
      ["a\\b", "separator"],
      ["a\u0000b", "control_character"],
      ["a\nb", "control_character"],
      ["a\u007f", "control_character"],
      ["a\ud800", "unpaired_surrogate"],
      ["\udc00a", "unpaired_surrogate"],
      ["x".repeat(FILE_NAME_MAX_BYTES + 1), "too_long"],
      // 86 × 3 UTF-8 bytes = 258 > 255, though only 86 UTF-16 units
      ["界".repeat(86), "too_long"],
    ];
    for (const [name, reason] of cases) {
      expect(refusal(await staging.stage(name, bytesOf(1))), name).toMatchObject({
        code: "invalid_file_name",
        details: { reason },
      });
    }
    expect(fileNameProblem(undefined)).toMatchObject({ details: { reason: "missing" } });
    for (const name of [
      "界".repeat(85),
      "x".repeat(255),
      "résumé (final).pdf",
      "..hidden",
      "😀.png",
    ]) {
      expect(fileNameProblem(name), name).toBeUndefined();
    }
    expect(refusal(await staging.stage("e.bin", new Uint8Array(0))).code).toBe("empty_file");
    expect(refusal(await staging.stage("big.bin", bytesOf(101)))).toMatchObject({
      code: "file_too_large",
      details: { size: 101, limit: 100 },
    });
    ok(await staging.stage("fits.bin", bytesOf(100)));
    expect(t.yields).toBe(0);
    expect(staging.counts()).toMatchObject({ stagingEntries: 1, stagingRejectedFull: 0 });
  });

  it("refuses a new entry past the entry or byte cap, never evicting a live one, and says when to retry", async () => {
    const { staging, t } = area({ entries: 3, totalBytes: 250 });
    const first = ok(await staging.stage("1", bytesOf(100)));
    t.now += 1_000;
    ok(await staging.stage("2", bytesOf(100)));
    t.now += 1_000;
    expect(refusal(await staging.stage("3", bytesOf(51)))).toMatchObject({
      code: "staging_full",
      details: { limit: "bytes", entries: 2, bytes: 200, retryAfterMs: 600_000 - 2_000 },
    });
    ok(await staging.stage("3", bytesOf(50)));
    expect(refusal(await staging.stage("4", bytesOf(1)))).toMatchObject({
      code: "staging_full",
      details: { limit: "entries", entries: 3, maxEntries: 3 },
    });
    // a reuse needs no room
    expect(ok(await staging.stage("1", bytesOf(100))).file.uploadSource).toBe(
      first.file.uploadSource,
    );
    expect(staging.counts()).toMatchObject({
      stagingEntries: 3,
      stagingBytes: 250,
      stagingRejectedFull: 2,
    });
  });

  it("removes expired entries on the next stage or read, not before", async () => {
    const { staging, t } = area();
    const { file } = ok(await staging.stage("a", bytesOf(10)));
    t.now = file.expiresAt - 1;
    expect(staging.lookup("a", file.sha256, 10)?.uploadSource).toBe(file.uploadSource);
    t.now = file.expiresAt;
    expect(staging.get(file.uploadSource)).toBeUndefined();
    expect(staging.lookup("a", file.sha256, 10)).toBeUndefined();
    expect(staging.counts()).toMatchObject({ stagingEntries: 0, stagingBytes: 0 });
    // expired room is free again for a stage
    const small = area({ entries: 1 });
    const x = ok(await small.staging.stage("x", bytesOf(5)));
    small.t.now = x.file.expiresAt;
    const y = ok(await small.staging.stage("y", bytesOf(5)));
    expect(small.staging.get(x.file.uploadSource)).toBeUndefined();
    expect(small.staging.get(y.file.uploadSource)?.fileName).toBe("y");
  });

  it("looks up only exact name, full digest and size of a staged file, and never creates one", async () => {
    const { staging } = area();
    const bytes = bytesOf(300);
    const digest = sha(bytes);
    // a claimed digest alone: nothing there, nothing created
    expect(staging.lookup("a.bin", digest, 300)).toBeUndefined();
    expect(staging.counts().stagingEntries).toBe(0);
    const { file } = ok(await staging.stage("a.bin", bytes));
    expect(staging.lookup("a.bin", digest, 300)).toEqual(file);
    expect(staging.lookup("a.bin", digest.toUpperCase(), 300)).toEqual(file);
    expect(staging.lookup("A.bin", digest, 300)).toBeUndefined();
    expect(staging.lookup("a.bin", digest, 301)).toBeUndefined();
    expect(staging.lookup("a.bin", digest.slice(0, 12), 300)).toBeUndefined();
    expect(staging.lookup("a.bin", sha(bytesOf(300, 5)), 300)).toBeUndefined();
    expect(staging.get("stg_0000")).toBeUndefined();
    expect(staging.counts().stagingEntries).toBe(1);
  });

  it("hashes at most two files at a time: a third is refused (busy) until one finishes", async () => {
    const gates: Array<() => void> = [];
    const staging = new StagingArea({
      clock: { now: () => 0 },
      yieldFn: () => new Promise<void>((r) => gates.push(r)),
    });
    const big = bytesOf(200 * KIB);
    const one = staging.stage("one", big);
    const two = staging.stage("two", big);
    await Promise.resolve();
    expect(staging.counts()).toMatchObject({ stagingInFlight: 2, stagingEntries: 0 });
    expect(refusal(await staging.stage("three", bytesOf(1)))).toMatchObject({
      code: "staging_busy",
      details: { inFlight: 2, limit: 2 },
    });
    // nothing is visible before its hash is known
    expect(staging.lookup("one", sha(big), big.length)).toBeUndefined();
    while (gates.length > 0) {
      gates.shift()!();
      await new Promise((r) => setImmediate(r));
    }
    expect(ok(await one).file.sha256).toBe(sha(big));
    expect(ok(await two).file.sha256).toBe(sha(big));
    expect(staging.busyRefusal()).toBeUndefined();
    ok(await staging.stage("three", bytesOf(1)));
    expect(staging.counts()).toMatchObject({
      stagingInFlight: 0,
      stagingEntries: 3,
      stagingRejectedBusy: 1,
    });
  });

  it("forgets everything on clear, and a staging still hashing then adds nothing", async () => {
    let release: () => void = () => {};
    const staging = new StagingArea({
      clock: { now: () => 0 },
      yieldFn: () => new Promise<void>((r) => (release = r)),
    });
    const kept = ok(await staging.stage("small", bytesOf(10)));
    const running = staging.stage("big", bytesOf(100 * KIB));
    await Promise.resolve();
    staging.clear();
    expect(staging.get(kept.file.uploadSource)).toBeUndefined();
    release();
    expect(refusal(await running).code).toBe("staging_cleared");
    expect(staging.counts()).toMatchObject({
      stagingInFlight: 0,
      stagingEntries: 0,
      stagingBytes: 0,
    });
  });
});
