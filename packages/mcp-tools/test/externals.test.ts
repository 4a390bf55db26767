/**
 * External effects beyond exports: system.sync (kernel `performSync`), feedback.submit (a loopback
 * receiver stands for the user's destination) and the extension bridge to the sandbox kernel's own
 * `/mcp`. Each is refused at validateOnly and without confirmation with zero requests, makes
 * exactly one request when confirmed, and after a failure past dispatch answers an unknown
 * outcome without a second request.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CallOptions,
  createToolRuntime,
  fetchFeedbackSender,
  parseSettings,
  type ToolResult,
  type ToolRuntime,
} from "../src/index.js";
import { errorCode, useHarness } from "./harness.js";

const SYNC = "/api/sync/performSync";
const MCP = "/mcp";

/** Every request the sandbox received so far. */
function total(h: { sandbox: { control: { counts(): Record<string, number> } } }): number {
  return Object.values(h.sandbox.control.counts()).reduce((a, b) => a + b, 0);
}

function error(r: ToolResult): Record<string, unknown> {
  return r.structuredContent["error"] as Record<string, unknown>;
}

describe("system.sync", () => {
  const h = useHarness();

  it("refuses validateOnly and an unconfirmed call without a kernel request", async () => {
    const before = total(h);
    const pre = await h.call("system", { action: "sync", validateOnly: true }, true);
    expect(errorCode(pre)).toBe("preflight_unavailable");
    const unconfirmed = await h.call("system", { action: "sync" });
    expect(errorCode(unconfirmed)).toBe("confirmation_required");
    expect(error(unconfirmed)["writeAttempted"]).toBe(false);
    expect(total(h)).toBe(before);
  });

  it("confirmed: one performSync, no claim about the sync's outcome", async () => {
    const before = h.writes(SYNC);
    const toasts = h.sandbox.control.messages().length;
    const r = await h.call("system", { action: "sync" }, true);
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({
      status: "executed",
      writeSafetyGuaranteed: false,
      reason: "external_side_effect",
      result: { syncRequested: true },
    });
    expect(String((r.structuredContent["result"] as { note: string }).note)).toMatch(
      /notification/,
    );
    expect(h.writes(SYNC)).toBe(before + 1);
    // The sandbox kernel has no cloud: it told the user so, as a toast.
    expect(h.sandbox.control.messages()).toHaveLength(toasts + 1);
  });

  it("a connection lost after the request left is not retried: outcome unknown", async () => {
    h.sandbox.control.armFault({ endpoint: SYNC, kind: "resetAfterApply" });
    const before = h.writes(SYNC);
    const r = await h.call("system", { action: "sync" }, true);
    expect(errorCode(r)).toBe("outcome_unknown");
    expect(error(r)).toMatchObject({ writeAttempted: true, writeExecuted: "unknown" });
    expect(h.writes(SYNC)).toBe(before + 1);
  });

  it("needs the permission on every notebook", async () => {
    h.permissions = { default: "delete", notebooks: { [h.notebook]: "read" } };
    try {
      const before = total(h);
      const r = await h.call("system", { action: "sync" }, true);
      expect(errorCode(r)).toBe("permission_denied");
      expect(total(h)).toBe(before);
    } finally {
      h.permissions = { default: "delete" };
    }
  });
});

