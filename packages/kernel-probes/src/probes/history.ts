/** Document history (`/api/history/*`): restore points, their listing, content and rollback. */
import { ProbeError } from "../probe.js";
import { data, probe, UNKNOWN_ID } from "./kit.js";

interface Search {
  histories: string[];
  pageCount: number;
  totalCount: number;
}
interface Items {
  items: Array<{ title: string; path: string; op: string; notebook: string }>;
}

/** A history path no kernel has (well-formed, under `history/`). */
const UNKNOWN_HISTORY = "/history/2020-01-01-000000-update/20200101000000-zzzzzzz/x.sy";

export const historyProbes = [
  probe(
    "history.doc-points",
    "createDocHistory, then searchHistory/getHistoryItems by document ID (indexed a few seconds " +
      "later), getDocHistoryContent (protyle DOM), rollbackDocHistory (no point of the state it " +
      "replaces); unknown IDs and paths",
    [
      "/api/history/createDocHistory",
      "/api/history/searchHistory",
      "/api/history/getHistoryItems",
      "/api/history/getDocHistoryContent",
      "/api/history/rollbackDocHistory",
    ],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/History", "# Head\n\nfirst **para**\n\n- a\n- b");
      await ctx.post("create point", "/api/history/createDocHistory", { id: doc });
      const search = () => ctx.quiet<Search>("/api/history/searchHistory", { query: doc, type: 3 });
      const found = await ctx.poll(search, (s) => s.histories.length > 0, 15_000);
      const created = found.histories[0];
      if (created === undefined) throw new ProbeError("the point was never indexed");
      const items = await ctx.quiet<Items>("/api/history/getHistoryItems", {
        created,
        query: doc,
        type: 3,
      });
      const path = items.items[0]?.path;
      if (path === undefined) throw new ProbeError("no history item at the listed time");
      const dir = path.split("/")[2] ?? "";
      ctx.alias(created, "<created>");
      ctx.alias(dir, "<history-dir>");
      ctx.note("created is the folder's time in Unix seconds", /^\d{10}$/.test(created));
      await ctx.post("search by document ID", "/api/history/searchHistory", {
        query: doc,
        type: 3,
      });
      await ctx.post("search by unknown ID", "/api/history/searchHistory", {
        query: UNKNOWN_ID,
        type: 3,
      });
      await ctx.post("items at that time", "/api/history/getHistoryItems", {
        created,
        query: doc,
        type: 3,
      });
      await ctx.post("items at no time", "/api/history/getHistoryItems", {
        created: "1",
        query: doc,
        type: 3,
      });
      await ctx.post("items without created", "/api/history/getHistoryItems", { query: doc });
      await ctx.post("content", "/api/history/getDocHistoryContent", { historyPath: path });
      await ctx.post("content of an unknown path", "/api/history/getDocHistoryContent", {
        historyPath: UNKNOWN_HISTORY,
      });
      await ctx.post("point of an unknown ID", "/api/history/createDocHistory", {
        id: UNKNOWN_ID,
      });
      await ctx.post("point without id", "/api/history/createDocHistory", {});
      await ctx.quiet("/api/block/appendBlock", {
        parentID: doc,
        dataType: "markdown",
        data: "added after the point",
      });
      await ctx.flush();
      await ctx.post("rollback", "/api/history/rollbackDocHistory", { historyPath: path });
      await ctx.post("kramdown right after rollback", "/api/block/getBlockKramdown", { id: doc });
      await ctx.post("rollback of an unknown path", "/api/history/rollbackDocHistory", {
        historyPath: UNKNOWN_HISTORY,
      });
      await ctx.post("rollback without historyPath", "/api/history/rollbackDocHistory", {});
      await ctx.sleep(4000); // the history index is flushed every 3 s
      const after = data<Search>(
        await ctx.post("search after rollback", "/api/history/searchHistory", {
          query: doc,
          type: 3,
        }),
      );
      ctx.note("rollback made a point of the replaced state", after.totalCount > 1);
    },
  ),
];
