// The frontend half of the plugin: its settings panel (SiYuan's plugin `Setting` API). SiYuan
// loads a plugin's kernel.js only when index.js exists (contract §5).
//
// Bundled by scripts/build.mjs (CommonJS, `siyuan` left to SiYuan's loader). It edits
// `settings.json` in the plugin's storage, the file both runtimes read, through the same parser
// they use (`@sisyphus/mcp-tools/settings`), so what the panel accepts they accept. The tool and
// action names come from the catalog at build time (`sisyphus:catalog`).

import CATALOG from "sisyphus:catalog";
import {
  DEFAULT_SETTINGS,
  OPTION_LIMITS,
  PLUGIN_NAME,
  parseSettings,
  SETTINGS_FILE,
} from "@sisyphus/mcp-tools/settings";
import { fetchSyncPost, Plugin, Setting, showMessage } from "siyuan";

const LEVELS = ["none", "read", "write", "delete"];

/** An element with attributes (`class`, `text`, `dataset`, properties) and children. */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node[key] = value;
  }
  node.append(...children);
  return node;
}

/** `template` with each `{name}` replaced by `values[name]`. */
function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (_, name) => String(values[name]));
}

/** Byte limits with their default and maximum also in MiB, for a description. */
function mebibytes(limits) {
  const mib = (bytes) => Number((bytes / (1024 * 1024)).toFixed(2));
  return { ...limits, defaultMiB: mib(limits.default), maxMiB: mib(limits.max) };
}

/** A plain object, or `{}` for anything else. */
function objectOr(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? value : {};
}