describe("extension (SiYuan's own /mcp)", () => {
  const h = useHarness();

  it("list: SiYuan's tools, compact and paged, in one read", async () => {
    const before = h.writes(MCP);
    const r = await h.call("extension", { action: "list", pageSize: 64 });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy();
    const answer = r.structuredContent as { total: number; tools: Array<Record<string, unknown>> };
    expect(answer.total).toBeGreaterThanOrEqual(32);
    const block = answer.tools.find((t) => t["name"] === "block");
    expect(block).toMatchObject({ source: "native", actions: expect.arrayContaining(["update"]) });
    expect(block?.["args"]).toContain("id?");
    expect(h.writes(MCP)).toBe(before + 1);
    const page2 = await h.call("extension", { action: "list", page: 2, pageSize: 4 });
    expect((page2.structuredContent as { tools: unknown[] }).tools).toHaveLength(4);
  });

  it("call: refused at validateOnly and without confirmation, with no request", async () => {
    const before = total(h);
    const args = { action: "call", name: "system", arguments: { action: "version" } };
    expect(errorCode(await h.call("extension", { ...args, validateOnly: true }, true))).toBe(
      "preflight_unavailable",
    );
    expect(errorCode(await h.call("extension", args))).toBe("confirmation_required");
    expect(total(h)).toBe(before);
  });

  it("call: one request; the downstream result comes back as given", async () => {
    const before = h.writes(MCP);
    const r = await h.call(
      "extension",
      { action: "call", name: "system", arguments: { action: "version" } },
      true,
    );
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({
      writeSafetyGuaranteed: false,
      reason: "external_side_effect",
      result: { tool: "system", isError: false, content: [{ type: "text", text: "3.7.3" }] },
    });
    expect(h.writes(MCP)).toBe(before + 1);
  });

  it("call: hash-like downstream text is never rewritten into an alias", async () => {
    const digest = "ab".repeat(32);
    const [id] = h.sandbox.control.external.appendBlock(DEMO_IDS.docPlan, `digest ${digest}`);
    const r = await h.call(
      "extension",
      { action: "call", name: "block", arguments: { action: "get_kramdown", id } },
      true,
    );
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy();
    expect(JSON.stringify(r.structuredContent["result"])).toContain(digest);
  });

  it("call: an unknown tool is a typed error, after one request", async () => {
    const before = h.writes(MCP);
    const r = await h.call("extension", { action: "call", name: "no_such_tool" }, true);
    expect(errorCode(r)).toBe("extension_tool_not_found");
    expect(error(r)).toMatchObject({ name: "no_such_tool", writeAttempted: false });
    expect(h.writes(MCP)).toBe(before + 1);
  });

  it("call: a downstream error result is the tool's own answer, not ours", async () => {
    const r = await h.call(
      "extension",
      { action: "call", name: "block", arguments: { action: "nope" } },
      true,
    );
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent["result"]).toMatchObject({ tool: "block", isError: true });
  });

  it("call: an empty 200 (a panic in the kernel's tool) is an unknown outcome, not retried", async () => {
    const before = h.writes(MCP);
    const r = await h.call(
      "extension",
      { action: "call", name: "image", arguments: { action: "list", documentID: "x" } },
      true,
    );
    expect(errorCode(r)).toBe("outcome_unknown");
    expect(error(r)).toMatchObject({ writeAttempted: true, writeExecuted: "unknown" });
    expect(h.writes(MCP)).toBe(before + 1);
  });

  it("call: a connection lost after the request left is not retried", async () => {
    h.sandbox.control.armFault({ endpoint: MCP, kind: "resetAfterApply" });
    const before = h.writes(MCP);
    const r = await h.call(
      "extension",
      { action: "call", name: "system", arguments: { action: "version" } },
      true,
    );
    expect(errorCode(r)).toBe("outcome_unknown");
    expect(h.writes(MCP)).toBe(before + 1);
  });

  it("an HTTP refusal of /mcp is typed, and nothing ran", async () => {
    h.sandbox.control.armFault({ endpoint: MCP, kind: "http5xx", status: 405 });
    const r = await h.call("extension", { action: "list" });
    expect(errorCode(r)).toBe("extension_unavailable");
    expect(error(r)).toMatchObject({ httpStatus: 405, writeAttempted: false });
    // A SiYuan without the stateless mode asks for a session (HTTP 400): said as such.
    h.sandbox.control.armFault({ endpoint: MCP, kind: "http5xx", status: 400 });
    const call = await h.call(
      "extension",
      { action: "call", name: "system", arguments: { action: "version" } },
      true,
    );
    expect(errorCode(call)).toBe("extension_unavailable");
    expect(String(error(call)["message"])).toMatch(/2026-07-28/);
  });

  it("a call cancelled before it starts never reaches /mcp (the cancellation barrier)", async () => {
    const before = h.writes(MCP);
    const r = await h.runtime.callTool(
      "extension",
      { action: "call", name: "system", arguments: { action: "version" } },
      { confirmed: true, signal: AbortSignal.abort() },
    );
    expect(r.structuredContent).toMatchObject({ status: "cancelled" });
    expect(h.writes(MCP)).toBe(before);
  });
});

