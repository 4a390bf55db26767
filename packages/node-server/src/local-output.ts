/**
 * The local writer of exports (`file.export_resources`, `file.extract_doc`): the Node authority's
 * output sink, and the saver of the kernel authority's download manifests (`kernel-download.ts`).
 *
 * Every kernel file is fetched with an authenticated `GET` on the SiYuan port and streamed to disk
 * with an incremental SHA-256; nothing is held whole in memory. The destination is created
 * exclusively (the ZIP with `wx`, the extraction directory with a non-recursive `mkdir`), so an
 * existing path is refused and never touched; on any failure, cancellation, deadline or overflow
 * only what this call created is removed.
 */
import { createHash } from "node:crypto";
import { type FileHandle, lstat, mkdir, open, rm, stat, unlink } from "node:fs/promises";
import { basename, dirname, isAbsolute, join } from "node:path";
import {
  EXPORT_FILE_TIMEOUT_MS,
  EXPORT_MAX_BYTES,
  isSafeRelativePath,
  type OutputEntry,
  type OutputFailure,
  type OutputLayout,
  type OutputPlan,
  type OutputSink,
  type SavedFile,
  type SavedOutput,
} from "@sisyphus/mcp-tools/answers";
import { kernelAuthorization } from "./kernel-request.js";
import type { OnTransfer } from "./transfer-progress.js";

/** Options of {@link localOutputSink}. */
export interface LocalOutputOptions {
  /** The SiYuan kernel the plan's URLs are fetched from. */
  readonly siyuanUrl: string;
  readonly siyuanToken?: string | undefined;
  /** A lower cap than the spec's 512 MiB per ZIP or extraction (tests). */
  readonly maxBytes?: number;
  /** A shorter per-file deadline than the spec's 120 s (tests). */
  readonly fileTimeoutMs?: number;
  /** Told the bytes written of each downloaded file as they arrive. */
  readonly onTransfer?: OnTransfer | undefined;
}

/** A failure on the way; the save catches it, cleans up and answers it. */
class OutputError extends Error {
  readonly failure: OutputFailure;
  constructor(failure: OutputFailure) {
    super(failure.message);
    this.failure = failure;
  }
}

const fail = (
  error: OutputFailure["error"],
  message: string,
  details?: Record<string, unknown>,
): OutputError => new OutputError({ error, message, ...(details ? { details } : {}) });

function errnoOf(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** Refuses a destination that is not absolute, exists, or has no parent directory. */
async function checkDestination(outputPath: string): Promise<OutputFailure | undefined> {
  if (!isAbsolute(outputPath)) {
    return {
      error: "invalid_arguments",
      message: `outputPath must be an absolute path on the host of the Sisyphus Node server or CLI, not ${JSON.stringify(outputPath)}`,
      details: { outputPath },
    };
  }
  try {
    await lstat(outputPath);
    return {
      error: "already_exists",
      message: `${outputPath} already exists; exports never replace anything: choose a new path`,
      details: { outputPath },
    };
  } catch (e) {
    if (errnoOf(e) !== "ENOENT") {
      return { error: "invalid_arguments", message: `cannot use ${outputPath}: ${String(e)}` };
    }
  }
  const parent = dirname(outputPath);
  const parentIsDir = await stat(parent).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!parentIsDir) {
    return {
      error: "invalid_arguments",
      message: `the parent directory ${parent} does not exist; exports create only the last path segment`,
      details: { outputPath },
    };
  }
  return undefined;
}

/** What one save has written so far, and its limits. */
interface Budget {
  readonly maxBytes: number;
  readonly fileTimeoutMs: number;
  total: number;
}

function count(budget: Budget, bytes: number): void {
  budget.total += bytes;
  if (budget.total > budget.maxBytes) {
    throw fail(
      "output_too_large",
      `the export exceeds ${budget.maxBytes} bytes; its partial output was removed`,
      { limit: budget.maxBytes, size: budget.total },
    );
  }
}

/**
 * Creates `dest` exclusively and writes `chunks` to it with a running SHA-256. `onOpen` learns the
 * file exists (it is the caller's to remove on failure).
 */
