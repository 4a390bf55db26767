/**
 * Node MCP cancellation relayed to the kernel authority (spec, "Kernel concurrency and queued
 * cancellation": Node MCP cancellation during delegated calls relays the control message to
 * `/tasks` without retrying the business request). A commit a Node front delegates to the plugin
 * waits behind a held one — on a host that serialises the plugin's `/mcp` as SiYuan 3.7.3 does
 * (the sandbox's default), in the host, before the plugin has seen it — and is cancelled through
 * a legacy HTTP or stdio front: it is never committed afterwards, and the delegated call's answer
 * says it was cancelled with nothing written. The built plugin zip runs in the sandbox's plugin host.
 */
import { createSiyuanClient, type SiyuanClient, undiciTransport } from "@sisyphus/siyuan-api";
import { DEMO_IDS, type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KernelAuthorityLink } from "../src/kernel-authority-link.js";
import {
  authorityFor,
  blockPreflight,
  httpClient,
  killAll,
  PLUGIN_PACKAGE_ZIP,
  sc,
  stdioClient,
  tempDataDir,
} from "./harness.js";

const PLUGIN = "siyuan-plugins-mcp-sisyphus";
const UPDATE = "/api/block/updateBlock";
const ROUTE = `/plugin/private/${PLUGIN}/mcp`;
const TASKS = `/plugin/private/${PLUGIN}/tasks`;

let sandbox: Sandbox;
let files: SiyuanClient;

beforeAll(async () => {
  sandbox = await startSandbox({ seed: "demo", plugins: [PLUGIN_PACKAGE_ZIP] });
  expect(sandbox.plugins.serialisesPaths).toBe(true);
  files = createSiyuanClient({
    transport: undiciTransport({ baseUrl: sandbox.url, token: sandbox.token }),
  });
  await files.file.putFile({
    path: `/data/storage/petal/${PLUGIN}/settings.json`,
    file: JSON.stringify({ kernelEndpointEnabled: true }),
  });
});
afterAll(async () => {
  await killAll();
  await files?.close();
  await sandbox?.stop();
});

/** The plugin's `/health` counters. */
async function pluginHealth(): Promise<Record<string, unknown>> {
  const res = await fetch(`${sandbox.url}/plugin/private/${PLUGIN}/health`, {
    headers: { authorization: `Token ${sandbox.token}` },
  });
  return (await res.json()) as Record<string, unknown>;
}

/** Terminal task records at the plugin: one per delegated call that ended. */
async function endedTasks(): Promise<number> {
  return (await pluginHealth())["taskResults"] as number;
}

/** Requests the sandbox logged for `path` after request `seq` that have been answered. */
function answeredAfter(path: string, seq: number): number {
  return sandbox.control.log().filter((e) => e.path === path && e.seq > seq && e.status > 0).length;
}

/** The sequence number of the sandbox's last logged request. */
function lastSeq(): number {
  return Math.max(0, ...sandbox.control.log().map((e) => e.seq));
}

/**
 * Holds a first commit in its kernel write, then starts `second()` and waits until its `/mcp`
 * request has reached the host (where it waits behind the first). Returns the first's answer.
 */
async function secondQueuedBehindHeldFirst(
  first: () => Promise<unknown>,
  second: () => void,
): Promise<{ held: Promise<unknown>; seq: number }> {
  sandbox.control.armFault({ endpoint: UPDATE, kind: "hold", times: 1 });
  const held = first();
  await waitFor(() => sandbox.control.held() === 1, { what: "the first commit's write" });
  const routes = sandbox.control.count(ROUTE);
  const seq = lastSeq();
  second();
  await waitFor(() => sandbox.control.count(ROUTE) > routes, {
    what: "the second commit's request at the kernel",
  });
  return { held, seq };
}

