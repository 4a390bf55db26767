/**
 * Admission at the kernel authority (the Node server's gate, shared): at most 128 calls in flight,
 * the next answered `queue_full` before anything runs. The 3.7.3 host serialises `/mcp`, so the
 * plugin's handler sees one call at a time there; on a host that does not (the sandbox's option),
 * calls pile up behind a held commit in the one write lane and the 129th is refused.
 */
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { describe, expect, it } from "vitest";
import { kernelClient, sc, useSandboxWithPlugin } from "./harness.js";

const UPDATE = "/api/block/updateBlock";
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
    box.current.control.armFault({ endpoint: UPDATE, kind: "delay", delayMs: 10_000 });
    const held = client.callTool({
      name: "block",
      arguments: { ...args, requestId: pre["requestId"], [field]: pre[field] },
    });
    while (box.current.control.count(UPDATE) === before)
      await new Promise((r) => setTimeout(r, 10));
    // 130 preflights wait in the write lane behind the held commit (held 10 s, ample time for all
    // of them to arrive on a loaded machine): 127 fit beside it.
    const waiting = Array.from({ length: 130 }, (_, i) =>
      client.callTool(
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
      ),
    );
    const answers = (await Promise.all(waiting)).map(sc);
    const refused = answers.filter((a) => (a["error"] as { code?: string })?.code === "queue_full");
    expect(refused.length).toBe(3);
    expect(answers.filter((a) => typeof a["requestId"] === "string").length).toBe(127);
    expect(sc(await held)["status"]).toBe("committed");
    expect(box.current.control.count(UPDATE)).toBe(before + 1);
    await client.close();
  });
});
