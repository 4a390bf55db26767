/**
 * file.create_template and file.update_template against the sandbox kernel: a template is one
 * Markdown file under `data/templates/`, written with `putFile` and read back by its SHA-256;
 * create is additive (state with `overwrite`), update is state; a template over the budget
 * (settings' `templateBudgetBytes`) is refused before any kernel call.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../src/settings.js";
import { checkTemplateBudget, TEMPLATE_MULTIPART_OVERHEAD_BYTES } from "../src/tools/templates.js";
import { errorCode, useHarness } from "./harness.js";

const PUT_FILE = "/api/file/putFile";
const GET_FILE = "/api/file/getFile";

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

function errorOf(r: { structuredContent: Record<string, unknown> }): Record<string, unknown> {
  return (r.structuredContent["error"] ?? {}) as Record<string, unknown>;
}

describe("file templates", () => {
  const h = useHarness();

  const stored = async (name: string) => {
    const file = await h.client.file.getFile({ path: `/data/templates/${name}` });
    return file === null ? null : Buffer.from(file.bytes).toString("utf8");
  };
  const create = (name: string, content: string, overwrite?: boolean) => ({
    action: "create_template",
    name,
    content,
    ...(overwrite === undefined ? {} : { overwrite }),
  });
  const update = (name: string, content: string) => ({ action: "update_template", name, content });

  it("create: preflight needs only requestId, the commit writes once and the file holds the body", async () => {
    const body = "# Weekly review\n\n- wins: {{.wins}}\n- 下周: 计划\n";
    const args = create("weekly.md", body);
    const writes = h.writes(PUT_FILE);
    const pre = await h.call("file", { ...args, validateOnly: true });
    expect(pre.isError, JSON.stringify(pre.structuredContent)).toBeFalsy();
    const p = pre.structuredContent;
    expect(p["preconditionField"]).toBeNull();
    expect(p).toMatchObject({
      templatePath: "/data/templates/weekly.md",
      size: Buffer.byteLength(body),
      replaces: false,
    });
    expect(h.writes(PUT_FILE)).toBe(writes);

    const commit = await h.call("file", h.commitArgs(args, p));
    const c = commit.structuredContent;
    expect(c["status"], JSON.stringify(c)).toBe("committed");
    expect(c).toMatchObject({
      templatePath: "/data/templates/weekly.md",
      size: Buffer.byteLength(body),
      sha256: sha256(body),
    });
    expect(h.writes(PUT_FILE)).toBe(writes + 1);
    expect(await stored("weekly.md")).toBe(body);

    // A replay answers from the ledger and writes nothing.
    const replay = await h.call("file", h.commitArgs(args, p));
    expect(replay.structuredContent).toMatchObject({
      status: "committed",
      replayed: true,
      executedNow: false,
      templatePath: "/data/templates/weekly.md",
    });
    expect(h.writes(PUT_FILE)).toBe(writes + 1);
  });

  it("create of an existing template is already_exists, at preflight and commit, with no write", async () => {
    await h.client.file.putFile({ path: "/data/templates/taken.md", file: "mine" });
    const writes = h.writes(PUT_FILE);
    const pre = await h.call("file", { ...create("taken.md", "theirs"), validateOnly: true });
    expect(errorCode(pre)).toBe("already_exists");
    expect(errorOf(pre)).toMatchObject({ id: "/data/templates/taken.md", writeAttempted: false });

    // Created between preflight and commit: the commit's probe refuses it too.
    const args = create("late.md", "theirs");
    const ok = await h.call("file", { ...args, validateOnly: true });
    expect(ok.isError).toBeFalsy();
    await h.client.file.putFile({ path: "/data/templates/late.md", file: "first" });
    const writesBefore = h.writes(PUT_FILE);
    const commit = await h.call("file", h.commitArgs(args, ok.structuredContent));
    expect(errorCode(commit)).toBe("already_exists");
    expect(errorOf(commit)["writeAttempted"]).toBe(false);
    expect(h.writes(PUT_FILE)).toBe(writesBefore);
    expect(writesBefore).toBe(writes + 1);
    expect(await stored("late.md")).toBe("first");
  });

  it("create with overwrite is a state write: it replaces the template and guards its digest", async () => {
    await h.client.file.putFile({ path: "/data/templates/daily.md", file: "old daily" });
    const { preflight, commit } = await h.write("file", create("daily.md", "new daily", true));
    expect(preflight["preconditionField"]).toBe("expectedStateHash");
    expect(preflight["replaces"]).toBe(true);
    expect(commit.structuredContent["status"], JSON.stringify(commit.structuredContent)).toBe(
      "committed",
    );
    expect(await stored("daily.md")).toBe("new daily");

    // The same body again changes nothing: committed as no_change.
    const again = await h.write("file", create("daily.md", "new daily", true));
    expect(again.commit.structuredContent["status"]).toBe("no_change");

    // With overwrite, a missing template is created under the same state precondition.
    const fresh = await h.write("file", create("fresh.md", "fresh", true));
    expect(fresh.preflight["replaces"]).toBe(false);
    expect(fresh.commit.structuredContent["status"]).toBe("committed");
    expect(await stored("fresh.md")).toBe("fresh");
  });

  it("update: state_changed after an external edit, with no write; then commits on a fresh preflight", async () => {
    await h.client.file.putFile({ path: "/data/templates/meeting.md", file: "agenda v1" });
    const args = update("meeting.md", "agenda v2");
    const pre = await h.call("file", { ...args, validateOnly: true });
    expect(pre.structuredContent["preconditionField"]).toBe("expectedStateHash");
    await h.client.file.putFile({ path: "/data/templates/meeting.md", file: "edited elsewhere" });
    const writes = h.writes(PUT_FILE);
    const stale = await h.call("file", h.commitArgs(args, pre.structuredContent));
    expect(errorCode(stale)).toBe("state_changed");
    expect(errorOf(stale)["writeAttempted"]).toBe(false);
    expect(h.writes(PUT_FILE)).toBe(writes);
    expect(await stored("meeting.md")).toBe("edited elsewhere");

    const { commit } = await h.write("file", args);
    expect(commit.structuredContent["status"]).toBe("committed");
    expect(commit.structuredContent["sha256"]).toBe(sha256("agenda v2"));
    expect(await stored("meeting.md")).toBe("agenda v2");
  });

  it("update of a missing template is not_found before any write", async () => {
    const writes = h.writes(PUT_FILE);
    const r = await h.call("file", { ...update("nowhere.md", "x"), validateOnly: true });
    expect(errorCode(r)).toBe("not_found");
    expect(h.writes(PUT_FILE)).toBe(writes);
  });

  it("a template that reads back with other bytes is readback_mismatch", async () => {
    await h.client.file.putFile({ path: "/data/templates/decoy.md", file: "decoy" });
    const args = create("genuine.md", "genuine");
    const pre = await h.call("file", { ...args, validateOnly: true });
    h.sandbox.control.armFault({
      endpoint: GET_FILE,
      kind: "corrupt",
      // The commit's probe reads the real file; its readback is sent to the decoy.
      skip: 1,
      corrupt: (body) => ({ ...body, path: "/data/templates/decoy.md" }),
    });
    const commit = await h.call("file", h.commitArgs(args, pre.structuredContent));
    h.sandbox.control.clearFaults();
    expect(errorCode(commit)).toBe("readback_mismatch");
    expect(errorOf(commit)["writeAttempted"]).toBe(true);
    expect(JSON.stringify(errorOf(commit))).toMatch(/SHA-256 differs/);
  });

  it("needs write on the workspace (the default permission): templates are in no notebook", async () => {
    const saved = h.permissions;
    try {
      h.permissions = { default: "read", notebooks: { [h.notebook]: "delete" } };
      const r = await h.call("file", { ...create("guarded.md", "x"), validateOnly: true });
      expect(errorCode(r)).toBe("permission_denied");
      h.permissions = { default: "write" };
      const ok = await h.call("file", { ...create("guarded.md", "x"), validateOnly: true });
      expect(ok.isError, JSON.stringify(ok.structuredContent)).toBeFalsy();
    } finally {
      h.permissions = saved;
    }
  });

  it("refuses names that are not one .md file name in the templates folder", async () => {
    h.sandbox.control.resetLog();
    for (const name of [
      "weekly",
      ".md",
      ".hidden.md",
      "../conf.md",
      "sub/weekly.md",
      "a\\b.md",
      "what?.md",
      "tab\t.md",
      `${"x".repeat(253)}.md`,
    ]) {
      const r = await h.call("file", { ...create(name, "x"), validateOnly: true });
      expect(errorCode(r), name).toBe("invalid_arguments");
    }
    expect(h.sandbox.control.log()).toEqual([]);
  });

  it("a body over the call's template budget is refused before any kernel call", async () => {
    const options = { ...DEFAULT_SETTINGS.options, templateBudgetBytes: 8 };
    const args = create("big.md", "nine byte");
    // Preflighted under the default budget, committed under a smaller one.
    const pre = await h.call("file", { ...args, validateOnly: true });
    expect(pre.isError).toBeFalsy();
    h.sandbox.control.resetLog();
    for (const call of [
      { ...args, validateOnly: true },
      h.commitArgs(args, pre.structuredContent),
    ]) {
      const r = await h.runtime.callTool("file", call, { options });
      expect(errorCode(r)).toBe("invalid_arguments");
      expect(errorOf(r)).toMatchObject({
        reason: "template_budget",
        measure: "body",
        limit: 8,
        size: 9,
        writeAttempted: false,
      });
    }
    // UTF-8 bytes count, not characters: three CJK characters are nine bytes.
    const cjk = await h.runtime.callTool(
      "file",
      { ...update("big.md", "计划表"), validateOnly: true },
      { options },
    );
    expect(errorOf(cjk)).toMatchObject({ reason: "template_budget", size: 9 });
    expect(h.sandbox.control.log()).toEqual([]);
    // At the budget it passes the check (and reaches the kernel).
    const fits = await h.runtime.callTool(
      "file",
      { ...create("big.md", "8 bytes!"), validateOnly: true },
      { options },
    );
    expect(fits.isError, JSON.stringify(fits.structuredContent)).toBeFalsy();
  });

  it("a call with no options has the default 16 MiB budget", async () => {
    expect(DEFAULT_SETTINGS.options.templateBudgetBytes).toBe(16 * 1024 * 1024);
    h.sandbox.control.resetLog();
    const r = await h.call("file", {
      ...create("huge.md", "x".repeat(16 * 1024 * 1024 + 1)),
      validateOnly: true,
    });
    expect(errorOf(r)).toMatchObject({ reason: "template_budget", limit: 16 * 1024 * 1024 });
    expect(h.sandbox.control.log()).toEqual([]);
  });
});

describe("checkTemplateBudget", () => {
  it("bounds the request at the budget plus 64 KiB of multipart overhead", () => {
    expect(TEMPLATE_MULTIPART_OVERHEAD_BYTES).toBe(65536);
    expect(() => checkTemplateBudget(100, 100 + 65536, 100)).not.toThrow();
    try {
      checkTemplateBudget(100, 100 + 65537, 100);
      expect.unreachable("a request over budget + overhead is refused");
    } catch (e) {
      expect(e).toMatchObject({
        code: "invalid_arguments",
        details: { reason: "template_budget", measure: "request", limit: 65636, size: 65637 },
      });
    }
  });
});
