/**
 * The link to the kernel authority: the plugin's `/mcp` on the SiYuan port, authenticated with the
 * SiYuan API token, each call with a fresh taskId (spec: task-control extension) so that a lost
 * response is recovered through `/tasks` and an MCP cancellation relayed there. An upload of a
 * local file is staged first (`kernel-staging.ts`), an export's download manifest saved on this
 * host (`kernel-download.ts`).
 */
import { randomUUID } from "node:crypto";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { KERNEL_MCP_PATH, PLUGIN_NAME } from "@sisyphus/mcp-tools/settings";
import { PRECHECK_META_KEY } from "@sisyphus/mcp-tools/shell";
import {
  AuthorityLink,
  type KernelAuthorityLinkOptions,
  type LinkTarget,
  TASK_ID_META_KEY,
  type TaskTimers,
} from "./authority-link.js";
import {
  TASK_RECOVERY_ATTEMPTS,
  TASK_RECOVERY_PAUSE_MS,
  TASK_RECOVERY_TIMEOUT_MS,
} from "./constants.js";
import { downloadedExportCall, exportLayout } from "./kernel-download.js";
import { type KernelAddress, kernelAuthorization, kernelRequest } from "./kernel-request.js";
import { isLocalUpload, stagedUploadCall } from "./kernel-staging.js";
import type { OnTransfer } from "./transfer-progress.js";

/** The kernel authority's task-control endpoint. */
const KERNEL_TASKS_PATH = `/plugin/private/${PLUGIN_NAME}/tasks`;

/** The system's timers. */
const SYSTEM_TASK_TIMERS: TaskTimers = {
  deadline: (ms) => AbortSignal.timeout(ms),
  pause: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** The link to the kernel plugin's `/mcp` (see the module comment). */
export class KernelAuthorityLink extends AuthorityLink {
  readonly kind = "kernel" as const;
  readonly #kernel: KernelAddress;
  readonly #onTransfer: OnTransfer | undefined;
  readonly #timers: TaskTimers;

  constructor(options: KernelAuthorityLinkOptions) {
    super(options);
    this.#kernel = options.kernel;
    this.#onTransfer = options.onTransfer;
    this.#timers = options.taskTimers ?? SYSTEM_TASK_TIMERS;
  }

  /**
   * Forwards one tool call (see {@link AuthorityLink.call}). An upload of a local file is staged
   * first, an export's download manifest saved on this host. `transferSignal` stops only those
   * local transfers, not the delegated call: a shell that cancels the call itself through
   * `/tasks` and waits for its answer (the CLI's Ctrl-C) still stops a staging or a download at
   * once, removing its partial output. Never throws.
   */
  override call(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    mayExecute: boolean,
    extraMeta: Record<string, unknown> = {},
    transferSignal?: AbortSignal,
  ): Promise<CallToolResult> {
    const transfer =
      transferSignal === undefined || signal === undefined
        ? (transferSignal ?? signal)
        : AbortSignal.any([signal, transferSignal]);
    if (isLocalUpload(tool, args)) {
      return stagedUploadCall(
        this.#kernel,
        args,
        transfer,
        (staged) => this.forward(tool, staged, signal, mayExecute, extraMeta),
        this.#onTransfer,
      );
    }
    const layout = exportLayout(tool, args);
    if (layout !== undefined && extraMeta[PRECHECK_META_KEY] !== true) {
      return downloadedExportCall(
        this.#kernel,
        layout,
        args,
        transfer,
        () => this.forward(tool, args, signal, mayExecute, extraMeta),
        {},
        this.#onTransfer,
      );
    }
    return this.forward(tool, args, signal, mayExecute, extraMeta);
  }

  /** One `/tasks` operation at the kernel authority; `undefined` when it cannot be asked. */
  override async task(
    taskId: string,
    operation: string,
  ): Promise<Record<string, unknown> | undefined> {
    try {
      const res = await kernelRequest(this.#kernel, KERNEL_TASKS_PATH, {
        json: { taskId, operation },
        timeoutMs: TASK_RECOVERY_TIMEOUT_MS,
        signal: this.#timers.deadline(TASK_RECOVERY_TIMEOUT_MS),
      });
      return res.status >= 200 && res.status < 300 ? res.json() : undefined;
    } catch {
      return undefined;
    }
  }

  protected target(): Promise<LinkTarget> {
    return Promise.resolve({
      url: `${this.#kernel.siyuanUrl}${KERNEL_MCP_PATH}`,
      headers: kernelAuthorization(this.#kernel.siyuanToken),
      meta: { [TASK_ID_META_KEY]: randomUUID() },
    });
  }

  protected callMeta(): Record<string, unknown> {
    return {};
  }

  /**
   * After a lost response: asks `/tasks` for that task's result only, up to
   * `TASK_RECOVERY_ATTEMPTS` times (`TASK_RECOVERY_TIMEOUT_MS` each, `TASK_RECOVERY_PAUSE_MS`
   * apart) — never the business call again. `undefined` when no terminal result came back.
   */
  protected override async recover(taskId: string): Promise<CallToolResult | undefined> {
    for (let attempt = 0; attempt < TASK_RECOVERY_ATTEMPTS; attempt++) {
      if (attempt > 0) await this.#timers.pause(TASK_RECOVERY_PAUSE_MS);
      const answer = await this.task(taskId, "result");
      const result = answer?.["result"];
      if (answer?.["found"] === true && result !== undefined && answer["state"] !== "running") {
        return result as CallToolResult;
      }
    }
    return undefined;
  }
}
