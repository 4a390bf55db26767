/**
 * What callers outside a kernel plugin reach of it (contract §4.11, §6, §9), over loopback HTTP:
 * the tools of `siyuan.mcp.registerTool` at `/mcp`, and the methods of `siyuan.rpc.bind` through
 * the JSON-RPC endpoints, with the listings. Driven by test/fixtures/plugins/good.
 */
import { connect } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PluginEngineKind, Sandbox } from "../src/index.js";
import { pluginFiles } from "../src/plugin-host/host.js";
import { waitFor } from "../src/testing.js";
import { start, TOKEN, usePluginEngine } from "./helpers.js";

/** Defines this file's tests with plugins running in `engine`. */
export function definePluginRpcMcpSuite(engine: PluginEngineKind): void {
  usePluginEngine(engine);

  const GOOD = join(fileURLToPath(new URL("./fixtures/plugins/", import.meta.url)), "good");
  const AUTH = { authorization: `Token ${TOKEN}` };

  let sb: Sandbox;
  beforeAll(async () => {
    sb = await start({ plugins: [GOOD] });
  });
  afterAll(() => sb.stop());

  interface Reply {
    status: number;
    text: string;
    headers: Headers;
    // biome-ignore lint/suspicious/noExplicitAny: JSON answers are inspected field by field
    json: () => any;
  }

  async function send(path: string, init: RequestInit = {}): Promise<Reply> {
    const res = await fetch(sb.url + path, {
      ...init,
      headers: { ...AUTH, ...(init.headers as Record<string, string> | undefined) },
    });
    const text = await res.text();
    return { status: res.status, text, headers: res.headers, json: () => JSON.parse(text) };
  }

  /** A JSON-RPC POST (a string body is sent as it is). */
  const rpc = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    send(path, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });

  /** One message to `/mcp` in the stateless mode (no session needed). */
  const mcp = (method: string, params?: unknown, id: number | string = 1) =>
    rpc(
      "/mcp",
      { jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) },
      { "mcp-protocol-version": "2026-07-28" },
    );

  async function toolNames(): Promise<string[]> {
    const r = await mcp("tools/list");
    return (r.json().result.tools as Array<{ name: string }>).map((t) => t.name);
  }

  async function callTool(name: string, args?: Record<string, unknown>) {
    const r = await mcp("tools/call", { name, ...(args === undefined ? {} : { arguments: args }) });
    expect(r.status).toBe(200);
    return r.json().result as { content: Array<{ type: string; text: string }>; isError?: boolean };
  }

  /** Writes a workspace file through `/api/file/putFile` (what a user or the file API would do). */
  async function putFile(path: string, data: string): Promise<void> {
    const fd = new FormData();
    fd.set("path", path);
    fd.set("file", new Blob([data]), path.split("/").pop()!);
    const r = await send("/api/file/putFile", { method: "POST", body: fd });
    expect(r.json().code).toBe(0);
  }

  /** The good plugin's files under another name, optionally with another kernel.js. */
  function goodAs(name: string, kernel?: string): { files: Record<string, string | Uint8Array> } {
    const files: Record<string, string | Uint8Array> = {};
    for (const [k, v] of pluginFiles(GOOD)) files[k] = v;
    const manifest = JSON.parse(String(files["plugin.json"]));
    files["plugin.json"] = JSON.stringify({ ...manifest, name });
    if (kernel !== undefined) files["kernel.js"] = kernel;
    return { files };
  }

  describe("plugin tools at /mcp (contract §4.11, §6)", () => {
    it("tools/list holds plugin__<plugin>__<tool> beside the natives, sorted, schema stripped", async () => {
      const r = await mcp("tools/list");
      const tools = r.json().result.tools as Array<Record<string, unknown>>;
      const names = tools.map((t) => t.name as string);
      expect(names).toEqual([...names].sort());
      expect(tools.filter((t) => t.source === "native")).toHaveLength(32);
      expect(names.filter((n) => n.startsWith("plugin__good__"))).toEqual([
        "plugin__good__boom",
        "plugin__good__echo",
        "plugin__good__schema",
        "plugin__good__text",
        "plugin__good__void",
      ]);
      // only type/properties/required/items/enum/description/… survive the Go structs
      expect(tools.find((t) => t.name === "plugin__good__schema")).toEqual({
        name: "plugin__good__schema",
        title: "Schema probe",
        description: "a schema with members the kernel drops",
        inputSchema: {
          type: "object",
          properties: {
            q: { type: "string", description: "query" },
            n: { type: "integer" },
            tags: { type: "array", items: { type: "string" } },
            mode: { type: "string", enum: ["a", "b"] },
          },
          required: ["q"],
        },
        outputSchema: { type: "object", properties: { ok: { type: "boolean" } } },
        source: "plugin",
        readOnlyHint: true,
        effectScope: "unknown",
      });
      // empty properties are left out (omitempty); no title, no readOnlyHint when not given
      expect(tools.find((t) => t.name === "plugin__good__echo")).toEqual({
        name: "plugin__good__echo",
        description: "echo",
        inputSchema: { type: "object" },
        source: "plugin",
        effectScope: "unknown",
      });
    });

    it("tools/call: the awaited return value JSON-encoded (Go escaping) into one text item", async () => {
      expect(await callTool("plugin__good__schema", { q: "hi" })).toEqual({
        content: [
          {
            type: "text",
            text: '{"html":"\\u003cb\\u003e\\u0026\\u003c/b\\u003e","ok":true,"q":"hi"}',
          },
        ],
      });
      // a string arrives quoted, undefined as null, the arguments object reaches the handler
      expect((await callTool("plugin__good__text")).content[0]!.text).toBe('"plain"');
      expect((await callTool("plugin__good__void")).content[0]!.text).toBe("null");
      const echo = await callTool("plugin__good__echo", { a: [1, { b: null }] });
      expect(JSON.parse(echo.content[0]!.text)).toEqual({ a: [1, { b: null }] });
      expect(echo.isError).toBeUndefined();
      // names are matched exactly, then case-insensitively, as for native tools
      expect((await callTool("PLUGIN__GOOD__TEXT")).content[0]!.text).toBe('"plain"');
      // the stateful mode serves them too
      const init = await rpc("/mcp", {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18" },
      });
      const sid = init.headers.get("mcp-session-id")!;
      const r = await rpc(
        "/mcp",
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "plugin__good__text" } },
        { "mcp-session-id": sid },
      );
      expect(r.json().result.content[0].text).toBe('"plain"');
    });

    it("a throwing handler gives isError with the kernel's text; an unknown plugin tool is not found", async () => {
      // the handler is async: SiYuan's text for any rejection
      expect(await callTool("plugin__good__boom")).toEqual({
        content: [
          { type: "text", text: "error invoking MCP tool handler: promise rejected: <nil>" },
        ],
        isError: true,
      });
      expect(await callTool("plugin__good__nope")).toEqual({
        content: [{ type: "text", text: "tool not found: plugin__good__nope" }],
        isError: true,
      });
    });

    it("tools go when the plugin stops or reloads without them, and come back when it starts", async () => {
      await sb.plugins.install(goodAs("second"));
      expect(await toolNames()).toContain("plugin__second__echo");
      // hot reload with a kernel.js that registers another tool: the old ones are gone
      const starts = sb.plugins.status("second")!.starts;
      await putFile(
        "/data/plugins/second/kernel.js",
        `siyuan.plugin.lifecycle.onload = async () => {
         await siyuan.mcp.registerTool("fresh", { description: "f", inputSchema: { type: "object" } }, () => 7);
       };
       siyuan.plugin.lifecycle.onrunning = () => {};
       siyuan.plugin.lifecycle.onunload = () => {};`,
      );
      await waitFor(
        () =>
          sb.plugins.status("second")?.starts === starts + 1 &&
          sb.plugins.status("second")?.state === "running",
      );
      let names = await toolNames();
      expect(names.filter((n) => n.startsWith("plugin__second__"))).toEqual([
        "plugin__second__fresh",
      ]);
      expect((await callTool("plugin__second__fresh")).content[0]!.text).toBe("7");
      expect((await callTool("plugin__second__echo")).isError).toBe(true);
      // disabled in petals.json, then reloaded: the plugin stops and stays stopped
      const petals = await send("/api/file/getFile", {
        method: "POST",
        body: JSON.stringify({ path: "/data/storage/petal/petals.json" }),
      });
      const list = petals.json() as Array<{ name: string; enabled: boolean }>;
      const set = (enabled: boolean) =>
        putFile(
          "/data/storage/petal/petals.json",
          JSON.stringify(list.map((p) => (p.name === "second" ? { ...p, enabled } : p))),
        );
      await set(false);
      await sb.plugins.reload("second");
      expect(sb.plugins.status("second")).toBeNull();
      names = await toolNames();
      expect(names.some((n) => n.startsWith("plugin__second__"))).toBe(false);
      expect(names).toContain("plugin__good__echo");
      expect((await callTool("plugin__second__fresh")).content[0]!.text).toBe(
        "tool not found: plugin__second__fresh",
      );
      // enabled and started again
      await set(true);
      await sb.plugins.reload("second");
      expect(sb.plugins.status("second")?.state).toBe("running");
      expect(await toolNames()).toContain("plugin__second__fresh");
    });
  });

  /** A plugin whose onload registers a method and a tool, then waits for a file under its storage. */
  const GATED = {
    files: {
      "plugin.json": JSON.stringify({ name: "gated", kernels: ["all"] }),
      "index.js": "module.exports = {};",
      "kernel.js": `
      siyuan.plugin.lifecycle.onload = async () => {
        await siyuan.rpc.bind("hello", () => "hi");
        await siyuan.mcp.registerTool("wait", { description: "w", inputSchema: { type: "object" } }, () => "ok");
        await siyuan.storage.watcher.add("/");
        await new Promise((resolve) => {
          siyuan.event.handler = (e) => { if (e.type === "fs-notify") resolve(); };
        });
      };
      siyuan.plugin.lifecycle.onrunning = () => {};
      siyuan.plugin.lifecycle.onunload = () => {};`,
    },
  };

  describe("plugin JSON-RPC endpoints (contract §9)", () => {
    it("a call runs the bound method: positional, named and no params; id echoed", async () => {
      const add = await rpc("/api/plugin/rpc/good", {
        jsonrpc: "2.0",
        method: "add",
        params: [2, 3],
        id: 1,
      });
      expect(add.status).toBe(200);
      expect(add.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(add.json()).toEqual({ jsonrpc: "2.0", result: 5, id: 1 });
      const named = await rpc("/api/plugin/rpc?name=good", {
        jsonrpc: "2.0",
        method: "named",
        params: { x: 1 },
        id: "a",
      });
      expect(named.json()).toEqual({ jsonrpc: "2.0", result: { got: { x: 1 }, args: 1 }, id: "a" });
      const none = await rpc("/api/plugin/rpc/good", { jsonrpc: "2.0", method: "named", id: null });
      expect(none.json()).toEqual({ jsonrpc: "2.0", result: { got: "none", args: 0 }, id: null });
      const later = await rpc("/api/plugin/rpc/good", {
        jsonrpc: "2.0",
        method: "later",
        params: ["x"],
        id: 2,
      });
      expect(later.json().result).toEqual({ later: "x" });
      const nothing = await rpc("/api/plugin/rpc/good", {
        jsonrpc: "2.0",
        method: "nothing",
        id: 3,
      });
      expect(nothing.json()).toEqual({ jsonrpc: "2.0", result: null, id: 3 });
      const ping = await rpc("/api/plugin/rpc/good", {
        jsonrpc: "2.0",
        method: "ping",
        params: ["x"],
        id: 4,
      });
      expect(ping.json().result).toBe("pong:x");
    });

    it("errors: -32601 unknown method, -32700 bad JSON, -32600, -32602, -32603 for a throw", async () => {
      const unknown = await rpc("/api/plugin/rpc/good", { jsonrpc: "2.0", method: "nope", id: 7 });
      expect(unknown.status).toBe(200);
      expect(unknown.json()).toEqual({
        jsonrpc: "2.0",
        error: {
          code: -32601,
          message: "Method not found",
          data: "method [nope] not found in plugin [good]",
        },
        id: 7,
      });
      const bad = await rpc("/api/plugin/rpc/good", "{not json");
      expect(bad.status).toBe(200);
      expect(bad.json()).toEqual({
        jsonrpc: "2.0",
        error: { code: -32700, message: "Parse error", data: "RPC request is not valid JSON" },
        id: null,
      });
      const noVersion = await rpc("/api/plugin/rpc/good", { method: "add", id: 1 });
      expect(noVersion.json().error).toMatchObject({ code: -32600, message: "Invalid Request" });
      expect(noVersion.json().id).toBeNull();
      const badParams = await rpc("/api/plugin/rpc/good", {
        jsonrpc: "2.0",
        method: "add",
        params: "text",
        id: 8,
      });
      expect(badParams.json()).toEqual({
        jsonrpc: "2.0",
        error: {
          code: -32602,
          message: "Invalid params",
          data: "Invalid params: must be array or object if present",
        },
        id: 8,
      });
      const fail = await rpc("/api/plugin/rpc/good", { jsonrpc: "2.0", method: "fail", id: 9 });
      // a throw: goja's exception text, the error and where it was thrown
      expect(fail.json().error.data).toMatch(
        /^error invoking method "fail": Error: rpc boom at .*good\/kernel\.js:\d+:\d+/,
      );
      expect({ ...fail.json(), error: { ...fail.json().error, data: "…" } }).toEqual({
        jsonrpc: "2.0",
        error: {
          code: -32603,
          message: "Internal error",
          data: "…",
        },
        id: 9,
      });
      const empty = await rpc("/api/plugin/rpc/good", "[]");
      expect(empty.json().error.code).toBe(-32600);
    });

    it("notifications get 204; a batch answers in order without the notifications", async () => {
      const before = (
        await rpc("/api/plugin/rpc/good", { jsonrpc: "2.0", method: "bump", id: 1 })
      ).json().result as number;
      const note = await rpc("/api/plugin/rpc/good", { jsonrpc: "2.0", method: "bump" });
      expect(note.status).toBe(204);
      expect(note.text).toBe("");
      const batch = await rpc("/api/plugin/rpc/good", [
        { jsonrpc: "2.0", method: "add", params: [1, 1], id: "x" },
        { jsonrpc: "2.0", method: "bump" },
        5,
        { jsonrpc: "2.0", method: "nope", id: "y" },
      ]);
      expect(batch.status).toBe(200);
      const answers = batch.json() as Array<Record<string, unknown>>;
      expect(answers).toHaveLength(3);
      expect(answers[0]).toEqual({ jsonrpc: "2.0", result: 2, id: "x" });
      expect(answers[1]).toMatchObject({ error: { code: -32600 }, id: null });
      expect(answers[2]).toMatchObject({ error: { code: -32601 }, id: "y" });
      const onlyNotes = await rpc("/api/plugin/rpc/good", [{ jsonrpc: "2.0", method: "bump" }]);
      expect(onlyNotes.status).toBe(204);
      // the three notifications ran
      await waitFor(async () => {
        const r = await rpc("/api/plugin/rpc/good", { jsonrpc: "2.0", method: "bump", id: 1 });
        return (r.json().result as number) >= before + 4;
      });
    });

    it("-32001 for a plugin not installed, -32002 while loading or in error; auth as CheckAuth", async () => {
      const missing = await rpc("/api/plugin/rpc/nosuch", { jsonrpc: "2.0", method: "x", id: 1 });
      expect(missing.status).toBe(200);
      expect(missing.json()).toEqual({
        jsonrpc: "2.0",
        error: { code: -32001, message: "Plugin not loaded" },
        id: null,
      });
      const noName = await rpc("/api/plugin/rpc", { jsonrpc: "2.0", method: "x", id: 1 });
      expect(noName.json().error.code).toBe(-32001);
      const unauth = await fetch(`${sb.url}/api/plugin/rpc/good`, {
        method: "POST",
        body: JSON.stringify({ jsonrpc: "2.0", method: "add", params: [1, 2], id: 1 }),
      });
      expect(unauth.status).toBe(401);

      const installing = sb.plugins.install(GATED);
      await waitFor(() => sb.plugins.status("gated")?.state === "loading");
      await waitFor(async () => (await toolNames()).includes("plugin__gated__wait"));
      const loading = await rpc("/api/plugin/rpc/gated", {
        jsonrpc: "2.0",
        method: "hello",
        id: 1,
      });
      expect(loading.json()).toEqual({
        jsonrpc: "2.0",
        error: { code: -32002, message: "Plugin not running" },
        id: null,
      });
      // listed while loading (registered in onload), but not callable
      expect(await callTool("plugin__gated__wait")).toEqual({
        content: [{ type: "text", text: "plugin [gated] not running (state: [loading])" }],
        isError: true,
      });
      const listed = (await send("/api/plugin")).json().data as Array<Record<string, unknown>>;
      expect(listed.find((p) => p.name === "gated")).toEqual({
        name: "gated",
        state: "loading",
        stateCode: 1,
        methods: [{ name: "hello", descriptions: [] }],
      });
      // the gate: a file under the plugin's storage (fs-notify)
      await putFile("/data/storage/petal/gated/gate", "open");
      await installing;
      expect(sb.plugins.status("gated")?.state).toBe("running");
      const hello = await rpc("/api/plugin/rpc/gated", { jsonrpc: "2.0", method: "hello", id: 2 });
      expect(hello.json()).toEqual({ jsonrpc: "2.0", result: "hi", id: 2 });
      expect((await callTool("plugin__gated__wait")).content[0]!.text).toBe('"ok"');

      await sb.plugins.install({
        files: {
          "plugin.json": JSON.stringify({ name: "broken", kernels: ["all"] }),
          "index.js": "",
          "kernel.js": 'throw new Error("top level");',
        },
      });
      expect(sb.plugins.status("broken")?.state).toBe("error");
      const broken = await rpc("/api/plugin/rpc/broken", { jsonrpc: "2.0", method: "x", id: 1 });
      expect(broken.json().error).toEqual({ code: -32002, message: "Plugin not running" });
    });

    it("GET /api/plugin and POST /api/plugin/listLoadedPlugins list plugins with their methods", async () => {
      const get = await send("/api/plugin");
      expect(get.status).toBe(200);
      const post = await send("/api/plugin/listLoadedPlugins", { method: "POST" });
      expect(post.json()).toEqual(get.json());
      const body = get.json() as {
        code: number;
        msg: string;
        data: Array<{ name: string; methods: unknown[] }>;
      };
      expect(body.code).toBe(0);
      expect(body.msg).toBe("");
      const good = body.data.find((p) => p.name === "good")!;
      expect(good).toMatchObject({ name: "good", state: "running", stateCode: 2 });
      expect(good.methods).toContainEqual({ name: "ping", descriptions: ["answers pong"] });
      expect(good.methods).toContainEqual({
        name: "add",
        descriptions: ["adds two numbers", "(a, b) → a + b"],
      });
      // a wrong method is gin's 404; the listing needs auth
      expect((await send("/api/plugin/listLoadedPlugins")).status).toBe(404);
      expect((await fetch(`${sb.url}/api/plugin`)).status).toBe(401);
    });

    it("/ws/plugin/rpc/<name>: an upgrade answers 501 (no WebSocket), a plain GET 400", async () => {
      const ws = await new Promise<string>((resolve) => {
        const s = connect(sb.port, "127.0.0.1", () =>
          s.write(
            `GET /ws/plugin/rpc/good HTTP/1.1\r\nHost: x\r\nAuthorization: Token ${TOKEN}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
          ),
        );
        let d = "";
        s.on("data", (c) => {
          d += c;
          if (d.includes("upgrades")) s.destroy();
        });
        s.on("close", () => resolve(d));
      });
      expect(ws).toMatch(/^HTTP\/1\.1 501/);
      expect(ws).toContain("[plugin:good] siyuan-sandbox does not serve WebSocket upgrades");
      const plain = await send("/ws/plugin/rpc/good");
      expect(plain.status).toBe(400);
      expect(plain.text).toBe("This endpoint only accepts WebSocket connections");
      const missing = await send("/ws/plugin/rpc/nosuch");
      expect(missing.status).toBe(404);
      expect(missing.json().error.code).toBe(-32001);
    });

    it("faults and counters apply to the RPC endpoint and to plugin tool calls", async () => {
      const path = "/api/plugin/rpc/good";
      const before = sb.control.count(path);
      const mcpBefore = sb.control.count("/mcp");
      const bump = () => rpc(path, { jsonrpc: "2.0", method: "bump", id: 1 });
      const first = (await bump()).json().result as number;
      sb.control.armFault({ endpoint: path, kind: "http5xx" });
      const failed = await bump();
      expect(failed.status).toBe(500);
      sb.control.armFault({ endpoint: path, kind: "silentDrop" });
      const dropped = await bump();
      expect(dropped.status).toBe(200);
      expect(dropped.text).toBe("");
      // neither the 5xx nor the silent drop ran the method
      expect((await bump()).json().result).toBe(first + 1);
      sb.control.armFault({ endpoint: path, kind: "refuse" });
      await expect(bump()).rejects.toThrow();
      expect(sb.control.count(path)).toBe(before + 5);
      await callTool("plugin__good__text");
      expect(sb.control.count("/mcp")).toBe(mcpBefore + 1);
    });
  });
}
