/**
 * file.upload_asset against the sandbox kernel: the source precondition is the SHA-256 of the bytes,
 * the commit uploads once and reads the stored asset back, a replay answers from the ledger, and
 * every refusal (changed file, too large, unreadable, no reader) comes before any kernel write.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  type SourceBytes,
  type SourceFailure,
  type SourceReader,
  type SourceRef,
  sourceKind,
  UPLOAD_ASSET_MAX_BYTES,
} from "../src/index.js";
import { errorCode, useHarness } from "./harness.js";

const UPLOAD = "/api/asset/upload";
const GET_FILE = "/api/file/getFile";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const bytesOf = (text: string) => new TextEncoder().encode(text);

/** Sources held in memory, by kind and name; anything else is not found. */
class MemorySources implements SourceReader {
  private readonly entries = new Map<string, SourceBytes | SourceFailure>();
  set(ref: SourceRef, value: SourceBytes | SourceFailure): void {
    this.entries.set(MemorySources.key(ref), value);
  }
  async read(ref: SourceRef): Promise<SourceBytes | SourceFailure> {
    return (
      this.entries.get(MemorySources.key(ref)) ?? { error: "not_found", message: "no such source" }
    );
  }
  private static key(ref: SourceRef): string {
    return "localFilePath" in ref ? `local:${ref.localFilePath}` : `staged:${ref.uploadSource}`;
  }
}

const sources = new MemorySources();

function errorOf(r: { structuredContent: Record<string, unknown> }): Record<string, unknown> {
  return (r.structuredContent["error"] ?? {}) as Record<string, unknown>;
}

