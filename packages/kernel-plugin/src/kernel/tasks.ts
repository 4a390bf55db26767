/**
 * Task control (`io.siyuan.sisyphus/task-control`, extension version 2; spec "Kernel concurrency
 * and queued cancellation"): a modern `tools/call` may carry a UUID under
 * `params._meta["io.siyuan.sisyphus/taskId"]`; `POST /tasks {taskId, operation}` then asks for its
 * `status`, its `result` or its `cancel`lation. Records live in memory only (a reload forgets
 * them): running ones until they settle, terminal ones `TASK_RETENTION_MS`, at most
 * `TASK_MAX_RECORDS` and `TASK_MAX_TOTAL_BYTES` (oldest terminal first), a result above
 * `TASK_MAX_RESULT_BYTES` kept only as "too large". An `input_required` round is not terminal.
 * A result is disclosed only under the access it was produced under: each record keeps the access
 * fingerprint of the settings its call ran with, and `result` answers `access_changed` (no body)
 * when today's settings give another one or cannot be used.
 * A `cancel` of a taskId no call has brought yet is remembered (`TASK_RETENTION_MS`, at most
 * `TASK_MAX_RECORDS`): a host that serialises `/mcp` (SiYuan 3.7.3) holds a call behind the one
 * before it, so a relayed cancel can arrive first; that call is answered `cancelled` when it
 * arrives, and runs nothing.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { utf8Encode } from "@sisyphus/core-hash";
import { accessFingerprint } from "@sisyphus/mcp-tools/settings";
import {
  type CallControl,
  type CallGateway,
  type Gateway,
  shellError,
  TASK_ID_META_KEY,
} from "@sisyphus/mcp-tools/shell";
import { type Clock, WriteCancellation } from "@sisyphus/write-safety";

/** How long a terminal record is kept, in milliseconds (spec: 10 minutes). */
export const TASK_RETENTION_MS = 10 * 60 * 1000;
/** Most records kept (spec: 128). */
export const TASK_MAX_RECORDS = 128;
/** Most bytes of kept results in all (spec: 8 MiB). */
export const TASK_MAX_TOTAL_BYTES = 8 * 1024 * 1024;
/** Largest result kept, in bytes of its JSON (spec: 1 MiB). */
export const TASK_MAX_RESULT_BYTES = 1024 * 1024;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type TaskState = "running" | "completed" | "failed" | "cancelled";

interface TaskRecord {
  state: TaskState;
  control: CallControl & { abort(): void };
  cancelRequested: boolean;
  /** The result's JSON, or `"too_large"`. */
  result?: string | "too_large";
  /** The access fingerprint of the settings the call ran with (none: it never got usable ones). */
  access?: string;
  bytes: number;
  terminalAt?: number;
}

/** The answer of a `/tasks` operation (JSON body). */
export type TaskAnswer = Record<string, unknown>;

/** Why a taskId cannot start a call. */
export type TaskRefusal = "invalid_task_id" | "task_id_in_use";

