/**
 * file: upload_asset (precondition kind `source`: the SHA-256 of the bytes to upload);
 * create_template, save_doc_as_template, update_template and delete_template (`templates.ts`); delete_asset,
 * rename_asset and remove_unused_assets (`assets.ts`); export_resources and extract_doc
 * (external side effects: `exports.ts`); the reads list_templates, read_template, doc_assets,
 * list_unused_assets and export_md (`file-reads.ts`).
 *
 * The probe reads the source through the shell's reader and hashes it; the digest it leases is the
 * file's own SHA-256, so a file that changed between preflight and commit answers `state_changed`
 * before anything is sent. The commit uploads the bytes it just hashed, once (`/api/asset/upload`),
 * and the readback fetches the stored asset (`getFile` of `data/<path>`) and compares its SHA-256
 * with the source's: only equal digests are `committed`. Each upload makes a new file in the
 * kernel, so a repeated request is deduplicated by the ledger, whose receipt keeps the asset path.
 */
import { hashChunked, STATE_DIGEST_PREFIX } from "@sisyphus/core-hash";
import {
  type ArgsOf,
  externalAction,
  type MutationHandler,
  mutationAction,
  type ReadbackResult,
  type ToolHandlers,
} from "../handler.js";
import type { UploadAnswer } from "../kernel.js";
import type { SourceRef } from "../source.js";
import { deleteAsset, removeUnusedAssets, renameAsset } from "./assets.js";
import { exportResources, extractDoc } from "./exports.js";
import {
  docAssets,
  exportMd,
  listTemplates,
  listUnusedAssets,
  readTemplate,
  renderTemplate,
} from "./file-reads.js";
import { createTemplate, deleteTemplate, saveDocAsTemplate, updateTemplate } from "./templates.js";

type UploadArgs = ArgsOf<"file", "upload_asset">;

/** What the probe read: the bytes the commit uploads, and their digest. Never hashed or stored. */
interface SourceSeen {
  readonly bytes: Uint8Array;
  readonly fileName: string;
  /** 64 lowercase hex digits. */
  readonly sha256: string;
}

function sourceRef(a: UploadArgs): SourceRef {
  return a.localFilePath !== undefined
    ? { localFilePath: a.localFilePath }
    : { uploadSource: a.uploadSource as string };
}

/**
 * The path the kernel stored our one file at (`assets/…`, relative to `data/`): the `succMap`
 * entry of the file name sent, or the only entry (the kernel may key it by a name it decoded
 * differently). `undefined` when the answer names none.
 */
function storedPath(answer: UploadAnswer, fileName: string): string | undefined {
  const entries = Object.entries(answer.succMap);
  const named = entries.find(([name]) => name === fileName);
  if (named) return named[1];
  return entries.length === 1 ? entries[0]?.[1] : undefined;
}

/** A path under `data/` that getFile can be asked for: relative, no `.`/`..` segment, no backslash. */
function isDataPath(path: string): boolean {
  return (
    path !== "" &&
    !path.startsWith("/") &&
    !path.includes("\\") &&
    path.split("/").every((s) => s !== "" && s !== "." && s !== "..")
  );
}

const uploadAsset: MutationHandler<UploadArgs, SourceSeen, string | undefined> = {
  // The lease scope binds the source through the business arguments (path or handle, folder).
  targets: () => [],
  async probe(ctx, a) {
    const source = await ctx.readSource(sourceRef(a));
    const sha256 = source.sha256 ?? (await hashChunked(source.bytes));
    const size = source.bytes.length;
    return {
      state: { sha256, size },
      digest: `${STATE_DIGEST_PREFIX}${sha256}`,
      // Assets live in the workspace, outside every notebook: the runtime then needs the default
      // permission to grant write.
      notebooks: [],
      snapshot: { bytes: source.bytes, fileName: source.fileName, sha256 },
      preflightNotes: { source: { fileName: source.fileName, size, sha256 } },
    };
  },
  async execute(ctx, a, before) {
    const { bytes, fileName } = before.snapshot;
    return storedPath(await ctx.write.uploadAsset({ fileName, bytes }, a.assetsDirPath), fileName);
  },
  async readback(ctx, _a, before, stored): Promise<ReadbackResult> {
    const wanted = before.snapshot;
    if (stored === undefined || !isDataPath(stored)) {
      return {
        state: { assetPath: stored ?? null },
        verdict: "mismatch",
        reason: `the kernel answered the upload without a usable stored path for ${wanted.fileName}`,
      };
    }
    // A read that fails throws: the runtime answers outcome_unknown, never a guess.
    const bytes = await ctx.kernel.getFile(`/data/${stored}`);
    if (bytes === null) {
      return {
        state: { assetPath: stored, exists: false },
        verdict: "mismatch",
        reason: `the kernel named ${stored} but has no file there`,
      };
    }
    const sha256 = await hashChunked(bytes);
    const state = { assetPath: stored, sha256, size: bytes.length };
    if (sha256 !== wanted.sha256) {
      return {
        state,
        verdict: "mismatch",
        reason: `${stored} holds ${bytes.length} bytes whose SHA-256 differs from the source's`,
      };
    }
    return {
      state,
      verdict: "applied",
      receipt: { assetPath: stored, fileName: wanted.fileName, size: bytes.length, sha256 },
    };
  },
};

/** The file tool's handlers. */
export const fileHandlers = {
  upload_asset: mutationAction(uploadAsset),
  create_template: mutationAction(createTemplate),
  update_template: mutationAction(updateTemplate),
  save_doc_as_template: mutationAction(saveDocAsTemplate),
  delete_template: mutationAction(deleteTemplate),
  delete_asset: mutationAction(deleteAsset),
  rename_asset: mutationAction(renameAsset),
  remove_unused_assets: mutationAction(removeUnusedAssets),
  export_resources: externalAction(exportResources),
  extract_doc: externalAction(extractDoc),
  list_templates: listTemplates,
  doc_assets: docAssets,
  list_unused_assets: listUnusedAssets,
  read_template: readTemplate,
  render_template: renderTemplate,
  export_md: exportMd,
} satisfies ToolHandlers<"file">;