describe("file.upload_asset", () => {
  const h = useHarness({ sources });

  /** Stages `text` under a fresh local path and returns the call's arguments. */
  function staged(name: string, text: string | Uint8Array, fileName = `${name}.txt`) {
    const bytes = typeof text === "string" ? bytesOf(text) : text;
    const localFilePath = `/srv/files/${name}`;
    sources.set({ localFilePath }, { bytes, fileName });
    return { args: { action: "upload_asset", localFilePath }, bytes, localFilePath, fileName };
  }

  async function storedBytes(assetPath: string): Promise<Uint8Array | null> {
    return (await h.client.file.getFile({ path: `/data/${assetPath}` }))?.bytes ?? null;
  }

  it("preflight leases the file's SHA-256; the commit uploads once and the asset holds the bytes", async () => {
    const f = staged("report", "quarterly numbers\n", "report.csv");
    const uploads = h.writes(UPLOAD);
    const pre = await h.call("file", { ...f.args, validateOnly: true });
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeFalsy();
    const p = pre.structuredContent;
    expect(p["preconditionField"]).toBe("expectedSourceHash");
    const full = sha256(f.bytes);
    // The credential is an alias of the file's own digest; the digest itself is reported in full.
    expect(full.startsWith(String(p["expectedSourceHash"]))).toBe(true);
    expect(p["source"]).toEqual({ fileName: "report.csv", size: f.bytes.length, sha256: full });
    expect(h.writes(UPLOAD)).toBe(uploads);

    const commit = await h.call("file", h.commitArgs(f.args, p));
    const c = commit.structuredContent;
    expect(c["status"], JSON.stringify(c)).toBe("committed");
    expect(c["sha256"]).toBe(full);
    expect(c["size"]).toBe(f.bytes.length);
    expect(c["fileName"]).toBe("report.csv");
    expect(String(c["assetPath"])).toMatch(/^assets\/report-\d{14}-[0-9a-z]{7}\.csv$/);
    expect(h.writes(UPLOAD)).toBe(uploads + 1);
    const stored = await storedBytes(String(c["assetPath"]));
    expect(stored && Buffer.from(stored).equals(Buffer.from(f.bytes))).toBe(true);

    // A replay answers from the ledger: the same asset, nothing uploaded again.
    const replay = await h.call("file", h.commitArgs(f.args, p));
    expect(replay.structuredContent).toMatchObject({
      status: "committed",
      replayed: true,
      executedNow: false,
      assetPath: c["assetPath"],
      sha256: full,
    });
    expect(h.writes(UPLOAD)).toBe(uploads + 1);
  });

  it("uploads into a folder under /assets/", async () => {
    const f = staged("pic", "not really a png", "pic.PNG");
    const { commit } = await h.write("file", { ...f.args, assetsDirPath: "/assets/pictures/" });
    const c = commit.structuredContent;
    expect(c["status"], JSON.stringify(c)).toBe("committed");
    // The kernel lowercases the extension.
    expect(String(c["assetPath"])).toMatch(/^assets\/pictures\/pic-\d{14}-[0-9a-z]{7}\.png$/);
  });

  it("a file changed between preflight and commit answers state_changed and uploads nothing", async () => {
    const f = staged("draft", "first version");
    const pre = await h.call("file", { ...f.args, validateOnly: true });
    expect(pre.isError).toBeFalsy();
    sources.set({ localFilePath: f.localFilePath }, { bytes: bytesOf("second"), fileName: "d" });
    const uploads = h.writes(UPLOAD);
    const commit = await h.call("file", h.commitArgs(f.args, pre.structuredContent));
    expect(errorCode(commit)).toBe("state_changed");
    expect(errorOf(commit)["writeAttempted"]).toBe(false);
    expect(h.writes(UPLOAD)).toBe(uploads);
  });

  it("an asset that reads back with other bytes is readback_mismatch, and its replay uploads nothing", async () => {
    await h.client.file.putFile({ path: "/data/assets/decoy.bin", file: "other bytes" });
    const f = staged("genuine", "genuine bytes");
    const pre = await h.call("file", { ...f.args, validateOnly: true });
    // The kernel serves other bytes than it stored: the readback's getFile is sent to the decoy.
    h.sandbox.control.armFault({
      endpoint: GET_FILE,
      kind: "corrupt",
      corrupt: (body) => ({ ...body, path: "/data/assets/decoy.bin" }),
    });
    const uploads = h.writes(UPLOAD);
    const commit = await h.call("file", h.commitArgs(f.args, pre.structuredContent));
    h.sandbox.control.clearFaults();
    expect(errorCode(commit)).toBe("readback_mismatch");
    expect(errorOf(commit)["writeAttempted"]).toBe(true);
    expect(JSON.stringify(errorOf(commit))).toMatch(/SHA-256 differs/);
    expect(h.writes(UPLOAD)).toBe(uploads + 1);
    // The ledger keeps the request as unknown: its replay says so and sends nothing.
    const replay = await h.call("file", h.commitArgs(f.args, pre.structuredContent));
    expect(errorCode(replay)).toBe("outcome_unknown");
    expect(h.writes(UPLOAD)).toBe(uploads + 1);
  });

  it("an asset the kernel names but does not have is readback_mismatch", async () => {
    const f = staged("vanishing", "here and gone");
    const pre = await h.call("file", { ...f.args, validateOnly: true });
    h.sandbox.control.armFault({
      endpoint: GET_FILE,
      kind: "corrupt",
      corrupt: (body) => ({ ...body, path: "/data/assets/nothing-here.bin" }),
    });
    const commit = await h.call("file", h.commitArgs(f.args, pre.structuredContent));
    h.sandbox.control.clearFaults();
    expect(errorCode(commit)).toBe("readback_mismatch");
    expect(JSON.stringify(errorOf(commit))).toMatch(/has no file there/);
  });

  it("an unreadable asset is outcome_unknown, never committed", async () => {
    const f = staged("unreadable", "cannot be read back");
    const pre = await h.call("file", { ...f.args, validateOnly: true });
    h.sandbox.control.armFault({ endpoint: GET_FILE, kind: "http5xx", times: "always" });
    const commit = await h.call("file", h.commitArgs(f.args, pre.structuredContent));
    h.sandbox.control.clearFaults();
    expect(errorCode(commit)).toBe("outcome_unknown");
    expect(errorOf(commit)["writeAttempted"]).toBe(true);
  });

  it("a source over the cap is source_too_large before any kernel call", async () => {
    const localFilePath = "/srv/files/huge.bin";
    // A reader that ignores the cap: the runtime still refuses the bytes.
    sources.set(
      { localFilePath },
      { bytes: new Uint8Array(UPLOAD_ASSET_MAX_BYTES + 1), fileName: "huge.bin" },
    );
    h.sandbox.control.resetLog();
    const pre = await h.call("file", { action: "upload_asset", localFilePath, validateOnly: true });
    expect(errorCode(pre)).toBe("source_too_large");
    expect(errorOf(pre)).toMatchObject({
      limit: UPLOAD_ASSET_MAX_BYTES,
      size: UPLOAD_ASSET_MAX_BYTES + 1,
      writeAttempted: false,
    });
    expect(h.sandbox.control.log()).toEqual([]);
  });

  it("passes the reader's refusals on as typed errors, with no kernel call", async () => {
    const cases: Array<[string, SourceFailure]> = [
      ["/srv/files/missing", { error: "not_found", message: "no file at /srv/files/missing" }],
      ["/srv/files/dir", { error: "invalid_arguments", message: "/srv/files/dir is a directory" }],
      ["relative/path", { error: "invalid_arguments", message: "must be an absolute path" }],
      ["/srv/files/big", { error: "source_too_large", message: "too large", size: 1 << 30 }],
      ["/srv/files/locked", { error: "source_unavailable", message: "permission denied" }],
    ];
    h.sandbox.control.resetLog();
    for (const [localFilePath, failure] of cases) {
      sources.set({ localFilePath }, failure);
      const r = await h.call("file", { action: "upload_asset", localFilePath, validateOnly: true });
      expect(errorCode(r), localFilePath).toBe(failure.error);
      expect(errorOf(r)["message"]).toBe(failure.message);
    }
    expect(h.sandbox.control.log()).toEqual([]);
  });

  it("refuses arguments that name no source, both sources, or a folder outside /assets/", async () => {
    const bad = [
      { action: "upload_asset" },
      { action: "upload_asset", localFilePath: "/a", uploadSource: "h1" },
      { action: "upload_asset", localFilePath: "/a", assetsDirPath: "/storage/" },
      { action: "upload_asset", localFilePath: "/a", assetsDirPath: "/assets/../conf/" },
      { action: "upload_asset", localFilePath: "/a", assetsDirPath: "/assets//x/" },
      { action: "upload_asset", localFilePath: "/a", assetsDirPath: "/assetsx/" },
    ];
    for (const args of bad) {
      const r = await h.call("file", { ...args, validateOnly: true });
      expect(errorCode(r), JSON.stringify(args)).toBe("invalid_arguments");
    }
  });

  it("needs write on the workspace (the default permission): assets are in no notebook", async () => {
    const f = staged("guarded", "guarded bytes");
    const saved = h.permissions;
    try {
      h.permissions = { default: "read", notebooks: { [h.notebook]: "delete" } };
      const r = await h.call("file", { ...f.args, validateOnly: true });
      expect(errorCode(r)).toBe("permission_denied");
      h.permissions = { default: "write" };
      const ok = await h.call("file", { ...f.args, validateOnly: true });
      expect(ok.isError, JSON.stringify(ok.structuredContent)).toBeFalsy();
    } finally {
      h.permissions = saved;
    }
  });
});

