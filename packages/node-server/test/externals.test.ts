/**
 * External effects at the Node authority with the official MCP client: `feedback.submit` posts the
 * business arguments once to the destination the user set in the settings (a loopback receiver
 * here), `extension.call` forwards once to the kernel's own `/mcp`, `system.sync` starts one
 * `performSync`; each only after the user confirms, none at validateOnly.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import type { Client } from "@modelcontextprotocol/client";
import { createSiyuanClient, undiciTransport } from "@sisyphus/siyuan-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerConfirmations, httpClient, sc, sharedDemoAuthority } from "./harness.js";

const SETTINGS = "/data/storage/petal/siyuan-plugins-mcp-sisyphus/settings.json";

describe("external effects through the Node authority", () => {
  const shared = sharedDemoAuthority();
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(200).end("thanks");
    });
  });
  let feedbackUrl = "";
  let client: Client;
  let answer: "accept" | "decline" = "accept";
  let asked: { count: number };

  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    feedbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/feedback`;
    const kernel = createSiyuanClient({
      transport: undiciTransport({ baseUrl: shared.sandbox.url, token: shared.sandbox.token }),
    });
    await kernel.file.putFile({
      path: SETTINGS,
      file: JSON.stringify({ options: { feedbackUrl } }),
    });
    await kernel.close();
    client = await httpClient(shared.authority.url, { era: "modern", elicitation: { form: {} } });
    asked = answerConfirmations(client, () =>
      answer === "accept"
        ? { action: "accept", content: { confirm: true } }
        : { action: "decline" },
    );
  });
  afterAll(async () => {
    await client?.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  const call = async (name: string, args: Record<string, unknown>) =>
    sc(await client.callTool({ name, arguments: args }));
  const feedback = { action: "submit", message: "Search is fast", category: "idea" };

  it("feedback: refused at validateOnly and when declined, nothing sent", async () => {
    const pre = await call("feedback", { ...feedback, validateOnly: true });
    expect(pre["error"]).toMatchObject({ code: "preflight_unavailable" });
    answer = "decline";
    try {
      const declined = await call("feedback", feedback);
      expect(declined["error"]).toMatchObject({ code: "confirmation_declined" });
    } finally {
      answer = "accept";
    }
    expect(received).toEqual([]);
  });

  it("feedback: confirmed, one POST with the business arguments only", async () => {
    const before = asked.count;
    const r = await call("feedback", feedback);
    expect(r, JSON.stringify(r)).toMatchObject({
      writeSafetyGuaranteed: false,
      result: { sent: true, status: 200 },
    });
    expect(asked.count).toBe(before + 1);
    expect(received).toHaveLength(1);
    expect(JSON.parse(received[0]!.body)).toEqual({ message: "Search is fast", category: "idea" });
    expect(received[0]!.headers["authorization"]).toBeUndefined();
  });

  it("extension.call and system.sync: one kernel request each, after confirmation", async () => {
    const mcp = shared.sandbox.control.count("/mcp");
    const r = await call("extension", {
      action: "call",
      name: "system",
      arguments: { action: "version" },
    });
    expect(r, JSON.stringify(r)).toMatchObject({
      result: { tool: "system", isError: false, content: [{ type: "text", text: "3.7.3" }] },
    });
    expect(shared.sandbox.control.count("/mcp")).toBe(mcp + 1);
    const sync = shared.sandbox.control.count("/api/sync/performSync");
    const s = await call("system", { action: "sync" });
    expect(s).toMatchObject({ status: "executed", result: { syncRequested: true } });
    expect(shared.sandbox.control.count("/api/sync/performSync")).toBe(sync + 1);
  });
});
