/**
 * Confirmation of dangerous actions at the kernel authority, through the gateway the Node server
 * uses: a modern client that declares form elicitation is asked (multi-round `input_required`) and
 * `confirm: true` alone cannot bypass it; a legacy session, whose buffered replies cannot carry a
 * server-to-client request, confirms with `confirm: true`; a declined confirmation writes nothing.
 */
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { describe, expect, it } from "vitest";
import { kernelClient, sc, useSandboxWithPlugin } from "./harness.js";

const DELETE = "/api/block/deleteBlock";
const box = useSandboxWithPlugin();

type Client = Awaited<ReturnType<typeof kernelClient>>;

async function deleteArgs(client: Client, id: string) {
  const args = { action: "delete", id };
  const pre = sc(
    await client.callTool({ name: "block", arguments: { ...args, validateOnly: true } }),
  );
  expect(pre["confirmationRequired"]).toBe(true);
  const field = pre["preconditionField"] as string;
  return { ...args, requestId: pre["requestId"], [field]: pre[field] };
}

function answer(client: Client, action: "accept" | "decline") {
  const asked = { count: 0 };
  client.setRequestHandler("elicitation/create", async () => {
    asked.count += 1;
    return (action === "accept" ? { action, content: { confirm: true } } : { action }) as never;
  });
  return asked;
}

describe("confirmation at the kernel authority", () => {
  it("asks a modern form-capable client even when it sent confirm: true, and runs once on accept", async () => {
    const client = await kernelClient(box.current, "modern", { elicitation: { form: {} } });
    const asked = answer(client, "accept");
    const args = await deleteArgs(client, DEMO_IDS.paragraphMilestones);
    const before = box.current.control.count(DELETE);
    const res = sc(await client.callTool({ name: "block", arguments: { ...args, confirm: true } }));
    expect(res["status"], JSON.stringify(res)).toBe("committed");
    expect(asked.count).toBe(1);
    expect(box.current.control.count(DELETE)).toBe(before + 1);
    await client.close();
  });

  it("writes nothing when the user declines", async () => {
    const client = await kernelClient(box.current, "modern", { elicitation: { form: {} } });
    const asked = answer(client, "decline");
    const args = await deleteArgs(client, DEMO_IDS.paragraphJournal);
    const before = box.current.control.count(DELETE);
    const res = sc(await client.callTool({ name: "block", arguments: args }));
    expect(res["error"]).toMatchObject({ code: "confirmation_declined" });
    expect(asked.count).toBe(1);
    expect(box.current.control.count(DELETE)).toBe(before);
    await client.close();
  });

  it("tells the person asked what the delete would lose, read in the kernel's runtime", async () => {
    const client = await kernelClient(box.current, "modern", { elicitation: { form: {} } });
    const messages: string[] = [];
    client.setRequestHandler("elicitation/create", async (req) => {
      messages.push(String((req.params as { message?: unknown }).message));
      return { action: "decline" } as never;
    });
    const id = DEMO_IDS.blockquoteMeeting;
    const args = await deleteArgs(client, id);
    const res = sc(await client.callTool({ name: "block", arguments: args }));
    expect(res["error"]).toMatchObject({ code: "confirmation_declined" });
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(
      new RegExp(
        `^Sisyphus asks to run the destructive action block\\.delete on "${id}": blockquote ` +
          `"Faithful beats fast, but both are nice\\." \\(2 blocks\\) in document "Meeting Notes" ` +
          `\\(/Meeting Notes, \\d+ blocks\\)\\. Confirm\\?$`,
      ),
    );
    await client.close();
  });

  it("has a legacy session confirm with confirm: true, and refuses without it", async () => {
    const client = await kernelClient(box.current, "legacy", { elicitation: { form: {} } });
    const asked = answer(client, "accept");
    const args = await deleteArgs(client, DEMO_IDS.paragraphDecision);
    const before = box.current.control.count(DELETE);
    const refused = sc(await client.callTool({ name: "block", arguments: args }));
    expect(refused["error"]).toMatchObject({ code: "confirmation_required" });
    expect(box.current.control.count(DELETE)).toBe(before);
    const ok = sc(await client.callTool({ name: "block", arguments: { ...args, confirm: true } }));
    expect(ok["status"], JSON.stringify(ok)).toBe("committed");
    expect(asked.count).toBe(0);
    expect(box.current.control.count(DELETE)).toBe(before + 1);
    await client.close();
  });
});
