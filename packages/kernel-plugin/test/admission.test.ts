/**
 * Admission at the kernel authority (the Node server's gate, shared): at most 128 calls in flight,
 * the next answered `queue_full` before anything runs. The 3.7.3 host serialises `/mcp`, so the
 * plugin's handler sees one call at a time there; on a host that does not (the sandbox's option),
 * calls pile up behind a held commit in the one write lane and the 129th is refused. The App's
 * entry point (`write_preview`) waits in that same FIFO lane: one at a time, in arrival order.
 */
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { describe, expect, it } from "vitest";
import { commitArgs, healthOf, kernelClient, sc, useSandboxWithPlugin } from "./harness.js";

const UPDATE = "/api/block/updateBlock";
/** The kernel reads of a `block.update` preview (each preview makes one of each). */
const PREVIEW_READS = ["/api/block/getBlockInfo", "/api/block/getBlockKramdown"] as const;
const box = useSandboxWithPlugin({ serialisePaths: false });

describe("admission at the kernel authority", () => {
  it("refuses the call beyond 128 in flight with queue_full, running none of the refused", async () => {
    const client = await kernelClient(box.current);
    const args = {
      action: "update",
      id: DEMO_IDS.paragraphGoals,
      dataType: "markdown",
      data: "held",
    };
    const pre = sc(
      await client.callTool({ name: "block", arguments: { ...args, validateOnly: true } }),
    );
    const field = pre["preconditionField"] as string;
    const before = box.current.control.count(UPDATE);
    box.current.control.armFault({ endpoint: UPDATE, kind: "hold" });
    const held = client.callTool({
      name: "block",
      arguments: { ...args, requestId: pre["requestId"], [field]: pre[field] },
    });
    await waitFor(() => box.current.control.held() === 1, { what: "the held commit's write" });
    // 130 preflights wait in the write lane behind the held commit (held until the refusals have
    // answered, however slowly this machine accepts them): 127 fit beside it.
    let answered = 0;
    const waiting = Array.from({ length: 130 }, (_, i) =>
      client
        .callTool(
          {
            name: "block",
            arguments: {
              action: "update",
              id: DEMO_IDS.paragraphDecision,
              dataType: "markdown",
              data: `queued ${i}`,
              validateOnly: true,
            },
          },
          { timeout: 60_000 },
        )
        .finally(() => answered++),
    );
    await waitFor(() => answered >= 3, {
      what: "the calls beyond the cap to be refused",
      timeoutMs: 60_000,
    });
    expect(box.current.control.releaseHeld()).toBe(1);
    const answers = (await Promise.all(waiting)).map(sc);
    const refused = answers.filter((a) => (a["error"] as { code?: string })?.code === "queue_full");
    expect(refused.length).toBe(3);
    expect(answers.filter((a) => typeof a["requestId"] === "string").length).toBe(127);
    expect(sc(await held)["status"]).toBe("committed");
    expect(box.current.control.count(UPDATE)).toBe(before + 1);
    await client.close();
  });
});

/** The `write_preview` call of a `block.update` of `id` to `data`. */
function previewOf(id: string, data: string) {
  return {
    name: "write_preview",
    arguments: {
      tool: "block",
      arguments: { action: "update", id, dataType: "markdown", data, validateOnly: true },
    },
  };
}

/** The preview's kernel reads made since `since` (a request log `seq`), oldest first. */
function previewReadsSince(since: number) {
  const paths: readonly string[] = PREVIEW_READS;
  return box.current.control.log().filter((e) => e.seq > since && paths.includes(e.path));
}

/** The paths of `entries`, sorted (a preview sends its two reads at once). */
function pathsOf(entries: readonly { path: string }[]): string[] {
  return entries.map((e) => e.path).sort();
}

describe("the App's entry point in the FIFO write lane", () => {
  it("runs two previews one at a time, in the order they came", async () => {
    const client = await kernelClient(box.current);
    const control = box.current.control;
    const since = Math.max(0, ...control.log().map((e) => e.seq));
    control.armFault({ endpoint: "/api/block/getBlockKramdown", kind: "hold" });
    const first = client.callTool(previewOf(DEMO_IDS.paragraphJournal, "first preview"));
    await waitFor(() => control.held() === 1, { what: "the first preview's read" });
    const second = client.callTool(previewOf(DEMO_IDS.paragraphStatus, "second preview"));
    await waitFor(async () => (await healthOf(box.current))["writesQueued"] === 1, {
      what: "the second preview queued in the write lane",
    });
    // Queued behind the first, the second has not read anything yet.
    expect(pathsOf(previewReadsSince(since))).toEqual([...PREVIEW_READS]);
    expect(control.releaseHeld()).toBe(1);
    const [a, b] = (await Promise.all([first, second])).map(sc);
    expect(a).toMatchObject({ supported: true, target: { ids: [DEMO_IDS.paragraphJournal] } });
    expect(b).toMatchObject({ supported: true, target: { ids: [DEMO_IDS.paragraphStatus] } });
    // The second's reads began after the first's had all answered.
    const log = previewReadsSince(since);
    expect(pathsOf(log.slice(0, 2))).toEqual([...PREVIEW_READS]);
    expect(pathsOf(log.slice(2))).toEqual([...PREVIEW_READS]);
    const firstEnd = Math.max(...log.slice(0, 2).map((e) => e.startedAtMs + e.durationMs));
    for (const e of log.slice(2)) expect(e.startedAtMs).toBeGreaterThanOrEqual(firstEnd);
    await client.close();
  });

  it("queues a preview behind a held commit and before the commit that came after it", async () => {
    const client = await kernelClient(box.current);
    const control = box.current.control;
    const held = await commitArgs(client, DEMO_IDS.paragraphMilestones, "held commit");
    const later = await commitArgs(client, DEMO_IDS.paragraphQuote, "later commit");
    const since = Math.max(0, ...control.log().map((e) => e.seq));
    control.armFault({ endpoint: UPDATE, kind: "hold" });
    const answered: string[] = [];
    const call = (label: string, params: { name: string; arguments: Record<string, unknown> }) =>
      client.callTool(params).then((r) => {
        answered.push(label);
        return sc(r);
      });
    const commit = call("held commit", { name: "block", arguments: held });
    await waitFor(() => control.held() === 1, { what: "the held commit's write" });
    const holdSeq = control.log().find((e) => e.seq > since && e.path === UPDATE)?.seq ?? 0;
    const preview = call("preview", previewOf(DEMO_IDS.paragraphJournal, "previewed"));
    await waitFor(async () => (await healthOf(box.current))["writesQueued"] === 1, {
      what: "the preview queued behind the commit",
    });
    const next = call("later commit", { name: "block", arguments: later });
    await waitFor(async () => (await healthOf(box.current))["writesQueued"] === 2, {
      what: "the later commit queued behind the preview",
    });
    // While the commit holds the lane, the preview reads nothing and nobody has answered.
    expect(previewReadsSince(holdSeq)).toEqual([]);
    expect(answered).toEqual([]);
    expect(control.releaseHeld()).toBe(1);
    const [c, p, n] = await Promise.all([commit, preview, next]);
    expect(c["status"]).toBe("committed");
    expect(p).toMatchObject({ supported: true, target: { ids: [DEMO_IDS.paragraphJournal] } });
    expect(n["status"]).toBe("committed");
    expect(answered).toEqual(["held commit", "preview", "later commit"]);
    await client.close();
  });
});
