/**
 * Exports through a Node front or the CLI when the kernel plugin is the authority (spec "Kernel file
 * transfer"): the kernel cannot write to this host, so it answers `file.export_resources` and
 * `file.extract_doc` with `delivery: "download"` and a manifest. This process refuses an existing
 * destination before forwarding the call (no kernel export then), saves the manifest with the
 * same writer as the Node authority (`local-output.ts`: authenticated `GET`s on the SiYuan port,
 * streamed with an incremental SHA-256, 512 MiB per ZIP or extraction, 120 s per file, only its
 * own partial output removed) and answers the saved files instead of the manifest.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import {
  errorResult,
  type OutputFailure,
  type OutputLayout,
  parseDownloadManifest,
} from "@sisyphus/mcp-tools/answers";
import type { KernelAddress } from "./kernel-request.js";
import { localOutputSink } from "./local-output.js";
import type { OnTransfer } from "./transfer-progress.js";

const LAYOUTS: Readonly<Record<string, OutputLayout>> = {
  export_resources: "file",
  extract_doc: "directory",
};

/** The layout of an executing export call (not a preflight), else `undefined`. */
export function exportLayout(
  tool: string,
  args: Record<string, unknown>,
): OutputLayout | undefined {
  if (tool !== "file" || args["validateOnly"] === true) return undefined;
  const action = args["action"];
  return typeof action === "string" ? LAYOUTS[action] : undefined;
}

function failureResult(failure: OutputFailure): CallToolResult {
  return errorResult({
    code: failure.error,
    message: failure.message,
    ...failure.details,
    writeAttempted: false,
  }) as CallToolResult;
}

function withStructured(result: CallToolResult, sc: Record<string, unknown>): CallToolResult {
  return {
    ...result,
    structuredContent: sc,
    content: [{ type: "text", text: JSON.stringify(sc) }],
  };
}

/**
 * Runs one export call against the kernel authority (`forward`) and saves what its manifest lists
 * at `outputPath` on this host. Answers the kernel's own error unchanged, a typed refusal when the
 * destination cannot be created (before forwarding) or the save failed, else the kernel's answer
 * with `result` replaced by the saved files (paths, sizes, full SHA-256 digests).
 */
export async function downloadedExportCall(
  /** The kernel the manifest's URLs are fetched from, with the API token the delegate already has. */
  kernel: KernelAddress,
  layout: OutputLayout,
  args: Record<string, unknown>,
  signal: AbortSignal | undefined,
  forward: () => Promise<CallToolResult>,
  limits: { maxBytes?: number; fileTimeoutMs?: number } = {},
  onTransfer?: OnTransfer,
): Promise<CallToolResult> {
  const outputPath = args["outputPath"];
  // Malformed arguments are the kernel's to refuse, with its typed error.
  if (typeof outputPath !== "string") return forward();
  const sink = localOutputSink({ ...kernel, ...limits, onTransfer });
  const refused = await sink.check(outputPath, layout);
  if (refused !== undefined) return failureResult(refused);
  const result = await forward();
  const sc = result.structuredContent as Record<string, unknown> | undefined;
  const answer = sc?.["result"] as Record<string, unknown> | undefined;
  if (result.isError === true || answer?.["delivery"] !== "download") return result;
  const manifest = parseDownloadManifest(answer);
  if (manifest === undefined || manifest.outputPath !== outputPath || manifest.layout !== layout) {
    return failureResult({
      error: "output_failed",
      message: "the kernel answered a download manifest this process cannot use; nothing was saved",
      details: { reason: "invalid_manifest" },
    });
  }
  const saved = await sink.save(manifest, signal);
  if ("error" in saved) return failureResult(saved);
  const only = saved.layout === "file" ? saved.files[0] : undefined;
  return withStructured(result, {
    ...sc,
    result: only === undefined ? saved : { ...saved, size: only.size, sha256: only.sha256 },
  });
}