/** A loopback receiver standing for the user's feedback destination. */
interface Receiver {
  readonly url: string;
  readonly received: Array<{ headers: IncomingHttpHeaders; body: string }>;
  status: number;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const received: Receiver["received"] = [];
  const state = { status: 204 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(state.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/feedback`,
    received,
    get status() {
      return state.status;
    },
    set status(s: number) {
      state.status = s;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("feedback.submit", () => {
  const h = useHarness();
  let receiver: Receiver;
  let node: ToolRuntime;
  beforeAll(async () => {
    receiver = await startReceiver();
    node = createToolRuntime({
      client: h.client,
      coordinator: h.coordinator,
      feedback: fetchFeedbackSender(),
    });
  });
  afterAll(() => receiver.close());

  const options = (feedbackUrl: string | null): CallOptions => ({
    readRetries: 3,
    pageSize: 16,
    templateBudgetBytes: 1024,
    feedbackUrl,
  });
  const submit = (args: Record<string, unknown>, url: string | null, confirmed = true) =>
    node.callTool(
      "feedback",
      { action: "submit", message: "The outline is great", ...args },
      { confirmed, options: options(url) },
    );

  it("unconfigured, at validateOnly and unconfirmed: refused, nothing sent", async () => {
    expect(errorCode(await submit({}, null))).toBe("feedback_unconfigured");
    expect(errorCode(await submit({ validateOnly: true }, receiver.url))).toBe(
      "preflight_unavailable",
    );
    expect(errorCode(await submit({}, receiver.url, false))).toBe("confirmation_required");
    expect(receiver.received).toHaveLength(0);
  });

  it("confirmed: one POST carrying the business arguments only", async () => {
    const kernelBefore = total(h);
    const r = await submit({ category: "idea", contact: "me@example.org" }, receiver.url);
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({
      writeSafetyGuaranteed: false,
      result: { sent: true, destination: new URL(receiver.url).origin, status: 204 },
    });
    expect(receiver.received).toHaveLength(1);
    const got = receiver.received[0]!;
    expect(JSON.parse(got.body)).toEqual({
      message: "The outline is great",
      category: "idea",
      contact: "me@example.org",
    });
    expect(got.headers["authorization"]).toBeUndefined();
    expect(got.headers["content-type"]).toBe("application/json");
    expect(total(h)).toBe(kernelBefore);
  });

  it("a refusal after the request left is not retried: outcome unknown", async () => {
    receiver.status = 500;
    try {
      const before = receiver.received.length;
      const r = await submit({}, receiver.url);
      expect(errorCode(r)).toBe("outcome_unknown");
      expect(error(r)["writeAttempted"]).toBe(true);
      expect(receiver.received).toHaveLength(before + 1);
    } finally {
      receiver.status = 204;
    }
  });

  it("an unreachable destination: nothing was sent", async () => {
    const closed = await startReceiver();
    await closed.close();
    const r = await submit({}, closed.url);
    expect(errorCode(r)).toBe("feedback_unavailable");
    expect(error(r)).toMatchObject({ reason: "econnrefused", writeAttempted: false });
  });

  it("a runtime without a sender (the kernel plugin's) refuses it", async () => {
    const r = await h.runtime.callTool(
      "feedback",
      { action: "submit", message: "hi" },
      { confirmed: true, options: options(receiver.url) },
    );
    expect(errorCode(r)).toBe("feedback_unavailable");
    expect(error(r)["reason"]).toBe("no_sender_here");
  });

  it("settings accept https or loopback http only, without credentials", () => {
    const parse = (feedbackUrl: unknown) =>
      parseSettings(JSON.stringify({ options: { feedbackUrl } })).options.feedbackUrl;
    expect(parse(undefined)).toBeNull();
    expect(parse("https://feedback.example.org/siyuan")).toBe(
      "https://feedback.example.org/siyuan",
    );
    expect(parse("http://localhost:9000/f")).toBe("http://localhost:9000/f");
    expect(() => parse("http://feedback.example.org/")).toThrow(/https/);
    expect(() => parse("https://user:pw@feedback.example.org/")).toThrow(/user name/);
    expect(() => parse("ftp://127.0.0.1/")).toThrow(/https/);
  });
});
