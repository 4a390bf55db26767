/**
 * The MCP App in headless Debian Chromium: a small host page embeds the App's HTML (read from the
 * Node server over MCP) in a sandboxed iframe and speaks the host side of the MCP Apps protocol —
 * answers `ui/initialize`, sends `ui/notifications/tool-input` and `ui/notifications/tool-result`
 * with a real preflight answer from the Node server against the sandbox, and proxies the App's
 * `tools/call` to the server through the official MCP client. The DOM must show the removed and
 * the inserted text as distinct `<del>`/`<ins>` elements (block.update), the moved documents
 * (document.reorder), a block's place before and after with its neighbours (block.move); after a
 * commit, the receipt. Screenshots go to `test-artifacts/`.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { DEMO_IDS } from "@sisyphus/siyuan-sandbox";
import { EXPECT_POLL_TIMEOUT_MS } from "@sisyphus/siyuan-sandbox/testing";
import { type Browser, chromium, type Frame, type Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { AUTH_TOKEN, sc, sharedDemoAuthority } from "./harness.js";

const CHROMIUM = "/usr/bin/chromium";
const ARTIFACTS = resolve(import.meta.dirname, "..", "test-artifacts");
const APP_URI = "ui://sisyphus/strict-write.html";
const APP_MIME = "text/html;profile=mcp-app";

/**
 * The host page: an iframe (scripts only, an opaque origin) whose `srcdoc` is the App; the host's
 * side of the protocol; every message the App sent kept in `window.hostLog`. Page-side code is a
 * string: this package's typecheck has no DOM library.
 */
const HOST_PAGE = `<!DOCTYPE html><html><body style="margin:0;background:#eee">
<iframe id="app" sandbox="allow-scripts" style="width:880px;height:560px;border:0;background:#fff"></iframe>
<script>
window.hostLog = [];
window.startApp = function (html, toolName, args, result) {
  var frame = document.getElementById("app");
  function reply(id, body) { frame.contentWindow.postMessage(Object.assign({ jsonrpc: "2.0", id: id }, body), "*"); }
  function notify(method, params) { frame.contentWindow.postMessage({ jsonrpc: "2.0", method: method, params: params }, "*"); }
  window.addEventListener("message", function (event) {
    if (event.source !== frame.contentWindow) return;
    var m = event.data;
    window.hostLog.push(m);
    if (m.method === "ui/initialize") {
      var hostContext = { theme: "light", displayMode: "inline" };
      if (toolName) hostContext.toolInfo = { tool: { name: toolName, inputSchema: { type: "object" } } };
      reply(m.id, { result: { protocolVersion: m.params.protocolVersion, hostInfo: { name: "test-host", version: "1" },
        hostCapabilities: { serverTools: {} }, hostContext: hostContext } });
    } else if (m.method === "ui/notifications/initialized") {
      notify("ui/notifications/tool-input", { arguments: args });
      notify("ui/notifications/tool-result", result);
    } else if (m.method === "tools/call") {
      window.sisyphusCallTool(m.params.name, m.params.arguments).then(
        function (r) { reply(m.id, { result: r }); },
        function (e) { reply(m.id, { error: { code: -32603, message: String(e) } }); });
    }
  });
  frame.srcdoc = html;
};
</script></body></html>`;

const shared = sharedDemoAuthority();
let browser: Browser | undefined;
let client: Client | undefined;

afterAll(async () => {
  await client?.close();
  await browser?.close();
});

/** The official client, declaring MCP Apps. */
async function appClient(): Promise<Client> {
  if (client) return client;
  client = new Client(
    { name: "app-host-e2e", version: "1.0.0" },
    {
      capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [APP_MIME] } } },
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(shared.authority.url), {
      requestInit: { headers: { authorization: `Bearer ${AUTH_TOKEN}` } },
    }),
  );
  return client;
}

