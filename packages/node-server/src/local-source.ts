/**
 * The Node authority's upload sources (`file.upload_asset`): a regular file at an absolute path on
 * this host, read with this process's rights. `uploadSource` handles belong to the kernel plugin's
 * staging area, so this reader answers them `source_unavailable`.
 *
 * Symlinks are followed: the caller can name the target directly anyway, so a link adds no reach.
 * What is read is decided on the open handle, not the path: the file is opened once (non-blocking,
 * so a FIFO cannot hang the call), `fstat` of that handle must show a regular file within the cap
 * before a byte is read, and a file that grows while it is read is refused rather than cut short.
 */
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { basename, isAbsolute } from "node:path";
import type { SourceBytes, SourceFailure, SourceReader, SourceRef } from "@sisyphus/mcp-tools";

const invalid = (message: string): SourceFailure => ({ error: "invalid_arguments", message });

/** A failed open or read, as the reader's answer. */
function openFailure(path: string, e: unknown): SourceFailure {
  const code = (e as NodeJS.ErrnoException).code;
  switch (code) {
    case "ENOENT":
    case "ENOTDIR":
      return { error: "not_found", message: `no file at ${path}` };
    case "EISDIR":
      return invalid(`${path} is a directory; upload_asset uploads one regular file`);
    case "ELOOP":
      return invalid(`${path} is a symbolic link loop`);
    case "EACCES":
    case "EPERM":
      return { error: "source_unavailable", message: `this server may not read ${path}` };
    default:
      return {
        error: "source_unavailable",
        message: `${path} could not be read (${code ?? "error"})`,
      };
  }
}

/** Reads one regular file of at most `maxBytes` through its open handle. */
async function readLocalFile(path: string, maxBytes: number): Promise<SourceBytes | SourceFailure> {
  if (!isAbsolute(path)) {
    return invalid(
      `localFilePath must be an absolute path on the server's host, not ${JSON.stringify(path)}`,
    );
  }
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    return openFailure(path, e);
  }
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) return openFailure(path, { code: "EISDIR" });
    if (!stat.isFile()) return invalid(`${path} is not a regular file`);
    if (stat.size > maxBytes) {
      return {
        error: "source_too_large",
        message: `${path} has ${stat.size} bytes; one upload may have at most ${maxBytes}`,
        size: stat.size,
      };
    }
    // One byte more than the size the handle reported: a file still being written shows here.
    const buffer = Buffer.alloc(stat.size + 1);
    let filled = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled > stat.size) {
        return {
          error: "source_unavailable",
          message: `${path} grew while it was read; upload it once it is complete`,
        };
      }
    }
    return {
      bytes: new Uint8Array(buffer.buffer, buffer.byteOffset, filled),
      fileName: basename(path),
    };
  } catch (e) {
    return openFailure(path, e);
  } finally {
    await handle.close();
  }
}

/** The Node authority's source reader: local files only. */
export function localFileSourceReader(): SourceReader {
  return {
    read: (ref: SourceRef, { maxBytes }) =>
      "localFilePath" in ref
        ? readLocalFile(ref.localFilePath, maxBytes)
        : Promise.resolve({
            error: "source_unavailable",
            message:
              "uploadSource handles name files staged in the kernel plugin; this Node server reads localFilePath instead",
          }),
  };
}
