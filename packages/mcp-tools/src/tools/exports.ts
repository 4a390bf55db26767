/**
 * file.export_resources and file.extract_doc: external side effects (a file or a directory
 * outside SiYuan), with no strict guarantee — `validateOnly` is refused and the call runs once.
 *
 * A runtime with an output sink (the Node authority) refuses an existing destination before any
 * kernel call, then saves through the sink, which streams, hashes and cleans up its own partial
 * output. A runtime without one (the kernel) answers `delivery: "download"` with the manifest of
 * what to save and where; the Node server or CLI delegating to it saves that manifest itself.
 */

import { utf8ByteLength } from "@sisyphus/core-hash";
import { isSiyuanApiError } from "@sisyphus/siyuan-api/kernel";
import { ToolError } from "../errors.js";
import type { ArgsOf, ExternalHandler, ToolContext, WriteContext } from "../handler.js";
import {
  type DownloadManifest,
  EXPORT_FILE_TIMEOUT_MS,
  EXPORT_MAX_BYTES,
  isOutputFailure,
  isSafeRelativePath,
  type OutputEntry,
  type OutputLayout,
  type OutputPlan,
  throwOutputFailure,
} from "../output.js";
import { grantsEverywhere, requirePermission } from "../permissions.js";

type ExportArgs = ArgsOf<"file", "export_resources">;
type ExtractArgs = ArgsOf<"file", "extract_doc">;

const LIMITS = Object.freeze({ maxBytes: EXPORT_MAX_BYTES, fileTimeoutMs: EXPORT_FILE_TIMEOUT_MS });

/** Said with a manifest: who saves it. */
const DOWNLOAD_NOTE =
  "Nothing was saved: GET each url from the SiYuan port with the API token and write it at outputPath/path (the Sisyphus Node server and CLI do this for you).";

/** Refuses a destination the sink cannot create, before any kernel call. */
async function checkDestination(ctx: ToolContext, outputPath: string, layout: OutputLayout) {
  const refused = await ctx.output?.check(outputPath, layout);
  if (refused !== undefined) throwOutputFailure(refused);
}

/** Saves the plan through the sink, or answers it as a download manifest. */
async function deliver(ctx: ToolContext, plan: OutputPlan) {
  if (ctx.output === undefined) {
    const manifest: DownloadManifest = { delivery: "download", ...plan };
    return { ...manifest, note: DOWNLOAD_NOTE };
  }
  const saved = await ctx.output.save(plan, ctx.signal);
  if (isOutputFailure(saved)) throwOutputFailure(saved);
  const only = saved.layout === "file" ? saved.files[0] : undefined;
  return only === undefined ? saved : { ...saved, size: only.size, sha256: only.sha256 };
}

/** `/`-joined segments, each percent-encoded: a GET path the kernel decodes back to `rel`. */
function encodedPath(rel: string): string {
  return rel
    .split("/")
    .map((s) => encodeURIComponent(s))
    .join("/");
}

/** The `GET /export/…` URL of the zip the kernel named (`temp/export/<name>.zip`). */
function exportUrl(zipPath: string): string {
  const prefix = "temp/export/";
  const rest = zipPath.replace(/^\//, "");
  if (!rest.startsWith(prefix) || !isSafeRelativePath(rest.slice(prefix.length))) {
    throw new ToolError(
      "kernel_error",
      `the kernel named its export ${JSON.stringify(zipPath)}, not a file under temp/export/; nothing was saved`,
    );
  }
  return `/export/${encodedPath(rest.slice(prefix.length))}`;
}

/**
 * The kernel's zip of `paths`. A refusal (a path that does not exist or leaves the workspace) made
 * no zip: it is answered as the kernel's typed error, not as an unknown outcome.
 */
async function kernelExport(ctx: WriteContext, paths: readonly string[]): Promise<string> {
  try {
    return await ctx.write.exportResources(paths);
  } catch (e) {
    if (isSiyuanApiError(e) && e.code === "kernel_rejected") {
      throw new ToolError("kernel_error", `the kernel refused the export: ${e.message}`, {
        kernelCode: e.code,
      });
    }
    throw e;
  }
}

export const exportResources: ExternalHandler<ExportArgs> = {
  async run(ctx, a) {
    await checkDestination(ctx, a.outputPath, "file");
    // Workspace files belong to no notebook: the default permission must let the caller read.
    if (!grantsEverywhere(ctx.permissions, "read")) {
      requirePermission(ctx.permissions, ["(workspace)"], "read");
    }
    const zip = await kernelExport(ctx, a.paths);
    return deliver(ctx, {
      layout: "file",
      outputPath: a.outputPath,
      files: [{ path: "", url: exportUrl(zip) }],
      limits: LIMITS,
    });
  },
};

/** Asset links in exported Markdown: `](assets/…)`, `](<assets/…>)` and `src="assets/…"`. */
const ASSET_LINK =
  /\]\(<\/?(assets\/[^>\n]+)>|\]\(\/?(assets\/[^)"'\s]+)|\bsrc=["']\/?(assets\/[^"']+)["']/g;

/** The percent-decoded text, or the text itself when it is not valid percent-encoding. */
function decoded(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * The assets a document's Markdown links to, as paths relative to the export directory
 * (`assets/…`, decoded, without query or fragment), each once, in order of appearance. A link
 * that would leave the directory is not followed.
 */
export function assetLinks(markdown: string): string[] {
  const found: string[] = [];
  ASSET_LINK.lastIndex = 0;
  for (let m = ASSET_LINK.exec(markdown); m !== null; m = ASSET_LINK.exec(markdown)) {
    const raw = (m[1] ?? m[2] ?? m[3] ?? "").replace(/[?#].*$/, "");
    const rel = decoded(raw);
    if (isSafeRelativePath(rel) && !found.includes(rel)) found.push(rel);
  }
  return found;
}

/** The Markdown file's name: the document title without characters file systems refuse. */
function markdownName(hPath: string): string {
  const title = [...(hPath.split("/").pop() ?? "")]
    .map((ch) => (ch < " " || ch === "\u007f" || '\\:*?"<>|'.includes(ch) ? "_" : ch))
    .join("")
    .replace(/^[.\s]+|[.\s]+$/g, "")
    .slice(0, 120);
  const name = `${title === "" ? "document" : title}.md`;
  return isSafeRelativePath(name) ? name : "document.md";
}

export const extractDoc: ExternalHandler<ExtractArgs> = {
  async run(ctx, a) {
    await checkDestination(ctx, a.outputPath, "directory");
    if (!grantsEverywhere(ctx.permissions, "read")) {
      const where = await ctx.kernel.getPathByID(a.id);
      if (where === null)
        throw new ToolError("not_found", `document ${a.id} does not exist`, { id: a.id });
      requirePermission(ctx.permissions, [where.notebook], "read");
    }
    const doc = await ctx.kernel.exportMdContent(a.id);
    if (doc === null)
      throw new ToolError("not_found", `document ${a.id} does not exist`, { id: a.id });
    const name = markdownName(doc.hPath);
    const files: OutputEntry[] = [
      { path: name, text: doc.content, size: utf8ByteLength(doc.content) },
      ...assetLinks(doc.content)
        .filter((rel) => rel !== name)
        .map((rel) => ({ path: rel, url: `/${encodedPath(rel)}` })),
    ];
    return deliver(ctx, { layout: "directory", outputPath: a.outputPath, files, limits: LIMITS });
  },
};