/** The task records of one plugin runtime. */
export class TaskBook {
  readonly #clock: Clock;
  /** In insertion order: the oldest first. */
  readonly #records = new Map<string, TaskRecord>();
  /** Cancels of taskIds no call had brought yet, with when they came; the oldest first. */
  readonly #cancelledAhead = new Map<string, number>();
  #bytes = 0;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  get size(): number {
    return this.#records.size;
  }

  /** Aggregate counts for `/health` (no IDs). */
  counts(): { taskResults: number; tasksRunning: number; taskResultBytes: number } {
    this.#prune();
    let running = 0;
    for (const r of this.#records.values()) if (r.state === "running") running++;
    return {
      taskResults: this.#records.size - running,
      tasksRunning: running,
      taskResultBytes: this.#bytes,
    };
  }

  /**
   * Registers a call under `taskId`; its control goes to the gateway. A taskId that is not a UUID,
   * or one still running or retained, is refused. `cancelledAhead`: a `cancel` of this taskId came
   * before the call did; the call must run nothing (see `route`).
   */
  begin(
    taskId: unknown,
  ):
    | { ok: true; control: CallControl; cancelledAhead: boolean }
    | { ok: false; reason: TaskRefusal } {
    this.#prune();
    if (typeof taskId !== "string" || !UUID.test(taskId))
      return { ok: false, reason: "invalid_task_id" };
    if (this.#records.has(taskId)) return { ok: false, reason: "task_id_in_use" };
    const controller = new AbortController();
    const record: TaskRecord = {
      state: "running",
      control: {
        barrier: { cancellation: new WriteCancellation() },
        signal: controller.signal,
        abort: () => controller.abort(),
        settingsSeen: (settings) => {
          record.access = accessFingerprint(settings);
        },
      },
      cancelRequested: false,
      bytes: 0,
    };
    const control = record.control;
    const cancelledAhead = this.#cancelledAhead.delete(taskId);
    if (cancelledAhead) {
      record.cancelRequested = true;
      record.control.barrier.cancellation.cancel();
      controller.abort();
    }
    this.#records.set(taskId, record);
    this.#evict();
    return { ok: true, control, cancelledAhead };
  }

  /**
   * The route of every `tools/call` at the kernel authority: a call carrying a taskId
   * (`TASK_ID_META_KEY`) runs under that task's record (`task_rejected` when it cannot start one),
   * any other call straight through `gateway`.
   */
  route(gateway: Gateway): CallGateway {
    return async (tool, args, ctx, conn) => {
      const taskId = ctx.mcpReq._meta?.[TASK_ID_META_KEY];
      if (taskId === undefined) return gateway(tool, args, ctx, conn);
      const begun = this.begin(taskId);
      if (!begun.ok) {
        return shellError("task_rejected", `taskId refused: ${begun.reason}`, {
          reason: begun.reason,
        });
      }
      if (begun.cancelledAhead) {
        const result = shellError(
          "cancelled",
          "The call was cancelled through /tasks before it reached the kernel plugin; nothing ran.",
          {},
          { writeAttempted: false },
        );
        this.finish(taskId as string, result);
        return result;
      }
      try {
        const result = await gateway(tool, args, ctx, conn, begun.control);
        this.finish(taskId as string, result);
        return result;
      } catch (e) {
        this.abandon(taskId as string);
        throw e;
      }
    };
  }

  /** Records how the call ended. An `input_required` round forgets the task (not terminal). */
  finish(taskId: string, result: CallToolResult | Record<string, unknown>): void {
    const record = this.#records.get(taskId);
    if (record === undefined) return;
    if ((result as { resultType?: unknown }).resultType === "input_required") {
      this.#records.delete(taskId);
      return;
    }
    const json = JSON.stringify(result);
    const bytes = utf8Encode(json).length;
    const structured = (
      result as { structuredContent?: { status?: unknown; error?: { code?: unknown } } }
    ).structuredContent;
    // Cancelled: the coordinator's answer (`status`), or a call stopped before it ran (`error`).
    record.state =
      structured?.status === "cancelled" || structured?.error?.code === "cancelled"
        ? "cancelled"
        : (result as { isError?: unknown }).isError === true
          ? "failed"
          : "completed";
    record.terminalAt = this.#clock.now();
    if (bytes > TASK_MAX_RESULT_BYTES) {
      record.result = "too_large";
    } else {
      record.result = json;
      record.bytes = bytes;
      this.#bytes += bytes;
    }
    this.#evict();
  }

  /** Forgets a task whose call failed before it could finish (a thrown error). */
  abandon(taskId: string): void {
    const record = this.#records.get(taskId);
    if (record?.state === "running") this.#records.delete(taskId);
  }

  /**
   * One `/tasks` operation. `access`: the access fingerprint of the settings now, for `result`
   * (absent: they cannot be used, so no result is disclosed). `status` and `cancel` carry no body
   * and answer whatever the access.
   */
  operate(taskId: unknown, operation: unknown, access?: string): TaskAnswer {
    this.#prune();
    const record = typeof taskId === "string" ? this.#records.get(taskId) : undefined;
    if (operation !== "status" && operation !== "result" && operation !== "cancel") {
      return { error: "invalid_operation", operations: ["status", "result", "cancel"] };
    }
    if (record === undefined) {
      if (operation !== "cancel" || typeof taskId !== "string" || !UUID.test(taskId)) {
        return { found: false };
      }
      // Its call may still be on its way (held by the host behind another): stopped on arrival.
      this.#cancelledAhead.delete(taskId);
      this.#cancelledAhead.set(taskId, this.#clock.now());
      for (const id of this.#cancelledAhead.keys()) {
        if (this.#cancelledAhead.size <= TASK_MAX_RECORDS) break;
        this.#cancelledAhead.delete(id);
      }
      return { found: false, cancelRequested: true };
    }
    const cancellation = record.control.barrier.cancellation;
    const base = {
      found: true,
      state: record.state,
      cancelRequested: record.cancelRequested,
      committing: cancellation.committing,
    };
    if (operation === "status") return base;
    if (operation === "cancel") {
      if (record.state !== "running") return { ...base, accepted: false };
      record.cancelRequested = true;
      const accepted = cancellation.cancel();
      if (accepted) record.control.abort();
      return { ...base, cancelRequested: true, committing: cancellation.committing, accepted };
    }
    if (record.state === "running") return base;
    if (record.access === undefined || record.access !== access) {
      return { ...base, error: "access_changed" };
    }
    if (record.result === "too_large") {
      return { ...base, error: "result_too_large", limitBytes: TASK_MAX_RESULT_BYTES };
    }
    return { ...base, result: JSON.parse(record.result as string) as unknown };
  }

  /** Drops terminal records, and cancels no call came for, past their retention. */
  #prune(): void {
    const now = this.#clock.now();
    for (const [id, r] of this.#records) {
      if (r.terminalAt !== undefined && now - r.terminalAt >= TASK_RETENTION_MS) this.#drop(id, r);
    }
    for (const [id, at] of this.#cancelledAhead) {
      if (now - at >= TASK_RETENTION_MS) this.#cancelledAhead.delete(id);
    }
  }

  /** Keeps the record and byte caps, dropping the oldest terminal records first. */
  #evict(): void {
    for (const [id, r] of this.#records) {
      if (this.#records.size <= TASK_MAX_RECORDS && this.#bytes <= TASK_MAX_TOTAL_BYTES) return;
      if (r.state !== "running") this.#drop(id, r);
    }
  }

  #drop(id: string, r: TaskRecord): void {
    this.#records.delete(id);
    this.#bytes -= r.bytes;
  }
}
