/**
 * Progress bars for the files the delegation link stages (uploads) and saves (export downloads)
 * for the kernel authority: one bar per file on stderr, only when stderr is a terminal (nothing
 * in a pipe or a log), drawn by `@clack/prompts`.
 */
import type { OnTransfer, TransferProgress } from "@sisyphus/node-server/delegation";
import type { Io } from "./io.js";

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** A reporter for `AuthorityLink`'s `onTransfer`, or `undefined` when stderr is not a terminal. */
export async function progressBars(io: Io): Promise<OnTransfer | undefined> {
  if ((io.stderr as { isTTY?: boolean }).isTTY !== true) return undefined;
  const { progress } = await import("@clack/prompts");
  let bar: ReturnType<typeof progress> | undefined;
  let file = "";
  let shown = 0;
  return (p: TransferProgress) => {
    const verb = p.direction === "upload" ? "Uploading" : "Downloading";
    const key = `${p.direction}\n${p.path}`;
    if (bar === undefined || key !== file) {
      bar?.stop();
      bar = progress({ max: p.total ?? 1, output: io.stderr as NodeJS.WriteStream });
      bar.start(`${verb} ${p.path}`);
      file = key;
      shown = 0;
    }
    const text = `${verb} ${p.path}: ${size(p.bytes)}${p.total === undefined ? "" : ` of ${size(p.total)}`}`;
    if (p.total !== undefined && p.bytes > shown) {
      bar.advance(p.bytes - shown, text);
      shown = p.bytes;
    } else {
      bar.message(text);
    }
    if (p.done) {
      bar.stop(
        `${p.direction === "upload" ? "Uploaded" : "Downloaded"} ${p.path} (${size(p.bytes)})`,
      );
      bar = undefined;
    }
  };
}