/** Whether the runtimes' parser accepts `partial` as a settings file. */
function accepted(partial) {
  try {
    parseSettings(JSON.stringify(partial));
    return true;
  } catch {
    return false;
  }
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

export default class SisyphusPlugin extends Plugin {
  async onload() {
    this.stored = await this.readStored();
    this.notebooks = [];
    this.revealed = false;
    const t = this.i18n;
    this.setting = new Setting({ confirmCallback: () => this.save() });
    this.setting.addItem({
      title: t.strictSafeWrites,
      description: t.strictSafeWritesDescription,
      createActionElement: () => {
        this.strictElement = this.switchOf("sisyphus-strict-switch", this.view().strictSafeWrites);
        return this.strictElement;
      },
    });
    this.setting.addItem({
      title: t.kernelEndpoint,
      description: t.kernelEndpointDescription,
      createActionElement: () => {
        this.switchElement = this.switchOf(
          "sisyphus-endpoint-switch",
          this.view().kernelEndpointEnabled,
        );
        return this.switchElement;
      },
    });
    this.setting.addItem({
      title: t.permissions,
      description: t.permissionsDescription,
      direction: "column",
      createActionElement: () => this.permissionsElement(),
    });
    this.setting.addItem({
      title: t.tools,
      description: t.toolsDescription,
      direction: "column",
      createActionElement: () => this.toolsElement(),
    });
    this.setting.addItem({
      title: t.options,
      description: t.optionsDescription,
      direction: "column",
      createActionElement: () => this.optionsElement(),
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

  /**
   * Reads the file and the kernel's notebooks again before the panel opens, so it shows what the
   * runtimes see now; then checks the fields (a hand-edited file may hold values they refuse).
   */
  async openSetting() {
    [this.stored, this.notebooks] = await Promise.all([this.readStored(), this.listNotebooks()]);
    this.revealed = false;
    super.openSetting();
    this.validate();
  }

  /** `settings.json` as stored (`{}` when absent or unreadable): keys the panel does not edit are kept. */
  async readStored() {
    let data = await this.loadData(SETTINGS_FILE);
    if (typeof data === "string") {
      try {
        data = data === "" ? {} : JSON.parse(data);
      } catch {
        data = {};
      }
    }
    return objectOr(data);
  }

  /**
   * What the panel shows: each field of the stored file the runtimes' parser accepts, else its
   * default. Options are shown as stored, so a value the runtimes refuse is shown with its error.
   */
  view() {
    const field = (key) => {
      const partial = { [key]: this.stored[key] };
      return accepted(partial)
        ? parseSettings(JSON.stringify(partial))[key]
        : DEFAULT_SETTINGS[key];
    };
    const options = objectOr(this.stored.options);
    const origins = Array.isArray(options.allowedOrigins) ? options.allowedOrigins : [];
    return {
      kernelEndpointEnabled: field("kernelEndpointEnabled"),
      strictSafeWrites: field("strictSafeWrites"),
      permissions: this.permissionsView(),
      disabled: Array.isArray(this.stored.disabled) ? this.stored.disabled : [],
      options: {
        readRetries: options.readRetries ?? OPTION_LIMITS.readRetries.default,
        pageSize: options.pageSize ?? OPTION_LIMITS.pageSize.default,
        templateBudgetBytes:
          options.templateBudgetBytes ?? OPTION_LIMITS.templateBudgetBytes.default,
        allowedOrigins: origins.filter((o) => typeof o === "string"),
        feedbackUrl: typeof options.feedbackUrl === "string" ? options.feedbackUrl : "",
      },
    };
  }

  /** The stored default and every stored override the parser accepts, one by one. */
  permissionsView() {
    const raw = objectOr(this.stored.permissions);
    const level = (p) => (LEVELS.includes(p) ? p : undefined);
    const notebooks = {};
    for (const [id, p] of Object.entries(objectOr(raw.notebooks))) {
      if (level(p)) notebooks[id] = p;
    }
    return { default: level(raw.default) ?? DEFAULT_SETTINGS.permissions.default, notebooks };
  }

  /** The workspace's notebooks from the kernel (`[]` and a shown error when it does not answer). */
  async listNotebooks() {
    this.notebooksError = undefined;
    try {
      const response = await fetchSyncPost("/api/notebook/lsNotebooks", {});
      if (response?.code !== 0) throw new Error(response?.msg || "no answer");
      return (response.data?.notebooks ?? []).map((n) => ({ id: n.id, name: n.name }));
    } catch (error) {
      this.notebooksError = String(error?.message ?? error);
      return [];
    }
  }

  switchOf(className, checked) {
    return el("input", {
      type: "checkbox",
      class: `b3-switch fn__flex-center ${className}`,
      checked,
    });
  }

  /** A permission `<select>`; `inherit` adds the "default" choice (no override). */
  levelSelect(className, value, inherit) {
    const t = this.i18n;
    const select = el("select", { class: `b3-select ${className}` });
    if (inherit) select.append(el("option", { value: "", class: "sisyphus-inherit" }));
    for (const level of LEVELS) {
      select.append(el("option", { value: level, text: t[`level_${level}`] }));
    }
    select.value = value ?? "";
    return select;
  }

  /** The default level and one row per notebook: the kernel's, then any others in the file. */
  permissionsElement() {
    const t = this.i18n;
    const view = this.view().permissions;
    this.defaultLevel = this.levelSelect("sisyphus-permission-default", view.default, false);
    this.defaultLevel.addEventListener("change", () => this.showInheritedLevel());
    const rows = [...this.notebooks];
    for (const id of Object.keys(view.notebooks)) {
      // Unlisted: a notebook removed since, or any notebook when the kernel did not answer.
      const name = this.notebooksError ? "" : t.notebookUnknown;
      if (!rows.some((n) => n.id === id)) rows.push({ id, name });
    }
    this.notebookLevels = rows.map((n) => {
      const select = this.levelSelect("sisyphus-permission", view.notebooks[n.id], true);
      select.dataset.notebook = n.id;
      return select;
    });
    const list = el(
      "div",
      { class: "sisyphus-notebooks" },
      ...rows.map((n, i) =>
        el(
          "div",
          { class: "sisyphus-row sisyphus-notebook", dataset: { notebook: n.id } },
          el("span", { class: "fn__flex-1 sisyphus-notebook-name", text: n.name }),
          el("code", { class: "sisyphus-notebook-id", text: n.id }),
          this.notebookLevels[i],
        ),
      ),
    );
    const status = this.notebooksError
      ? el("div", {
          class: "sisyphus-error sisyphus-notebooks-error",
          text: fill(t.notebooksFailed, { error: this.notebooksError }),
        })
      : rows.length === 0
        ? el("div", { class: "b3-label__text", text: t.notebooksNone })
        : "";
    this.showInheritedLevel();
    return el(
      "div",
      { class: "sisyphus-column sisyphus-permissions" },
      el(
        "div",
        { class: "sisyphus-row sisyphus-notebook" },
        el("span", { class: "fn__flex-1", text: t.permissionDefault }),
        this.defaultLevel,
      ),
      list,
      status,
    );
  }

  /** Names the default level in every notebook's "default" choice. */
  showInheritedLevel() {
    const level = this.i18n[`level_${this.defaultLevel.value}`];
    for (const select of this.notebookLevels) {
      select.querySelector(".sisyphus-inherit").textContent = fill(this.i18n.levelDefault, {
        level,
      });
    }
  }

  /** A checkbox per tool and per action, in catalog order; an action of a tool turned off is greyed. */
  toolsElement() {
    const disabled = new Set(this.view().disabled);
    const check = (attrs, off) => el("input", { type: "checkbox", checked: !off, ...attrs });
    this.toolToggles = [];
    this.actionToggles = [];
    const tools = CATALOG.map(({ tool, actions }) => {
      const toggle = check(
        { class: "sisyphus-tool-toggle", dataset: { tool } },
        disabled.has(tool),
      );
      const toggles = actions.map((a) =>
        check(
          { class: "sisyphus-action-toggle", dataset: { tool, action: a.name } },
          disabled.has(`${tool}.${a.name}`),
        ),
      );
      const grey = () => {
        for (const a of toggles) a.disabled = !toggle.checked;
      };
      toggle.addEventListener("change", grey);
      grey();
      this.toolToggles.push(toggle);
      this.actionToggles.push(...toggles);
      return el(
        "fieldset",
        { class: "sisyphus-tool" },
        el("legend", {}, el("label", {}, toggle, el("b", { text: ` ${tool}` }))),
        el(
          "div",
          { class: "sisyphus-actions" },
          ...actions.map((a, i) =>
            el(
              "label",
              { class: a.dangerous ? "sisyphus-dangerous" : "", title: a.signature },
              toggles[i],
              ` ${a.name}`,
            ),
          ),
        ),
      );
    });
    return el("div", { class: "sisyphus-column sisyphus-tools" }, ...tools);
  }

  /** Read retries, page size, template budget and allowed origins, each with its inline error. */
  optionsElement() {
    const t = this.i18n;
    const { options } = this.view();
    const number = (className, value, limits) =>
      el("input", {
        type: "number",
        class: `b3-text-field ${className}`,
        min: limits.min,
        max: limits.max,
        step: 1,
        value: String(value),
        oninput: () => this.validate(),
      });
    this.retriesInput = number(
      "sisyphus-read-retries",
      options.readRetries,
      OPTION_LIMITS.readRetries,
    );
    this.pageSizeInput = number("sisyphus-page-size", options.pageSize, OPTION_LIMITS.pageSize);
    // In bytes, as stored: exact for any value the runtimes accept (MiB would need rounding).
    this.templateBudgetInput = number(
      "sisyphus-template-budget",
      options.templateBudgetBytes,
      OPTION_LIMITS.templateBudgetBytes,
    );
    this.originsInput = el("textarea", {
      class: "b3-text-field fn__block sisyphus-origins",
      rows: 3,
      spellcheck: false,
      placeholder: "http://localhost:3000",
      value: options.allowedOrigins.join("\n"),
      oninput: () => this.validate(),
    });
    this.feedbackInput = el("input", {
      type: "url",
      class: "b3-text-field fn__block sisyphus-feedback-url",
      spellcheck: false,
      placeholder: "https://example.org/feedback",
      value: options.feedbackUrl,
      oninput: () => this.validate(),
    });
    this.errors = {
      readRetries: el("div", { class: "sisyphus-error", dataset: { for: "readRetries" } }),
      pageSize: el("div", { class: "sisyphus-error", dataset: { for: "pageSize" } }),
      templateBudgetBytes: el("div", {
        class: "sisyphus-error",
        dataset: { for: "templateBudgetBytes" },
      }),
      allowedOrigins: el("div", { class: "sisyphus-error", dataset: { for: "allowedOrigins" } }),
      feedbackUrl: el("div", { class: "sisyphus-error", dataset: { for: "feedbackUrl" } }),
    };
    const field = (label, description, input, error) =>
      el(
        "div",
        { class: "sisyphus-field" },
        el(
          "div",
          { class: "sisyphus-row" },
          el(
            "div",
            { class: "fn__flex-1" },
            el("div", { text: label }),
            el("div", { class: "b3-label__text", text: description }),
          ),
          input.tagName === "TEXTAREA" || input.type === "url" ? "" : input,
        ),
        input.tagName === "TEXTAREA" || input.type === "url" ? input : "",
        error,
      );
    return el(
      "div",
      { class: "sisyphus-column sisyphus-options" },
      field(
        t.readRetries,
        fill(t.readRetriesDescription, OPTION_LIMITS.readRetries),
        this.retriesInput,
        this.errors.readRetries,
      ),
      field(
        t.pageSize,
        fill(t.pageSizeDescription, OPTION_LIMITS.pageSize),
        this.pageSizeInput,
        this.errors.pageSize,
      ),
      field(
        t.templateBudget,
        fill(t.templateBudgetDescription, mebibytes(OPTION_LIMITS.templateBudgetBytes)),
        this.templateBudgetInput,
        this.errors.templateBudgetBytes,
      ),
      field(
        t.allowedOrigins,
        t.allowedOriginsDescription,
        this.originsInput,
        this.errors.allowedOrigins,
      ),
      field(t.feedbackUrl, t.feedbackUrlDescription, this.feedbackInput, this.errors.feedbackUrl),
    );
  }

  /**
   * The options as typed, each checked with the runtimes' parser: shows or clears every inline
   * error and enables the dialog's Save only when all pass. Returns the options, or `undefined`.
   */
  validate() {
    const t = this.i18n;
    const whole = (input) => (input.value.trim() === "" ? Number.NaN : Number(input.value));
    const options = {
      readRetries: whole(this.retriesInput),
      pageSize: whole(this.pageSizeInput),
      templateBudgetBytes: whole(this.templateBudgetInput),
      allowedOrigins: this.originsInput.value
        .split("\n")
        .map((line) => line.trim())
        .filter((line) => line !== ""),
      feedbackUrl: this.feedbackInput.value.trim(),
    };
    const problems = {
      readRetries: accepted({ options: { readRetries: options.readRetries } })
        ? ""
        : fill(t.wholeNumber, OPTION_LIMITS.readRetries),
      pageSize: accepted({ options: { pageSize: options.pageSize } })
        ? ""
        : fill(t.wholeNumber, OPTION_LIMITS.pageSize),
      templateBudgetBytes: accepted({
        options: { templateBudgetBytes: options.templateBudgetBytes },
      })
        ? ""
        : fill(t.wholeNumber, OPTION_LIMITS.templateBudgetBytes),
      allowedOrigins: options.allowedOrigins
        .filter((origin) => !accepted({ options: { allowedOrigins: [origin] } }))
        .map((origin) => fill(t.originInvalid, { origin }))
        .join(" "),
      feedbackUrl:
        options.feedbackUrl === "" || accepted({ options: { feedbackUrl: options.feedbackUrl } })
          ? ""
          : t.feedbackUrlInvalid,
    };
    const inputs = {
      readRetries: this.retriesInput,
      pageSize: this.pageSizeInput,
      templateBudgetBytes: this.templateBudgetInput,
      allowedOrigins: this.originsInput,
      feedbackUrl: this.feedbackInput,
    };
    for (const [key, problem] of Object.entries(problems)) {
      this.errors[key].textContent = problem;
      inputs[key].classList.toggle("sisyphus-invalid", problem !== "");
      inputs[key].setAttribute("aria-invalid", String(problem !== ""));
    }
    const valid = Object.values(problems).every((p) => p === "");
    const save = this.retriesInput
      .closest(".b3-dialog")
      ?.querySelector(".b3-dialog__action .b3-button--text");
    if (save) save.disabled = !valid;
    return valid ? options : undefined;
  }

  /**
   * The file to write: the stored one with every field the panel edits replaced (all of them,
   * defaults included, so the file says what the panel showed), checked by the runtimes' parser.
   */
  nextSettings(options) {
    const { notebooks: _old, ...permissions } = objectOr(this.stored.permissions);
    const notebooks = {};
    for (const select of this.notebookLevels) {
      if (select.value !== "") notebooks[select.dataset.notebook] = select.value;
    }
    const disabled = [
      ...this.toolToggles.filter((c) => !c.checked).map((c) => c.dataset.tool),
      ...this.actionToggles
        .filter((c) => !c.checked)
        .map((c) => `${c.dataset.tool}.${c.dataset.action}`),
    ];
    const next = {
      ...this.stored,
      kernelEndpointEnabled: this.switchElement.checked,
      strictSafeWrites: this.strictElement.checked,
      permissions: {
        ...permissions,
        default: this.defaultLevel.value,
        ...(Object.keys(notebooks).length > 0 ? { notebooks } : {}),
      },
      disabled,
      options: { ...objectOr(this.stored.options), ...options },
    };
    // An empty feedback address means none: the key is left out rather than stored empty.
    if (next.options.feedbackUrl === "") delete next.options.feedbackUrl;
    const parsed = parseSettings(JSON.stringify(next));
    return {
      ...next,
      disabled: [...parsed.disabled],
      options: { ...next.options, allowedOrigins: [...parsed.options.allowedOrigins] },
    };
  }

  /** The dialog's Save: nothing is written while a field is invalid. */
  save() {
    const options = this.validate();
    let next;
    try {
      next = options && this.nextSettings(options);
    } catch (error) {
      showMessage(`${this.i18n.saveFailed}: ${error?.message ?? error}`, 6000, "error");
      return;
    }
    if (!next) {
      showMessage(this.i18n.saveInvalid, 6000, "error");
      return;
    }
    this.saveData(SETTINGS_FILE, next).then(
      (response) => {
        if (response && typeof response === "object" && response.code !== 0) {
          throw new Error(response.msg || `code ${response.code}`);
        }
        this.stored = next;
        showMessage(this.i18n.saved);
      },
      (error) => showMessage(`${this.i18n.saveFailed}: ${error}`, 6000, "error"),
    );
  }

  /** The kernel endpoint on this SiYuan's port (the frontend is served by the kernel). */
  endpointUrl() {
    const { port, protocol } = window.location;
    return `http://127.0.0.1:${port || (protocol === "https:" ? "443" : "80")}/plugin/private/${PLUGIN_NAME}/mcp`;
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
}