/** Headless Chromium (started by the first test: a missing binary fails the tests, never skips them). */
async function newPage(): Promise<Page> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: the App tests need Debian's chromium (apt-get install chromium)`,
    );
  }
  browser ??= await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
  const page = await browser.newPage({ viewport: { width: 900, height: 580 } });
  // Network off: the App must need nothing from anywhere.
  await page.route("**/*", (route) => route.abort());
  const mcp = await appClient();
  await page.exposeFunction("sisyphusCallTool", (name: string, args: Record<string, unknown>) =>
    mcp.callTool({ name, arguments: args }),
  );
  await page.setContent(HOST_PAGE);
  return page;
}

/** Shows the App for one tool call: its arguments and the server's real result. */
async function showApp(
  page: Page,
  toolName: string | undefined,
  args: Record<string, unknown>,
  result: unknown,
): Promise<Frame> {
  const mcp = await appClient();
  const read = await mcp.readResource({ uri: APP_URI });
  const [content] = read.contents as Array<{ mimeType?: string; text?: string }>;
  expect(content?.mimeType).toBe(APP_MIME);
  await page.evaluate(
    `window.startApp(${JSON.stringify(content?.text)}, ${JSON.stringify(toolName ?? null)}, ${JSON.stringify(args)}, ${JSON.stringify(result)})`,
  );
  await page.waitForFunction("window.hostLog.length > 0");
  const frame = page.frames().find((f) => f !== page.mainFrame());
  if (frame === undefined) throw new Error("the App's frame is missing");
  return frame;
}

async function methodsSent(page: Page): Promise<string[]> {
  return (await page.evaluate(
    "window.hostLog.map(function (m) { return m.method || 'response'; })",
  )) as string[];
}

