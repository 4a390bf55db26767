/**
 * Progress of the file transfers a delegate makes for the kernel authority (staging an upload,
 * saving an export's download manifest), for a shell that shows it (the CLI's progress bars on a
 * terminal). Reported, never awaited: a slow reporter cannot slow a transfer.
 */
export interface TransferProgress {
  readonly direction: "upload" | "download";
  /** The file's name (upload) or its path inside the output (download). */
  readonly path: string;
  /** Bytes done so far. */
  readonly bytes: number;
  /** All the bytes, when known (an upload's size, a download's Content-Length). */
  readonly total?: number;
  /** The last report of this file. */
  readonly done: boolean;
}

export type OnTransfer = (progress: TransferProgress) => void;
