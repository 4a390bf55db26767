/**
 * "Full digests where they must stay full" (issue 16): export `sha256`, snapshot hashes and
 * cursors, upload fingerprints and the skill manifest carry complete 64-hex SHA-256 digests (only
 * credentials are aliases), and hash-like note content and third-party results come back as the
 * kernel gave them, never rewritten into aliases.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  createToolRuntime,
  type SourceBytes,
  type SourceReader,
  type ToolResult,
} from "../src/index.js";
import type { OutputPlan, SavedOutput } from "../src/output.js";
import { skillFiles, skillManifest } from "../src/skill.js";
import { useHarness } from "./harness.js";

const HEX64 = /^[0-9a-f]{64}$/;
const sha256 = (b: Uint8Array | string) => createHash("sha256").update(b).digest("hex");

/** Note text that looks like digests and aliases: it must survive every read verbatim. */
const DIGEST = "c0ffee".repeat(10) + "abcd";
const LOOKALIKES = `full ${DIGEST} prefixed sha256:v1:${DIGEST} alias-like abcd1 and 4f2a`;

/** One local source, its bytes in memory. */
const file: SourceBytes = { bytes: new TextEncoder().encode("fingerprint me"), fileName: "fp.txt" };
const sources: SourceReader = {
  read: async (ref) =>
    "localFilePath" in ref && ref.localFilePath === "/srv/fp.txt"
      ? file
      : { error: "not_found", message: "no such source" },
};

function ok(r: ToolResult): Record<string, unknown> {
  expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy();
  return r.structuredContent;
}

/** Every string in `value` that is exactly 64 hex digits or looks like a digest. */
function digestsIn(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string" && /^[0-9a-f]{40,}$/.test(value)) out.push(value);
  else if (Array.isArray(value)) for (const v of value) digestsIn(v, out);
  else if (typeof value === "object" && value !== null) {
    for (const v of Object.values(value)) digestsIn(v, out);
  }
  return out;
}

