/**
 * External effects at the kernel authority (built zip in the sandbox's plugin host, official MCP
 * client): the extension bridge reaches the kernel's own `/mcp` through `siyuan.client` with the
 * plugin's credential, `system.sync` reaches `performSync`, both only after the user confirms and
 * with exactly one kernel request; `feedback.submit` is refused here (the plugin runtime cannot
 * reach other hosts) without a request leaving.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kernelClient, sc, useSandboxWithPlugin, writeSettings } from "./harness.js";

const MCP = "/mcp";
const SYNC = "/api/sync/performSync";
const box = useSandboxWithPlugin();

type Client = Awaited<ReturnType<typeof kernelClient>>;

/** The user's answer to every confirmation the server asks for; counts the questions. */
function answer(client: Client, action: "accept" | "decline") {
  const asked = { count: 0 };
  client.setRequestHandler("elicitation/create", async () => {
    asked.count += 1;
    return (action === "accept" ? { action, content: { confirm: true } } : { action }) as never;
  });
  return asked;
}

async function formClient(action: "accept" | "decline") {
  const client = await kernelClient(box.current, "modern", { elicitation: { form: {} } });
  return { client, asked: answer(client, action) };
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  sc(await client.callTool({ name, arguments: args }));

const version = { action: "call", name: "system", arguments: { action: "version" } };

describe("the extension bridge at the kernel authority", () => {
  it("lists SiYuan's own tools in one /mcp request", async () => {
    const client = await kernelClient(box.current);
    const before = box.current.control.count(MCP);
    const listed = await call(client, "extension", { action: "list", pageSize: 64 });
    expect(listed["error"], JSON.stringify(listed)).toBeUndefined();
    const names = (listed["tools"] as Array<{ name: string }>).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["block", "sql", "system"]));
    expect(box.current.control.count(MCP)).toBe(before + 1);
    await client.close();
  });

  it("refuses validateOnly and a declined call without a request", async () => {
    const { client, asked } = await formClient("decline");
    const before = box.current.control.count(MCP);
    const pre = await call(client, "extension", { ...version, validateOnly: true });
    expect(pre["error"]).toMatchObject({ code: "preflight_unavailable" });
    const declined = await call(client, "extension", version);
    expect(declined["error"]).toMatchObject({ code: "confirmation_declined" });
    expect(asked.count).toBe(1);
    expect(box.current.control.count(MCP)).toBe(before);
    await client.close();
  });

  it("forwards a confirmed call once and returns SiYuan's answer as given", async () => {
    const { client, asked } = await formClient("accept");
    const before = box.current.control.count(MCP);
    const res = await call(client, "extension", version);
    expect(res, JSON.stringify(res)).toMatchObject({
      writeSafetyGuaranteed: false,
      result: { tool: "system", isError: false, content: [{ type: "text", text: "3.7.3" }] },
    });
    expect(asked.count).toBe(1);
    expect(box.current.control.count(MCP)).toBe(before + 1);
    await client.close();
  });

  it("answers an unknown downstream tool with a typed error", async () => {
    const { client } = await formClient("accept");
    const res = await call(client, "extension", { action: "call", name: "no_such_tool" });
    expect(res["error"]).toMatchObject({ code: "extension_tool_not_found", name: "no_such_tool" });
    await client.close();
  });
});

describe("system.sync at the kernel authority", () => {
  it("asks, then starts the sync with one performSync", async () => {
    const { client, asked } = await formClient("accept");
    const before = box.current.control.count(SYNC);
    const res = await call(client, "system", { action: "sync" });
    expect(res, JSON.stringify(res)).toMatchObject({
      status: "executed",
      writeSafetyGuaranteed: false,
      result: { syncRequested: true },
    });
    expect(asked.count).toBe(1);
    expect(box.current.control.count(SYNC)).toBe(before + 1);
    await client.close();
  });
});

describe("feedback.submit at the kernel authority", () => {
  const received: string[] = [];
  const server = createServer((req, res) => {
    received.push(req.url ?? "");
    res.writeHead(204).end();
  });
  let url = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/feedback`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("is refused as unconfigured, then as unavailable here, and nothing is sent", async () => {
    const { client } = await formClient("accept");
    const args = { action: "submit", message: "Nice plugin" };
    const unconfigured = await call(client, "feedback", args);
    expect(unconfigured["error"]).toMatchObject({ code: "feedback_unconfigured" });
    await writeSettings(box.current, {
      kernelEndpointEnabled: true,
      options: { feedbackUrl: url },
    });
    const unavailable = await call(client, "feedback", args);
    expect(unavailable["error"]).toMatchObject({
      code: "feedback_unavailable",
      reason: "no_sender_here",
      writeAttempted: false,
    });
    expect(received).toEqual([]);
    await client.close();
  });
});
