/**
 * The kernel's upload staging area (spec "Kernel file transfer"): files a client sent to
 * `/transfer/upload`, hashed here so a later `uploadSource` names bytes the kernel verified itself.
 * Memory only (a plugin reload forgets everything), no workspace side effect.
 *
 * Limits: 10 MiB per file, 32 MiB and 64 entries in total, each entry 10 minutes from its last
 * staging; at most 2 stagings hash at a time (the third is refused, HTTP 429). Expired entries are
 * removed by the next `stage`, `lookup`, `get` or `counts`. Hashing runs in 64 KiB batches with the
 * injected `yieldFn` awaited between batches, so other requests run meanwhile.
 *
 * Contract for consumers (the `file.upload_asset` tool resolves handles here at preflight and at
 * commit):
 *
 *     get(uploadSource): { fileName, bytes: Uint8Array, sha256, size } | undefined
 *
 * - `undefined`: no such handle, or it expired (and was removed by this read).
 * - `sha256`: the 64 lowercase hex digits this area computed from the bytes when they were staged;
 *   `size` is `bytes.length`.
 * - `bytes`: a fresh copy on every call. The stored snapshot never changes, so a handle names one
 *   content for its whole life; different content always gets a different handle, and the same
 *   name and content always the same one, across reloads too (see `handleOf`).
 *
 * Pure: clock and the yield are injected, so tests drive it with a fake clock.
 */
import {
  CHUNK_BATCH_BYTES,
  digestHex,
  hashChunked,
  stateHash,
  utf8ByteLength,
} from "@sisyphus/core-hash";
import { KERNEL_STAGING_FILE_MAX_BYTES } from "@sisyphus/mcp-tools/settings";

const MIB = 1024 * 1024;

/** The limits of one staging area; the spec's figures are the defaults. */
export interface StagingLimits {
  /** Bytes per file (10 MiB). */
  readonly fileBytes: number;
  /** Bytes of all live entries together (32 MiB). */
  readonly totalBytes: number;
  /** Live entries (64). */
  readonly entries: number;
  /** Lifetime of an entry from its last staging, in milliseconds (10 minutes). */
  readonly ttlMs: number;
  /** Stagings hashing at the same time (2). */
  readonly concurrency: number;
}

export const STAGING_LIMITS: StagingLimits = Object.freeze({
  // Shared with the Node front and the CLI, which refuse a larger local file before staging it.
  fileBytes: KERNEL_STAGING_FILE_MAX_BYTES,
  totalBytes: 32 * MIB,
  entries: 64,
  ttlMs: 10 * 60_000,
  concurrency: 2,
});

/** Longest file name, in UTF-8 bytes (the common file-system limit). */
export const FILE_NAME_MAX_BYTES = 255;

/** A staged file as the routes describe it (no bytes). */
export interface StagedFile {
  readonly uploadSource: string;
  readonly fileName: string;
  readonly sha256: string;
  readonly size: number;
  /** Milliseconds since the epoch (the injected clock's) after which the entry is gone. */
  readonly expiresAt: number;
}

/** What `get` returns: see the contract at the top of this file. */
export interface StagedBytes {
  readonly fileName: string;
  readonly bytes: Uint8Array;
  readonly sha256: string;
  readonly size: number;
}

/** Why a staging was refused; the routes map each code to one HTTP status. */
export type StagingRefusalCode =
  | "invalid_file_name"
  | "empty_file"
  | "file_too_large"
  | "staging_busy"
  | "staging_full"
  | "staging_cleared";

export interface StagingRefusal {
  readonly code: StagingRefusalCode;
  readonly message: string;
  readonly details: Readonly<Record<string, string | number>>;
}

export type StageOutcome =
  | { readonly ok: true; readonly file: StagedFile; readonly reused: boolean }
  | { readonly ok: false; readonly refusal: StagingRefusal };

/** The aggregate numbers `/health` shows: no names, handles or content. */
export interface StagingCounts {
  stagingInFlight: number;
  stagingEntries: number;
  stagingBytes: number;
  stagingRejectedBusy: number;
  stagingRejectedFull: number;
}

export interface StagingOptions {
  readonly clock: { now(): number };
  /** Awaited between two 64 KiB hashing batches; should let the event loop run other work. */
  readonly yieldFn: () => Promise<void>;
  readonly limits?: Partial<StagingLimits>;
}

interface Entry {
  readonly uploadSource: string;
  readonly fileName: string;
  readonly bytes: Uint8Array;
  readonly sha256: string;
  expiresAt: number;
}

/** Hex digits of a handle: 128 bits of the digest of its name and content. */
const HANDLE_HEX_DIGITS = 32;

