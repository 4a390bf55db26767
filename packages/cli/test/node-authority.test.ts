/**
 * The `sisyphus` command against the sandbox kernel with the Node server as the write authority
 * (the settings' default): every outcome class and its exit code, the two-step write driven by the
 * command the preflight prints, `--json` as one document, flags checked before any request.
 */
import { DEMO_IDS, type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
  sb = await startSandbox({ seed: "demo" });
});
afterAll(async () => {
  killAuthorities();
  await sb.stop();
});

const UPDATE = "/api/block/updateBlock";
const KRAMDOWN = "/api/block/getBlockKramdown";
/** How long a held kernel read waits: far longer than a Ctrl-C takes to reach the authority. */
const HOLD_MS = 10_000;

describe("without a kernel request", () => {
  it("refuses bad command lines with exit 2 and sends nothing", async () => {
    const s = scene(sb);
    const before = sb.control.counts();
    const cases: Array<[string[], RegExp]> = [
      [["nosuch", "x"], /unknown command or tool "nosuch"/],
      [["block", "fly"], /block has no action "fly"/],
      [["block"], /name an action/],
      [["block", "get-kramdown"], /--id/],
      [["block", "get-kramdown", "--id", DEMO_IDS.paragraphGoals, "--bogus", "1"], /bogus/],
      [["fs", "tree", "--path", "/Research", "--depth", "deep"], /--depth: "deep" is not a number/],
      [["fs", "tree", "--path", "/Research", "--depth", "99"], /--depth/],
      [
        ["block", "update", "--id", DEMO_IDS.paragraphGoals, "--data", "x", "--data-type", "html"],
        /--data-type/,
      ],
      [
        ["block", "set-attrs", "--id", DEMO_IDS.paragraphGoals, "--attrs", "{oops"],
        /--attrs: not valid JSON/,
      ],
      [["block", "get-kramdown", "--json", "[1]"], /unexpected argument|one JSON object/],
      [
        ["--siyuan-url", "ftp://x", "block", "get-kramdown", "--id", DEMO_IDS.paragraphGoals],
        /siyuanUrl/,
      ],
    ];
    for (const [args, message] of cases) {
      const run = await cli(s, args);
      expect(run.code, args.join(" ")).toBe(2);
      if (args.includes("--json")) {
        // Scripts get the refusal as the one JSON document, code "usage".
        expect(errorCode(run)).toBe("usage");
        expect(JSON.stringify(doc(run)), args.join(" ")).toMatch(message);
      } else {
        expect(run.stderr, args.join(" ")).toMatch(message);
        expect(run.stdout).toBe("");
      }
    }
    expect(sb.control.counts()).toEqual(before);
  });

  it("lists and explains every action from the catalog", async () => {
    const s = scene(sb);
    const list = await cli(s, ["list", "--json"]);
    expect(list.code).toBe(0);
    const actions = (doc(list).result["actions"] as Array<{ tool: string; action: string }>).map(
      (a) => `${a.tool}.${a.action}`,
    );
    const { ACTIONS } = await import("@sisyphus/mcp-tools");
    expect(actions).toEqual(ACTIONS.map((a) => `${a.tool}.${a.action}`));
    const help = await cli(s, ["help", "block", "update"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--expected-state-hash STRING/);
    expect(help.stdout).toMatch(/--data-type markdown\|dom/);
    const version = await cli(s, ["--version"]);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe("through the Node authority", () => {
  it("reads, then writes in two steps with the command the preflight prints; a replay writes nothing", async () => {
    const s = scene(sb);
    const read = await cli(s, ["block", "get-kramdown", "--id", DEMO_IDS.paragraphGoals, "--json"]);
    expect(read.code, read.stderr).toBe(0);
    expect(JSON.stringify(doc(read).result)).toContain(DEMO_IDS.paragraphGoals);

    const preflight = await cli(s, [
      "block",
      "update",
      "--id",
      DEMO_IDS.paragraphGoals,
      "--data",
      "Goals: 'ship' the CLI",
      "--validate-only",
      "--json",
    ]);
    expect(preflight.code, preflight.stderr).toBe(0);
    const p = doc(preflight);
    expect(p.result["writeAttempted"]).toBe(false);
    expect(p.next).toContain(`--request-id ${String(p.result["requestId"])}`);
    expect(p.next).toContain(`--expected-state-hash ${String(p.result["expectedStateHash"])}`);

    const writes = sb.control.count(UPDATE);
    const commitArgs = [...words(p.next as string).slice(1), "--json"];
    const commit = await cli(s, commitArgs);
    expect(commit.code, commit.stderr).toBe(0);
    expect(doc(commit).result["status"]).toBe("committed");
    expect(sb.control.count(UPDATE)).toBe(writes + 1);
    expect(sb.control.kramdown(DEMO_IDS.paragraphGoals)).toContain("Goals: 'ship' the CLI");

    const replay = await cli(s, commitArgs);
    expect(replay.code).toBe(0);
    expect(doc(replay).result["executedNow"]).toBe(false);
    expect(sb.control.count(UPDATE)).toBe(writes + 1);
  });

  it("a target changed after the preflight is a safety rejection (exit 3) and writes nothing", async () => {
    const s = scene(sb);
    const { commit: commitArgs } = await preflightUpdate(
      s,
      DEMO_IDS.paragraphStatus,
      "Status: CLI",
    );
    sb.control.external.updateBlock(DEMO_IDS.paragraphStatus, "Status: changed in the UI");
    const writes = sb.control.count(UPDATE);
    const commit = await cli(s, commitArgs);
    expect(commit.code).toBe(3);
    expect(errorCode(commit)).toBe("state_changed");
    expect(sb.control.count(UPDATE)).toBe(writes);
    // Without a preflight at all: also exit 3.
    const bare = await cli(s, [
      "block",
      "update",
      "--id",
      DEMO_IDS.paragraphStatus,
      "--data",
      "x",
      "--json",
    ]);
    expect(bare.code).toBe(3);
    expect(errorCode(bare)).toBe("precondition_required");
  });

  it("a destructive action needs --yes without a terminal (exit 4), and commits with it", async () => {
    const s = scene(sb);
    const id = DEMO_IDS.paragraphQuote;
    const p = doc(await cli(s, ["block", "delete", "--id", id, "--validate-only", "--json"]));
    expect(p.next).toMatch(/ --yes$/);
    const withoutYes = words(p.next as string).slice(1, -1);
    const refused = await cli(s, [...withoutYes, "--json"]);
    expect(refused.code).toBe(4);
    expect(errorCode(refused)).toBe("confirmation_required");
    expect(refused.stderr).toMatch(/--yes/);
    expect(sb.control.kramdown(id)).not.toBeNull();
    const done = await cli(s, [...withoutYes, "--yes", "--json"]);
    expect(done.code, done.stderr).toBe(0);
    expect(doc(done).result["status"]).toBe("committed");
  });

  it("a response lost after the kernel applied the write is outcome_unknown (exit 5) with the requestId", async () => {
    const s = scene(sb);
    const { preflight: p, commit: commitArgs } = await preflightUpdate(
      s,
      DEMO_IDS.paragraphDecision,
      "Decision: lost",
    );
    sb.control.armFault({ endpoint: UPDATE, kind: "resetAfterApply" });
    const commit = await cli(s, commitArgs);
    expect(commit.code).toBe(5);
    expect(errorCode(commit)).toBe("outcome_unknown");
    expect(JSON.stringify(doc(commit).result)).toContain(String(p.result["requestId"]));
  });

  it("Ctrl-C sends MCP cancellation: a read is interrupted (exit 130), a sent write is outcome_unknown with its requestId (exit 5)", async () => {
    const s = scene(sb);
    // The authority is started by a first call, so the interrupted ones find it running.
    expect((await cli(s, ["notebook", "list"])).code).toBe(0);
    let reads = sb.control.count(KRAMDOWN);
    // Held long enough that the interrupt always lands first, even on a loaded machine (the
    // cancelled calls' kernel requests then finish in the background).
    sb.control.armFault({ endpoint: KRAMDOWN, kind: "delay", delayMs: HOLD_MS });
    const read = start(s, ["block", "get-kramdown", "--id", DEMO_IDS.paragraphGoals, "--json"]);
    await waitFor(() => sb.control.count(KRAMDOWN) > reads, { what: "the read at the kernel" });
    read.child.kill("SIGINT");
    const interrupted = await read.done;
    expect(interrupted.stderr).toMatch(/MCP cancellation sent/);
    expect(interrupted.code, interrupted.stdout).toBe(130);
    expect(errorCode(interrupted)).toBe("interrupted");

    const { preflight, commit } = await preflightUpdate(
      s,
      DEMO_IDS.paragraphMilestones,
      "Milestones: interrupted",
    );
    const writes = sb.control.count(UPDATE);
    reads = sb.control.count(KRAMDOWN);
    // The commit's probe is held, so the interrupt comes before its barrier.
    sb.control.armFault({ endpoint: KRAMDOWN, kind: "delay", delayMs: HOLD_MS });
    const write = start(s, commit);
    await waitFor(() => sb.control.count(KRAMDOWN) > reads, { what: "the commit's probe" });
    write.child.kill("SIGINT");
    const unknown = await write.done;
    expect(unknown.code, unknown.stdout).toBe(5);
    const error = doc(unknown).result["error"] as { code: string; requestId?: string };
    expect(error).toMatchObject({
      code: "outcome_unknown",
      requestId: preflight.result["requestId"],
    });
    // Reconciling is repeating the commit with the same requestId: the cancelled attempt stopped
    // before its barrier, so this one executes, once.
    const again = await cli(s, commit);
    expect(again.code, again.stderr).toBe(0);
    expect(doc(again).result).toMatchObject({ status: "committed", executedNow: true });
    expect(sb.control.count(UPDATE)).toBe(writes + 1);
  });

  it("an unreachable kernel, or no authority without autostart, is exit 6", async () => {
    const dead = scene({ url: "http://127.0.0.1:9", token: "t" });
    const run = await cli(dead, ["notebook", "list", "--json"]);
    expect(run.code).toBe(6);
    expect(errorCode(run)).toBe("kernel_unreachable");
    const s = scene(sb);
    const off = await cli(s, ["notebook", "list", "--no-autostart", "--json"]);
    expect(off.code).toBe(6);
    expect(errorCode(off)).toBe("write_coordinator_unavailable");
  });

  it("a tool's own refusal (no such block) is exit 1", async () => {
    const s = scene(sb);
    const run = await cli(s, ["block", "get-kramdown", "--id", "20991231235959-nosuchx", "--json"]);
    expect(run.code, run.stdout).toBe(1);
    expect(errorCode(run)).toBe("not_found");
  });

  it("a notebook the settings close is exit 7", async () => {
    const s = scene(sb);
    await writeSettings(sb, {
      permissions: { default: "delete", notebooks: { [DEMO_IDS.notebookPersonal]: "none" } },
    });
    try {
      const run = await cli(s, [
        "block",
        "get-kramdown",
        "--id",
        DEMO_IDS.paragraphJournal,
        "--json",
      ]);
      expect(run.code).toBe(7);
      expect(errorCode(run)).toBe("permission_denied");
    } finally {
      await writeSettings(sb, {});
    }
  });

  it("prints human output on a pipe without colour, and --json as exactly one document", async () => {
    const s = scene(sb);
    const human = await cli(s, ["notebook", "list"]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/Research/);
    expect(human.stdout).not.toContain("\u001b[");
    const json = await cli(s, ["notebook", "list", "--json"]);
    expect(json.stdout.trim().split("\n")).toHaveLength(1);
    expect(doc(json).exitCode).toBe(0);
  });
});

async function writeSettings(kernel: Sandbox, settings: Record<string, unknown>): Promise<void> {
  const form = new FormData();
  form.set("path", "/data/storage/petal/siyuan-plugins-mcp-sisyphus/settings.json");
  form.set("file", new Blob([JSON.stringify(settings)]), "settings.json");
  const res = await fetch(`${kernel.url}/api/file/putFile`, {
    method: "POST",
    headers: { authorization: `Token ${kernel.token}` },
    body: form,
  });
  if (((await res.json()) as { code: number }).code !== 0) throw new Error("putFile failed");
}
