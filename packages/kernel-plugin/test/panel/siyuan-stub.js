// A small stub of SiYuan's frontend plugin API (the `siyuan` module as its public typings
// describe it: Plugin, Setting, showMessage, fetchSyncPost) and the loader around it, for the
// settings panel test. Storage goes through the kernel's file API on `data/storage/petal/<name>/`, as SiYuan's
// own frontend does; the page is on the kernel's origin, so those calls are same-origin.
(() => {
  window.siyuan = window.siyuan ?? { config: { api: {} } };

  /** SiYuan's `fetchPost`: JSON or multipart in, the answer parsed by its content type out. */
  async function fetchPost(url, body) {
    const headers = { Authorization: `Token ${window.siyuan.config?.api?.token ?? ""}` };
    const form = body instanceof FormData;
    if (!form) headers["Content-Type"] = "application/json";
    const res = await fetch(url, {
      method: "POST",
      headers,
      body: form ? body : JSON.stringify(body),
    });
    const type = res.headers.get("content-type") ?? "";
    return type.includes("application/json") ? res.json() : res.text();
  }

  /** SiYuan's `fetchSyncPost`: the kernel's JSON answer (`{code, msg, data}`). */
  async function fetchSyncPost(url, data) {
    return fetchPost(url, data ?? {});
  }

  class Plugin {
    constructor({ app, name, displayName, i18n }) {
      this.app = app;
      this.name = name;
      this.displayName = displayName;
      this.i18n = i18n;
      this.data = {};
      this.setting = undefined;
    }
    onload() {}
    onLayoutReady() {}
    onunload() {}

    /** `""` when the file does not exist, as in SiYuan. */
    async loadData(storageName) {
      if (this.data[storageName] === undefined) this.data[storageName] = "";
      const path = `/data/storage/petal/${this.name}/${storageName}`;
      const response = await fetchPost("/api/file/getFile", { path });
      if (!(response && typeof response === "object" && response.code === 404)) {
        this.data[storageName] = response;
      }
      return this.data[storageName];
    }

    async saveData(storageName, data) {
      const path = `/data/storage/petal/${this.name}/${storageName}`;
      const blob =
        typeof data === "object"
          ? new Blob([JSON.stringify(data)], { type: "application/json" })
          : new Blob([data]);
      const form = new FormData();
      form.append("path", path);
      form.append("file", new File([blob], storageName));
      form.append("isDir", "false");
      const response = await fetchPost("/api/file/putFile", form);
      this.data[storageName] = data;
      return response;
    }

    openSetting() {
      if (!this.setting) return;
      this.setting.open(this.displayName || this.name);
    }
  }

  /**
   * Items rendered into a dialog with Cancel and Save; Save calls `confirmCallback`, then closes
   * the dialog whatever it did, as SiYuan's does. As there, an item is a `<label>` only when its
   * action element is a `b3-switch`.
   */
  class Setting {
    constructor(options) {
      this.items = [];
      this.confirmCallback = options.confirmCallback;
      this.destroyCallback = options.destroyCallback;
    }
    addItem(options) {
      this.items.push(options);
    }
    open(name) {
      const dialog = document.createElement("div");
      dialog.className = "b3-dialog";
      dialog.innerHTML = `<div class="b3-dialog__header"></div><div class="b3-dialog__content"></div>
<div class="b3-dialog__action"><button type="button" class="b3-button b3-button--cancel">Cancel</button>
<button type="button" class="b3-button b3-button--text">Save</button></div>`;
      dialog.querySelector(".b3-dialog__header").textContent = name;
      const content = dialog.querySelector(".b3-dialog__content");
      for (const item of this.items) {
        const action = item.actionElement ?? item.createActionElement?.();
        const label = document.createElement(
          action?.classList.contains("b3-switch") ? "label" : "div",
        );
        label.className = `fn__flex b3-label config__item${item.direction === "column" ? " b3-label--column" : ""}`;
        label.innerHTML = `<div class="fn__flex-1"><span class="b3-label__title"></span>${
          item.description ? `<div class="b3-label__text">${item.description}</div>` : ""
        }</div>`;
        label.querySelector(".b3-label__title").textContent = item.title;
        if (action) label.append(action);
        content.append(label);
      }
      const destroy = () => {
        dialog.remove();
        this.destroyCallback?.();
      };
      const [cancel, save] = dialog.querySelectorAll(".b3-dialog__action .b3-button");
      cancel.addEventListener("click", destroy);
      save.addEventListener("click", () => {
        this.confirmCallback?.();
        destroy();
      });
      document.body.append(dialog);
    }
  }

  /** Messages go to `#messages`, newest last. */
  function showMessage(text, _timeout, type = "info") {
    const message = document.createElement("div");
    message.className = `b3-snackbar b3-snackbar--${type}`;
    message.textContent = text;
    document.getElementById("messages").append(message);
  }

  const modules = { siyuan: { Plugin, Setting, showMessage, fetchSyncPost } };
  window.require = (id) => {
    if (!(id in modules)) throw new Error(`the stub has no module ${id}`);
    return modules[id];
  };

  /** SiYuan's loader, reduced: i18n, styles, index.js as CommonJS, onload, onLayoutReady. */
  window.loadPlugin = async (base, lang) => {
    const json = async (path) => (await fetch(`${base}/${path}`)).json();
    const manifest = await json("plugin.json");
    const i18n = await json(`i18n/${lang}.json`);
    const style = document.createElement("link");
    style.rel = "stylesheet";
    style.href = `${base}/index.css`;
    document.head.append(style);
    const module = { exports: {} };
    const source = await (await fetch(`${base}/index.js`)).text();
    new Function("module", "exports", "require", source)(module, module.exports, window.require);
    const PluginClass = module.exports.default ?? module.exports;
    const plugin = new PluginClass({
      app: {},
      name: manifest.name,
      displayName: manifest.displayName[lang] ?? manifest.displayName.default,
      i18n,
    });
    await plugin.onload();
    await plugin.onLayoutReady();
    return plugin;
  };
})();
