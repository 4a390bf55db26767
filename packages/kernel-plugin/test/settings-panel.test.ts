/**
 * The settings panel (`plugin/index.js`, built into `dist/plugin/`) in headless Debian Chromium,
 * against a stub of SiYuan's frontend plugin API (`test/panel/`), with the built plugin running in
 * the sandbox kernel. The page is served by a node:http server and mapped by Playwright's router
 * onto the sandbox kernel's origin, as SiYuan serves its frontend from the kernel's port: the
 * panel's port is the kernel's, and its storage calls (`/api/file/*`) reach the kernel itself.
 * Saving the kernel endpoint switch must change what the kernel authority does.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DEMO_IDS, type Sandbox } from "@sisyphus/siyuan-sandbox";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { kernelClient, PLUGIN_NAME, sandboxWithPlugin, sc, writeSettings } from "./harness.js";
import { type PanelServer, servePanel } from "./panel/server.js";

const CHROMIUM = "/usr/bin/chromium";
const DIST_PLUGIN = resolve(import.meta.dirname, "..", "dist", "plugin");
const SCREENSHOT = resolve(import.meta.dirname, "..", "test-artifacts", "settings-panel.png");
const I18N = resolve(import.meta.dirname, "..", "plugin", "i18n");
/** Where the stub page appears on the kernel's origin. */
const PAGE_PREFIX = "/__sisyphus-panel-test";
const MCP_PATH = `/plugin/private/${PLUGIN_NAME}/mcp`;

let sb: Sandbox;
let server: PanelServer;
let context: BrowserContext | undefined;
let userDataDir: string | undefined;

afterAll(async () => {
  await context?.close();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  await server?.close();
  await sb?.stop();
});

/**
 * The file's sandbox (the built plugin, kernel endpoint off), page server and headless Chromium
 * (a fresh profile), started by the first test: set up inside the tests rather than in a hook, so
 * a missing Chromium or build fails every test instead of skipping it.
 */
async function browser(): Promise<BrowserContext> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: the settings panel tests need Debian's chromium, which .ci/run installs (apt-get install chromium)`,
    );
  }
  if (context) return context;
  server ??= await servePanel(DIST_PLUGIN);
  sb ??= await sandboxWithPlugin({ kernelEndpointEnabled: false });
  userDataDir = mkdtempSync(join(tmpdir(), "sisyphus-panel-chromium-"));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport: { width: 900, height: 1100 },
  });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: sb.url });
  await context.route(`${sb.url}${PAGE_PREFIX}/**`, async (route) => {
    const path = new URL(route.request().url()).pathname.slice(PAGE_PREFIX.length);
    await route.fulfill({ response: await route.fetch({ url: `${server.url}${path}` }) });
  });
  // What SiYuan's frontend knows: the API token (Settings → About).
  // (Page-side code is passed as strings: this package's typecheck has no DOM library.)
  await context.addInitScript({
    content: `window.siyuan = ${JSON.stringify({ config: { api: { token: sb.token } } })};`,
  });
  return context;
}

/** The stub page with the plugin loaded and its settings dialog open. */
async function openPanel(lang = "en_US"): Promise<Page> {
  const page = await (await browser()).newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`${sb.url}${PAGE_PREFIX}/index.html?lang=${lang}`);
  await page.waitForFunction("!document.getElementById('open-settings').disabled");
  expect(await page.evaluate("document.body.dataset.loadError")).toBeUndefined();
  await page.click("#open-settings");
  await page.waitForSelector(".b3-dialog .sisyphus-endpoint-switch");
  expect(errors).toEqual([]);
  return page;
}

/** Clicks the dialog's Save and waits for the panel's confirmation message. */
async function save(page: Page): Promise<void> {
  const before = await page.locator(".b3-snackbar").count();
  await page.click(".b3-dialog .b3-button--text");
  await page.locator(".b3-snackbar").nth(before).waitFor();
  expect(await page.locator(".b3-snackbar").nth(before).textContent()).toBe(
    "Sisyphus settings saved",
  );
}

const SETTINGS_PATH = `/data/storage/petal/${PLUGIN_NAME}/settings.json`;

/** A kernel file API call on the settings file: the file's JSON for getFile. */
async function settingsFile(api: "getFile" | "removeFile"): Promise<unknown> {
  const res = await fetch(`${sb.url}/api/file/${api}`, {
    method: "POST",
    headers: { authorization: `Token ${sb.token}`, "content-type": "application/json" },
    body: JSON.stringify({ path: SETTINGS_PATH }),
  });
  return res.json();
}
const storedSettings = () => settingsFile("getFile");

/** A strict preflight through the official MCP client on the plugin's route: its error, if any. */
async function strictPreflightError(): Promise<unknown> {
  const client = await kernelClient(sb);
  try {
    const result = await client.callTool({
      name: "block",
      arguments: {
        action: "update",
        id: DEMO_IDS.paragraphGoals,
        dataType: "markdown",
        data: "Goals: through the settings panel",
        validateOnly: true,
      },
    });
    return sc(result)["error"];
  } finally {
    await client.close();
  }
}