describe("file.upload_asset with Strict Safe Writes off", () => {
  const off = new MemorySources();
  const h = useHarness({ strict: false, sources: off });

  it("uploads once without a preflight and says writeSafetyGuaranteed: false", async () => {
    const bytes = bytesOf("legacy upload");
    off.set({ uploadSource: "stage-legacy" }, { bytes, fileName: "legacy.txt" });
    const r = await h.call("file", { action: "upload_asset", uploadSource: "stage-legacy" });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy();
    expect(r.structuredContent["writeSafetyGuaranteed"]).toBe(false);
    expect(h.writes(UPLOAD)).toBe(1);
    const entries = (await h.client.file.readDir({ path: "/data/assets" })) ?? [];
    expect(entries.filter((e) => e.name.startsWith("legacy-"))).toHaveLength(1);
  });
});

describe("file.upload_asset without a source reader", () => {
  const h = useHarness();

  it("answers source_unavailable for either kind of source, before any kernel call", async () => {
    h.sandbox.control.resetLog();
    for (const ref of [{ localFilePath: "/srv/a.txt" }, { uploadSource: "stage-1" }]) {
      const r = await h.call("file", { action: "upload_asset", ...ref, validateOnly: true });
      expect(errorCode(r)).toBe("source_unavailable");
      expect(errorOf(r)["source"]).toBe(sourceKind(ref));
      expect(String(errorOf(r)["message"])).toMatch(
        "localFilePath" in ref ? /uploadSource/ : /localFilePath/,
      );
    }
    expect(h.sandbox.control.log()).toEqual([]);
  });
});