describe("full digests stay full", () => {
  const h = useHarness({ sources });

  it("export sha256 of extract_doc and export_resources receipts are the saved bytes' digests", async () => {
    /** A sink that keeps files in memory and reports their digests, as the Node sink does. */
    const saved = new Map<string, Uint8Array>();
    const sink = {
      check: async () => undefined,
      save: async (plan: OutputPlan): Promise<SavedOutput> => {
        const files = [];
        for (const f of plan.files) {
          const bytes =
            "text" in f
              ? new TextEncoder().encode(f.text)
              : new Uint8Array(
                  await (
                    await fetch(`${h.sandbox.url}${f.url}`, {
                      headers: { authorization: `Token ${h.sandbox.token}` },
                    })
                  ).arrayBuffer(),
                );
          saved.set(`${plan.outputPath}/${f.path}`, bytes);
          files.push({ path: f.path, size: bytes.length, sha256: sha256(bytes) });
        }
        const totalBytes = files.reduce((n, f) => n + f.size, 0);
        return {
          delivery: "saved",
          layout: plan.layout,
          outputPath: plan.outputPath,
          files,
          totalBytes,
          missing: [],
        };
      },
    };
    const runtime = createToolRuntime({
      client: h.client,
      coordinator: h.coordinator,
      outputs: sink,
    });
    const id = h.sandbox.control.external.createDoc(h.notebook, "/Digest export", LOOKALIKES);
    const extracted = ok(
      await runtime.callTool("file", { action: "extract_doc", id, outputPath: "/x/doc" }),
    );
    const result = extracted["result"] as SavedOutput;
    const md = result.files[0];
    expect(md?.sha256).toMatch(HEX64);
    expect(md?.sha256).toBe(sha256(saved.get("/x/doc/Digest export.md") as Uint8Array));
    expect(new TextDecoder().decode(saved.get("/x/doc/Digest export.md"))).toContain(LOOKALIKES);

    await h.client.asset.upload({
      files: [{ filename: "zipped.txt", bytes: new TextEncoder().encode("zipped") }],
      assetsDirPath: "/assets/",
    });
    const zipped = ok(
      await runtime.callTool("file", {
        action: "export_resources",
        paths: ["data/assets"],
        outputPath: "/x/r.zip",
      }),
    );
    const zr = zipped["result"] as { sha256: string };
    expect(zr.sha256).toMatch(HEX64);
    expect(zr.sha256).toBe(sha256(saved.get("/x/r.zip/") as Uint8Array));
  });

  it("upload fingerprints are full while the credential is an alias of the same digest", async () => {
    const full = sha256(file.bytes);
    const pre = ok(
      await h.call("file", {
        action: "upload_asset",
        localFilePath: "/srv/fp.txt",
        validateOnly: true,
      }),
    );
    expect(pre["source"]).toMatchObject({ sha256: full });
    const credential = String(pre["expectedSourceHash"]);
    expect(credential.length).toBeLessThan(64);
    expect(full.startsWith(credential)).toBe(true);
    const commit = ok(
      await h.call("file", {
        action: "upload_asset",
        localFilePath: "/srv/fp.txt",
        requestId: pre["requestId"],
        expectedSourceHash: credential,
      }),
    );
    expect(JSON.stringify(commit)).toContain(`"sha256":"${full}"`);
  });

  it("snapshot manifest hashes, content hashes and cursor digests are complete", async () => {
    const nb = h.sandbox.control.external.createNotebook("Full digests");
    h.sandbox.control.external.createDoc(nb, "/Lookalikes", LOOKALIKES);
    const page = ok(await h.call("document", { action: "snapshot", notebook: nb }));
    const manifest = page["manifest"] as Record<string, unknown>;
    for (const k of ["scopeHash", "inventoryHash", "metadataHash", "contentHash"]) {
      expect(manifest[k]).toMatch(HEX64);
    }
    const [doc] = page["documents"] as {
      contentHash: string;
      metadataHash: string;
      markdown: string;
    }[];
    expect(doc?.contentHash).toBe(sha256(doc?.markdown as string));
    expect(doc?.metadataHash).toMatch(HEX64);
    expect(doc?.markdown).toContain(LOOKALIKES);
    const cursor = String(page["cursor"]);
    const body = JSON.parse(Buffer.from(cursor.slice(5), "base64url").toString("latin1"));
    const inCursor = digestsIn(body);
    expect(inCursor.length).toBeGreaterThanOrEqual(6);
    for (const d of inCursor) expect(d).toMatch(HEX64);
    expect(body.scopeHash).toBe(manifest["scopeHash"]);
  });

  it("the skill manifest's digests are the files' complete SHA-256", () => {
    const m = skillManifest();
    expect(m.files.map((f) => f.sha256)).toEqual(skillFiles().map((f) => sha256(f.text)));
    for (const f of m.files) expect(f.sha256).toMatch(HEX64);
  });

  it("hash-like note content comes back verbatim from reads and after a write", async () => {
    const id = h.sandbox.control.external.createDoc(h.notebook, "/Lookalike reads", "seed");
    const [block] = h.sandbox.control.external.appendBlock(id, LOOKALIKES);
    const kramdown = ok(await h.call("block", { action: "get_kramdown", id: block }));
    expect(JSON.stringify(kramdown)).toContain(LOOKALIKES);
    const doc = ok(await h.call("document", { action: "get", id }));
    expect(String(doc["kramdown"])).toContain(LOOKALIKES);
    const rows = ok(
      await h.call("search", {
        action: "sql",
        stmt: `SELECT content FROM blocks WHERE id = '${block}'`,
      }),
    );
    expect(JSON.stringify(rows)).toContain(LOOKALIKES);

    const { commit } = await h.write("block", {
      action: "update",
      id: block,
      data: `${LOOKALIKES} again`,
    });
    expect(commit.isError, JSON.stringify(commit.structuredContent)).toBeFalsy();
    const after = ok(await h.call("block", { action: "get_kramdown", id: block }));
    expect(JSON.stringify(after)).toContain(`${LOOKALIKES} again`);
  });

  it("third-party (extension) results carry hash-like text unchanged", async () => {
    const id = h.sandbox.control.external.createDoc(h.notebook, "/Lookalike ext", LOOKALIKES);
    const r = ok(
      await h.call(
        "extension",
        { action: "call", name: "block", arguments: { action: "get_kramdown", id } },
        true,
      ),
    );
    expect(JSON.stringify(r["result"])).toContain(DIGEST);
    expect(JSON.stringify(r["result"])).toContain("abcd1");
  });
});
