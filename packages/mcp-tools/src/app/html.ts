/**
 * The App's HTML (MCP Apps, `text/html;profile=mcp-app`): one self-contained page, inline CSS and
 * script, no network. It speaks the View side of the protocol over `postMessage` (JSON-RPC 2.0):
 * `ui/initialize` then `ui/notifications/initialized`; from the host `ui/notifications/tool-input`
 * (the call's arguments) and `ui/notifications/tool-result` (the preflight answer or the receipt);
 * for a preflight it asks the app-only tool `write_preview` (`tools/call`, proxied by the host) for
 * the target and the before/after. Every value is set as text, never parsed as HTML. Shipped as a
 * string: it runs in the browser, never in the kernel's runtime.
 */
export const APP_HTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sisyphus: strict write</title>
<style>
:root {
  color-scheme: light dark;
  --bg: var(--color-background-primary, light-dark(#ffffff, #1b1b1b));
  --fg: var(--color-text-primary, light-dark(#1b1b1b, #f2f2f2));
  --muted: var(--color-text-secondary, light-dark(#5c5c5c, #b0b0b0));
  --line: var(--color-border-primary, light-dark(#d9d9d9, #3a3a3a));
  --del-bg: light-dark(#ffe1e1, #5a1f1f);
  --del-fg: light-dark(#8a1010, #ffc9c9);
  --ins-bg: light-dark(#dcf5dc, #1d4a24);
  --ins-fg: light-dark(#10601c, #c9f5cf);
}
body { margin: 0; padding: 12px 14px; background: var(--bg); color: var(--fg);
  font: 14px/1.45 var(--font-sans, system-ui, sans-serif); }
h1 { font-size: 15px; margin: 0 0 8px; }
h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin: 14px 0 4px; }
section[hidden] { display: none; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0; }
dt { color: var(--muted); }
dd { margin: 0; font-family: var(--font-mono, ui-monospace, monospace); overflow-wrap: anywhere; }
.block { border: 1px solid var(--line); border-radius: 6px; padding: 6px 8px; margin: 4px 0; }
.block .who { color: var(--muted); font-size: 12px; margin-bottom: 4px; }
.diff { white-space: pre-wrap; font-family: var(--font-mono, ui-monospace, monospace); }
del { background: var(--del-bg); color: var(--del-fg); }
ins { background: var(--ins-bg); color: var(--ins-fg); text-decoration: none; }
table.changes { border-collapse: collapse; width: 100%; }
table.changes th { text-align: left; color: var(--muted); font-weight: normal; font-size: 12px; padding: 2px 8px 2px 0; }
table.changes td { border-top: 1px solid var(--line); padding: 4px 8px 4px 0; vertical-align: top; overflow-wrap: anywhere; }
table.changes td.before { background: var(--del-bg); color: var(--del-fg); }
table.changes td.after { background: var(--ins-bg); color: var(--ins-fg); }
table.changes td.none { background: none; color: var(--muted); font-style: italic; }
table.changes .where { color: var(--muted); font-size: 12px; }
#summary { font-weight: 600; margin: 6px 0 0; }
.orders { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
ol { margin: 0; padding-left: 22px; }
.error { color: var(--color-text-danger, light-dark(#a40000, #ff9c9c)); }
.note { color: var(--muted); }
</style>
</head>
<body>
<h1 id="title">Strict write</h1>
<div id="status" class="note">Waiting for the host.</div>
<p id="summary" hidden></p>
<section id="changes" hidden><h2>Before &rarr; after</h2><table class="changes"><thead><tr><th>What</th><th>Before</th><th>After</th></tr></thead><tbody data-role="changes"></tbody></table></section>
<section id="target" hidden><h2>Target</h2><dl id="target-list"></dl></section>
<section id="content" hidden><h2>Content: before &rarr; after</h2><div id="blocks"></div></section>
<section id="order" hidden><h2>Order: before &rarr; after</h2>
  <div class="orders"><div><div class="note">Before</div><ol data-role="order-before"></ol></div>
  <div><div class="note">After</div><ol data-role="order-after"></ol></div></div></section>
<section id="precondition" hidden><h2>Precondition</h2><dl id="precondition-list"></dl></section>
<section id="receipt" hidden><h2>Receipt</h2><dl id="receipt-list"></dl></section>
<section id="problem" hidden><h2>Error</h2><div id="problem-text" class="error"></div></section>
<script>
(function () {
  "use strict";
  var PROTOCOL_VERSION = "2026-01-26";
  var PREVIEW_TOOL = "write_preview";
  var nextId = 1;
  var pending = {};
  var toolName;
  var args;
  var result;
  var previewAsked = false;
  var precondition = null;

  function $(id) { return document.getElementById(id); }
  function send(message) { window.parent.postMessage(message, "*"); }
  function request(method, params) {
    var id = nextId++;
    send({ jsonrpc: "2.0", id: id, method: method, params: params });
    return new Promise(function (resolve, reject) { pending[id] = { resolve: resolve, reject: reject }; });
  }
  function notify(method, params) { send({ jsonrpc: "2.0", method: method, params: params || {} }); }
  function text(tag, value, cls) {
    var el = document.createElement(tag);
    el.textContent = value;
    if (cls) el.className = cls;
    return el;
  }
  function show(id) { $(id).hidden = false; resized(); }
  function status(message) { $("status").textContent = message; }
  function rows(listId, pairs) {
    var dl = $(listId);
    dl.textContent = "";
    pairs.forEach(function (p) {
      if (p[1] === undefined || p[1] === null || p[1] === "") return;
      dl.appendChild(text("dt", p[0]));
      dl.appendChild(text("dd", typeof p[1] === "string" ? p[1] : JSON.stringify(p[1])));
    });
  }
  function resized() {
    var el = document.documentElement;
    notify("ui/notifications/size-changed", { width: el.scrollWidth, height: el.scrollHeight });
  }
  function problem(message) { $("problem-text").textContent = message; show("problem"); }
  function structured(r) {
    if (r && r.structuredContent && typeof r.structuredContent === "object") return r.structuredContent;
    try { return JSON.parse(r.content[0].text); } catch (e) { return {}; }
  }

  function renderTarget(preview) {
    $("title").textContent = preview.tool + "." + preview.action;
    var t = preview.target || {};
    var pairs = [];
    Object.keys(t).forEach(function (k) { pairs.push([k, t[k]]); });
    rows("target-list", pairs);
    show("target");
  }
  function renderContent(changes) {
    var box = $("blocks");
    box.textContent = "";
    changes.forEach(function (c) {
      var block = document.createElement("div");
      block.className = "block";
      block.setAttribute("data-block", c.id);
      block.appendChild(text("div", (c.document || "") + (c.id === "(new)" ? " · new" : " · " + c.id), "who"));
      var diff = document.createElement("div");
      diff.className = "diff";
      diff.setAttribute("data-role", "diff");
      c.diff.forEach(function (op) {
        if (op.op === "eq") diff.appendChild(document.createTextNode(op.text));
        else diff.appendChild(text(op.op, op.text));
      });
      block.appendChild(diff);
      box.appendChild(block);
    });
    show("content");
  }
  function renderOrder(order) {
    function fill(selector, items, mark) {
      var ol = document.querySelector(selector);
      ol.textContent = "";
      items.forEach(function (item) {
        var li = document.createElement("li");
        li.setAttribute("data-id", item.id);
        if (item.moved) { li.className = "moved"; li.appendChild(text(mark, item.title)); }
        else li.textContent = item.title;
        ol.appendChild(li);
      });
    }
    fill("[data-role=order-before]", order.before, "del");
    fill("[data-role=order-after]", order.after, "ins");
    show("order");
  }
  /** Each thing changed: what (and where), its value before and after; none shown as such. */
  function renderChanges(changes) {
    var body = document.querySelector("[data-role=changes]");
    body.textContent = "";
    changes.forEach(function (c) {
      var tr = document.createElement("tr");
      var what = text("td", c.what, "what");
      if (c.where) { what.appendChild(document.createElement("br")); what.appendChild(text("span", c.where, "where")); }
      tr.appendChild(what);
      [["before", c.before], ["after", c.after]].forEach(function (side) {
        var none = side[1] === null || side[1] === undefined;
        tr.appendChild(text("td", none ? "(none)" : side[1], side[0] + (none ? " none" : "")));
      });
      body.appendChild(tr);
    });
    if (changes.length > 0) show("changes");
  }
  function renderPreview(preview) {
    renderTarget(preview);
    if (preview.summary) { $("summary").textContent = preview.summary; $("summary").hidden = false; }
    if (preview.changes) renderChanges(preview.changes);
    if (preview.content) renderContent(preview.content);
    if (preview.order) renderOrder(preview.order);
    status("Preflight: nothing is written until the commit.");
    precondition = preview.precondition;
    renderPrecondition();
  }
  function renderPrecondition() {
    var answer = result ? structured(result) : {};
    var field = answer.preconditionField || (precondition && precondition.field);
    rows("precondition-list", [
      ["kind", precondition ? precondition.kind : undefined],
      ["field", field],
      ["hash (alias)", field ? answer[field] : undefined],
      ["requestId", answer.requestId],
      ["lease until", answer.leaseExpiresAt ? new Date(answer.leaseExpiresAt).toISOString() : undefined],
      ["confirmation", answer.confirmationRequired ? "the user confirms this action" : undefined],
      ["note", answer.note]
    ]);
    if (field || answer.requestId) show("precondition");
  }
  function renderReceipt(r) {
    rows("receipt-list", [
      ["status", r.status],
      ["requestId", r.requestId],
      ["previousHash", r.previousHash],
      ["resultHash", r.resultHash],
      ["executedNow", r.executedNow === undefined ? undefined : String(r.executedNow)],
      ["writeSafetyGuaranteed", r.writeSafetyGuaranteed === undefined ? undefined : String(r.writeSafetyGuaranteed)],
      ["order", r.order],
      ["targetCount", r.targetCount === undefined ? undefined : String(r.targetCount)]
    ]);
    show("receipt");
    status(r.status === "committed" ? "Committed and read back." : "Status: " + r.status);
  }
  function askPreview() {
    if (previewAsked || !args || args.validateOnly !== true) return;
    previewAsked = true;
    status("Reading the target...");
    var params = { arguments: args };
    if (toolName) params.tool = toolName;
    request("tools/call", { name: PREVIEW_TOOL, arguments: params }).then(function (r) {
      var data = structured(r);
      if (r.isError || data.error) problem((data.error && data.error.message) || "preview failed");
      else renderPreview(data);
    }, function (e) { problem("preview unavailable: " + (e && e.message ? e.message : String(e))); });
  }
  /** A commit is not previewed (its state is about to change): its target comes from its arguments. */
  function argumentTarget() {
    var pairs = [];
    ["id", "ids", "parentID", "toID", "notebook", "path"].forEach(function (k) {
      if (args[k] !== undefined) pairs.push([k, args[k]]);
    });
    if (pairs.length === 0) return;
    rows("target-list", pairs);
    show("target");
  }
  function onToolInput(params) {
    args = (params && params.arguments) || {};
    var phase = args.validateOnly === true ? " (preflight)" : args.requestId ? " (commit)" : "";
    $("title").textContent = (toolName ? toolName + "." : "") + (args.action || "call") + phase;
    if (args.requestId && args.validateOnly !== true) argumentTarget();
    askPreview();
  }
  function onToolResult(params) {
    result = params || {};
    var data = structured(result);
    if (result.isError || data.error) {
      var e = data.error || {};
      problem((e.code ? e.code + ": " : "") + (e.message || "the call failed") + (e.hint ? " " + e.hint : ""));
      status("The call did not succeed.");
      return;
    }
    if (data.validateOnly === true) renderPrecondition();
    else if (data.status) renderReceipt(data);
    else status("Not a strict write: nothing to confirm.");
  }

  window.addEventListener("message", function (event) {
    if (event.source !== window.parent) return;
    var m = event.data;
    if (!m || m.jsonrpc !== "2.0") return;
    if (m.method === undefined && m.id !== undefined && pending[m.id]) {
      var p = pending[m.id];
      delete pending[m.id];
      if (m.error) p.reject(new Error(m.error.message || "error " + m.error.code));
      else p.resolve(m.result);
      return;
    }
    if (m.method === "ui/notifications/tool-input") onToolInput(m.params);
    else if (m.method === "ui/notifications/tool-result") onToolResult(m.params);
    else if (m.method === "ui/notifications/tool-cancelled") status("The call was cancelled.");
    else if (m.id !== undefined && (m.method === "ui/resource-teardown" || m.method === "ping"))
      send({ jsonrpc: "2.0", id: m.id, result: {} });
    else if (m.id !== undefined)
      send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
  });

  request("ui/initialize", {
    appInfo: { name: "sisyphus-strict-write", version: "1" },
    appCapabilities: {},
    protocolVersion: PROTOCOL_VERSION
  }).then(function (init) {
    var ctx = (init && init.hostContext) || {};
    if (ctx.theme === "light" || ctx.theme === "dark") document.documentElement.style.colorScheme = ctx.theme;
    if (ctx.toolInfo && ctx.toolInfo.tool && ctx.toolInfo.tool.name) toolName = ctx.toolInfo.tool.name;
    notify("ui/notifications/initialized");
    status("Waiting for the call.");
    askPreview();
  }, function (e) { problem("the host refused the App: " + e.message); });
})();
</script>
</body>
</html>
`;
