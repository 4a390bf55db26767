/**
 * The bytes of an upload, wherever they are: the runtime-specific port that reads them.
 *
 * This package runs in Node and inside the kernel (goja), so it never touches a file system itself.
 * A shell that can read a kind of source injects a {@link SourceReader} (the Node server reads
 * absolute local paths; the kernel plugin resolves handles of its staging area); a kind no reader
 * serves is a typed `source_unavailable`, before any lease or write.
 */
import { ToolError, type ToolErrorCode } from "./errors.js";

/** Where an upload's bytes come from: a file on the authority's host, or a staged handle. */
export type SourceRef = { readonly localFilePath: string } | { readonly uploadSource: string };

/** The bytes of a source and the file name the asset is stored under. */
export interface SourceBytes {
  readonly bytes: Uint8Array;
  /** A base name (no directory): the kernel derives the asset's name from it. */
  readonly fileName: string;
  /**
   * The SHA-256 (64 lowercase hex digits) of exactly these bytes, when the reader computed it
   * itself from immutable bytes (the kernel's staging area hashes each file once, as it arrives);
   * the runtime then does not hash them again. Never a digest a client claimed.
   */
  readonly sha256?: string;
}

/**
 * Why a source could not be read: `not_found` (no such file or handle), `invalid_arguments` (a
 * relative path, a directory, a special file, a refused symlink), `source_too_large` (over
 * `maxBytes`, found before reading it all), `source_unavailable` (this reader does not serve that
 * kind, or the read failed).
 */
export interface SourceFailure {
  readonly error: Extract<
    ToolErrorCode,
    "not_found" | "invalid_arguments" | "source_too_large" | "source_unavailable"
  >;
  readonly message: string;
  /** The size in bytes, when the failure is `source_too_large` and the reader knows it. */
  readonly size?: number;
}

/** Reads upload sources for one runtime. */
export interface SourceReader {
  /**
   * The source's bytes, or why not. `maxBytes` is the runtime's cap: a reader refuses a larger
   * source with `source_too_large` before reading all of it.
   */
  read(ref: SourceRef, limits: { readonly maxBytes: number }): Promise<SourceBytes | SourceFailure>;
}

/**
 * The largest upload, in bytes (64 MiB). The kernel's staging area caps a file at 10 MiB anyway;
 * this bounds a local file the Node authority holds in memory between reading, hashing and sending.
 */
export const UPLOAD_ASSET_MAX_BYTES = 64 * 1024 * 1024;

/** The kind of a source reference, as its argument is named. */
export function sourceKind(ref: SourceRef): "localFilePath" | "uploadSource" {
  return "localFilePath" in ref ? "localFilePath" : "uploadSource";
}

/**
 * Reads a source through `reader`, or throws the typed error its failure names. No reader at all
 * is `source_unavailable`; bytes over the cap are refused even if the reader let them through.
 */
export async function readSource(
  reader: SourceReader | undefined,
  ref: SourceRef,
  maxBytes: number = UPLOAD_ASSET_MAX_BYTES,
): Promise<SourceBytes> {
  const kind = sourceKind(ref);
  if (reader === undefined) {
    throw new ToolError(
      "source_unavailable",
      kind === "localFilePath"
        ? "this authority cannot read local files (the kernel runs the tools): stage the file through the Sisyphus Node server or CLI, or the plugin's transfer/upload endpoint, and pass uploadSource"
        : "this authority has no upload staging area: pass localFilePath to the Node server instead",
      { source: kind },
    );
  }
  const read = await reader.read(ref, { maxBytes });
  if ("error" in read) {
    const details: Record<string, unknown> =
      read.error === "source_too_large"
        ? { limit: maxBytes, ...(read.size === undefined ? {} : { size: read.size }) }
        : { source: kind };
    throw new ToolError(read.error, read.message, details);
  }
  if (read.bytes.length > maxBytes) {
    throw new ToolError(
      "source_too_large",
      `the source has ${read.bytes.length} bytes; one upload may have at most ${maxBytes}`,
      { limit: maxBytes, size: read.bytes.length },
    );
  }
  // A digest the runtime could not use as one is dropped: the bytes are hashed instead.
  if (read.sha256 !== undefined && !/^[0-9a-f]{64}$/.test(read.sha256)) {
    return { bytes: read.bytes, fileName: read.fileName };
  }
  return read;
}
