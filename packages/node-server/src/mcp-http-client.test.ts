import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  MCP_MODERN_PROTOCOL_VERSION,
  McpHttpClient,
  McpHttpError,
  McpProtocolError,
  REQUEST_TIMEOUT_CODE,
} from "./mcp-http-client.js";

type Handler = (body: Record<string, unknown>, req: IncomingMessage, res: ServerResponse) => void;

/** A loopback `/mcp` whose answer to each POST the current test sets. */
let handler: Handler = () => undefined;
const seen: Array<{ headers: IncomingMessage["headers"]; body: Record<string, unknown> }> = [];
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
    seen.push({ headers: req.headers, body });
    handler(body, req, res);
  });
});
let url: URL;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const json = (res: ServerResponse, status: number, value: unknown) =>
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
const client = () =>
  new McpHttpClient(url, { authorization: "Bearer b" }, { name: "t", version: "1" });
const LIMITS = { timeoutMs: 5_000 };

describe("McpHttpClient", () => {
  it("sends a modern tools/call (headers, envelope) and answers the JSON result without resultType", async () => {
    handler = (body, _req, res) =>
      json(res, 200, {
        jsonrpc: "2.0",
        id: body["id"],
        result: { resultType: "complete", content: [], structuredContent: { ok: 1 } },
      });
    const c = client();
    const result = await c.callTool("block", { action: "info" }, { "x/y": 1 }, LIMITS);
    c.close();
    expect(result).toEqual({ content: [], structuredContent: { ok: 1 } });
    const { headers, body } = seen.at(-1) as (typeof seen)[number];
    expect(headers["mcp-protocol-version"]).toBe(MCP_MODERN_PROTOCOL_VERSION);
    expect(headers["mcp-method"]).toBe("tools/call");
    expect(headers["mcp-name"]).toBe("block");
    expect(headers["authorization"]).toBe("Bearer b");
    expect(headers["accept"]).toBe("application/json, text/event-stream");
    expect(body["params"]).toEqual({
      name: "block",
      arguments: { action: "info" },
      _meta: {
        "io.modelcontextprotocol/protocolVersion": MCP_MODERN_PROTOCOL_VERSION,
        "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
        "x/y": 1,
      },
    });
  });

  it("takes the response from an SSE answer, after its notifications", async () => {
    handler = (body, _req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(
        `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: {} })}\n\n`,
      );
      res.end(
        `data: ${JSON.stringify({ jsonrpc: "2.0", id: body["id"], result: { content: [{ type: "text", text: "x" }] } })}\r\n\r\n`,
      );
    };
    const c = client();
    await expect(c.callTool("block", {}, {}, LIMITS)).resolves.toEqual({
      content: [{ type: "text", text: "x" }],
    });
    c.close();
  });

  it("rejects a JSON-RPC error (in a 200 or a 400) with its code, other statuses with data.status", async () => {
    const c = client();
    handler = (body, _req, res) =>
      json(res, 200, {
        jsonrpc: "2.0",
        id: body["id"],
        error: { code: -32602, message: "no such tool" },
      });
    const rpc = await c.callTool("nope", {}, {}, LIMITS).catch((e: unknown) => e);
    expect(rpc).toBeInstanceOf(McpProtocolError);
    expect(rpc).toMatchObject({ code: -32602, message: "no such tool" });
    handler = (body, _req, res) =>
      json(res, 400, {
        jsonrpc: "2.0",
        id: body["id"],
        error: { code: -32022, message: "version" },
      });
    await expect(c.discover(LIMITS)).rejects.toMatchObject({ code: -32022 });
    handler = (_body, _req, res) => res.writeHead(503).end("not running");
    const http = await c.callTool("block", {}, {}, LIMITS).catch((e: unknown) => e);
    expect(http).toBeInstanceOf(McpHttpError);
    expect(http).toMatchObject({
      data: { status: 503 },
      message: "Error POSTing to endpoint: not running",
    });
    c.close();
  });

  it("refuses a discover answer without this era", async () => {
    handler = (body, _req, res) =>
      json(res, 200, {
        jsonrpc: "2.0",
        id: body["id"],
        result: { supportedVersions: ["2025-11-25"] },
      });
    const c = client();
    await expect(c.discover(LIMITS)).rejects.toBeInstanceOf(McpHttpError);
    c.close();
  });

  it("ends at its deadline with the timeout code, and at the caller's abort with its reason", async () => {
    let held: ServerResponse | undefined;
    handler = (_body, _req, res) => {
      held = res;
    };
    const c = client();
    await expect(c.callTool("block", {}, {}, { timeoutMs: 50 })).rejects.toMatchObject({
      code: REQUEST_TIMEOUT_CODE,
    });
    const controller = new AbortController();
    const reason = new Error("stopped");
    const pending = c.callTool("block", {}, {}, { timeoutMs: 5_000, signal: controller.signal });
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    held?.destroy();
    c.close();
  });

  it("keeps the network error's code when nothing listens", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const c = new McpHttpClient(
      new URL(`http://127.0.0.1:${port}/mcp`),
      {},
      { name: "t", version: "1" },
    );
    await expect(c.discover(LIMITS)).rejects.toMatchObject({ code: "ECONNREFUSED" });
    c.close();
  });
});
