import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_IDS as I, type Sandbox } from "../src/index.js";
import { flush, kramdown, start, TOKEN } from "./helpers.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await start({ flushIntervalMs: 60_000 });
});
afterAll(() => sb.stop());

async function mcp(
  body: unknown,
  headers: Record<string, string> = {},
  method = "POST",
): Promise<{
  status: number;
  headers: Headers;
  text: string;
  json: () => Record<string, unknown>;
}> {
  const res = await fetch(`${sb.url}/mcp`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", ...headers },
    ...(method === "POST" ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    json: () => JSON.parse(text) as Record<string, unknown>,
  };
}

async function session(): Promise<string> {
  const r = await mcp({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2024-11-05",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    },
  });
  expect(r.status).toBe(200);
  expect(r.json()).toEqual({
    jsonrpc: "2.0",
    id: 1,
    result: {
      protocolVersion: "2024-11-05",
      capabilities: { tools: { listChanged: false } },
      serverInfo: { name: "SiYuan", version: "3.7.3" },
    },
  });
  const sid = r.headers.get("mcp-session-id");
  expect(sid).toMatch(/^[A-Za-z0-9]{16}$/);
  return sid!;
}

describe("/mcp stateful mode", () => {
  it("initialize gives a session; tools/list holds the 32 native tools sorted by name", async () => {
    const sid = await session();
    const note = await mcp(
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { "mcp-session-id": sid },
    );
    expect(note.status).toBe(202);
    expect(note.text).toBe("");
    const r = await mcp({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { "mcp-session-id": sid });
    const tools = (r.json().result as { tools: Array<Record<string, unknown>> }).tools;
    expect(tools).toHaveLength(32);
    const names = tools.map((t) => t.name as string);
    expect(names).toEqual([...names].sort());
    expect(names).toContain("block");
    expect(names).toContain("todo_write");
    expect(names).not.toContain("database_create");
    // omitempty schema fields, as the kernel's ToolSchema
    expect(tools.find((t) => t.name === "sync")!.inputSchema).toEqual({
      type: "object",
      properties: { action: { type: "string", description: "Operation", enum: expect.any(Array) } },
      required: ["action"],
    });
    expect(tools.find((t) => t.name === "question")!.inputSchema).toEqual({
      type: "object",
      properties: { questions: { type: "array" } },
      required: ["questions"],
    });
    const block = tools.find((t) => t.name === "block")!;
    expect(block.source).toBe("native");
    expect(block).not.toHaveProperty("annotations");
    const schema = block.inputSchema as {
      required: string[];
      properties: Record<string, { enum?: string[] }>;
    };
    expect(schema.required).toEqual(["action"]);
    expect(schema.properties.action!.enum).toContain("get_kramdown");
    const database = tools.find((t) => t.name === "database")!;
    expect(
      (database.inputSchema as { properties: { action: { enum: string[] } } }).properties.action
        .enum,
    ).not.toContain("create");
    expect(
      (tools.find((t) => t.name === "dailynote")!.inputSchema as { required: string[] }).required,
    ).toEqual(["action", "notebook"]);
  });

  it("tools/call reads and writes in-process (the /api/* counters do not move)", async () => {
    const sid = await session();
    sb.control.resetLog();
    const call = (id: number, name: string, args: Record<string, unknown>) =>
      mcp(
        { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } },
        { "mcp-session-id": sid },
      );
    const read = (await call(3, "block", { action: "get_kramdown", id: I.paragraphGoals })).json();
    expect(read.result).toEqual({
      content: [{ type: "text", text: await kramdown(sb, I.paragraphGoals) }],
    });
    sb.control.resetLog();
    const write = (
      await call(4, "SIYUAN_BLOCK".toLowerCase(), {
        action: "update",
        id: I.paragraphStatus,
        data: "Status: shipped via /mcp",
      })
    ).json();
    expect(write.result).toEqual({ content: [{ type: "text", text: "block updated" }] });
    // applied before the answer (the kernel's PerformTxSync), though the sandbox's API writes queue
    expect(await kramdown(sb, I.paragraphStatus)).toContain("Status: shipped via /mcp");
    expect(sb.control.count("/api/block/updateBlock")).toBe(0);
    expect(sb.control.count("/mcp")).toBe(1);
    const appended = (
      await call(5, "block", { action: "append", parentID: I.docReading, data: "via mcp" })
    ).json().result as { content: Array<{ text: string }> };
    const out = JSON.parse(appended.content[0]!.text) as { action: string; id: string };
    expect(out.action).toBe("append");
    expect(await kramdown(sb, out.id)).toContain("via mcp");
    expect((await call(6, "block", { action: "get_kramdown", id: "bad" })).json().result).toEqual({
      content: [{ type: "text", text: "block not found or empty: bad" }],
      isError: true,
    });
    expect((await call(7, "block", { action: "update" })).json().result).toEqual({
      content: [{ type: "text", text: "id is required" }],
      isError: true,
    });
    expect((await call(8, "block", { action: "explode" })).json().result).toMatchObject({
      content: [
        { text: expect.stringMatching(/^unknown action 'explode', expected one of: \[get, /) },
      ],
      isError: true,
    });
    await flush(sb);
  });

  it("unknown tools are results with isError; name matching is exact, case-insensitive, siyuan_-less", async () => {
    const sid = await session();
    const call = (name: string, args: Record<string, unknown> = { action: "version" }) =>
      mcp(
        { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name, arguments: args } },
        { "mcp-session-id": sid },
      ).then((r) => r.json().result);
    expect(await call("nope")).toEqual({
      content: [{ type: "text", text: "tool not found: nope" }],
      isError: true,
    });
    for (const n of ["system", "SYSTEM", "siyuan_system"]) {
      expect(await call(n)).toEqual({ content: [{ type: "text", text: "3.7.3" }] });
    }
    expect(await call("question", {})).toEqual({
      content: [{ type: "text", text: "question tool: should be intercepted by agent loop" }],
    });
    expect(await call("frontend", {})).toMatchObject({ isError: true });
    expect(await call("system", { action: "current_time" })).toMatchObject({
      content: [
        { text: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$/) },
      ],
    });
    expect(await call("sync", { action: "perform" })).toMatchObject({ isError: true });
  });

  it("errors: session header, JSON-RPC codes, GET 405, DELETE", async () => {
    const noSid = await mcp({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(noSid.status).toBe(400);
    expect(noSid.json()).toEqual({ error: "Mcp-Session-Id required" });
    const badSid = await mcp(
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { "mcp-session-id": "x".repeat(16) },
    );
    expect(badSid.status).toBe(404);
    expect(badSid.json()).toEqual({ error: "session not found" });
    const parse = await mcp("{not json");
    expect(parse.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: "Parse error" },
    });
    expect((await mcp([{ jsonrpc: "2.0", id: 1, method: "ping" }])).json()).toMatchObject({
      error: { code: -32700 },
    });
    expect((await mcp({ jsonrpc: "1.0", id: 1, method: "ping" })).json()).toMatchObject({
      id: 1,
      error: { code: -32600, message: "Invalid Request" },
    });
    const sid = await session();
    const h = { "mcp-session-id": sid };
    expect((await mcp({ jsonrpc: "2.0", id: 2, method: "ping" }, h)).json()).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: {},
    });
    expect(
      (await mcp({ jsonrpc: "2.0", id: 3, method: "resources/list" }, h)).json(),
    ).toMatchObject({ error: { code: -32601, message: "Method not found" } });
    expect(
      (await mcp({ jsonrpc: "2.0", id: 4, method: "tools/call", params: [] }, h)).json(),
    ).toMatchObject({ error: { code: -32602, message: "Invalid params" } });
    expect(
      (await mcp({ jsonrpc: "2.0", id: 5, method: "tools/call", params: {} }, h)).json(),
    ).toMatchObject({ error: { code: -32602, message: "Invalid params: name is required" } });
    const get = await mcp(undefined, {}, "GET");
    expect(get.status).toBe(405);
    expect(get.text).toBe("");
    expect((await mcp(undefined, {}, "DELETE")).status).toBe(400);
    const del = await mcp(undefined, h, "DELETE");
    expect(del.status).toBe(200);
    expect((await mcp({ jsonrpc: "2.0", id: 6, method: "ping" }, h)).status).toBe(404);
    // auth as every API route
    const anon = await fetch(`${sb.url}/mcp`, { method: "POST", body: "{}" });
    expect(anon.status).toBe(401);
  });
});

