/** Notebooks (contract §4.1): create, list, conf, open/close, rename, order, remove. */
import type { ProbeContext } from "../probe.js";
import { data, probe, UNKNOWN_ID } from "./kit.js";

interface Box {
  id: string;
  name: string;
}

/** lsNotebooks kept to the given notebooks (other probes' notebooks are not this probe's business). */
function only(ids: readonly string[]) {
  return (j: unknown) => {
    const e = j as {
      code: number;
      msg: string;
      data: { notebooks: Box[]; boxDocEnabled: boolean };
    };
    return {
      ...e,
      data: {
        ...e.data,
        notebooks: e.data.notebooks.filter((n) => ids.includes(n.id)),
      },
    };
  };
}

async function create(ctx: ProbeContext, label: string, name: string): Promise<string> {
  const a = await ctx.post(label, "/api/notebook/createNotebook", { name });
  return data<{ notebook: Box }>(a).notebook.id;
}

export const notebookProbes = [
  probe(
    "notebook.create-list",
    "createNotebook's Box, and lsNotebooks with the new notebook first",
    ["/api/notebook/createNotebook", "/api/notebook/lsNotebooks"],
    async (ctx) => {
      const a = await create(ctx, "create first", `probe ${ctx.probeId} A`);
      const b = await create(ctx, "create second", `probe ${ctx.probeId} B`);
      await ctx.post("list", "/api/notebook/lsNotebooks", {}, { keep: only([a, b]) });
      await ctx.call(
        "list with a non-JSON body",
        { path: "/api/notebook/lsNotebooks", raw: "x" },
        {
          keep: only([a, b]),
        },
      );
      await ctx.post("create with an empty name", "/api/notebook/createNotebook", { name: "" });
      await ctx.post("create without a name", "/api/notebook/createNotebook", {});
    },
  ),
  probe(
    "notebook.conf",
    "getNotebookConf / setNotebookConf: shape, merge, the save-path check, unknown notebook",
    ["/api/notebook/getNotebookConf", "/api/notebook/setNotebookConf"],
    async (ctx) => {
      const nb = await ctx.notebook();
      await ctx.post("get", "/api/notebook/getNotebookConf", { notebook: nb });
      await ctx.post("set", "/api/notebook/setNotebookConf", {
        notebook: nb,
        conf: { dailyNoteSavePath: '/journal/{{now | date "2006-01-02"}}', icon: "1f4d4" },
      });
      await ctx.post("get after set", "/api/notebook/getNotebookConf", { notebook: nb });
      await ctx.post("set save path /", "/api/notebook/setNotebookConf", {
        notebook: nb,
        conf: { dailyNoteSavePath: "/" },
      });
      await ctx.post("set template path", "/api/notebook/setNotebookConf", {
        notebook: nb,
        conf: { dailyNoteTemplatePath: "daily" },
      });
      await ctx.post("get unknown", "/api/notebook/getNotebookConf", { notebook: UNKNOWN_ID });
      await ctx.post("set unknown", "/api/notebook/setNotebookConf", {
        notebook: UNKNOWN_ID,
        conf: { icon: "1f4d4" },
      });
      await ctx.post("get malformed", "/api/notebook/getNotebookConf", { notebook: "x" });
    },
  ),
  probe(
    "notebook.open-close-rename",
    "close, list shows closed, rename closed fails, open, rename, errors",
    ["/api/notebook/closeNotebook", "/api/notebook/openNotebook", "/api/notebook/renameNotebook"],
    async (ctx) => {
      const nb = await ctx.notebook();
      await ctx.post("close", "/api/notebook/closeNotebook", { notebook: nb });
      await ctx.post("list", "/api/notebook/lsNotebooks", {}, { keep: only([nb]) });
      await ctx.post("rename closed", "/api/notebook/renameNotebook", {
        notebook: nb,
        name: "renamed while closed",
      });
      await ctx.post("conf of closed", "/api/notebook/getNotebookConf", { notebook: nb });
      await ctx.post("open", "/api/notebook/openNotebook", { notebook: nb });
      await ctx.post("rename", "/api/notebook/renameNotebook", {
        notebook: nb,
        name: `probe ${ctx.probeId} renamed`,
      });
      await ctx.post("list after", "/api/notebook/lsNotebooks", {}, { keep: only([nb]) });
      await ctx.post("close unknown", "/api/notebook/closeNotebook", { notebook: UNKNOWN_ID });
      await ctx.post("open unknown", "/api/notebook/openNotebook", { notebook: UNKNOWN_ID });
      await ctx.post("open without notebook", "/api/notebook/openNotebook", {});
      await ctx.post("rename unknown", "/api/notebook/renameNotebook", {
        notebook: UNKNOWN_ID,
        name: "x",
      });
    },
  ),
  probe(
    "notebook.setNotebookIcon",
    "setNotebookIcon: lsNotebooks and the conf show the icon as sent (an emoji raw, hex, a " +
      'file name), "" clears, missing and mistyped fields; an unknown notebook ID becomes a ' +
      'closed notebook "Untitled" carrying the icon',
    ["/api/notebook/setNotebookIcon"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const set = async (label: string, icon: string) => {
        await ctx.post(`set ${label}`, "/api/notebook/setNotebookIcon", { notebook: nb, icon });
        await ctx.post(
          `list after ${label}`,
          "/api/notebook/lsNotebooks",
          {},
          { keep: only([nb]) },
        );
      };
      await set("hex", "1f4d4");
      await set("an emoji", "📔");
      await set("a file name", "folder/my icon.png");
      await ctx.post("conf", "/api/notebook/getNotebookConf", { notebook: nb });
      await set("empty", "");
      await ctx.post("without icon", "/api/notebook/setNotebookIcon", { notebook: nb });
      await ctx.post("icon a number", "/api/notebook/setNotebookIcon", { notebook: nb, icon: 5 });
      await ctx.post("without notebook", "/api/notebook/setNotebookIcon", { icon: "1f4d4" });
      await ctx.post("unknown notebook", "/api/notebook/setNotebookIcon", {
        notebook: UNKNOWN_ID,
        icon: "1f4d4",
      });
      await ctx.post(
        "list after unknown",
        "/api/notebook/lsNotebooks",
        {},
        { keep: only([UNKNOWN_ID]) },
      );
      await ctx.quiet("/api/notebook/removeNotebook", { notebook: UNKNOWN_ID });
    },
  ),
  probe(
    "notebook.sortMode",
    "setNotebookConf sortMode: lsNotebooks shows it at once, 15 defers to the workspace, a " +
      "closed notebook takes it, an out-of-range number is stored",
    ["/api/notebook/setNotebookConf", "/api/notebook/lsNotebooks"],
    async (ctx) => {
      const nb = await ctx.notebook();
      const mode = async (label: string, sortMode: number, id = nb) => {
        await ctx.post(`set ${label}`, "/api/notebook/setNotebookConf", {
          notebook: id,
          conf: { sortMode },
        });
        await ctx.post(
          `list after ${label}`,
          "/api/notebook/lsNotebooks",
          {},
          { keep: only([id]) },
        );
      };
      await mode("created_desc", 10);
      await mode("workspace", 15);
      await ctx.post("close", "/api/notebook/closeNotebook", { notebook: nb });
      await mode("on a closed notebook", 4);
      await ctx.post("open", "/api/notebook/openNotebook", { notebook: nb });
      await mode("out of range", 99);
    },
  ),
  probe(
    "notebook.changeSort",
    "changeSortNotebook rewrites the notebooks' sort numbers",
    ["/api/notebook/changeSortNotebook"],
    async (ctx) => {
      const a = await ctx.notebook(" A");
      const b = await ctx.notebook(" B");
      await ctx.post("list before", "/api/notebook/lsNotebooks", {}, { keep: only([a, b]) });
      await ctx.post("change", "/api/notebook/changeSortNotebook", { notebooks: [a, b] });
      await ctx.post("list after", "/api/notebook/lsNotebooks", {}, { keep: only([a, b]) });
    },
  ),
  probe(
    "notebook.remove",
    "removeNotebook, then the notebook is gone; unknown notebook",
    ["/api/notebook/removeNotebook"],
    async (ctx) => {
      const nb = await ctx.notebook();
      await ctx.doc(nb, "/inside", "text");
      await ctx.post("remove", "/api/notebook/removeNotebook", { notebook: nb });
      await ctx.post("list", "/api/notebook/lsNotebooks", {}, { keep: only([nb]) });
      await ctx.post("conf after remove", "/api/notebook/getNotebookConf", { notebook: nb });
      await ctx.post("remove unknown", "/api/notebook/removeNotebook", { notebook: UNKNOWN_ID });
    },
  ),
];
