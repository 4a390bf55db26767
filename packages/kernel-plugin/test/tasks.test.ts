/**
 * Task control at the kernel authority (`/tasks`, extension version 2): a modern call carrying a
 * taskId can be asked for its status and result, cancelled while it waits (it then never writes)
 * but not once it is committing, and its taskId is never reused. Official client, built zip, the
 * sandbox host — serialising `/mcp` as 3.7.3 does, and not, where one commit can queue behind another.
 */
import { randomUUID } from "node:crypto";
import { DEMO_IDS, type Sandbox } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { afterAll, describe, expect, it } from "vitest";
import { commitArgs, kernelClient, routeOf, sandboxWithPlugin, sc } from "./harness.js";

const UPDATE = "/api/block/updateBlock";
const TASK = "io.siyuan.sisyphus/taskId";
const started: Sandbox[] = [];
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
});

async function sandbox(serialisePaths = true) {
  const sb = await sandboxWithPlugin({ serialisePaths });
  started.push(sb);
  return sb;
}

async function tasks(sb: Sandbox, taskId: string, operation: string) {
  const res = await fetch(routeOf(sb, "/tasks"), {
    method: "POST",
    headers: { authorization: `Token ${sb.token}`, "content-type": "application/json" },
    body: JSON.stringify({ taskId, operation }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("/tasks", () => {
  it("reports a finished call's status and original result, and never reuses its taskId", async () => {
    const sb = await sandbox();
    const client = await kernelClient(sb);
    const taskId = randomUUID();
    const args = await commitArgs(client, DEMO_IDS.paragraphGoals, "Goals with a taskId");
    const res = await client.callTool({
      name: "block",
      arguments: args,
      _meta: { [TASK]: taskId },
    });
    expect(sc(res)["status"]).toBe("committed");
    expect(await tasks(sb, taskId, "status")).toEqual({
      status: 200,
      body: { found: true, state: "completed", cancelRequested: false, committing: false },
    });
    const result = await tasks(sb, taskId, "result");
    expect((result.body["result"] as { structuredContent: unknown }).structuredContent).toEqual(
      sc(res),
    );
    const again = await client.callTool({
      name: "block",
      arguments: { action: "get_kramdown", id: DEMO_IDS.paragraphGoals },
      _meta: { [TASK]: taskId },
    });
    expect(sc(again)["error"]).toMatchObject({ code: "task_rejected", reason: "task_id_in_use" });
    expect((await tasks(sb, randomUUID(), "status")).body).toEqual({ found: false });
    expect((await tasks(sb, taskId, "explode")).status).toBe(400);
    const health = (await (
      await fetch(routeOf(sb, "/health"), { headers: { authorization: `Token ${sb.token}` } })
    ).json()) as Record<string, unknown>;
    expect(health["taskResults"]).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(health)).not.toContain(taskId);
    await client.close();
  });

  it("refuses to cancel a call that is committing; it finishes and its result is kept", async () => {
    const sb = await sandbox();
    const client = await kernelClient(sb);
    const taskId = randomUUID();
    const args = await commitArgs(client, DEMO_IDS.paragraphDecision, "Decision while committing");
    const before = sb.control.count(UPDATE);
    sb.control.armFault({ endpoint: UPDATE, kind: "hold" });
    const running = client.callTool({ name: "block", arguments: args, _meta: { [TASK]: taskId } });
    await waitFor(() => sb.control.count(UPDATE) > before && sb.control.held() === 1, {
      what: "the commit's write held at the kernel",
    });
    const cancel = await tasks(sb, taskId, "cancel");
    expect(sb.control.releaseHeld()).toBe(1);
    expect(cancel.body).toMatchObject({
      found: true,
      state: "running",
      accepted: false,
      committing: true,
    });
    expect(sc(await running)["status"]).toBe("committed");
    expect((await tasks(sb, taskId, "result")).body).toMatchObject({ state: "completed" });
    await client.close();
  });

  it("cancels a commit queued behind another (a host that does not serialise /mcp): it never writes", async () => {
    const sb = await sandbox(false);
    const first = await kernelClient(sb);
    const second = await kernelClient(sb);
    const a = await commitArgs(first, DEMO_IDS.paragraphJournal, "Journal, held");
    const b = await commitArgs(second, DEMO_IDS.paragraphStatus, "Status, cancelled in the lane");
    const before = sb.control.count(UPDATE);
    sb.control.armFault({ endpoint: UPDATE, kind: "hold" });
    const held = first.callTool({ name: "block", arguments: a });
    await waitFor(() => sb.control.count(UPDATE) > before && sb.control.held() === 1, {
      what: "the first commit's write held at the kernel",
    });
    const taskId = randomUUID();
    const queued = second.callTool({ name: "block", arguments: b, _meta: { [TASK]: taskId } });
    // Wait until the queued call holds its task record.
    await waitFor(async () => (await tasks(sb, taskId, "status")).body["found"] === true, {
      what: "the queued call's task record",
    });
    const cancel = await tasks(sb, taskId, "cancel");
    expect(cancel.body).toMatchObject({ found: true, accepted: true, committing: false });
    expect(sb.control.releaseHeld()).toBe(1);
    const answer = sc(await queued);
    expect(answer, JSON.stringify(answer)).toMatchObject({
      status: "cancelled",
      writeAttempted: false,
      writeExecuted: false,
    });
    expect(sc(await held)["status"]).toBe("committed");
    expect(sb.control.count(UPDATE)).toBe(before + 1);
    expect(sb.control.kramdown(DEMO_IDS.paragraphStatus)).not.toContain("cancelled in the lane");
    expect((await tasks(sb, taskId, "status")).body).toMatchObject({
      state: "cancelled",
      cancelRequested: true,
    });
    await Promise.all([first.close(), second.close()]);
  });
});