/**
 * The handle of a file: derived from its name and content, so the same file staged again, even
 * after a reload cleared the area, gets the same handle. A request that named the handle can then
 * be replayed with the same arguments after the file was staged anew (a client re-stages when a
 * reload forgot it), and the ledger answers its recorded result instead of `idempotency_conflict`.
 * Different name or content: a different handle.
 */
function handleOf(fileName: string, sha256: string): string {
  const hex = digestHex(stateHash({ stagedFile: 1, fileName, sha256 }));
  return `stg_${hex.slice(0, HANDLE_HEX_DIGITS)}`;
}

/**
 * Why `name` cannot be a staged file name, or undefined when it can. A name is one path segment:
 * a string of 1 to 255 UTF-8 bytes, not `.` or `..`, without `/`, `\`, control characters
 * (U+0000–U+001F, U+007F) or unpaired surrogates, and not only white space.
 */
export function fileNameProblem(name: unknown): StagingRefusal | undefined {
  const bad = (reason: string, message: string): StagingRefusal => ({
    code: "invalid_file_name",
    message,
    details: { reason },
  });
  if (typeof name !== "string") return bad("missing", "fileName is required (a string)");
  if (name.trim() === "") return bad("empty", "fileName is empty");
  if (name.length > FILE_NAME_MAX_BYTES || utf8ByteLength(name) > FILE_NAME_MAX_BYTES) {
    return bad("too_long", `fileName is longer than ${FILE_NAME_MAX_BYTES} UTF-8 bytes`);
  }
  if (name === "." || name === "..") return bad("dot_segment", "fileName cannot be . or ..");
  const unpaired = () => bad("unpaired_surrogate", "fileName is not well-formed Unicode");
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === 0x2f || c === 0x5c) {
      return bad("separator", "fileName is one name: no / or \\ (no directories)");
    }
    if (c < 0x20 || c === 0x7f) return bad("control_character", "fileName has a control character");
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = name.charCodeAt(i + 1);
      if (!(d >= 0xdc00 && d <= 0xdfff)) return unpaired();
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      return unpaired();
    }
  }
  return undefined;
}

/** A copy of `bytes` for a reader (a plain `Uint8Array`, whatever subclass is stored). */
function copyOf(bytes: Uint8Array): Uint8Array {
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return copy;
}

/** The staging area: see the file's comment. */
export class StagingArea {
  readonly limits: StagingLimits;
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private inFlight = 0;
  private rejectedBusy = 0;
  private rejectedFull = 0;
  /** Bumped by `clear`: a staging that began before it does not add its entry afterwards. */
  private generation = 0;

  constructor(private readonly options: StagingOptions) {
    this.limits = Object.freeze({ ...STAGING_LIMITS, ...options.limits });
  }

  /**
   * The refusal of a new staging while `concurrency` stagings are hashing (counted), or undefined.
   * The upload route asks before it reads a body; `stage` asks again.
   */
  busyRefusal(): StagingRefusal | undefined {
    if (this.inFlight < this.limits.concurrency) return undefined;
    this.rejectedBusy++;
    return {
      code: "staging_busy",
      message: `${this.limits.concurrency} stagings are already running; retry shortly`,
      details: { inFlight: this.inFlight, limit: this.limits.concurrency },
    };
  }

  /** The refusal of a file of `size` bytes: empty, or over the per-file cap. */
  sizeRefusal(size: number): StagingRefusal | undefined {
    if (size === 0) return { code: "empty_file", message: "the file is empty", details: {} };
    if (size <= this.limits.fileBytes) return undefined;
    return {
      code: "file_too_large",
      message: `the file is larger than the staging limit of ${this.limits.fileBytes} bytes; larger files need the Node authority`,
      details: { size, limit: this.limits.fileBytes },
    };
  }

  /**
   * Takes `bytes` (the caller hands them over and never writes them again: the routes pass a
   * buffer decoded for this call, so no 10 MiB copy is made), hashes them and stores them under a
   * new handle, or answers the existing handle when a live entry has the same name and content
   * (its lifetime starts again: the kernel has just verified the bytes anew).
   */
  async stage(fileName: string, bytes: Uint8Array): Promise<StageOutcome> {
    const refused =
      fileNameProblem(fileName) ?? this.sizeRefusal(bytes.length) ?? this.busyRefusal();
    if (refused !== undefined) return { ok: false, refusal: refused };
    this.sweep();
    // Refuse before hashing when the file cannot fit, unless it may turn out to be a reuse.
    if (!this.mayReuse(fileName, bytes.length)) {
      const full = this.fullProblem(bytes.length);
      if (full !== undefined) return { ok: false, refusal: full };
    }
    const generation = this.generation;
    this.inFlight++;
    try {
      const sha256 = await hashChunked(bytes, {
        batchBytes: CHUNK_BATCH_BYTES,
        yieldFn: this.options.yieldFn,
      });
      if (generation !== this.generation) {
        return {
          ok: false,
          refusal: {
            code: "staging_cleared",
            message: "the staging area was cleared (plugin unloading) while this file was hashed",
            details: {},
          },
        };
      }
      return this.store(fileName, bytes, sha256);
    } finally {
      this.inFlight--;
    }
  }

