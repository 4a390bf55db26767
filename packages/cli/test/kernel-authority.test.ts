/**
 * The `sisyphus` command when the settings select the kernel plugin (built `package.zip` in the
 * sandbox's plugin host): every call goes to the plugin's `/mcp` with a fresh taskId, the task can
 * be queried with `sisyphus task`, Ctrl-C relays a cancel to `/tasks` and says whether it was
 * accepted (before the barrier) or the call was already committing, and no Node authority is
 * started.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { DEMO_IDS, type Sandbox } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxWithPlugin, writeSettings } from "../../kernel-plugin/test/harness.js";
import {
  cli,
  doc,
  errorCode,
  killAuthorities,
  preflightUpdate,
  scene,
  start,
  words,
} from "./harness.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await sandboxWithPlugin({ serialisePaths: false });
});
afterAll(async () => {
  killAuthorities();
  await sb.stop();
});

const UPDATE = "/api/block/updateBlock";
const DELETE = "/api/block/deleteBlock";
const KRAMDOWN = "/api/block/getBlockKramdown";
const ROUTE = "/plugin/private/siyuan-plugins-mcp-sisyphus/mcp";

describe("with the kernel plugin as the authority", () => {
  it("writes in two steps through the plugin, starts no Node authority, and `task result` returns the call's answer", async () => {
    const s = scene(sb);
    const p = await cli(s, [
      "block",
      "update",
      "--id",
      DEMO_IDS.paragraphGoals,
      "--data",
      "Goals (kernel)",
      "--validate-only",
      "--json",
    ]);
    expect(p.code, p.stderr).toBe(0);
    const preflight = doc(p);
    expect(preflight.taskId).toMatch(/^[0-9a-f-]{36}$/);
    const writes = sb.control.count(UPDATE);
    const commit = await cli(s, [...words(preflight.next as string).slice(1), "--json"]);
    expect(commit.code, commit.stderr).toBe(0);
    expect(doc(commit).result["status"]).toBe("committed");
    expect(sb.control.count(UPDATE)).toBe(writes + 1);
    expect(existsSync(join(s.dataDir, "authority.json"))).toBe(false);

    const taskId = doc(commit).taskId as string;
    const status = await cli(s, ["task", "status", taskId, "--json"]);
    expect(status.code).toBe(0);
    expect(doc(status).result).toMatchObject({ found: true, state: "completed" });
    expect(doc(status).result["result"]).toBeUndefined();
    const result = await cli(s, ["task", "result", taskId, "--json"]);
    expect(
      (doc(result).result["result"] as { structuredContent: { status: string } }).structuredContent
        .status,
    ).toBe("committed");
    const unknown = await cli(s, [
      "task",
      "status",
      "00000000-0000-4000-8000-000000000000",
      "--json",
    ]);
    expect(unknown.code).toBe(1);
    expect(doc(unknown).result["found"]).toBe(false);
  });

  it("answers every outcome class with its exit code through the plugin", async () => {
    const s = scene(sb);
    const calls = sb.control.count(ROUTE);
    // 2: the command line is wrong; nothing reaches the plugin.
    const usage = await cli(s, [
      "block",
      "get-kramdown",
      "--id",
      DEMO_IDS.paragraphGoals,
      "--bogus",
      "1",
    ]);
    expect(usage.code).toBe(2);
    expect(sb.control.count(ROUTE)).toBe(calls);

    // 1: the tool's own refusal (no such block).
    const missing = await cli(s, [
      "block",
      "get-kramdown",
      "--id",
      "20991231235959-nosuchx",
      "--json",
    ]);
    expect(missing.code, missing.stdout).toBe(1);
    expect(errorCode(missing)).toBe("not_found");

    // 3: a commit without its preflight.
    const bare = await cli(s, [
      "block",
      "update",
      "--id",
      DEMO_IDS.paragraphGoals,
      "--data",
      "x",
      "--json",
    ]);
    expect(bare.code, bare.stdout).toBe(3);
    expect(errorCode(bare)).toBe("precondition_required");

    // 4: a destructive commit without --yes and without a terminal; nothing deleted.
    const id = DEMO_IDS.paragraphQuote;
    const p = doc(await cli(s, ["block", "delete", "--id", id, "--validate-only", "--json"]));
    expect(p.next).toMatch(/ --yes$/);
    const refused = await cli(s, [...words(p.next as string).slice(1, -1), "--json"]);
    expect(refused.code, refused.stdout).toBe(4);
    expect(errorCode(refused)).toBe("confirmation_required");
    expect(sb.control.kramdown(id)).not.toBeNull();

    // 6: the plugin's route is not serving.
    const fault = sb.control.armFault({
      endpoint: ROUTE,
      kind: "http5xx",
      status: 503,
      times: "always",
    });
    try {
      const off = await cli(s, ["notebook", "list", "--json"]);
      expect(off.code, off.stdout).toBe(6);
      expect(errorCode(off)).toBe("write_coordinator_unavailable");
    } finally {
      sb.control.disarmFault(fault);
    }

    // 7: the settings close the notebook.
    await writeSettings(sb, {
      kernelEndpointEnabled: true,
      permissions: { default: "delete", notebooks: { [DEMO_IDS.notebookPersonal]: "none" } },
    });
    try {
      const denied = await cli(s, [
        "block",
        "get-kramdown",
        "--id",
        DEMO_IDS.paragraphJournal,
        "--json",
      ]);
      expect(denied.code, denied.stdout).toBe(7);
      expect(errorCode(denied)).toBe("permission_denied");
    } finally {
      await writeSettings(sb, { kernelEndpointEnabled: true });
    }
    expect(existsSync(join(s.dataDir, "authority.json"))).toBe(false);
  });

  it("a destructive commit with --yes is answered on the internal hop: the kernel authority commits it once", async () => {
    // Spec: "Authorized CLI calls ... answer confirmation on the internal hop".
    const s = scene(sb);
    const id = DEMO_IDS.paragraphMilestones;
    const p = doc(await cli(s, ["block", "delete", "--id", id, "--validate-only", "--json"]));
    expect(p.next).toMatch(/ --yes$/);
    const deletes = sb.control.count(DELETE);
    const routed = sb.control.count(ROUTE);
    const done = await cli(s, [...words(p.next as string).slice(1), "--json"]);
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(doc(done).result["status"]).toBe("committed");
    expect(sb.control.count(ROUTE)).toBeGreaterThan(routed);
    expect(sb.control.count(DELETE)).toBe(deletes + 1);
    expect(sb.control.kramdown(id)).toBeNull();
    expect(existsSync(join(s.dataDir, "authority.json"))).toBe(false);
  });

  it("Ctrl-C before the barrier: the cancel is accepted and nothing is written", async () => {
    const s = scene(sb);
    const { commit } = await preflightUpdate(s, DEMO_IDS.paragraphStatus, "Status: cancelled");
    const writes = sb.control.count(UPDATE);
    // The commit's first kernel call (the probe) is held, so the call waits before its barrier.
    const reads = sb.control.count(KRAMDOWN);
    sb.control.armFault({ endpoint: KRAMDOWN, kind: "delay", delayMs: 3_000 });
    const run = start(s, commit);
    await waitFor(() => sb.control.count(KRAMDOWN) > reads, { what: "the commit's probe" });
    run.child.kill("SIGINT");
    const done = await run.done;
    expect(done.stderr).toMatch(/Cancel accepted/);
    expect(done.code).toBe(130);
    expect(doc(done).result).toMatchObject({ status: "cancelled", writeAttempted: false });
    expect(sb.control.count(UPDATE)).toBe(writes);
  });

  it("Ctrl-C after the barrier: the call is already committing and its result is reported", async () => {
    const s = scene(sb);
    const { commit } = await preflightUpdate(s, DEMO_IDS.paragraphDecision, "Decision: kept");
    const writes = sb.control.count(UPDATE);
    sb.control.armFault({ endpoint: UPDATE, kind: "delay", delayMs: 3_000 });
    const run = start(s, commit);
    await waitFor(() => sb.control.count(UPDATE) > writes, { what: "the commit's write" });
    run.child.kill("SIGINT");
    const done = await run.done;
    expect(done.stderr).toMatch(/already committing/);
    expect(done.code, done.stderr).toBe(0);
    expect(doc(done).result["status"]).toBe("committed");
    expect(sb.control.count(UPDATE)).toBe(writes + 1);
  });

  it("a lost answer is recovered from /tasks (exit 0) and never sent again; unrecoverable, it is outcome_unknown with the taskId (exit 5)", async () => {
    const s = scene(sb);
    const route = "/plugin/private/siyuan-plugins-mcp-sisyphus/mcp";
    const tasks = "/plugin/private/siyuan-plugins-mcp-sisyphus/tasks";
    const commitOf = async (id: string, data: string) =>
      (await preflightUpdate(s, id, data)).commit;

    // The plugin runs the commit, then the connection drops before its answer arrives.
    let commit = await commitOf(DEMO_IDS.headingJournal, "## Journal (answer lost, recovered)");
    let before = {
      update: sb.control.count(UPDATE),
      route: sb.control.count(route),
      tasks: sb.control.count(tasks),
    };
    // (skip: the CLI's first request to the route is its connection's server/discover)
    sb.control.armFault({ endpoint: route, kind: "resetAfterApply", skip: 1 });
    const recovered = await cli(s, commit);
    expect(recovered.code, recovered.stdout + recovered.stderr).toBe(0);
    expect(doc(recovered).result).toMatchObject({ status: "committed", executedNow: true });
    expect(sb.control.count(UPDATE)).toBe(before.update + 1);
    expect(sb.control.count(route)).toBe(before.route + 2); // discover, and the call once
    expect(sb.control.count(tasks)).toBeGreaterThan(before.tasks);

    // The same, and /tasks cannot answer either: the CLI says it does not know, names the task.
    commit = await commitOf(DEMO_IDS.paragraphJournal, "Journal: answer lost for good");
    before = {
      update: sb.control.count(UPDATE),
      route: sb.control.count(route),
      tasks: sb.control.count(tasks),
    };
    // (skip: the CLI's first request to the route is its connection's server/discover)
    sb.control.armFault({ endpoint: route, kind: "resetAfterApply", skip: 1 });
    sb.control.armFault({ endpoint: tasks, kind: "refuse", times: 3 });
    const unknown = await cli(s, commit);
    expect(unknown.code, unknown.stdout).toBe(5);
    const error = doc(unknown).result["error"] as {
      code: string;
      taskId?: string;
      requestId?: string;
    };
    expect(error.code).toBe("outcome_unknown");
    expect(error.taskId).toBe(doc(unknown).taskId);
    expect(sb.control.count(UPDATE)).toBe(before.update + 1);
    expect(sb.control.count(route)).toBe(before.route + 2); // discover, and the call once
    expect(sb.control.count(tasks)).toBe(before.tasks + 3);
  });
});
