/**
 * The settings panel (`plugin/index.js`, built into `dist/plugin/`) in headless Debian Chromium,
 * against a stub of SiYuan's frontend plugin API (`test/panel/`), with the built plugin running in
 * the sandbox kernel. The page is served by a node:http server and mapped by Playwright's router
 * onto the sandbox kernel's origin, as SiYuan serves its frontend from the kernel's port: the
 * panel's port is the kernel's, and its storage and notebook calls (`/api/file/*`,
 * `/api/notebook/lsNotebooks`) reach the kernel itself. What the panel saves must read back
 * through the runtimes' parser (`parseSettings`) and change what the kernel authority does.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ACTIONS, TOOL_NAMES } from "@sisyphus/mcp-tools";
import { DEFAULT_SETTINGS, parseSettings } from "@sisyphus/mcp-tools/settings";
import { DEMO_IDS, type Sandbox } from "@sisyphus/siyuan-sandbox";
import { EXPECT_POLL_TIMEOUT_MS } from "@sisyphus/siyuan-sandbox/testing";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import {
  kernelClient,
  PLUGIN_NAME,
  SETTINGS_PATH,
  sandboxWithPlugin,
  sc,
  writeSettings,
} from "./harness.js";
import { type PanelServer, servePanel } from "./panel/server.js";

const CHROMIUM = "/usr/bin/chromium";
const DIST_PLUGIN = resolve(import.meta.dirname, "..", "dist", "plugin");
const SCREENSHOT = resolve(import.meta.dirname, "..", "test-artifacts", "settings-panel.png");
const SCREENSHOT_INVALID = resolve(SCREENSHOT, "..", "settings-panel-invalid.png");
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
  await reopen(page);
  expect(errors).toEqual([]);
  return page;
}

/** Opens the settings dialog (again) on `page`: the panel reads the file and the notebooks anew. */
async function reopen(page: Page): Promise<void> {
  await page.click("#open-settings");
  await page.waitForSelector(".b3-dialog .sisyphus-endpoint-switch");
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
/** The stored file as both runtimes read it. */
const parsedSettings = async () => parseSettings(JSON.stringify(await storedSettings()));

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

/** A page-side expression's value (strings: this package's typecheck has no DOM library). */
const evaluate = <T>(page: Page, expression: string) => page.evaluate<T>(expression);
const all = (selector: string) => `[...document.querySelectorAll(".b3-dialog ${selector}")]`;

/** What the panel shows, read from its controls. */
async function shown(page: Page) {
  return {
    strictSafeWrites: await page.isChecked(".sisyphus-strict-switch"),
    kernelEndpointEnabled: await page.isChecked(".sisyphus-endpoint-switch"),
    defaultLevel: await page.inputValue(".sisyphus-permission-default"),
    notebooks: Object.fromEntries(
      await evaluate<[string, string][]>(
        page,
        `${all("select.sisyphus-permission")}.map((s) => [s.dataset.notebook, s.value])`,
      ),
    ),
    off: await evaluate<string[]>(
      page,
      `[...${all(".sisyphus-tool-toggle")}.filter((b) => !b.checked).map((b) => b.dataset.tool),
        ...${all(".sisyphus-action-toggle")}.filter((b) => !b.checked)
          .map((b) => b.dataset.tool + "." + b.dataset.action)]`,
    ),
    readRetries: await page.inputValue(".sisyphus-read-retries"),
    pageSize: await page.inputValue(".sisyphus-page-size"),
    templateBudget: await page.inputValue(".sisyphus-template-budget"),
    origins: await page.inputValue(".sisyphus-origins"),
    feedbackUrl: await page.inputValue(".sisyphus-feedback-url"),
  };
}

/** The kernel's notebooks, asked directly (not through the panel). */
async function kernelNotebooks(): Promise<{ id: string; name: string }[]> {
  const res = await fetch(`${sb.url}/api/notebook/lsNotebooks`, {
    method: "POST",
    headers: { authorization: `Token ${sb.token}`, "content-type": "application/json" },
    body: "{}",
  });
  return ((await res.json()) as { data: { notebooks: { id: string; name: string }[] } }).data
    .notebooks;
}

describe("the settings panel", () => {
  it("renders every section with the documented defaults when nothing is configured", async () => {
    await browser();
    // No settings file: the defaults, as both runtimes read them.
    expect(await settingsFile("removeFile")).toMatchObject({ code: 0 });
    expect(await storedSettings()).toMatchObject({ code: 404 });
    // A notebook created just now is listed too: the list is the kernel's, asked when the panel opens.
    const created = await fetch(`${sb.url}/api/notebook/createNotebook`, {
      method: "POST",
      headers: { authorization: `Token ${sb.token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Created for the panel" }),
    });
    expect(await created.json()).toMatchObject({ code: 0 });
    const page = await openPanel();
    const strings = i18n("en_US");
    const titles = await evaluate<string[]>(
      page,
      `${all(".b3-label__title")}.map((t) => t.textContent)`,
    );
    for (const key of [
      "strictSafeWrites",
      "kernelEndpoint",
      "permissions",
      "tools",
      "options",
      "endpointUrl",
      "token",
      "clientConfig",
      "defaults",
    ]) {
      expect(titles).toContain(strings[key]);
    }
    const notebooks = await kernelNotebooks();
    expect(notebooks.map((n) => n.name)).toContain("Created for the panel");
    expect(notebooks.map((n) => n.id)).toEqual(
      expect.arrayContaining([DEMO_IDS.notebookResearch, DEMO_IDS.notebookPersonal]),
    );
    expect(await shown(page)).toEqual({
      strictSafeWrites: true,
      kernelEndpointEnabled: false,
      defaultLevel: "delete",
      notebooks: Object.fromEntries(notebooks.map((n) => [n.id, ""])),
      off: [],
      readRetries: "3",
      pageSize: "16",
      templateBudget: "16777216",
      origins: "",
      feedbackUrl: "",
    });
    // Every notebook of the sandbox by name, each following the default, which is named.
    expect(
      await evaluate<string[]>(page, `${all(".sisyphus-notebook-name")}.map((n) => n.textContent)`),
    ).toEqual(notebooks.map((n) => n.name));
    expect(
      await evaluate<string[]>(
        page,
        `${all("select.sisyphus-permission")}.map((s) => s.selectedOptions[0].textContent)`,
      ),
    ).toEqual(notebooks.map(() => "Default: Delete (full access)"));
    expect(await page.locator(".b3-dialog .sisyphus-error:visible").count()).toBe(0);
    await page.close();
  });

  it("lists exactly the catalog's tools and actions", async () => {
    const page = await openPanel();
    expect(
      await evaluate<string[]>(page, `${all(".sisyphus-tool-toggle")}.map((b) => b.dataset.tool)`),
    ).toEqual([...TOOL_NAMES]);
    expect(
      await evaluate<string[]>(
        page,
        `${all(".sisyphus-action-toggle")}.map((b) => b.dataset.tool + "." + b.dataset.action)`,
      ),
    ).toEqual(ACTIONS.map((a) => `${a.tool}.${a.action}`));
    // Turning a tool off greys its actions (they keep their own state).
    await page.uncheck('.sisyphus-tool-toggle[data-tool="tag"]');
    expect(
      await page.isDisabled('.sisyphus-action-toggle[data-tool="tag"][data-action="list"]'),
    ).toBe(true);
    expect(
      await page.isChecked('.sisyphus-action-toggle[data-tool="tag"][data-action="list"]'),
    ).toBe(true);
    await page.close();
  });

  it("shows the switch, the endpoint, the masked token and a client configuration that parses", async () => {
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
    await expect.poll(() => clipboard(page), { timeout: EXPECT_POLL_TIMEOUT_MS }).toBe(url);
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
    expect(await storedSettings()).toMatchObject({
      kernelEndpointEnabled: true,
      laterSetting: "kept",
    });
    expect(await parsedSettings()).toEqual({ ...DEFAULT_SETTINGS, kernelEndpointEnabled: true });
    expect(await strictPreflightError()).toBeUndefined();

    // Opened again, the panel reads the file back.
    await reopen(page);
    expect(await page.isChecked(".sisyphus-endpoint-switch")).toBe(true);
    await page.uncheck(".sisyphus-endpoint-switch");
    await save(page);
    expect(await storedSettings()).toMatchObject({
      kernelEndpointEnabled: false,
      laterSetting: "kept",
    });
    expect(await strictPreflightError()).toMatchObject({
      code: "write_coordinator_unavailable",
      reason: "kernel_endpoint_disabled",
    });

    // Cancel leaves the file alone.
    const before = await storedSettings();
    await reopen(page);
    await page.check(".sisyphus-endpoint-switch");
    await page.click(".b3-dialog .b3-button--cancel");
    expect(await page.locator(".b3-dialog").count()).toBe(0);
    expect(await storedSettings()).toEqual(before);
    await page.close();
  });

  it("saves permissions, tools, actions and options in the runtimes' format, and the kernel follows them", async () => {
    await browser();
    await writeSettings(sb, {
      kernelEndpointEnabled: true,
      permissions: { default: "delete", futureKey: 1 },
      options: { readRetries: 5, laterOption: "kept" },
      laterSetting: "kept",
    });
    const page = await openPanel();
    // The file's values are shown (absent ones as their defaults).
    expect(await shown(page)).toMatchObject({
      kernelEndpointEnabled: true,
      defaultLevel: "delete",
      readRetries: "5",
      pageSize: "16",
      templateBudget: "16777216",
    });

    await page.uncheck(".sisyphus-strict-switch");
    await page.selectOption(".sisyphus-permission-default", "write");
    // The notebooks' "default" choice names the new default at once.
    expect(
      await page
        .locator(
          `select.sisyphus-permission[data-notebook="${DEMO_IDS.notebookResearch}"] option:checked`,
        )
        .textContent(),
    ).toBe("Default: Write");
    await page.selectOption(
      `select.sisyphus-permission[data-notebook="${DEMO_IDS.notebookPersonal}"]`,
      "none",
    );
    await page.selectOption(
      `select.sisyphus-permission[data-notebook="${DEMO_IDS.notebookResearch}"]`,
      "read",
    );
    await page.uncheck('.sisyphus-tool-toggle[data-tool="fs"]');
    await page.uncheck('.sisyphus-action-toggle[data-tool="block"][data-action="delete"]');
    await page.fill(".sisyphus-read-retries", "2");
    await page.fill(".sisyphus-page-size", "40");
    await page.fill(".sisyphus-template-budget", "64");
    await page.fill(
      ".sisyphus-origins",
      "https://app.example.com:8443\n\nhttp://localhost:3000/\n",
    );
    await page.fill(".sisyphus-feedback-url", " https://feedback.example.org/sisyphus ");
    await save(page);

    const expected = {
      kernelEndpointEnabled: true,
      strictSafeWrites: false,
      permissions: {
        default: "write",
        notebooks: { [DEMO_IDS.notebookPersonal]: "none", [DEMO_IDS.notebookResearch]: "read" },
      },
      disabled: ["block.delete", "fs"],
      options: {
        readRetries: 2,
        pageSize: 40,
        templateBudgetBytes: 64,
        allowedOrigins: ["http://localhost:3000", "https://app.example.com:8443"],
        feedbackUrl: "https://feedback.example.org/sisyphus",
      },
    };
    expect(await parsedSettings()).toEqual(expected);
    // Every field the panel edits is written; what it does not know is kept.
    expect(await storedSettings()).toEqual({
      ...expected,
      permissions: { ...expected.permissions, futureKey: 1 },
      options: { ...expected.options, laterOption: "kept" },
      laterSetting: "kept",
    });

    // Reopened, the panel shows what was saved.
    await reopen(page);
    expect(await shown(page)).toEqual({
      strictSafeWrites: false,
      kernelEndpointEnabled: true,
      defaultLevel: "write",
      notebooks: {
        ...Object.fromEntries((await kernelNotebooks()).map((n) => [n.id, ""])),
        ...expected.permissions.notebooks,
      },
      off: ["fs", "block.delete"],
      readRetries: "2",
      pageSize: "40",
      templateBudget: "64",
      origins: "http://localhost:3000\nhttps://app.example.com:8443",
      feedbackUrl: "https://feedback.example.org/sisyphus",
    });
    mkdirSync(resolve(SCREENSHOT, ".."), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    await page.click(".b3-dialog .b3-button--cancel");

    // The kernel authority sees the change on its next call.
    const client = await kernelClient(sb);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).not.toContain("fs");
      const block = tools.find((t) => t.name === "block");
      const action = block?.inputSchema.properties?.["action"] as { enum: string[] } | undefined;
      const actions = action?.enum ?? [];
      expect(actions).toContain("update");
      expect(actions).not.toContain("delete");
      const del = await client.callTool({
        name: "block",
        arguments: { action: "delete", id: DEMO_IDS.paragraphJournal, validateOnly: true },
      });
      expect(sc(del)["error"]).toMatchObject({ code: "action_disabled" });
      const get = (id: string) =>
        client.callTool({ name: "block", arguments: { action: "get_kramdown", id } });
      expect(sc(await get(DEMO_IDS.paragraphJournal))["error"]).toMatchObject({
        code: "permission_denied",
      });
      expect((await get(DEMO_IDS.paragraphStatus)).isError).not.toBe(true);
      // The template budget: 65 bytes are refused before any write, 8 are written and read back.
      const template = (content: string, extra: Record<string, unknown>) =>
        client.callTool({
          name: "file",
          arguments: { action: "create_template", name: "panel.md", content, ...extra },
        });
      expect(sc(await template("x".repeat(65), { validateOnly: true }))["error"]).toMatchObject({
        code: "invalid_arguments",
        reason: "template_budget",
        limit: 64,
        size: 65,
        writeAttempted: false,
      });
      const pre = sc(await template("# Panel\n", { validateOnly: true }));
      expect(pre["requestId"], JSON.stringify(pre)).toEqual(expect.any(String));
      expect(sc(await template("# Panel\n", { requestId: pre["requestId"] }))).toMatchObject({
        status: "committed",
        templatePath: "/data/templates/panel.md",
      });
    } finally {
      await client.close();
      await writeSettings(sb, { kernelEndpointEnabled: false });
    }
    await page.close();
  });

  it("shows an inline error and saves nothing while an origin or a number is invalid", async () => {
    await browser();
    await writeSettings(sb, { kernelEndpointEnabled: false, options: { pageSize: 8 } });
    const before = await storedSettings();
    const page = await openPanel();
    const saveButton = page.locator(".b3-dialog .b3-button--text");
    const originError = page.locator('.sisyphus-error[data-for="allowedOrigins"]');
    expect(await originError.isVisible()).toBe(false);

    await page.check(".sisyphus-endpoint-switch");
    await page.fill(".sisyphus-origins", "http://localhost:3000\nlocalhost");
    expect(await originError.textContent()).toBe(
      "“localhost” is not an origin: write scheme://host[:port], e.g. http://localhost:3000.",
    );
    expect(await page.getAttribute(".sisyphus-origins", "aria-invalid")).toBe("true");
    expect(await saveButton.isDisabled()).toBe(true);
    // Save asked anyway (the dialog's callback): a message, and the file is untouched.
    await page.evaluate("window.plugin.save()");
    await expect
      .poll(() => page.locator(".b3-snackbar").last().textContent())
      .toBe(i18n("en_US")["saveInvalid"]);
    expect(await storedSettings()).toEqual(before);

    // Fixed, the origin error goes; a page size of 0 and 1.5 retries are refused in turn.
    await page.fill(".sisyphus-origins", "http://localhost:3000");
    expect(await originError.isVisible()).toBe(false);
    expect(await saveButton.isDisabled()).toBe(false);
    await page.fill(".sisyphus-page-size", "0");
    expect(await page.locator('.sisyphus-error[data-for="pageSize"]').textContent()).toBe(
      "Enter a whole number from 1 to 64.",
    );
    await page.fill(".sisyphus-read-retries", "1.5");
    expect(await page.locator('.sisyphus-error[data-for="readRetries"]').textContent()).toBe(
      "Enter a whole number from 1 to 10.",
    );
    // A template budget over 32 MiB is refused like the other numbers.
    await page.fill(".sisyphus-template-budget", "33554433");
    expect(
      await page.locator('.sisyphus-error[data-for="templateBudgetBytes"]').textContent(),
    ).toBe("Enter a whole number from 1 to 33554432.");
    expect(await saveButton.isDisabled()).toBe(true);
    // A feedback address over plain http to another host is refused; empty means none.
    const feedbackError = page.locator('.sisyphus-error[data-for="feedbackUrl"]');
    await page.fill(".sisyphus-feedback-url", "http://feedback.example.org/form");
    expect(await feedbackError.textContent()).toBe(i18n("en_US")["feedbackUrlInvalid"]);
    await page.evaluate("window.plugin.save()");
    expect(await storedSettings()).toEqual(before);
    await page.locator(".sisyphus-options").screenshot({ path: SCREENSHOT_INVALID });
    await page.fill(".sisyphus-feedback-url", "");
    expect(await feedbackError.isVisible()).toBe(false);

    // A file holding a value the runtimes refuse opens with that value and its error shown.
    await page.click(".b3-dialog .b3-button--cancel");
    await writeSettings(sb, { options: { readRetries: 11 } });
    await reopen(page);
    expect(await page.inputValue(".sisyphus-read-retries")).toBe("11");
    expect(await page.locator('.sisyphus-error[data-for="readRetries"]').isVisible()).toBe(true);
    expect(await saveButton.isDisabled()).toBe(true);
    await page.close();
    await writeSettings(sb, { kernelEndpointEnabled: false });
  });

  it("is translated: zh_CN has every en_US string and the panel renders in it", async () => {
    expect(Object.keys(i18n("zh_CN")).sort()).toEqual(Object.keys(i18n("en_US")).sort());
    const page = await openPanel("zh_CN");
    const text = (await page.locator(".b3-dialog").textContent()) ?? "";
    for (const key of [
      "defaults",
      "strictSafeWrites",
      "permissions",
      "tools",
      "options",
      "readRetries",
      "templateBudget",
    ]) {
      expect(text).toContain(i18n("zh_CN")[key]);
    }
    expect(await page.locator(".sisyphus-copy-url").textContent()).toBe("复制");
    await page.close();
  });
});

function i18n(lang: string): Record<string, string> {
  return JSON.parse(readFileSync(join(I18N, `${lang}.json`), "utf8")) as Record<string, string>;
}
