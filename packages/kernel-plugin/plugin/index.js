// The frontend half of the plugin: its settings panel (SiYuan's plugin `Setting` API). SiYuan
// loads a plugin's kernel.js only when index.js exists (contract §5). Plain DOM, copied as is.
//
// It edits what the runtimes honour today — the kernel endpoint switch, saved with `saveData` to
// `settings.json` in the plugin's storage, the file the kernel and the Node server read
// (`@sisyphus/mcp-tools/settings`) — and shows what a Node server, the CLI or an MCP client needs.
const { Plugin, Setting, showMessage } = require("siyuan");

const NAME = "siyuan-plugins-mcp-sisyphus";
const SETTINGS_FILE = "settings.json";

/** An element with attributes (`class`, `text`, properties) and children. */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node[key] = value;
  }
  node.append(...children);
  return node;
}

/** Writes `text` to the clipboard; falls back to a selection copy where the API is refused. */
async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = el("textarea", { value: text });
    document.body.append(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    return ok;
  }
}

module.exports = class SisyphusPlugin extends Plugin {
  async onload() {
    this.settings = await this.readSettings();
    this.revealed = false;
    const t = this.i18n;
    this.setting = new Setting({ confirmCallback: () => this.save() });
    this.setting.addItem({
      title: t.kernelEndpoint,
      description: t.kernelEndpointDescription,
      createActionElement: () => {
        this.switchElement = el("input", {
          type: "checkbox",
          class: "b3-switch fn__flex-center sisyphus-endpoint-switch",
          checked: this.settings.kernelEndpointEnabled,
        });
        return this.switchElement;
      },
    });
    this.setting.addItem({
      title: t.endpointUrl,
      description: t.endpointUrlDescription,
      direction: "column",
      createActionElement: () =>
        el(
          "div",
          { class: "sisyphus-row sisyphus-stretch" },
          el("input", {
            class: "b3-text-field fn__flex-1 sisyphus-url",
            readOnly: true,
            value: this.endpointUrl(),
          }),
          this.copyButton("sisyphus-copy-url", () => this.endpointUrl()),
        ),
    });
    this.setting.addItem({
      title: t.token,
      description: this.token() ? t.tokenDescription : `${t.tokenDescription} ${t.tokenMissing}`,
      createActionElement: () => {
        this.tokenElement = el("code", { class: "sisyphus-token" });
        this.revealButton = el("button", {
          type: "button",
          class: "b3-button b3-button--outline sisyphus-reveal",
          disabled: !this.token(),
          onclick: (event) => {
            event.preventDefault();
            this.revealed = !this.revealed;
            this.showToken();
          },
        });
        return el("div", { class: "sisyphus-row" }, this.tokenElement, this.revealButton);
      },
    });
    this.setting.addItem({
      title: t.clientConfig,
      description: t.clientConfigDescription,
      direction: "column",
      createActionElement: () => {
        this.configElement = el("textarea", {
          class: "b3-text-field fn__block sisyphus-config",
          readOnly: true,
          rows: 11,
          spellcheck: false,
        });
        this.showToken();
        return el(
          "div",
          { class: "sisyphus-column" },
          this.configElement,
          this.copyButton("sisyphus-copy-config", () => this.clientConfig(this.token())),
        );
      },
    });
    this.setting.addItem({ title: t.defaults, description: t.defaultsDescription });
  }

  /** Reads the file again before the panel opens, so it shows what the runtimes see now. */
  async openSetting() {
    this.settings = await this.readSettings();
    this.revealed = false;
    super.openSetting();
  }

  /** `settings.json`, defaults filled in; keys this panel does not edit are kept as they are. */
  async readSettings() {
    let data = await this.loadData(SETTINGS_FILE);
    if (typeof data === "string") {
      try {
        data = data === "" ? {} : JSON.parse(data);
      } catch {
        data = {};
      }
    }
    const stored = data !== null && typeof data === "object" && !Array.isArray(data) ? data : {};
    return { ...stored, kernelEndpointEnabled: stored.kernelEndpointEnabled === true };
  }

  save() {
    const next = { ...this.settings, kernelEndpointEnabled: this.switchElement.checked };
    this.saveData(SETTINGS_FILE, next).then(
      (response) => {
        if (response && typeof response === "object" && response.code !== 0) {
          throw new Error(response.msg || `code ${response.code}`);
        }
        this.settings = next;
        showMessage(this.i18n.saved);
      },
      (error) => showMessage(`${this.i18n.saveFailed}: ${error}`, 6000, "error"),
    );
  }

  /** The kernel endpoint on this SiYuan's port (the frontend is served by the kernel). */
  endpointUrl() {
    const { port, protocol } = window.location;
    return `http://127.0.0.1:${port || (protocol === "https:" ? "443" : "80")}/plugin/private/${NAME}/mcp`;
  }

  token() {
    return window.siyuan?.config?.api?.token ?? "";
  }

  clientConfig(token) {
    const server = {
      type: "http",
      url: this.endpointUrl(),
      headers: { Authorization: `Token ${token}` },
    };
    return JSON.stringify({ mcpServers: { sisyphus: server } }, null, 2);
  }

  /** The token and the configuration, masked (last four characters) unless revealed. */
  showToken() {
    const token = this.token();
    const shown = this.revealed ? token : `${"•".repeat(12)}${token.slice(-4)}`;
    if (this.tokenElement) this.tokenElement.textContent = token ? shown : "—";
    if (this.revealButton) {
      this.revealButton.textContent = this.revealed ? this.i18n.hide : this.i18n.reveal;
    }
    if (this.configElement) this.configElement.value = this.clientConfig(token ? shown : "…");
  }

  copyButton(className, text) {
    return el("button", {
      type: "button",
      class: `b3-button b3-button--outline ${className}`,
      text: this.i18n.copy,
      onclick: async (event) => {
        event.preventDefault();
        const ok = await copyText(text());
        showMessage(ok ? this.i18n.copied : this.i18n.copyFailed, 3000, ok ? "info" : "error");
      },
    });
  }
};