describe("the MCP App in Chromium", () => {
  it("shows a block.update preflight as a word diff with its precondition, then the receipt", async () => {
    const mcp = await appClient();
    const page = await newPage();
    const args = {
      action: "update",
      id: DEMO_IDS.paragraphStatus,
      data: "Status: final, owned by Ana. #planning#",
      validateOnly: true,
    };
    const preflight = await mcp.callTool({ name: "block", arguments: args });
    const answer = sc(preflight);
    expect(answer["preconditionField"]).toBe("expectedStateHash");
    const frame = await showApp(page, "block", args, preflight);

    const diff = frame.locator("[data-role=diff]");
    await expect
      .poll(() => diff.locator("del").allTextContents(), { timeout: EXPECT_POLL_TIMEOUT_MS })
      .toEqual(["draft,"]);
    expect(await diff.locator("ins").allTextContents()).toEqual(["final,"]);
    expect(await diff.textContent()).toBe("Status: draft,final, owned by Ana. #planning#");
    // The precondition: kind and the aliased hash the preflight issued.
    const pre = (await frame.locator("#precondition-list").textContent()) ?? "";
    expect(pre).toContain("state");
    expect(pre).toContain(answer["expectedStateHash"] as string);
    expect(pre).toContain(answer["requestId"] as string);
    // The protocol: initialize first, then initialized, then the preview through the host.
    const sent = await methodsSent(page);
    expect(sent.slice(0, 2)).toEqual(["ui/initialize", "ui/notifications/initialized"]);
    expect(sent).toContain("tools/call");
    await page.screenshot({ path: resolve(ARTIFACTS, "app-block-update.png") });

    // The commit, shown by a new App instance: the receipt.
    const commitArgs = {
      action: "update",
      id: DEMO_IDS.paragraphStatus,
      data: args.data,
      requestId: answer["requestId"],
      expectedStateHash: answer["expectedStateHash"],
    };
    const commit = await mcp.callTool({ name: "block", arguments: commitArgs });
    expect(sc(commit)["status"]).toBe("committed");
    const receiptPage = await newPage();
    const receiptFrame = await showApp(receiptPage, "block", commitArgs, commit);
    const receipt = receiptFrame.locator("#receipt-list");
    await expect
      .poll(() => receipt.textContent(), { timeout: EXPECT_POLL_TIMEOUT_MS })
      .toContain("committed");
    expect(await receipt.textContent()).toContain(sc(commit)["resultHash"] as string);
    expect(await receiptFrame.locator("#target-list").textContent()).toContain(
      DEMO_IDS.paragraphStatus,
    );
    // A commit is not previewed (the state already changed): no tools/call from this App.
    expect(await methodsSent(receiptPage)).not.toContain("tools/call");
    await receiptPage.screenshot({ path: resolve(ARTIFACTS, "app-block-update-receipt.png") });
  });

  it("shows a document.reorder preflight with the moved document", async () => {
    const mcp = await appClient();
    const sb = shared.sandbox;
    const notebook = DEMO_IDS.notebookResearch;
    const parent = sb.control.external.createDoc(notebook, "/Chapters", "parent");
    const one = sb.control.external.createDoc(notebook, "/Chapters/One", "1");
    const two = sb.control.external.createDoc(notebook, "/Chapters/Two", "2");
    const three = sb.control.external.createDoc(notebook, "/Chapters/Three", "3");
    const args = {
      action: "reorder",
      parentID: parent,
      orderedIDs: [three, one, two],
      validateOnly: true,
    };
    const preflight = await mcp.callTool({ name: "document", arguments: args });
    expect(sc(preflight)["preconditionField"]).toBe("expectedStructureHash");
    const page = await newPage();
    // No toolInfo from this host: the App's entry point infers the tool from the arguments.
    const frame = await showApp(page, undefined, args, preflight);

    const after = frame.locator("[data-role=order-after] li");
    await expect
      .poll(() => after.allTextContents(), { timeout: EXPECT_POLL_TIMEOUT_MS })
      .toEqual(["Three", "One", "Two"]);
    expect(await frame.locator("[data-role=order-before] li").allTextContents()).toEqual([
      "One",
      "Two",
      "Three",
    ]);
    expect(await frame.locator("[data-role=order-before] li.moved del").allTextContents()).toEqual([
      "Three",
    ]);
    expect(await frame.locator("[data-role=order-after] li.moved ins").allTextContents()).toEqual([
      "Three",
    ]);
    expect(await frame.locator("#title").textContent()).toBe("document.reorder");
    expect(await frame.locator("#precondition-list").textContent()).toContain(
      sc(preflight)["expectedStructureHash"] as string,
    );
    await page.screenshot({ path: resolve(ARTIFACTS, "app-document-reorder.png") });
  });

  it("shows a block.move preflight as a person checks it: the summary and the place before → after", async () => {
    const mcp = await appClient();
    const sb = shared.sandbox;
    const doc = sb.control.external.createDoc(
      DEMO_IDS.notebookResearch,
      "/Shelf",
      "first\n\nsecond\n\nthird",
    );
    const kids = (
      sc(await mcp.callTool({ name: "block", arguments: { action: "get_children", id: doc } }))[
        "children"
      ] as Array<{ id: string }>
    ).map((k) => k.id);
    const args = { action: "move", id: kids[2], previousID: kids[0], validateOnly: true };
    const preflight = await mcp.callTool({ name: "block", arguments: args });
    expect(sc(preflight)["preconditionField"]).toBe("expectedStructureHash");
    const page = await newPage();
    const frame = await showApp(page, "block", args, preflight);

    const summary = frame.locator("#summary");
    await expect
      .poll(() => summary.textContent(), { timeout: EXPECT_POLL_TIMEOUT_MS })
      .toBe("Moves “third” in /Research/Shelf, between “first” and “second”");
    const row = frame.locator("[data-role=changes] tr");
    expect(await row.count()).toBe(1);
    expect(await row.locator("td.what").textContent()).toBe("place of “third”");
    expect(await row.locator("td.before").textContent()).toBe(
      "in /Research/Shelf, last, after “second”",
    );
    expect(await row.locator("td.after").textContent()).toBe(
      "in /Research/Shelf, between “first” and “second”",
    );
    expect(await frame.locator("#title").textContent()).toBe("block.move");
    expect(await frame.locator("#precondition-list").textContent()).toContain(
      sc(preflight)["expectedStructureHash"] as string,
    );
    // Nothing moved: the preview only read.
    const after = sc(
      await mcp.callTool({ name: "block", arguments: { action: "get_children", id: doc } }),
    );
    expect((after["children"] as Array<{ id: string }>).map((k) => k.id)).toEqual(kids);
    await page.screenshot({ path: resolve(ARTIFACTS, "app-block-move.png") });
  });
});
