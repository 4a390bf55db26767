/**
 * av reads beside get/render/keys: a view's filters and sorts (`filter_sort`), databases by name
 * (`search`) and one page of a database's primary-key values (`primary_key_values`), each through
 * the kernel's own endpoint. Databases live outside every notebook: the default (workspace)
 * permission decides who may read them, as for the other av reads.
 */
import { notFound } from "../../errors.js";
import { type ArgsOf, readAction, type ToolContext } from "../../handler.js";
import { pageOf } from "../listing.js";

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === "object" ? (v as Json) : {});
const workspace = async (): Promise<readonly string[]> => ["(workspace)"];

/**
 * The most primary-key values read from the kernel in one call: the action pages them itself (the
 * kernel's own paging fails past the last page), and says `capped` when the kernel had more.
 */
export const PRIMARY_KEYS_FETCH_MAX = 1024;

/**
 * One filter as answers show it: a group keeps its combination and its filters; a leaf names its
 * column (ID and name) and keeps the kernel's operator and value as stored.
 */
function shownFilter(f: unknown, names: ReadonlyMap<string, string>): Json {
  const o = obj(f);
  const column = String(o["column"] ?? "");
  if (Array.isArray(o["filters"]) || column === "") {
    return {
      combination: String(o["combination"] ?? "and"),
      filters: (Array.isArray(o["filters"]) ? o["filters"] : []).map((c) => shownFilter(c, names)),
    };
  }
  return {
    column,
    name: names.get(column) ?? "",
    operator: o["operator"] ?? "",
    value: o["value"] ?? null,
  };
}

/** av.filter_sort: the view's filters (one root group) and sorts, each column named. */
const filterSort = readAction({
  run: async (ctx: ToolContext, a: ArgsOf<"av", "filter_sort">) => {
    const fs = await ctx.kernel.avFilterSort(a.id, a.blockID ?? "");
    if (fs === null) throw notFound("database", a.id);
    const names = new Map((await ctx.kernel.getAttributeViewKeys(a.id)).map((k) => [k.id, k.name]));
    return {
      id: a.id,
      ...(a.blockID === undefined ? {} : { blockID: a.blockID }),
      filters: fs.filters.map((f) => shownFilter(f, names)),
      sorts: fs.sorts.map((x) => {
        const o = obj(x);
        const column = String(o["column"] ?? "");
        return { column, name: names.get(column) ?? "", order: String(o["order"] ?? "") };
      }),
    };
  },
  notebooks: workspace,
});

/** av.search: databases a block shows whose name holds every word of the keyword (any case). */
const search = readAction({
  run: async (ctx: ToolContext, a: ArgsOf<"av", "search">) => ({
    databases: await ctx.kernel.searchAttributeView(a.keyword),
  }),
  notebooks: workspace,
});

/**
 * av.primary_key_values: the rows' primary text (`text`), each with its row ID (`id`, as av.render
 * answers rows) and the block it binds (`bound`, `null` for a detached row), last updated first.
 */
const primaryKeyValues = readAction({
  run: async (ctx: ToolContext, a: ArgsOf<"av", "primary_key_values">) => {
    const found = await ctx.kernel.avPrimaryKeyValues(a.id, a.keyword, PRIMARY_KEYS_FETCH_MAX);
    if (found === null) throw notFound("database", a.id);
    const rows = found.values.map((v) => {
      const o = obj(v);
      const block = obj(o["block"]);
      return {
        id: String(o["blockID"] ?? ""),
        text: String(block["content"] ?? ""),
        bound: o["isDetached"] === true ? null : String(block["id"] ?? "") || null,
      };
    });
    const { items, ...paging } = pageOf(rows, a.page, a.pageSize);
    return {
      id: a.id,
      name: found.name,
      blockIDs: found.blockIDs,
      rows: items,
      ...paging,
      ...(rows.length >= PRIMARY_KEYS_FETCH_MAX ? { capped: true } : {}),
    };
  },
  notebooks: workspace,
});

/** The av lookups. */
export const avLookups = {
  filter_sort: filterSort,
  search,
  primary_key_values: primaryKeyValues,
};