async function writeExclusive(
  dest: string,
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  budget: Budget,
  onOpen: () => void,
): Promise<{ size: number; sha256: string }> {
  let fh: FileHandle;
  try {
    fh = await open(dest, "wx");
  } catch (e) {
    if (errnoOf(e) === "EEXIST") throw fail("already_exists", `${dest} already exists`);
    throw fail("output_failed", `cannot create ${dest}: ${String(e)}`, { reason: "write" });
  }
  onOpen();
  const hash = createHash("sha256");
  let size = 0;
  try {
    for await (const chunk of chunks) {
      count(budget, chunk.byteLength);
      size += chunk.byteLength;
      hash.update(chunk);
      await fh.write(chunk);
    }
  } finally {
    await fh.close();
  }
  return { size, sha256: hash.digest("hex") };
}

/** Why a fetch or stream failed, for `details.reason`. */
function abortReason(signal: AbortSignal | undefined, deadline: AbortSignal): string | undefined {
  if (signal?.aborted) return "cancelled";
  if (deadline.aborted) return "timeout";
  return undefined;
}

/** `chunks` as they are, telling `onTransfer` the running count (and the end). */
async function* reported(
  chunks: Downloaded,
  path: string,
  onTransfer: OnTransfer | undefined,
): AsyncIterable<Uint8Array> {
  if (onTransfer === undefined) {
    yield* chunks.body;
    return;
  }
  const total = chunks.length === undefined ? {} : { total: chunks.length };
  let bytes = 0;
  for await (const chunk of chunks.body) {
    bytes += chunk.byteLength;
    onTransfer({ direction: "download", path, bytes, ...total, done: false });
    yield chunk;
  }
  onTransfer({ direction: "download", path, bytes, ...total, done: true });
}

/** A download's body and its announced length. */
interface Downloaded {
  readonly body: AsyncIterable<Uint8Array>;
  readonly length: number | undefined;
}

/** The body of `GET url` from the kernel, or `null` on 404 (when `allowMissing`). */
async function download(
  options: LocalOutputOptions,
  entry: { path: string; url: string },
  signal: AbortSignal,
  budget: Budget,
  allowMissing: boolean,
): Promise<Downloaded | null> {
  const res = await fetch(`${options.siyuanUrl.replace(/\/+$/, "")}${entry.url}`, {
    headers: kernelAuthorization(options.siyuanToken),
    signal,
  });
  if (res.status === 404 && allowMissing) {
    await res.body?.cancel();
    return null;
  }
  if (res.status !== 200 || res.body === null) {
    await res.body?.cancel();
    throw fail("output_failed", `the kernel answered HTTP ${res.status} for ${entry.url}`, {
      reason: res.status === 404 ? "not_found" : `http_${res.status}`,
      path: entry.path,
    });
  }
  const length = Number(res.headers.get("content-length"));
  if (Number.isFinite(length) && budget.total + length > budget.maxBytes) {
    await res.body.cancel();
    throw fail(
      "output_too_large",
      `${entry.url} has ${length} bytes, over the export's limit of ${budget.maxBytes}; nothing more was saved`,
      { limit: budget.maxBytes, size: budget.total + length },
    );
  }
  return {
    body: res.body as unknown as AsyncIterable<Uint8Array>,
    length: Number.isFinite(length) && res.headers.has("content-length") ? length : undefined,
  };
}

/** Saves one entry at `dest`; `null` when the kernel has no such file (and that is allowed). */
async function saveEntry(
  options: LocalOutputOptions,
  entry: OutputEntry,
  dest: string,
  budget: Budget,
  signal: AbortSignal | undefined,
  allowMissing: boolean,
  onOpen: () => void,
): Promise<SavedFile | null> {
  if ("text" in entry) {
    const bytes = Buffer.from(entry.text, "utf8");
    return { path: entry.path, ...(await writeExclusive(dest, [bytes], budget, onOpen)) };
  }
  const deadline = AbortSignal.timeout(budget.fileTimeoutMs);
  const both = signal === undefined ? deadline : AbortSignal.any([signal, deadline]);
  try {
    const body = await download(options, entry, both, budget, allowMissing);
    if (body === null) return null;
    return {
      path: entry.path,
      ...(await writeExclusive(
        dest,
        // A single-file layout's entry has no path of its own: it is the file at `dest`.
        reported(body, entry.path === "" ? basename(dest) : entry.path, options.onTransfer),
        budget,
        onOpen,
      )),
    };
  } catch (e) {
    if (e instanceof OutputError) throw e;
    const reason = abortReason(signal, deadline) ?? "download";
    throw fail(
      "output_failed",
      reason === "timeout"
        ? `${entry.url} did not arrive within ${budget.fileTimeoutMs} ms`
        : `${entry.url} could not be saved (${reason}): ${e instanceof Error ? e.message : String(e)}`,
      { reason, path: entry.path },
    );
  }
}

