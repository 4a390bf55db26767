/**
 * Where exports go (`file.export_resources`, `file.extract_doc`): the runtime-specific port that
 * saves them, and the download manifest answered where nothing can save.
 *
 * This package runs in Node and inside the kernel (goja), so it never writes a file itself. A shell
 * that can save injects an {@link OutputSink} (the Node authority: streaming writes with an
 * incremental SHA-256 on its own host). Without one (the kernel authority) an export answers
 * `delivery: "download"` with an {@link OutputPlan}: the kernel URLs to fetch and where each goes,
 * which the Node server or CLI in front of the kernel saves with the same writer.
 */
import { ToolError, type ToolErrorCode } from "./errors.js";

/** The largest ZIP, or complete document extraction, an export may save (512 MiB). */
export const EXPORT_MAX_BYTES = 512 * 1024 * 1024;
/** The deadline of each file's download and write (120 s). */
export const EXPORT_FILE_TIMEOUT_MS = 120_000;

/** One file at `outputPath` (`file`), or a new directory there holding the files (`directory`). */
export type OutputLayout = "file" | "directory";

/**
 * One file of an export: fetched from the kernel (`url`: a `GET` path on the SiYuan port, `/export/…`
 * or `/assets/…`, sent with the API token) or given inline (`text`, UTF-8). `path` is where it goes,
 * relative to `outputPath` with `/` separators; `""` for the `file` layout's one file.
 */
export type OutputEntry =
  | { readonly path: string; readonly url: string; readonly size?: number }
  | { readonly path: string; readonly text: string; readonly size: number };

/** What an export saves: the destination, its layout, its files and the limits that bound them. */
export interface OutputPlan {
  readonly layout: OutputLayout;
  readonly outputPath: string;
  readonly files: readonly OutputEntry[];
  readonly limits: { readonly maxBytes: number; readonly fileTimeoutMs: number };
}

/** One saved file: its path relative to `outputPath` (`""` for the file layout), size, full SHA-256. */
export interface SavedFile {
  readonly path: string;
  readonly size: number;
  /** 64 lowercase hex digits: never an alias. */
  readonly sha256: string;
}

/** What a sink saved. */
export interface SavedOutput {
  readonly delivery: "saved";
  readonly layout: OutputLayout;
  readonly outputPath: string;
  readonly files: readonly SavedFile[];
  readonly totalBytes: number;
  /** `url` entries the kernel answered 404 for (an extraction's broken asset links): not saved. */
  readonly missing: readonly string[];
}

/**
 * Why an output could not be saved; the sink has removed what it created (the ZIP it began, or the
 * directory it made) and nothing else. `already_exists`: the destination exists;
 * `invalid_arguments`: a relative path, a missing parent; `output_too_large`: over
 * `limits.maxBytes` (details `limit`, `size`); `output_failed`: a download or write failed or ran
 * out of time (details `reason`, `path`).
 */
export interface OutputFailure {
  readonly error: Extract<
    ToolErrorCode,
    "already_exists" | "invalid_arguments" | "output_too_large" | "output_failed"
  >;
  readonly message: string;
  readonly details?: Record<string, unknown>;
}

/** Saves exports for one runtime. */
export interface OutputSink {
  /** Refuses a destination that cannot be created (it exists, or its parent does not). */
  check(outputPath: string, layout: OutputLayout): Promise<OutputFailure | undefined>;
  /** Saves the plan, or removes its own partial output and says why. */
  save(plan: OutputPlan, signal?: AbortSignal): Promise<SavedOutput | OutputFailure>;
}

/** The manifest a runtime without a sink answers: what to save, where; nothing was written. */
export interface DownloadManifest extends OutputPlan {
  readonly delivery: "download";
}

/** Throws the typed error of a sink's failure. */
export function throwOutputFailure(failure: OutputFailure): never {
  throw new ToolError(failure.error, failure.message, { ...failure.details });
}

/** Whether a sink's answer is a failure. */
export function isOutputFailure(r: SavedOutput | OutputFailure | undefined): r is OutputFailure {
  return r !== undefined && "error" in r;
}

/**
 * A relative destination inside an export directory: `/`-separated segments, none empty, `.` or
 * `..`, no backslash, colon or control character (so it cannot leave the directory on any host).
 */
export function isSafeRelativePath(path: string): boolean {
  if (path === "" || path.startsWith("/")) return false;
  return path
    .split("/")
    .every(
      (s) =>
        s !== "" &&
        s !== "." &&
        s !== ".." &&
        [...s].every((ch) => ch >= " " && ch !== "\u007f" && !"\\:".includes(ch)),
    );
}

/**
 * Checks a manifest from elsewhere (a kernel's answer) before anything is saved: the layout, a
 * `GET` URL under `/export/` or `/assets/` (or inline text) per entry, and destinations that stay
 * inside `outputPath`. `undefined` when it is not a usable manifest.
 */
export function parseDownloadManifest(value: unknown): DownloadManifest | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const m = value as Record<string, unknown>;
  if (m["delivery"] !== "download" || typeof m["outputPath"] !== "string") return undefined;
  const layout = m["layout"];
  if (layout !== "file" && layout !== "directory") return undefined;
  if (!Array.isArray(m["files"])) return undefined;
  const files: OutputEntry[] = [];
  for (const raw of m["files"] as unknown[]) {
    if (typeof raw !== "object" || raw === null) return undefined;
    const e = raw as Record<string, unknown>;
    const path = e["path"];
    if (typeof path !== "string") return undefined;
    if (layout === "file" ? path !== "" : !isSafeRelativePath(path)) return undefined;
    if (typeof e["url"] === "string") {
      if (!/^\/(export|assets)\/[^?#]+$/.test(e["url"]) || e["url"].includes(".."))
        return undefined;
      files.push(
        typeof e["size"] === "number"
          ? { path, url: e["url"], size: e["size"] }
          : { path, url: e["url"] },
      );
    } else if (typeof e["text"] === "string") {
      files.push({ path, text: e["text"], size: typeof e["size"] === "number" ? e["size"] : 0 });
    } else return undefined;
  }
  if (layout === "file" && files.length !== 1) return undefined;
  return {
    delivery: "download",
    layout,
    outputPath: m["outputPath"] as string,
    files,
    limits: { maxBytes: EXPORT_MAX_BYTES, fileTimeoutMs: EXPORT_FILE_TIMEOUT_MS },
  };
}
