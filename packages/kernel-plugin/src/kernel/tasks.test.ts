import { accessFingerprint, DEFAULT_SETTINGS } from "@sisyphus/mcp-tools/settings";
import { TASK_ID_META_KEY } from "@sisyphus/mcp-tools/shell";
import { describe, expect, it } from "vitest";
import {
  TASK_MAX_RECORDS,
  TASK_MAX_RESULT_BYTES,
  TASK_MAX_TOTAL_BYTES,
  TASK_RETENTION_MS,
  TaskBook,
} from "./tasks.js";

const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
const done = {
  content: [{ type: "text", text: "ok" }],
  structuredContent: { status: "committed" },
};
/** The access fingerprint of the default settings, which the calls below run under. */
const ACCESS = accessFingerprint(DEFAULT_SETTINGS);

/** Begins `taskId` as a call that read the default settings. */
function begun(book: TaskBook, taskId: string) {
  const b = book.begin(taskId);
  if (!b.ok) throw new Error(`begin failed: ${b.reason}`);
  b.control.settingsSeen?.(DEFAULT_SETTINGS);
  return b;
}

describe("TaskBook", () => {
  it("answers status and result, refuses a taskId in use or retained, and one that is not a UUID", () => {
    let now = 0;
    const book = new TaskBook({ now: () => now });
    expect(book.begin("not-a-uuid")).toEqual({ ok: false, reason: "invalid_task_id" });
    begun(book, uuid(1));
    expect(book.begin(uuid(1))).toEqual({ ok: false, reason: "task_id_in_use" });
    expect(book.operate(uuid(1), "status")).toMatchObject({ found: true, state: "running" });
    expect(book.operate(uuid(1), "result")).not.toHaveProperty("result");
    book.finish(uuid(1), done);
    expect(book.operate(uuid(1), "status")).toEqual({
      found: true,
      state: "completed",
      cancelRequested: false,
      committing: false,
    });
    expect(book.operate(uuid(1), "result", ACCESS)).toMatchObject({ result: done });
    expect(book.begin(uuid(1))).toEqual({ ok: false, reason: "task_id_in_use" });
    expect(book.operate(uuid(2), "status")).toEqual({ found: false });
    expect(book.operate(uuid(1), "bogus")).toMatchObject({ error: "invalid_operation" });
    now = TASK_RETENTION_MS;
    expect(book.operate(uuid(1), "status")).toEqual({ found: false });
    expect(book.begin(uuid(1)).ok).toBe(true);
  });

  it("keeps at most 128 records (oldest terminal first), and a result over 1 MiB only as too large", () => {
    const book = new TaskBook({ now: () => 0 });
    for (let i = 0; i < TASK_MAX_RECORDS + 5; i++) {
      expect(book.begin(uuid(i)).ok).toBe(true);
      book.finish(uuid(i), done);
    }
    expect(book.size).toBe(TASK_MAX_RECORDS);
    expect(book.operate(uuid(0), "status")).toEqual({ found: false });
    expect(book.operate(uuid(TASK_MAX_RECORDS + 4), "status")).toMatchObject({ found: true });
    begun(book, uuid(999));
    book.finish(uuid(999), {
      content: [{ type: "text", text: "x".repeat(TASK_MAX_RESULT_BYTES) }],
    });
    expect(book.operate(uuid(999), "result", ACCESS)).toMatchObject({
      error: "result_too_large",
    });
  });

  it("keeps at most 8 MiB of results in all (oldest terminal first), exactly 8 MiB included", () => {
    const MIB = 1024 * 1024;
    expect(TASK_MAX_TOTAL_BYTES).toBe(8 * MIB);
    // A result whose JSON is exactly 1 MiB (the largest one kept whole).
    const shell = JSON.stringify({ content: [{ type: "text", text: "" }] });
    const oneMiB = { content: [{ type: "text", text: "x".repeat(MIB - shell.length) }] };
    expect(JSON.stringify(oneMiB).length).toBe(MIB);
    const book = new TaskBook({ now: () => 0 });
    for (let i = 0; i < 8; i++) {
      begun(book, uuid(i));
      book.finish(uuid(i), oneMiB);
    }
    // 8 MiB in all: every result is kept, far below the 128-record cap.
    expect(book.size).toBe(8);
    for (let i = 0; i < 8; i++) {
      expect(book.operate(uuid(i), "result", ACCESS)).toMatchObject({ result: oneMiB });
    }
    // Any result more (here a small one) drops the oldest terminal record, and only it.
    begun(book, uuid(8));
    book.finish(uuid(8), done);
    expect(book.size).toBe(8);
    expect(book.operate(uuid(0), "status")).toEqual({ found: false });
    for (let i = 1; i <= 8; i++) {
      expect(book.operate(uuid(i), "status")).toMatchObject({ found: true, state: "completed" });
    }
    expect(book.operate(uuid(8), "result", ACCESS)).toMatchObject({ result: done });
  });

  it("forgets an input_required round (not terminal) and cancels only before the barrier", () => {
    const book = new TaskBook({ now: () => 0 });
    const a = book.begin(uuid(1));
    book.finish(uuid(1), { resultType: "input_required", inputRequests: {} });
    expect(book.operate(uuid(1), "status")).toEqual({ found: false });
    const b = book.begin(uuid(2));
    if (!b.ok || !a.ok) throw new Error("begin failed");
    expect(book.operate(uuid(2), "cancel")).toMatchObject({
      accepted: true,
      cancelRequested: true,
    });
    expect(b.control.signal.aborted).toBe(true);
    const c = book.begin(uuid(3));
    if (!c.ok) throw new Error("begin failed");
    c.control.barrier.cancellation.enterCommit();
    expect(book.operate(uuid(3), "cancel")).toMatchObject({ accepted: false, committing: true });
    expect(c.control.signal.aborted).toBe(false);
  });

  it("remembers a cancel that came before its call: the call, when it comes, is cancelled and runs nothing", async () => {
    let now = 0;
    const book = new TaskBook({ now: () => now });
    expect(book.operate(uuid(7), "cancel")).toEqual({ found: false, cancelRequested: true });
    // Not a UUID, or not a cancel: nothing remembered.
    expect(book.operate("not-a-uuid", "cancel")).toEqual({ found: false });
    expect(book.operate(uuid(8), "status")).toEqual({ found: false });
    let ran = 0;
    const route = book.route(async () => {
      ran++;
      return { ...done, content: [{ type: "text" as const, text: "ok" }] };
    });
    const call = (taskId: string) =>
      route("block", {}, { mcpReq: { _meta: { [TASK_ID_META_KEY]: taskId } } } as never, {
        principal: "p",
        legacyCapabilities: () => undefined,
      });
    const answer = await call(uuid(7));
    expect(answer.structuredContent).toMatchObject({
      error: { code: "cancelled", writeAttempted: false },
    });
    expect(ran).toBe(0);
    expect(book.operate(uuid(7), "status")).toMatchObject({
      found: true,
      state: "cancelled",
      cancelRequested: true,
    });
    // Remembered once, for the retention only: another call runs.
    expect((await call(uuid(8))).structuredContent).toEqual(done.structuredContent);
    expect(book.operate(uuid(9), "cancel")).toMatchObject({ cancelRequested: true });
    now = TASK_RETENTION_MS;
    expect((await call(uuid(9))).structuredContent).toEqual(done.structuredContent);
    expect(ran).toBe(2);
  });

  it("discloses a result only under the access its call ran with", () => {
    let now = 0;
    const book = new TaskBook({ now: () => now });
    begun(book, uuid(1));
    book.finish(uuid(1), done);
    expect(book.operate(uuid(1), "result", ACCESS)).toMatchObject({ result: done });
    const readOnly = accessFingerprint({
      ...DEFAULT_SETTINGS,
      permissions: { default: "read" },
    });
    const changed = book.operate(uuid(1), "result", readOnly);
    expect(changed).toEqual({
      found: true,
      state: "completed",
      cancelRequested: false,
      committing: false,
      error: "access_changed",
    });
    const toolsOff = accessFingerprint({ ...DEFAULT_SETTINGS, disabled: ["fs"] });
    expect(book.operate(uuid(1), "result", toolsOff)).toMatchObject({ error: "access_changed" });
    // Settings that cannot be used now (no fingerprint) disclose nothing.
    expect(book.operate(uuid(1), "result")).toMatchObject({ error: "access_changed" });
    // status carries no body and answers whatever the access.
    expect(book.operate(uuid(1), "status", readOnly)).toMatchObject({ state: "completed" });
    // A call that never read usable settings has no access to compare: nothing is disclosed.
    expect(book.begin(uuid(2)).ok).toBe(true);
    book.finish(uuid(2), done);
    expect(book.operate(uuid(2), "result", ACCESS)).toMatchObject({ error: "access_changed" });
    // The kernel options are not access: the same fingerprint discloses.
    const options = accessFingerprint({
      ...DEFAULT_SETTINGS,
      options: { ...DEFAULT_SETTINGS.options, pageSize: 4 },
    });
    expect(book.operate(uuid(1), "result", options)).toMatchObject({ result: done });
    now = TASK_RETENTION_MS;
    expect(book.operate(uuid(1), "result", ACCESS)).toEqual({ found: false });
  });
});