/** Saves a plan's one file exactly at `outputPath`; removes it if anything fails. */
async function saveFile(
  options: LocalOutputOptions,
  plan: OutputPlan,
  budget: Budget,
  signal: AbortSignal | undefined,
): Promise<SavedFile[]> {
  const entry = plan.files[0] as OutputEntry;
  let created = false;
  try {
    const saved = await saveEntry(options, entry, plan.outputPath, budget, signal, false, () => {
      created = true;
    });
    return [saved as SavedFile];
  } catch (e) {
    if (created) await unlink(plan.outputPath).catch(() => undefined);
    throw e;
  }
}

/**
 * Saves a plan's files into a new directory at `outputPath`; removes that directory (and only it)
 * if anything fails. 404 answers are listed in `missing`.
 */
async function saveDirectory(
  options: LocalOutputOptions,
  plan: OutputPlan,
  budget: Budget,
  signal: AbortSignal | undefined,
  missing: string[],
): Promise<SavedFile[]> {
  try {
    await mkdir(plan.outputPath);
  } catch (e) {
    if (errnoOf(e) === "EEXIST") {
      throw fail("already_exists", `${plan.outputPath} already exists; nothing was written`, {
        outputPath: plan.outputPath,
      });
    }
    throw fail("output_failed", `cannot create ${plan.outputPath}: ${String(e)}`, {
      reason: "write",
    });
  }
  const saved: SavedFile[] = [];
  try {
    for (const entry of plan.files) {
      if (!isSafeRelativePath(entry.path)) {
        throw fail("output_failed", `refusing to write ${JSON.stringify(entry.path)}`, {
          reason: "unsafe_path",
          path: entry.path,
        });
      }
      const dest = join(plan.outputPath, ...entry.path.split("/"));
      await mkdir(dirname(dest), { recursive: true });
      const file = await saveEntry(options, entry, dest, budget, signal, true, () => {});
      if (file === null) missing.push(entry.path);
      else saved.push(file);
    }
    return saved;
  } catch (e) {
    await rm(plan.outputPath, { recursive: true, force: true }).catch(() => undefined);
    throw e;
  }
}

/** The Node writer of exports, fetching kernel files from `options.siyuanUrl`. */
export function localOutputSink(options: LocalOutputOptions): OutputSink {
  return {
    check: (outputPath: string, _layout: OutputLayout) => checkDestination(outputPath),
    async save(plan: OutputPlan, signal?: AbortSignal): Promise<SavedOutput | OutputFailure> {
      const refused = await checkDestination(plan.outputPath);
      if (refused !== undefined) return refused;
      const budget: Budget = {
        maxBytes: Math.min(plan.limits.maxBytes, options.maxBytes ?? EXPORT_MAX_BYTES),
        fileTimeoutMs: Math.min(
          plan.limits.fileTimeoutMs,
          options.fileTimeoutMs ?? EXPORT_FILE_TIMEOUT_MS,
        ),
        total: 0,
      };
      const missing: string[] = [];
      try {
        const files =
          plan.layout === "file"
            ? await saveFile(options, plan, budget, signal)
            : await saveDirectory(options, plan, budget, signal, missing);
        return {
          delivery: "saved",
          layout: plan.layout,
          outputPath: plan.outputPath,
          files,
          totalBytes: budget.total,
          missing,
        };
      } catch (e) {
        if (e instanceof OutputError) return e.failure;
        return {
          error: "output_failed",
          message: `the export could not be saved: ${e instanceof Error ? e.message : String(e)}`,
          details: { reason: "write" },
        };
      }
    },
  };
}
