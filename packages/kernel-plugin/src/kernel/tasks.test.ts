import { describe, expect, it } from "vitest";
import { TASK_MAX_RECORDS, TASK_MAX_RESULT_BYTES, TASK_RETENTION_MS, TaskBook } from "./tasks.js";

const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
const done = {
  content: [{ type: "text", text: "ok" }],
  structuredContent: { status: "committed" },
};

describe("TaskBook", () => {
  it("answers status and result, refuses a taskId in use or retained, and one that is not a UUID", () => {
    let now = 0;
    const book = new TaskBook({ now: () => now });
    expect(book.begin("not-a-uuid")).toEqual({ ok: false, reason: "invalid_task_id" });
    expect(book.begin(uuid(1)).ok).toBe(true);
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
    expect(book.operate(uuid(1), "result")).toMatchObject({ result: done });
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
    book.begin(uuid(999));
    book.finish(uuid(999), {
      content: [{ type: "text", text: "x".repeat(TASK_MAX_RESULT_BYTES) }],
    });
    expect(book.operate(uuid(999), "result")).toMatchObject({ error: "result_too_large" });
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
});