describe("Node MCP cancellation of a call delegated to the kernel authority", () => {
  /** The legacy fronts (both carry `notifications/cancelled`), each with the blocks it writes. */
  const FRONTS = [
    { front: "HTTP", held: DEMO_IDS.paragraphGoals, cancelled: DEMO_IDS.paragraphJournal },
    { front: "stdio", held: DEMO_IDS.paragraphDecision, cancelled: DEMO_IDS.paragraphStatus },
  ] as const;

  it.each(FRONTS)(
    "a queued commit cancelled through a legacy $front front is relayed to /tasks and never committed",
    async ({ front: kind, held: heldId, cancelled: cancelledId }) => {
      const dataDir = tempDataDir();
      const node = kind === "HTTP" ? await authorityFor(sandbox, dataDir) : undefined;
      const front =
        node === undefined
          ? await stdioClient({
              era: "legacy",
              dataDir,
              siyuanUrl: sandbox.url,
              siyuanToken: sandbox.token,
            })
          : await httpClient(node.url, { era: "legacy" });
      const update = (id: string, data: string) =>
        blockPreflight(front, { action: "update", id, dataType: "markdown", data });
      const a = (await update(heldId, "Held")).commitArgs;
      const b = (await update(cancelledId, "Cancelled via Node")).commitArgs;
      const writes = sandbox.control.count(UPDATE);
      const ended = await endedTasks();
      const ctl = new AbortController();
      let queued: Promise<unknown> | undefined;
      const { held, seq } = await secondQueuedBehindHeldFirst(
        () => front.callTool({ name: "block", arguments: a }),
        () => {
          queued = front
            .callTool({ name: "block", arguments: b }, { signal: ctl.signal })
            .catch((e: unknown) => e);
        },
      );
      ctl.abort("the user stopped it"); // notifications/cancelled in the front's session
      await expect(queued).resolves.toBeInstanceOf(Error);
      await waitFor(() => answeredAfter(TASKS, seq) === 1, { what: "the relayed cancel answered" });
      expect(sandbox.control.releaseHeld()).toBe(1);
      expect(sc(await held)["status"]).toBe("committed");
      // Both delegated calls have ended at the plugin: the held one, and the cancelled one once the
      // host let it in.
      await waitFor(async () => (await endedTasks()) >= ended + 2, {
        what: "both delegated commits ended at the plugin",
      });
      expect(sandbox.control.count(UPDATE)).toBe(writes + 1);
      expect(sandbox.control.kramdown(cancelledId)).not.toContain("Cancelled via Node");
      await front.close();
      await node?.stop();
    },
  );

  it("the delegated call's own answer says it was cancelled and nothing was written", async () => {
    const front = await httpClient((await authorityFor(sandbox, tempDataDir())).url, {
      era: "modern",
    });
    const update = (id: string, data: string) =>
      blockPreflight(front, { action: "update", id, dataType: "markdown", data });
    const a = (await update(DEMO_IDS.headingGoals, "# Goals, held again")).commitArgs;
    const b = (await update(DEMO_IDS.headingTasks, "## Tasks, cancelled at the link")).commitArgs;
    const link = new KernelAuthorityLink({
      kernel: { siyuanUrl: sandbox.url, siyuanToken: sandbox.token },
    });
    const writes = sandbox.control.count(UPDATE);
    const ctl = new AbortController();
    let answer: Promise<unknown> | undefined;
    const { held, seq } = await secondQueuedBehindHeldFirst(
      () => link.call("block", a, undefined, true),
      () => {
        answer = link.call("block", b, ctl.signal, true);
      },
    );
    ctl.abort();
    await waitFor(() => answeredAfter(TASKS, seq) === 1, { what: "the relayed cancel answered" });
    expect(sandbox.control.releaseHeld()).toBe(1);
    expect(sc(await held)["status"]).toBe("committed");
    const cancelled = sc(await answer);
    expect(cancelled["error"], JSON.stringify(cancelled)).toMatchObject({
      code: "cancelled",
      writeAttempted: false,
    });
    expect(sandbox.control.count(UPDATE)).toBe(writes + 1);
    expect(sandbox.control.kramdown(DEMO_IDS.headingTasks)).not.toContain("cancelled at the link");
    await link.close();
    await front.close();
  });
});
