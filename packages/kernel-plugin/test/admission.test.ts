/**
 * Admission at the kernel authority (the Node server's gate, shared): at most 128 calls in flight,
 * the next answered `queue_full` before anything runs. The 3.7.3 host serialises `/mcp`, so the
 * plugin's handler sees one call at a time there; on a host that does not (the sandbox's option),
 * calls pile up behind a held commit in the one write lane and the 129th is refused.
 */
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
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
