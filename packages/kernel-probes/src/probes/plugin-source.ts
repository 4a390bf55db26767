/**
 * The probe plugin: a tiny kernel plugin installed through the file API (contract Part 2). Its
 * `kernel.js` is a classic ES2022 script for goja (no modules, no async iteration), serving a few
 * `/plugin/private/<name>/*` routes, one RPC method and one MCP tool.
 */

/** The plugin's name (its folder under `data/plugins/`). */
export const PROBE_PLUGIN = "kernel-probes-plugin";

/** Time the `slow` routes hold a request, long enough for two requests to overlap. */
export const SLOW_ROUTE_MS = 400;

export const PLUGIN_JSON = JSON.stringify(
  {
    name: PROBE_PLUGIN,
    author: "sisyphus",
    url: "",
    version: "0.0.1",
    minAppVersion: "3.7.0",
    backends: ["all"],
    frontends: ["all"],
    kernels: ["all"],
    displayName: { default: "Kernel probes" },
    description: { default: "Probes the kernel-plugin runtime for @sisyphus/kernel-probes" },
    readme: { default: "README.md" },
    funding: {},
    keywords: [],
  },
  null,
  2,
);

export const INDEX_JS = "module.exports = {};\n";

export const KERNEL_JS = `"use strict";
(function () {
  var active = 0;
  function wait(ms) { return new Promise(function (r) { setTimeout(r, ms); }); }
  function json(status, value) {
    return { statusCode: status, body: { data: { type: "JSON", data: value } } };
  }
  async function slow() {
    active += 1;
    var atStart = active;
    await wait(${SLOW_ROUTE_MS});
    var atEnd = active;
    active -= 1;
    return json(200, { atStart: atStart, atEnd: atEnd });
  }
  async function storage() {
    var out = {};
    var s = siyuan.storage;
    try { await s.put("probe/a.txt", "hello storage"); out.put = "ok"; } catch (e) { out.put = String(e); }
    try { out.get = await (await s.get("probe/a.txt")).text(); } catch (e) { out.get = "error: " + String(e); }
    try { await s.put("probe/b.json", JSON.stringify({ n: 1 })); out.json = await (await s.get("probe/b.json")).json(); } catch (e) { out.json = "error: " + String(e); }
    try {
      var list = await s.list("probe");
      out.list = list.map(function (e) { return { name: e.name, isDir: e.isDir, isSymlink: e.isSymlink, updatedType: typeof e.updated }; })
        .sort(function (a, b) { return a.name < b.name ? -1 : 1; });
    } catch (e) { out.list = "error: " + String(e); }
    try { await s.get("probe/missing.txt"); out.missing = "no error"; } catch (e) { out.missing = "rejected"; }
    try { await s.put("../escape.txt", "x"); out.escape = "no error"; } catch (e) { out.escape = String(e); }
    try { await s.remove("probe/b.json"); out.remove = "ok"; } catch (e) { out.remove = String(e); }
    try { out.afterRemove = (await s.list("probe")).map(function (e) { return e.name; }); } catch (e) { out.afterRemove = String(e); }
    return json(200, out);
  }
  async function clientFetch() {
    var r = await siyuan.client.fetch("/api/system/version", { method: "POST", body: "{}" });
    var body = await r.json();
    var r2 = await siyuan.client.fetch("/api/notebook/lsNotebooks", { method: "POST", body: "{}" });
    return json(200, { status: r.status, ok: r.ok, statusText: r.statusText, body: body, lsStatus: r2.status, lsCode: (await r2.json()).code });
  }
  siyuan.server.private.http.handler = async function (req) {
    var path = req.context.path;
    if (path === "/echo") {
      var text = await req.request.body.data.text();
      var h = req.request.headers;
      return json(200, {
        method: req.request.method,
        uri: req.request.uri,
        path: req.url.path,
        search: req.url.search,
        query: req.url.query,
        contextPath: req.context.path,
        fullPath: req.context.fullPath,
        params: req.context.params,
        contentType: req.request.contentType,
        contentLength: req.request.contentLength,
        probeHeader: h["X-Probe"] || null,
        hasAuthorization: "Authorization" in h,
        hasCookie: "Cookie" in h,
        cookies: req.request.cookies,
        user: req.url.user,
        clientIp: req.context.clientIp,
        body: text
      });
    }
    if (path === "/string") return { statusCode: 201, body: { string: { format: "n=%d s=%s", values: [42, "x"] } } };
    if (path === "/raw") {
      return { statusCode: 200, headers: { "X-Probe": ["first", "last"] }, body: { raw: { contentType: "text/csv", data: "a,b\\n1,2\\n" } } };
    }
    if (path === "/pure") return { statusCode: 200, body: { data: { type: "PureJSON", data: { html: "<b>&</b>" } } } };
    if (path === "/escaped") return { statusCode: 200, body: { data: { type: "JSON", data: { html: "<b>&</b>" } } } };
    if (path === "/empty") return { statusCode: 204 };
    if (path === "/throw") throw new Error("probe failure");
    if (path === "/slow" || path === "/getSlow") return slow();
    if (path === "/storage") return storage();
    if (path === "/fetch") return clientFetch();
    return json(404, { notFound: path });
  };
  siyuan.rpc.bind("echo", function () { return Array.prototype.slice.call(arguments); }, "Echoes its parameters");
  siyuan.rpc.bind("fail", function () { throw new Error("rpc failure"); });
  siyuan.mcp.registerTool("probe_echo", {
    title: "Probe echo",
    description: "Echoes its text",
    inputSchema: { type: "object", properties: { text: { type: "string", description: "what to echo", default: "x", minLength: 1 } }, required: ["text"], additionalProperties: false },
    readOnly: true
  }, async function (args) { return { echo: args.text }; });
  siyuan.plugin.lifecycle.onload = async function () {};
  siyuan.plugin.lifecycle.onrunning = async function () {};
  siyuan.plugin.lifecycle.onunload = async function () {};
})();
`;