describe("/mcp stateless mode (MCP-Protocol-Version: 2026-07-28)", () => {
  const H = { "mcp-protocol-version": "2026-07-28" };
  it("server/discover, tools/list with ttl, no session; initialize is not a method", async () => {
    expect((await mcp({ jsonrpc: "2.0", id: 1, method: "server/discover" }, H)).json()).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: {
        protocolVersion: "2026-07-28",
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: "SiYuan", version: "3.7.3" },
      },
    });
    const list = (await mcp({ jsonrpc: "2.0", id: 2, method: "tools/list" }, H)).json().result as {
      tools: unknown[];
      ttlMs: number;
      cacheScope: string;
    };
    expect(list.tools).toHaveLength(32);
    expect(list.ttlMs).toBe(60_000);
    expect(list.cacheScope).toBe("user");
    expect((await mcp({ jsonrpc: "2.0", id: 3, method: "initialize" }, H)).json()).toMatchObject({
      error: { code: -32601 },
    });
    const mismatch = await mcp(
      { jsonrpc: "2.0", id: 4, method: "tools/list" },
      { ...H, "mcp-method": "ping" },
    );
    expect(mismatch.status).toBe(400);
    expect(mismatch.json()).toEqual({ error: "Mcp-Method header does not match body method" });
  });

  it("faults and counters apply to /mcp", async () => {
    sb.control.resetLog();
    sb.control.armFault({ endpoint: "/mcp", kind: "http5xx", status: 502 });
    expect((await mcp({ jsonrpc: "2.0", id: 1, method: "ping" }, H)).status).toBe(502);
    expect((await mcp({ jsonrpc: "2.0", id: 1, method: "ping" }, H)).status).toBe(200);
    expect(sb.control.count("/mcp")).toBe(2);
  });
});
