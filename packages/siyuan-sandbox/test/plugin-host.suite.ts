/**
 * The kernel-plugin host (contract Part 2) over loopback HTTP: the test plugins under
 * test/fixtures/plugins/ (good: every part of the host; bad: what the real kernel refuses).
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PluginEngineKind } from "../src/index.js";
import {
  CORRUPTION_MARKER,
  checkLanguageLevel,
  readZip,
  type Sandbox,
  writeZip,
} from "../src/index.js";
import { pluginFiles } from "../src/plugin-host/host.js";
import { observeQuietFor, waitFor } from "../src/testing.js";
import { post, start, TOKEN, usePluginEngine } from "./helpers.js";

/** Defines this file's tests with plugins running in `engine`. */
export function definePluginHostSuite(engine: PluginEngineKind): void {
  usePluginEngine(engine);

  const FIXTURES = fileURLToPath(new URL("./fixtures/plugins/", import.meta.url));
  const GOOD = join(FIXTURES, "good");
  const BAD = join(FIXTURES, "bad");
  const AUTH = { authorization: `Token ${TOKEN}` };
  const tmp = mkdtempSync(join(tmpdir(), "siyuan-sandbox-plugins-"));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  /** The bad plugin's files with another kernel.js (a variant) and name. */
  function badVariant(variant: string, name: string): { files: Record<string, string> } {
    const files: Record<string, string> = {
      "plugin.json": JSON.stringify({ name, kernels: ["all"] }),
      "index.js": "module.exports = {};",
      "kernel.js": readFileSync(join(BAD, "variants", `${variant}.js.txt`), "utf8"),
    };
    return { files };
  }

  /** Files of the good plugin, optionally renamed / with another plugin.json patch. */
  function goodFiles(patch: Record<string, unknown> = {}, drop: string[] = []) {
    const files: Record<string, string | Uint8Array> = {};
    for (const [k, v] of pluginFiles(GOOD)) if (!drop.includes(k)) files[k] = v;
    const manifest = JSON.parse(
      String(files["plugin.json"] ? Buffer.from(files["plugin.json"]) : "{}"),
    );
    files["plugin.json"] = JSON.stringify({ ...manifest, ...patch });
    return { files };
  }

  function pluginFetch(sb: Sandbox, plugin: string, path: string, init: RequestInit = {}) {
    return fetch(`${sb.url}/plugin/private/${plugin}${path}`, {
      ...init,
      headers: { ...AUTH, ...(init.headers as Record<string, string> | undefined) },
    });
  }
  async function json<T = Record<string, unknown>>(r: Response | Promise<Response>): Promise<T> {
    return (await (await r).json()) as T;
  }

  function refusedCode(port: number): Promise<string> {
    return new Promise((resolve) => {
      const s = connect(port, "127.0.0.1");
      s.on("connect", () => {
        s.destroy();
        resolve("connected");
      });
      s.on("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? "?"));
    });
  }

  let sb: Sandbox;
  const good = (path: string, init?: RequestInit) => pluginFetch(sb, "good", path, init);
  beforeAll(async () => {
    sb = await start({
      plugins: [GOOD, BAD],
      pluginHost: { secrets: { API_KEY: "k-123" }, vars: { REGION: "eu" } },
    });
  });
  afterAll(() => sb.stop());

  describe("globals of kernel.js (contract §6)", () => {
    it("has exactly goja's globals: no fetch, TextEncoder, crypto, process, Intl, …", async () => {
      const g = await json<{
        types: Record<string, string>;
        missing: Record<string, string>;
        present: Record<string, string>;
      }>(good("/globals"));
      for (const absent of [
        "fetch",
        "TextEncoder",
        "TextDecoder",
        "crypto",
        "AbortController",
        "process",
        "structuredClone",
        "queueMicrotask",
        "ReadableStream",
        "Blob",
        "FormData",
        "atob",
        "btoa",
        "performance",
        "Intl",
        "WeakRef",
        "FinalizationRegistry",
        "Atomics",
        "SharedArrayBuffer",
        "WebAssembly",
      ]) {
        expect(g.types[absent], absent).toBe("undefined");
      }
      for (const fn of [
        "Buffer",
        "URL",
        "URLSearchParams",
        "require",
        "setTimeout",
        "setInterval",
        "setImmediate",
        "clearTimeout",
        "clearInterval",
        "clearImmediate",
        "Promise",
      ]) {
        expect(g.types[fn], fn).toBe("function");
      }
      expect(g.types.console).toBe("object");
      expect(g.types.siyuan).toBe("object");
      expect(Object.values(g.missing)).toEqual([
        "undefined",
        "undefined",
        "undefined",
        "undefined",
        "undefined",
      ]);
      expect(Object.values(g.present).every((t) => t === "function")).toBe(true);
    });

    it("Buffer is goja_nodejs's: base64Url (not base64url), concat and write but no isBuffer, no numeric constructor", async () => {
      const { buffer } = await json<{ buffer: Record<string, unknown> }>(good("/globals"));
      expect(buffer).toEqual({
        b64url: "aGk_Pg",
        b64: "aGk/Pg==",
        fromB64url: "hi?>",
        lowercaseUrl: "throws TypeError: Unknown encoding: base64url",
        hex: "01ff",
        concat: "function",
        concatHex: "61626300",
        write: "2 5 006869010200",
        writeRange: 'throws RangeError: The value of "value" 256 is out of range.',
        isBuffer: "undefined",
        isUint8Array: true,
        read: 258,
        numeric:
          "throws TypeError: Calling the Buffer constructor with numeric argument is not implemented yet",
      });
    });

    it("require has buffer/console/url/util only; siyuan is frozen and lifecycle sealed", async () => {
      const g = await json<Record<string, unknown>>(good("/globals"));
      expect(g.require).toEqual({
        buffer: "function",
        nodeUrl: "function",
        util: "a-1",
        fs: "throws GoError: Invalid module",
        relative: "throws GoError: Invalid module",
      });
      // the vm engine's require records what it did not have (goja's is goja_nodejs's own)
      if (engine === "vm") {
        expect(sb.plugins.missedRequires().map((m) => m.id)).toEqual(
          expect.arrayContaining(["fs", "./other.js"]),
        );
      }
      expect(g.siyuanFrozen).toBe(true);
      expect(g.lifecycleSealed).toBe(true);
      expect(String(g.onloaded)).toMatch(/^throws TypeError/); // no onloaded hook in 3.7.3
      expect(String(g.reassign)).toMatch(/^throws TypeError/);
      expect(g.regexRuntime).toBe(
        "throws SyntaxError: Invalid flags supplied to RegExp constructor 'd'",
      );
      expect(g.url).toBe("1");
      expect(g.plugin).toEqual({
        name: "good",
        version: "1.2.3",
        displayName: "Good test plugin",
        platform:
          process.platform === "win32"
            ? "windows"
            : process.platform === "darwin"
              ? "darwin"
              : "linux",
        i18n: { hello: "Hello from i18n" },
      });
    });

    it("console and siyuan.logger lines reach the plugin log", async () => {
      await good("/log");
      const lines = sb.plugins.logs("good").map((l) => `${l.level} ${l.text}`);
      expect(lines).toEqual(
        expect.arrayContaining([
          "info [plugin:good] console line [object Object]",
          'info [plugin:good] logger line {"b":2}',
          "warn [plugin:good] careful",
        ]),
      );
    });
  });

  describe("language level (contract §6): goja's, checked before the script runs", () => {
    const cases: Array<[string, RegExp, "compile" | "mistranslated"]> = [
      [
        "top-level-import",
        /import' and 'export' may appear only with 'sourceType: module'/,
        "compile",
      ],
      ["async-generator", /Async generators are not supported yet/, "compile"],
      ["for-await", /for await/, "compile"],
      ["regex-d-flag", /Invalid flags supplied to RegExp constructor 'd'/, "compile"],
      ["using", /'using' declarations are not supported/, "compile"],
      ["decorator", /SyntaxError/, "compile"],
      ["named-group", /named group/, "mistranslated"],
      ["property-escape", /\\p\{…\} escape/, "mistranslated"],
    ];
    for (const [variant, message, kind] of cases) {
      it(`${variant}: refused, the plugin is in error and its route answers 503`, async () => {
        const name = `bad-${variant}`;
        await sb.plugins.install(badVariant(variant, name));
        const st = sb.plugins.status(name);
        expect(st).toMatchObject({ state: "error", stateCode: 5 });
        expect(st?.error).toMatch(message);
        expect(
          checkLanguageLevel(readFileSync(join(BAD, "variants", `${variant}.js.txt`), "utf8"))
            ?.kind,
        ).toBe(kind);
        const r = await pluginFetch(sb, name, "/x");
        expect(r.status).toBe(503);
        expect(await r.text()).toBe(`[plugin:${name}] is not running`);
      });
    }

    it("a top-level TextEncoder throws when the script runs: error state, like goja", async () => {
      await sb.plugins.install(badVariant("top-level-throw", "bad-top-throw"));
      expect(sb.plugins.status("bad-top-throw")).toMatchObject({ state: "error" });
      expect(sb.plugins.status("bad-top-throw")?.error).toMatch(/TextEncoder is not defined/);
    });

    it("accepts what goja supports (ES2022 classes, ??, ?., BigInt, generators, lookbehind)", () => {
      const src = `class A { #x = 1; static { this.s = 2n ** 3n; } get x() { return this.#x ?? 0; } }
      function* g() { yield 1; } const o = { a: { b: 1 } }; o.a?.b; let z = null; z ||= 3;
      const re = /(?<=a)b/gu; [1, 2].at(-1); Object.hasOwn(o, "a"); async function f() { await 1; }`;
      expect(checkLanguageLevel(src)).toBeNull();
      expect(checkLanguageLevel("const r = /[\\p{L}]/;")).toBeNull(); // \\p inside a class, no u: a literal "p"
      expect(checkLanguageLevel("const r = /\\\\p\\{L\\}/u;")).toBeNull(); // an escaped backslash
      expect(checkLanguageLevel("const r = /a/v;")?.message).toMatch(/Invalid flags/);
      expect(checkLanguageLevel("import('x');")?.message).toMatch(/dynamic import/);
      expect(checkLanguageLevel("await 1;")?.kind).toBe("compile"); // no top-level await
      expect(checkLanguageLevel("const o = { async *g() {} };")?.message).toMatch(
        /Async generators/,
      );
    });

    it("the bad plugin: onload's TextEncoder is logged, fetch/structuredClone fail in the handler", async () => {
      expect(sb.plugins.status("bad")).toMatchObject({ state: "running" });
      expect(sb.plugins.logs("bad").map((l) => l.text)).toContain(
        "[plugin:bad] lifecycle.onload failed: TextEncoder is not defined",
      );
      // the handler is async: SiYuan reports every rejection as "promise rejected: <nil>"
      const f = await pluginFetch(sb, "bad", "/fetch");
      expect(f.status).toBe(500);
      expect(await f.text()).toBe(
        "[plugin:bad] Error occurred while handling HTTP request: promise rejected: <nil>",
      );
      const c = await pluginFetch(sb, "bad", "/clone");
      expect([c.status, await c.text()]).toEqual([
        500,
        "[plugin:bad] Error occurred while handling HTTP request: promise rejected: <nil>",
      ]);
      expect((await pluginFetch(sb, "bad", "/other")).status).toBe(200);
    });
  });

  describe("plugin.json, petals.json and the kernel part (contract §5)", () => {
    const cases: Array<[string, ReturnType<typeof goodFiles>]> = [
      ["no kernels", goodFiles({ name: "nokernels", kernels: undefined })],
      ["empty kernels", goodFiles({ name: "emptykernels", kernels: [] })],
      ["another backend", goodFiles({ name: "android-only", kernels: ["android"] })],
      ["minAppVersion above 3.7.3", goodFiles({ name: "future", minAppVersion: "3.8.0" })],
      ["no index.js", goodFiles({ name: "noindex" }, ["index.js"])],
    ];
    for (const [what, source] of cases) {
      it(`${what}: the kernel part never starts (404)`, async () => {
        const name = await sb.plugins.install(source);
        expect(sb.plugins.status(name)).toBeNull();
        const r = await pluginFetch(sb, name, "/memory");
        expect(r.status).toBe(404);
        expect(await r.text()).toBe(`[plugin:${name}] not found`);
      });
    }

    it("installs into data/plugins and enables in petals.json (visible through /api/file)", async () => {
      const r = await fetch(`${sb.url}/api/file/getFile`, {
        method: "POST",
        headers: AUTH,
        body: JSON.stringify({ path: "/data/storage/petal/petals.json" }),
      });
      const petals = (await r.json()) as Array<{ name: string; enabled: boolean }>;
      expect(petals).toEqual(expect.arrayContaining([{ name: "good", enabled: true }]));
      const k = await fetch(`${sb.url}/api/file/getFile`, {
        method: "POST",
        headers: AUTH,
        body: JSON.stringify({ path: "/data/plugins/good/kernel.js" }),
      });
      expect(await k.text()).toBe(readFileSync(join(GOOD, "kernel.js"), "utf8"));
    });

    it("reads package.zip (deflated, with or without a top folder)", async () => {
      const files = pluginFiles(GOOD);
      files.set("plugin.json", Buffer.from(JSON.stringify({ name: "zipped", kernels: ["all"] })));
      const zipped = join(tmp, "package.zip");
      writeFileSync(zipped, writeZip(new Map([...files].map(([k, v]) => [`zipped/${k}`, v]))));
      expect([...readZip(readFileSync(zipped)).keys()]).toContain("zipped/kernel.js");
      expect(await sb.plugins.install(zipped)).toBe("zipped");
      expect(await json(pluginFetch(sb, "zipped", "/memory"))).toEqual({ calls: 1 });
      expect(() => readZip(Buffer.from("not a zip at all, not at all"))).toThrow(/not a zip/);
    });
  });

  describe("routing /plugin/private/<name>/* (contract §8.1)", () => {
    it("auth: no token → 401 JSON; query token and plugin JWT pass", async () => {
      const r = await fetch(`${sb.url}/plugin/private/good/memory`);
      expect(r.status).toBe(401);
      expect(await r.json()).toEqual({ code: -1, msg: "Auth failed [session]" });
      const wrong = await fetch(`${sb.url}/plugin/private/good/memory`, {
        headers: { authorization: "Token nope" },
      });
      expect(wrong.status).toBe(401);
      expect((await fetch(`${sb.url}/plugin/private/good/memory?token=${TOKEN}`)).status).toBe(200);
      const jwt = sb.plugins.tokenOf("good")!;
      expect(jwt.split(".")).toHaveLength(3);
      const viaJwt = await fetch(`${sb.url}/plugin/private/good/memory`, {
        headers: { "x-auth-token": jwt },
      });
      expect(viaJwt.status).toBe(200);
    });

    it("404 / 503 / 500 texts and the trailing-slash redirect", async () => {
      const nf = await pluginFetch(sb, "nobody", "/x");
      expect([nf.status, await nf.text()]).toEqual([404, "[plugin:nobody] not found"]);
      // a throw: goja's exception text, the error and where it was thrown
      const th = await good("/throw");
      expect(th.status).toBe(500);
      expect(await th.text()).toMatch(
        /^\[plugin:good\] Error occurred while handling HTTP request: Error: boom at .*good\/kernel\.js:\d+:\d+/,
      );
      // a rejection: SiYuan's callback never sees the reason
      const rj = await good("/reject");
      expect(await rj.text()).toBe(
        "[plugin:good] Error occurred while handling HTTP request: promise rejected: <nil>",
      );
      const redirect = await fetch(`${sb.url}/plugin/private/good`, {
        headers: AUTH,
        redirect: "manual",
      });
      expect(redirect.status).toBe(301);
      expect(redirect.headers.get("location")).toBe("/plugin/private/good/");
      const nf2 = await good("/nothing");
      expect(await nf2.json()).toEqual({ notFound: "/nothing", thisIsSlot: true }); // this = the slot
    });

    it("a WebSocket upgrade is answered 501 (the sandbox serves no WebSocket)", async () => {
      const text = await new Promise<string>((resolve) => {
        const s = connect(sb.port, "127.0.0.1", () =>
          s.write(
            `GET /plugin/private/good/ws HTTP/1.1\r\nHost: x\r\nAuthorization: Token ${TOKEN}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
          ),
        );
        let d = "";
        s.on("data", (c) => {
          d += c;
          if (d.includes("upgrades")) s.destroy();
        });
        s.on("close", () => resolve(d));
      });
      expect(text).toMatch(/^HTTP\/1\.1 501/);
      expect(text).toContain("[plugin:good] siyuan-sandbox does not serve WebSocket upgrades");
    });

    it("the request object field by field (contract §8.2)", async () => {
      const r = await good("/echo?x=1&x=2&y=%20z", {
        method: "PUT",
        headers: {
          "content-type": "application/json; charset=utf-8",
          cookie: "a=1; b=2",
          "mcp-session-id": "s1",
          referer: "http://ref.test/",
          "user-agent": "tester/1",
        },
        body: '{"k":"v"}',
      });
      const e = await json<{
        url: Record<string, unknown>;
        request: Record<string, unknown> & { headers: Record<string, string[]> };
        context: Record<string, unknown>;
        body: string;
      }>(r);
      expect(e.url).toEqual({
        user: null,
        host: `127.0.0.1:${sb.port}`,
        path: "/plugin/private/good/echo",
        pathname: "/plugin/private/good/echo",
        fragment: "",
        hash: "",
        search: "x=1&x=2&y=%20z",
        query: { x: ["1", "2"], y: [" z"] },
      });
      expect(e.request).toMatchObject({
        method: "PUT",
        uri: "/plugin/private/good/echo?x=1&x=2&y=%20z",
        proto: "HTTP/1.1",
        protoMajor: 1,
        protoMinor: 1,
        cookies: { a: ["1"], b: ["2"] },
        contentType: "application/json",
        contentLength: 9,
        referer: "http://ref.test/",
        userAgent: "tester/1",
      });
      expect(e.request.headers["Mcp-Session-Id"]).toEqual(["s1"]);
      expect(e.request.headers.Cookie).toBeUndefined();
      expect(e.request.headers.Authorization).toBeUndefined();
      expect(e.context).toMatchObject({
        path: "/echo",
        fullPath: "/plugin/private/:name/*path",
        clientIp: "127.0.0.1",
        remoteIp: "127.0.0.1",
        params: { name: ["good"], path: ["/echo"] },
      });
      expect(String(e.context.remoteAddr)).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(e.body).toBe('{"k":"v"}');
    });

    it("multipart gives form (data null); urlencoded gives neither", async () => {
      const fd = new FormData();
      fd.set("title", "T");
      fd.set("upload", new Blob(["file body"]), "a.txt");
      const m = await json(good("/form", { method: "POST", body: fd }));
      expect(m).toEqual({
        values: { title: ["T"] },
        filename: "a.txt",
        size: 9,
        content: "file body",
        dataIsNull: true,
      });
      const u = await json(
        good("/urlencoded", {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "a=1",
        }),
      );
      expect(u).toEqual({ form: null, text: "" });
    });

    it("emit/broadcast are recorded; mcp rejects an array type; socket/event do not connect", async () => {
      expect(await json(good("/misc"))).toEqual({
        arrayType: "rejected: invalid json schema: type must be a string",
        socket:
          "rejected: siyuan-sandbox: siyuan.client.socket is not supported (the sandbox serves no WebSocket)",
        eventError: "siyuan-sandbox: siyuan.client.event is not supported",
        timerError: "after",
        alloc: "abab",
      });
      expect(sb.plugins.emitted().filter((e) => e.plugin === "good")).toEqual(
        expect.arrayContaining([
          { plugin: "good", kind: "emit", topic: "topic-a", payload: { x: 1 } },
          { plugin: "good", kind: "broadcast", topic: "note.changed", payload: [1, 2] },
        ]),
      );
      // goja_nodejs's event loop drops what a timer callback throws: no log line, the plugin runs on
      expect(sb.plugins.logs("good").some((l) => l.text.includes("timer throws"))).toBe(false);
      expect(sb.plugins.status("good")?.state).toBe("running");
    });

    it("a client that leaves a hanging handler releases the path lock", async () => {
      const ac = new AbortController();
      const hanging = good("/hang", { signal: ac.signal });
      await waitFor(() => sb.control.count("/plugin/private/good/hang") > 0);
      ac.abort();
      await expect(hanging).rejects.toThrow();
      const r = await good("/hang?ok=1");
      expect(await r.json()).toBe("answered");
    });

    it("secrets and vars resolve from the host stores (unknown names stay)", async () => {
      expect(await json(good("/secrets"))).toEqual({
        secret: "key=k-123",
        vars: "eu/{{vars.UNKNOWN}}",
      });
    });
  });

  describe("response kinds (contract §8.3)", () => {
    const kind = (k: string, extra = "", init?: RequestInit) => good(`/kind?k=${k}${extra}`, init);

    it("data JSON: Go escaping, status, last header value, cookies", async () => {
      const r = await kind("json");
      expect(r.status).toBe(201);
      expect(r.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(r.headers.get("x-one")).toBe("b");
      expect(r.headers.getSetCookie()).toEqual(["s=1; Path=/; HttpOnly; SameSite=Strict", "t=2"]);
      expect(await r.text()).toBe(
        '{"html":"\\u003cb\\u003e\\u0026\\u003c/b\\u003e","when":"1970-01-01T00:00:00.000Z"}',
      );
      expect(await (await kind("pure")).text()).toBe('{"html":"<b>"}\n');
      expect(await (await kind("indented")).text()).toBe('{\n    "a": 1\n}');
      expect(await (await kind("ascii")).text()).toBe('{"s":"\\u00e9<"}');
      expect(await (await kind("secure")).text()).toBe("while(1);[1]");
      const jsonp = await kind("jsonp", "&callback=cb");
      expect([jsonp.headers.get("content-type"), await jsonp.text()]).toEqual([
        "application/javascript; charset=utf-8",
        'cb({"a":1});',
      ]);
      for (const t of ["xml", "bogus"]) {
        const x = await kind(t);
        expect(x.status).toBe(500);
        expect(await x.text()).toMatch(
          /^\[plugin:good\] Error occurred while handling HTTP request: /,
        );
      }
    });

    it("string (printf), raw (Buffer, ArrayBuffer, string), none, undefined, first non-null wins", async () => {
      const s = await kind("string");
      expect([s.status, s.headers.get("content-type"), await s.text()]).toEqual([
        202,
        "text/plain; charset=utf-8",
        // SiYuan decodes values into []any: numbers are float64, so %d does not fit them
        'list has %!d(float64=3) items, 3 in all ("x")%%!(EXTRA float64=1.234567e+06)',
      ]);
      const raw = await kind("raw");
      expect(raw.headers.get("content-type")).toBe("application/octet-stream");
      expect([...new Uint8Array(await raw.arrayBuffer())]).toEqual([0, 1, 2, 255]);
      expect(await (await kind("rawab")).text()).toBe("hi");
      const csv = await kind("rawstring");
      expect([csv.headers.get("content-type"), await csv.text()]).toEqual(["text/csv", "a,b\n1,2"]);
      const none = await kind("none");
      expect([none.status, await none.text()]).toEqual([204, ""]);
      const und = await kind("undefined");
      expect([und.status, await und.text()]).toEqual([200, ""]);
      expect(await (await kind("first")).text()).toBe("string wins");
    });

    it("redirect (3xx only) and file (OS path, Range, name → attachment, statusCode ignored)", async () => {
      const r = await kind("redirect", "", { redirect: "manual" });
      expect([r.status, r.headers.get("location")]).toEqual([302, "/elsewhere"]);
      expect((await kind("badredirect")).status).toBe(500);
      const p = join(tmp, "served.txt");
      writeFileSync(p, "0123456789");
      const whole = await kind("file", `&path=${encodeURIComponent(p)}`);
      expect([whole.status, whole.headers.get("content-type"), await whole.text()]).toEqual([
        200,
        "text/plain; charset=utf-8",
        "0123456789",
      ]);
      const part = await kind("file", `&path=${encodeURIComponent(p)}&name=n.txt`, {
        headers: { range: "bytes=2-4" },
      });
      expect(part.status).toBe(206);
      expect(part.headers.get("content-range")).toBe("bytes 2-4/10");
      expect(part.headers.get("content-disposition")).toBe('attachment; filename="n.txt"');
      expect(await part.text()).toBe("234");
      expect((await kind("file", `&path=${encodeURIComponent(join(tmp, "nope"))}`)).status).toBe(
        404,
      );
    });

    describe("proxy", () => {
      let upstream: Server;
      let up = "";
      beforeAll(async () => {
        upstream = createServer((req, res) => {
          if (req.url === "/r") {
            res.writeHead(302, { location: "/final" }).end();
            return;
          }
          res.writeHead(203, { "x-up": "1", "set-cookie": "u=1", "content-type": "text/plain" });
          res.end(`upstream ${req.method} ${req.url}`);
        });
        await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", () => r()));
        up = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
      });
      afterAll(() => new Promise<void>((r) => upstream.close(() => r())));

      it("streams the upstream status and headers (Set-Cookie dropped), follows redirects", async () => {
        const r = await kind("proxy", `&url=${encodeURIComponent(`${up}/r`)}`);
        expect(r.status).toBe(203);
        expect(r.headers.get("x-up")).toBe("1");
        expect(r.headers.get("set-cookie")).toBeNull();
        expect(await r.text()).toBe("upstream GET /final");
      });

      it("only http(s) GET/HEAD: bad input 400, upstream down 502", async () => {
        expect(
          (await kind("proxy", `&url=${encodeURIComponent(`${up}/x`)}&method=POST`)).status,
        ).toBe(400);
        expect(
          (await kind("proxy", `&url=${encodeURIComponent("file:///etc/passwd")}`)).status,
        ).toBe(400);
        // the incoming method is the default: a POST to the plugin proxies as POST → 400
        expect(
          (await kind("proxy", `&url=${encodeURIComponent(`${up}/x`)}`, { method: "POST" })).status,
        ).toBe(400);
        expect(
          (await kind("proxy", `&url=${encodeURIComponent("http://127.0.0.1:1/")}`)).status,
        ).toBe(502);
      });
    });

    it("a plain HTTP answer is buffered until the handler settles", async () => {
      const t0 = Date.now();
      const r = await good("/slow?tag=buffered&ms=250");
      const headersAt = Date.now() - t0; // fetch resolves on the response head
      expect(r.status).toBe(200);
      expect(headersAt).toBeGreaterThanOrEqual(240);
      await good("/order");
    });
  });

  describe("SSE (contract §8.4)", () => {
    it("only Accept exactly text/event-stream reaches es; events as gin writes them; onclose fires", async () => {
      const before = (await json<{ sseClosed: number }>(good("/sse-state"))).sseClosed;
      const r = await good("/sse", { headers: { accept: "text/event-stream" } });
      expect(r.headers.get("content-type")).toBe("text/event-stream");
      expect(r.headers.get("cache-control")).toBe("no-cache");
      expect(await r.text()).toBe(
        "id:1\nevent:greeting\ndata:first\n\n" +
          'id:2\ndata:{"n":1,"method":"GET"}\n\n' +
          'id:3\ndata:{"n":2,"method":"GET"}\n\n' +
          "retry:1500\ndata:line1\ndata:line2\n\n",
      );
      expect((await json<{ sseClosed: number }>(good("/sse-state"))).sseClosed).toBe(before + 1);
      // an MCP-style Accept goes to the http slot
      const mcp = await good("/sse", {
        headers: { accept: "application/json, text/event-stream" },
      });
      expect(await mcp.json()).toEqual({ notFound: "/sse", thisIsSlot: true });
      // any method: a POST with the exact Accept is SSE too
      const p = await good("/sse", {
        method: "POST",
        headers: { accept: "text/event-stream" },
        body: "x",
      });
      expect(await p.text()).toContain('"method":"POST"');
    });

    it("es handler errors are 500 with the SSE wording; send without data throws", async () => {
      const r = await good("/nope", { headers: { accept: "text/event-stream" } });
      expect(r.status).toBe(500);
      expect(await r.text()).toMatch(
        /^\[plugin:good\] Error occurred while handling SSE request: Error: no SSE at \/nope at .*kernel\.js:\d+:\d+/,
      );
      const b = await good("/sse-bad", { headers: { accept: "text/event-stream" } });
      expect(await b.text()).toMatch(
        /^\[plugin:good\] Error occurred while handling SSE request: TypeError: port\.send: event\.data is required at /,
      );
    });

    it("an open SSE GET blocks every other request to that path until it ends (3.7.3)", async () => {
      const ac = new AbortController();
      const stream = await good("/sse-hold", {
        headers: { accept: "text/event-stream" },
        signal: ac.signal,
      });
      const reader = stream.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      expect(first).toBe("data:opened\n\n");
      let answered = false;
      const path = "/plugin/private/good/sse-hold";
      const arrived = sb.control.count(path);
      const other = good("/sse-hold", { method: "POST", body: "{}" }).then(async (r) => {
        answered = true;
        return r.status;
      });
      await waitFor(() => sb.control.count(path) > arrived, { what: "the POST at the host" });
      await observeQuietFor(200, () => answered, {
        what: "an answer to the POST while the stream on its path is open",
      });
      expect(answered).toBe(false);
      const closedBefore = (await json<{ sseClosed: number }>(good("/sse-state"))).sseClosed;
      ac.abort();
      expect(await other).toBe(404); // the plugin's own "not found" JSON: it reached the handler
      await waitFor(
        async () =>
          (await json<{ sseClosed: number }>(good("/sse-state"))).sseClosed > closedBefore,
      );
    });
  });

  describe("per-exact-path serialisation (contract §1.4, §8.6)", () => {
    let parallel: Sandbox;
    beforeAll(async () => {
      parallel = await start({ plugins: [GOOD], pluginHost: { serialisePaths: false } });
    });
    afterAll(() => parallel.stop());

    async function race(s: Sandbox, path: string): Promise<string[]> {
      const full = `/plugin/private/good${path}`;
      const before = s.control.count(full);
      const a = pluginFetch(s, "good", `${path}?tag=a&ms=200`);
      await waitFor(() => s.control.count(full) > before);
      const b = pluginFetch(s, "good", `${path}?tag=b&ms=10`);
      await Promise.all([a, b]);
      return (await json<{ order: string[] }>(pluginFetch(s, "good", "/order"))).order;
    }

    it("3.7.3: a second request to the same path waits for the first", async () => {
      expect(sb.plugins.serialisesPaths).toBe(true);
      expect(await race(sb, "/slow")).toEqual(["start:a", "end:a", "start:b", "end:b"]);
    });

    it("paths whose last segment starts with get/list/… are not serialised", async () => {
      expect(await race(sb, "/getSlow")).toEqual(["start:a", "start:b", "end:b", "end:a"]);
    });

    it("the option models a host that does not serialise plugin paths", async () => {
      expect(parallel.plugins.serialisesPaths).toBe(false);
      expect(await race(parallel, "/slow")).toEqual(["start:a", "start:b", "end:b", "end:a"]);
    });

    it("without serialisation an open SSE stream does not block the path", async () => {
      const ac = new AbortController();
      const stream = await pluginFetch(parallel, "good", "/sse-hold", {
        headers: { accept: "text/event-stream" },
        signal: ac.signal,
      });
      await stream.body!.getReader().read();
      const r = await pluginFetch(parallel, "good", "/sse-hold", { method: "POST", body: "{}" });
      expect(r.status).toBe(404);
      ac.abort();
    });
  });

  describe("siyuan.client and siyuan.storage (contract §9, §10)", () => {
    it("client.fetch reaches this sandbox with the plugin JWT", async () => {
      sb.control.resetLog();
      expect(await json(good("/client"))).toEqual({
        version: { code: 0, msg: "", data: "3.7.3" },
        url: "/api/system/version",
        status: 200,
        statusText: "200 OK",
        ok: true,
        contentType: "application/json; charset=utf-8",
        notebooks: 0,
        missing: 404,
        relative: "rejected: path must start with /",
      });
      expect(sb.control.count("/api/notebook/lsNotebooks")).toBe(1); // authenticated by X-Auth-Token
      const nb = await fetch(`${sb.url}/api/notebook/lsNotebooks`, {
        method: "POST",
        headers: { "x-auth-token": "forged.jwt.token" },
        body: "{}",
      });
      expect(nb.status).toBe(401);
    });

    it("storage: put (string form), get, list, remove; traversal and missing files reject", async () => {
      const st = (q: string) => json(good(`/storage?${q}`));
      await st("op=put&path=/notes/a.txt&value=hello");
      await st("op=put&path=/notes/obj.txt");
      await st("op=putbin&path=/notes/bin.txt");
      expect(await st("op=get&path=/notes/a.txt")).toEqual({
        text: "hello",
        bytes: 5,
        isBuffer: true,
      });
      expect(await st("op=get&path=/notes/obj.txt")).toMatchObject({ text: "[object Object]" });
      expect(await st("op=get&path=/notes/bin.txt")).toMatchObject({ text: "AB" });
      const list = (await st("op=list&path=/notes")) as unknown as Array<Record<string, unknown>>;
      expect(list.map((e) => e.name).sort()).toEqual(["a.txt", "bin.txt", "obj.txt"]);
      expect(list[0]).toMatchObject({ isDir: false, isSymlink: false });
      await st("op=remove&path=/notes/obj.txt");
      expect(await json(good("/storage-error?path=/notes/obj.txt"))).toMatch(
        /^rejected: open .*no such file/,
      );
      expect(await json(good("/storage-error?path=../../petals.json"))).toBe(
        "rejected: siyuan.storage: path traversal not allowed",
      );
      // the same folder as the frontend's loadData/saveData: data/storage/petal/<name>/
      const f = await fetch(`${sb.url}/api/file/getFile`, {
        method: "POST",
        headers: AUTH,
        body: JSON.stringify({ path: "/data/storage/petal/good/notes/a.txt" }),
      });
      expect(await f.text()).toBe("hello");
    });

    it("storage.watcher: fs-notify events reach siyuan.event.handler", async () => {
      await json(good("/storage?op=put&path=/watched/w.txt&value=1"));
      await json(good("/storage?op=put&path=/watched/w.txt&value=2"));
      await json(good("/storage?op=put&path=/unwatched.txt&value=2"));
      const { events } = await json<{
        events: Array<{ type: string; detail: { operation: string; path: string } }>;
      }>(good("/lifecycle"));
      const fs = events.filter((e) => e.type === "fs-notify").map((e) => e.detail);
      expect(fs).toEqual([
        { operation: "CREATE", path: "/data/storage/petal/good/watched/w.txt" },
        { operation: "WRITE", path: "/data/storage/petal/good/watched/w.txt" },
      ]);
    });
  });

  describe("faults and counters on plugin routes", () => {
    const MEM = "/plugin/private/good/memory";
    const calls = async () => (await json<{ calls: number }>(good("/memory"))).calls;

    it("http5xx, refuse and silentDrop: the handler never runs; counters count every call", async () => {
      const c0 = await calls();
      const n0 = sb.control.count(MEM);
      sb.control.armFault({ endpoint: MEM, kind: "http5xx", status: 503 });
      const r = await good("/memory");
      expect([r.status, await r.text()]).toEqual([503, "503 injected by siyuan-sandbox"]);
      sb.control.armFault({ endpoint: MEM, kind: "refuse" });
      await expect(good("/memory")).rejects.toThrow();
      sb.control.armFault({ endpoint: MEM, kind: "silentDrop" });
      const s = await good("/memory");
      expect([s.status, await s.text()]).toEqual([200, ""]);
      expect(await calls()).toBe(c0 + 1);
      expect(sb.control.count(MEM)).toBe(n0 + 4);
      expect(
        sb.control
          .log()
          .filter((e) => e.path === MEM)
          .slice(-4)
          .map((e) => e.status),
      ).toEqual([503, 0, 200, 200]);
    });

    it("resetAfterApply: the handler ran, the caller never sees the answer", async () => {
      const c0 = await calls();
      sb.control.armFault({ endpoint: MEM, kind: "resetAfterApply" });
      await expect(good("/memory")).rejects.toThrow();
      expect(await calls()).toBe(c0 + 2);
    });

    it("delay is spent holding the path lock; corrupt alters the JSON body", async () => {
      sb.control.armFault({ endpoint: MEM, kind: "delay", delayMs: 200 });
      const t0 = Date.now();
      await good("/memory");
      expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
      sb.control.armFault({ endpoint: "/plugin/private/good/echo", kind: "corrupt" });
      const e = await json<{ body: string }>(
        good("/echo", { method: "POST", body: '{"data":"x"}' }),
      );
      expect(JSON.parse(e.body)).toEqual({ data: `x${CORRUPTION_MARKER}` });
    });
  });

  describe("lifecycle, reload and kernel restart (contract §7)", () => {
    let s: Sandbox;
    const dataDir = join(tmp, "lifecycle-ws");
    beforeAll(async () => {
      s = await start({ plugins: [GOOD], dataDir, controlRoute: true });
    });
    afterAll(() => s.stop());
    const mem = async () =>
      (await json<{ calls: number }>(pluginFetch(s, "good", "/memory"))).calls;
    const storageText = async (p: string) => {
      const r = await fetch(`${s.url}/api/file/getFile`, {
        method: "POST",
        headers: AUTH,
        body: JSON.stringify({ path: `/data/storage/petal/good${p}` }),
      });
      return r.text();
    };

    it("onload → onrunning → start event, in order", async () => {
      expect(await json(pluginFetch(s, "good", "/lifecycle"))).toEqual({
        lifecycle: ["onload", "onrunning"],
        events: [{ type: "start", detail: null, hasId: true }],
      });
      expect(s.plugins.status("good")).toEqual({
        name: "good",
        state: "running",
        stateCode: 2,
        error: null,
        starts: 1,
      });
    });

    it("a timer started at the top level holds the start until it fires (the loop's Run)", async () => {
      const kernel = `var order = [];
        setTimeout(function () { order.push("timer"); }, 300);
        siyuan.plugin.lifecycle.onload = function () { order.push("onload"); };
        siyuan.server.private.http.handler = function () {
          return { statusCode: 200, body: { data: { type: "JSON", data: order } } };
        };`;
      const t0 = Date.now();
      await s.plugins.install({
        files: {
          "plugin.json": JSON.stringify({ name: "top-timer", kernels: ["all"] }),
          "index.js": "module.exports = {};",
          "kernel.js": kernel,
        },
      });
      expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
      expect(await json(pluginFetch(s, "top-timer", "/x"))).toEqual(["timer", "onload"]);
    });

    it("plugin reload: onunload ran, memory is gone, storage stays", async () => {
      await mem();
      expect(await mem()).toBe(2);
      await s.plugins.reload("good");
      expect(await storageText("/unloaded.txt")).toBe("unloaded after 2 calls (last event: stop)");
      expect(await mem()).toBe(1);
      expect(s.plugins.status("good")?.starts).toBe(2);
    });

    it("an open SSE stream ends when the plugin stops", async () => {
      const stream = await pluginFetch(s, "good", "/sse-hold", {
        headers: { accept: "text/event-stream" },
      });
      const reader = stream.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe("data:opened\n\n");
      const reloading = s.plugins.reload("good");
      expect((await reader.read()).done).toBe(true);
      await reloading;
    });

    it("timers stop with the plugin", async () => {
      await pluginFetch(s, "good", "/tick");
      const ticks = () =>
        s.plugins.logs("good").filter((l) => l.text === "[plugin:good] tick").length;
      await waitFor(() => ticks() >= 3);
      await s.plugins.reload("good");
      const after = ticks();
      await observeQuietFor(80, () => ticks() !== after, { what: "a tick after the reload" });
      expect(ticks()).toBe(after);
    });

    it("watchSources: a rebuilt kernel.js in the source folder reinstalls the plugin", async () => {
      const dir = join(tmp, "watched-src");
      const files = pluginFiles(GOOD);
      files.set("plugin.json", Buffer.from(JSON.stringify({ name: "watched", kernels: ["all"] })));
      for (const [k, v] of files) {
        mkdirSync(dirname(join(dir, k)), { recursive: true });
        writeFileSync(join(dir, k), v);
      }
      const w = await start({ plugins: [dir], pluginHost: { watchSources: true } });
      try {
        expect(w.plugins.status("watched")?.starts).toBe(1);
        writeFileSync(
          join(dir, "kernel.js"),
          'siyuan.server.private.http.handler = () => ({ body: { string: { format: "v2", values: [] } } });',
        );
        await waitFor(() => w.plugins.status("watched")?.starts === 2);
        await waitFor(() => w.plugins.status("watched")?.state === "running");
        expect(await (await pluginFetch(w, "watched", "/x")).text()).toBe("v2");
      } finally {
        await w.stop();
      }
    });

    it("503 while loading: a request during a slow onload", async () => {
      // onload waits on a kernel call the test holds, so the plugin stays loading until released.
      s.control.armFault({ endpoint: "/api/system/version", kind: "hold" });
      const slow = `siyuan.plugin.lifecycle.onload = () => siyuan.client.fetch("/api/system/version", { method: "POST", body: "{}" });
      siyuan.server.private.http.handler = () => ({ statusCode: 200, body: { string: { format: "up", values: [] } } });`;
      const installing = s.plugins.install({
        files: {
          "plugin.json": JSON.stringify({ name: "slowload", kernels: ["all"] }),
          "index.js": "",
          "kernel.js": slow,
        },
      });
      await waitFor(() => s.plugins.status("slowload")?.state === "loading");
      const r = await pluginFetch(s, "slowload", "/x");
      expect([r.status, await r.text()]).toEqual([503, "[plugin:slowload] is not running"]);
      await waitFor(() => s.control.held() === 1, { what: "onload's kernel call held" });
      expect(s.control.releaseHeld()).toBe(1);
      await installing;
      expect(await (await pluginFetch(s, "slowload", "/x")).text()).toBe("up");
    });

    it("stepClock moves the wall clock plugins read through Date.now (back and forward)", async () => {
      await s.plugins.install({
        files: {
          "plugin.json": JSON.stringify({ name: "clocked", kernels: ["all"] }),
          "index.js": "",
          "kernel.js": `siyuan.server.private.http.handler = () => ({ statusCode: 200, body: { string: { format: String(Date.now()), values: [] } } });`,
        },
      });
      const read = async () => Number(await (await pluginFetch(s, "clocked", "/x")).text());
      const before = Date.now();
      expect(s.plugins.stepClock(-3_600_000)).toBe(-3_600_000);
      const back = await read();
      expect(back).toBeLessThanOrEqual(Date.now() - 3_600_000);
      expect(back).toBeGreaterThanOrEqual(before - 3_600_000);
      expect(s.plugins.stepClock(3_600_000)).toBe(0);
      expect(await read()).toBeGreaterThanOrEqual(before);
    });

    it("hot reload: writing kernel.js through /api/file/putFile restarts the plugin", async () => {
      await mem();
      const starts = s.plugins.status("good")!.starts;
      const fd = new FormData();
      fd.set("path", "/data/plugins/good/kernel.js");
      fd.set("file", new Blob([readFileSync(join(GOOD, "kernel.js"))]), "kernel.js");
      const put = await fetch(`${s.url}/api/file/putFile`, {
        method: "POST",
        headers: AUTH,
        body: fd,
      });
      expect(((await put.json()) as { code: number }).code).toBe(0);
      await waitFor(
        () =>
          s.plugins.status("good")?.starts === starts + 1 &&
          s.plugins.status("good")?.state === "running",
      );
      expect(await mem()).toBe(1);
    });

    it("kernel restart: connections refused for the down time, plugins start again, old JWT rejected", async () => {
      await mem();
      const oldJwt = s.plugins.tokenOf("good")!;
      const restarting = s.plugins.restartKernel(400);
      await waitFor(async () => (await refusedCode(s.port)) === "ECONNREFUSED");
      await restarting;
      expect(await refusedCode(s.port)).toBe("connected");
      expect(s.plugins.status("good")).toMatchObject({ state: "running" });
      expect(await mem()).toBe(1);
      const old = await fetch(`${s.url}/api/notebook/lsNotebooks`, {
        method: "POST",
        headers: { "x-auth-token": oldJwt },
        body: "{}",
      });
      expect(old.status).toBe(401);
      const fresh = await fetch(`${s.url}/api/notebook/lsNotebooks`, {
        method: "POST",
        headers: { "x-auth-token": s.plugins.tokenOf("good")! },
        body: "{}",
      });
      expect(fresh.status).toBe(200);
    });

    it("the control route has plugins/reload and kernel/restart", async () => {
      const r = await post<{ starts: number }>(s, "/__sandbox/plugins/reload", { name: "good" });
      expect(r.body.data.starts).toBe(s.plugins.status("good")!.starts);
      const k = await post(s, "/__sandbox/kernel/restart", { downMs: 200 });
      expect(k.body.data).toEqual({ restarting: true });
      await waitFor(async () => (await refusedCode(s.port)) === "ECONNREFUSED");
      await waitFor(
        async () =>
          (await refusedCode(s.port)) === "connected" &&
          s.plugins.status("good")?.state === "running",
      );
    });

    it("a new sandbox on the same data dir starts the enabled plugin from petals.json", async () => {
      await s.stop();
      expect(readdirSync(join(dataDir, "data", "plugins"))).toContain("good");
      const again = await start({ dataDir });
      try {
        expect(again.plugins.status("good")).toMatchObject({ state: "running", starts: 1 });
        const text = await (
          await fetch(`${again.url}/api/file/getFile`, {
            method: "POST",
            headers: AUTH,
            body: JSON.stringify({ path: "/data/storage/petal/good/unloaded.txt" }),
          })
        ).text();
        expect(text).toMatch(/^unloaded after \d+ calls \(last event: stop\)$/);
      } finally {
        await again.stop();
      }
    });
  });

  describe("the bin's --plugin", () => {
    it("installs a folder and a package.zip at start", async () => {
      const files = pluginFiles(GOOD);
      files.set("plugin.json", Buffer.from(JSON.stringify({ name: "fromzip", kernels: ["all"] })));
      const zip = join(tmp, "fromzip.zip");
      writeFileSync(zip, writeZip(files));
      const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url));
      const child = spawn(
        process.execPath,
        [
          "--import",
          "tsx",
          "--conditions=source",
          bin,
          "--port",
          "0",
          "--token",
          TOKEN,
          "--plugin",
          GOOD,
          "--plugin",
          zip,
          "--plugin-engine",
          engine,
        ],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      try {
        let out = "";
        const url = await new Promise<string>((resolve, reject) => {
          child.stdout.setEncoding("utf8");
          child.stdout.on("data", (c: string) => {
            out += c;
            const m = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
            if (m) resolve(m[1]!);
          });
          child.on("exit", (code) => reject(new Error(`exited ${code}`)));
        });
        expect(out).toContain("plugin good: running");
        expect(out).toContain("plugin fromzip: running");
        for (const name of ["good", "fromzip"]) {
          const r = await fetch(`${url}/plugin/private/${name}/memory`, { headers: AUTH });
          expect(await r.json()).toEqual({ calls: 1 });
        }
      } finally {
        child.kill("SIGTERM");
        await new Promise((r) => child.on("exit", r));
      }
    });
  });
}