  /**
   * The live entry with exactly this name, full SHA-256 (either case) and size, or undefined.
   * Never creates anything: a claimed digest is only compared with digests this area computed.
   */
  lookup(fileName: string, sha256: string, size: number): StagedFile | undefined {
    this.sweep();
    const entry = this.find(fileName, sha256.toLowerCase(), size);
    return entry === undefined ? undefined : describe(entry);
  }

  /** The bytes behind a handle: see the contract at the top of this file. */
  get(uploadSource: string): StagedBytes | undefined {
    this.sweep();
    const entry = this.entries.get(uploadSource);
    if (entry === undefined) return undefined;
    return {
      fileName: entry.fileName,
      bytes: copyOf(entry.bytes),
      sha256: entry.sha256,
      size: entry.bytes.length,
    };
  }

  /** Aggregate counts for `/health`. */
  counts(): StagingCounts {
    this.sweep();
    return {
      stagingInFlight: this.inFlight,
      stagingEntries: this.entries.size,
      stagingBytes: this.bytes,
      stagingRejectedBusy: this.rejectedBusy,
      stagingRejectedFull: this.rejectedFull,
    };
  }

  /** Forgets every entry; stagings still hashing are refused when they finish (`onunload`). */
  clear(): void {
    this.entries.clear();
    this.bytes = 0;
    this.generation++;
  }

  private store(fileName: string, bytes: Uint8Array, sha256: string): StageOutcome {
    this.sweep();
    const expiresAt = this.options.clock.now() + this.limits.ttlMs;
    const same = this.find(fileName, sha256, bytes.length);
    if (same !== undefined) {
      same.expiresAt = expiresAt;
      return { ok: true, file: describe(same), reused: true };
    }
    const full = this.fullProblem(bytes.length);
    if (full !== undefined) return { ok: false, refusal: full };
    const uploadSource = handleOf(fileName, sha256);
    const entry: Entry = { uploadSource, fileName, bytes, sha256, expiresAt };
    this.entries.set(uploadSource, entry);
    this.bytes += bytes.length;
    return { ok: true, file: describe(entry), reused: false };
  }

  /**
   * Refusal when a new entry of `size` bytes would pass the entry or total-byte cap. Live entries
   * are never evicted to make room (a preflight may hold their handle); `retryAfterMs` says when
   * enough of them will have expired.
   */
  private fullProblem(size: number): StagingRefusal | undefined {
    const { entries: maxEntries, totalBytes } = this.limits;
    const fits = (entries: number, bytes: number) =>
      entries + 1 <= maxEntries && bytes + size <= totalBytes;
    if (fits(this.entries.size, this.bytes)) return undefined;
    this.rejectedFull++;
    const now = this.options.clock.now();
    let entries = this.entries.size;
    let bytes = this.bytes;
    let retryAfterMs = 0;
    for (const e of [...this.entries.values()].sort((a, b) => a.expiresAt - b.expiresAt)) {
      entries--;
      bytes -= e.bytes.length;
      retryAfterMs = Math.max(0, e.expiresAt - now);
      if (fits(entries, bytes)) break;
    }
    return {
      code: "staging_full",
      message: `staging holds ${this.entries.size} files (${this.bytes} bytes); the limits are ${maxEntries} files and ${totalBytes} bytes`,
      details: {
        limit: this.entries.size + 1 > maxEntries ? "entries" : "bytes",
        entries: this.entries.size,
        bytes: this.bytes,
        maxEntries,
        maxTotalBytes: totalBytes,
        retryAfterMs,
      },
    };
  }

  private mayReuse(fileName: string, size: number): boolean {
    for (const e of this.entries.values()) {
      if (e.fileName === fileName && e.bytes.length === size) return true;
    }
    return false;
  }

  private find(fileName: string, sha256: string, size: number): Entry | undefined {
    for (const e of this.entries.values()) {
      if (e.fileName === fileName && e.sha256 === sha256 && e.bytes.length === size) return e;
    }
    return undefined;
  }

  private sweep(): void {
    const now = this.options.clock.now();
    for (const [handle, e] of this.entries) {
      if (now >= e.expiresAt) {
        this.entries.delete(handle);
        this.bytes -= e.bytes.length;
      }
    }
  }
}

function describe(e: Entry): StagedFile {
  return {
    uploadSource: e.uploadSource,
    fileName: e.fileName,
    sha256: e.sha256,
    size: e.bytes.length,
    expiresAt: e.expiresAt,
  };
}