const clipboard = (page: Page) => page.evaluate<string>("navigator.clipboard.readText()");

describe("the settings panel", () => {
  it("shows the switch, the endpoint, the masked token and a client configuration that parses", async () => {
    await browser();
    // No settings file: the defaults (kernel endpoint off), as both runtimes read it.
    expect(await settingsFile("removeFile")).toMatchObject({ code: 0 });
    expect(await storedSettings()).toMatchObject({ code: 404 });
    const page = await openPanel();
    const url = `${sb.url}${MCP_PATH}`;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    expect(await page.isChecked(".sisyphus-endpoint-switch")).toBe(false);
    expect(await page.inputValue(".sisyphus-url")).toBe(url);

    const token = page.locator(".sisyphus-token");
    const masked = (await token.textContent()) ?? "";
    expect(masked).not.toContain(sb.token);
    expect(masked).toBe(`${"•".repeat(12)}${sb.token.slice(-4)}`);
    const config = JSON.parse(await page.inputValue(".sisyphus-config"));
    expect(config.mcpServers.sisyphus).toEqual({
      type: "http",
      url,
      headers: { Authorization: `Token ${masked}` },
    });
    await page.click(".sisyphus-reveal");
    expect(await token.textContent()).toBe(sb.token);
    expect(
      JSON.parse(await page.inputValue(".sisyphus-config")).mcpServers.sisyphus.headers,
    ).toEqual({ Authorization: `Token ${sb.token}` });
    await page.click(".sisyphus-reveal");
    expect(await token.textContent()).toBe(masked);

    const text = (await page.locator(".b3-dialog").textContent()) ?? "";
    expect(text).toContain("the Node server is the write authority");
    expect(text).toContain("full access to every notebook");
    expect(text).toContain("need your confirmation");

    // The copy buttons, checked on the real clipboard (granted to the kernel's origin).
    await page.click(".sisyphus-copy-url");
    await expect.poll(() => clipboard(page)).toBe(url);
    await page.click(".sisyphus-copy-config");
    await expect
      .poll(async () => JSON.parse(await clipboard(page)).mcpServers.sisyphus)
      .toEqual({ type: "http", url, headers: { Authorization: `Token ${sb.token}` } });
    await page.close();
  });

  it("saves the kernel endpoint switch to settings.json, and the kernel authority follows it", async () => {
    await browser();
    // A key the panel does not edit (a later setting) survives its saves.
    await writeSettings(sb, { kernelEndpointEnabled: false, laterSetting: "kept" });
    expect(await strictPreflightError()).toMatchObject({
      code: "write_coordinator_unavailable",
      reason: "kernel_endpoint_disabled",
    });

    const page = await openPanel();
    await page.check(".sisyphus-endpoint-switch");
    await save(page);
    expect(await storedSettings()).toEqual({ kernelEndpointEnabled: true, laterSetting: "kept" });
    expect(await strictPreflightError()).toBeUndefined();

    // Opened again, the panel reads the file back.
    await page.click("#open-settings");
    await page.waitForSelector(".b3-dialog .sisyphus-endpoint-switch");
    expect(await page.isChecked(".sisyphus-endpoint-switch")).toBe(true);
    mkdirSync(resolve(SCREENSHOT, ".."), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    await page.uncheck(".sisyphus-endpoint-switch");
    await save(page);
    expect(await storedSettings()).toEqual({ kernelEndpointEnabled: false, laterSetting: "kept" });
    expect(await strictPreflightError()).toMatchObject({
      code: "write_coordinator_unavailable",
      reason: "kernel_endpoint_disabled",
    });

    // Cancel leaves the file alone.
    await page.click("#open-settings");
    await page.waitForSelector(".b3-dialog .sisyphus-endpoint-switch");
    await page.check(".sisyphus-endpoint-switch");
    await page.click(".b3-dialog .b3-button--cancel");
    expect(await page.locator(".b3-dialog").count()).toBe(0);
    expect(await storedSettings()).toEqual({ kernelEndpointEnabled: false, laterSetting: "kept" });
    await page.close();
  });

  it("is translated: zh_CN has every en_US string and the panel renders in it", async () => {
    const strings = (lang: string) =>
      JSON.parse(readFileSync(join(I18N, `${lang}.json`), "utf8")) as Record<string, string>;
    expect(Object.keys(strings("zh_CN")).sort()).toEqual(Object.keys(strings("en_US")).sort());
    const page = await openPanel("zh_CN");
    expect(await page.locator(".b3-dialog").textContent()).toContain(strings("zh_CN")["defaults"]);
    expect(await page.locator(".sisyphus-copy-url").textContent()).toBe("复制");
    await page.close();
  });
});
