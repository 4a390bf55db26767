/**
 * av reads: a database's file (`get`), one page of a view (`render`) and its columns (`keys`).
 *
 * No read ever creates a database: `render` always asks the kernel with `createIfNotExist: false`
 * (the kernel's default would write the default database for an unknown ID), and a missing file is
 * a typed `not_found`, never an empty database. Rows are compact by default: one plain value per
 * column, in the columns' order; `full` keeps the kernel's cells.
 *
 * A database lives in the workspace (`data/storage/av/`), outside every notebook: the default
 * permission decides who may read it (its rows may show blocks of any notebook).
 */
import { notFound } from "../../errors.js";
import { type ArgsOf, readAction, type ToolContext } from "../../handler.js";
import type { AvFile, AvKey } from "../../kernel.js";

/** A column as answers show it: ID, name, type, and a select column's option names. */
export function compactKey(k: AvKey): Record<string, unknown> {
  const options = Array.isArray(k["options"])
    ? (k["options"] as Array<{ name?: unknown }>).map((o) => String(o.name ?? ""))
    : [];
  return { id: k.id, name: k.name, type: k.type, ...(options.length > 0 ? { options } : {}) };
}

type Json = Record<string, unknown>;

/** Databases live outside every notebook: reading one needs the default (workspace) permission. */
const workspace = async (): Promise<readonly string[]> => ["(workspace)"];
const obj = (v: unknown): Json => (v !== null && typeof v === "object" ? (v as Json) : {});

/**
 * A cell's plain value: text-like cells their text, numbers and dates their number (dates and
 * timestamps in Unix milliseconds), checkboxes a boolean, selects and assets a list of names,
 * relations the related item IDs, rollups their computed contents; `null` when empty.
 */
export function plainCell(value: unknown): unknown {
  const v = obj(value);
  const type = String(v["type"] ?? "");
  const member = obj(v[type === "select" ? "mSelect" : type]);
  switch (type) {
    case "select":
    case "mSelect":
      return Array.isArray(v["mSelect"])
        ? (v["mSelect"] as Json[]).map((o) => String(obj(o)["content"] ?? ""))
        : [];
    case "mAsset":
      return Array.isArray(v["mAsset"])
        ? (v["mAsset"] as Json[]).map((o) => String(obj(o)["content"] ?? ""))
        : [];
    case "checkbox":
      return member["checked"] === true;
    case "relation":
      return Array.isArray(member["blockIDs"]) ? member["blockIDs"] : [];
    case "rollup":
      return Array.isArray(member["contents"])
        ? (member["contents"] as unknown[]).map(plainCell)
        : [];
    case "number":
    case "date":
    case "created":
    case "updated":
      return member["isNotEmpty"] === false ? null : (member["content"] ?? null);
    default: {
      const content = member["content"];
      return content === undefined || content === "" ? null : content;
    }
  }
}

/** The database's file, or `not_found` (the kernel answers `{av: null}` for a missing file). */
async function requireAv(ctx: ToolContext, id: string): Promise<AvFile> {
  const av = await ctx.kernel.getAttributeView(id);
  if (av === null) throw notFound("database", id);
  return av;
}

/** av.get: the database's name, views and columns with how many rows it has. */
const get = readAction({
  run: async (ctx: ToolContext, a: ArgsOf<"av", "get">) => {
    const av = await requireAv(ctx, a.id);
    const keyValues = (av.keyValues ?? []).map(obj);
    const rows = new Set<string>();
    for (const kv of keyValues) {
      for (const v of Array.isArray(kv["values"]) ? (kv["values"] as Json[]) : []) {
        if (typeof v["blockID"] === "string") rows.add(v["blockID"]);
      }
    }
    return {
      id: av.id,
      name: av.name ?? "",
      viewID: av.viewID ?? "",
      views: (av.views ?? []).map((v) => {
        const o = obj(v);
        return {
          id: String(o["id"] ?? ""),
          name: String(o["name"] ?? ""),
          type: String(o["type"] ?? ""),
        };
      }),
      columns: keyValues.map((kv) => compactKey(obj(kv["key"]) as AvKey)),
      rowCount: rows.size,
    };
  },
  notebooks: workspace,
});

/**
 * av.render: one page of a view (the database's current view unless `viewID`). A table's rows are
 * `{id, values}` with one plain value per column; a gallery or kanban's cards the same.
 */
const render = readAction({
  run: async (ctx: ToolContext, a: ArgsOf<"av", "render">) => {
    const r = await ctx.kernel.renderAttributeView(a.id, {
      viewID: a.viewID,
      page: a.page,
      pageSize: a.pageSize,
    });
    if (r === null) throw notFound("database", a.id);
    const view = obj(r.view);
    const columns = (
      Array.isArray(view["columns"])
        ? view["columns"]
        : Array.isArray(view["fields"])
          ? view["fields"]
          : []
    ) as AvKey[];
    const rawRows = (
      Array.isArray(view["rows"]) ? view["rows"] : Array.isArray(view["cards"]) ? view["cards"] : []
    ) as Json[];
    const total = Number(view["rowCount"] ?? view["cardCount"] ?? rawRows.length);
    const rows = rawRows.map((row) => {
      const cells = (Array.isArray(row["cells"]) ? row["cells"] : row["values"]) as unknown[];
      const list = Array.isArray(cells) ? cells.map(obj) : [];
      return a.full
        ? { id: row["id"], cells: list }
        : { id: row["id"], values: list.map((c) => plainCell(c["value"])) };
    });
    return {
      id: r.id,
      name: r.name ?? "",
      viewID: r.viewID ?? "",
      viewType: r.viewType ?? "",
      views: (r.views ?? []).map((v) => {
        const o = obj(v);
        return {
          id: String(o["id"] ?? ""),
          name: String(o["name"] ?? ""),
          type: String(o["type"] ?? ""),
        };
      }),
      columns: columns.map(compactKey),
      rows,
      page: a.page,
      pageSize: a.pageSize,
      pageCount: Math.ceil(total / a.pageSize),
      total,
    };
  },
  notebooks: workspace,
});

/** av.keys: the database's columns; `not_found` when it has no file. */
const keys = readAction({
  run: async (ctx: ToolContext, a: ArgsOf<"av", "keys">) => {
    // The kernel answers [] for a missing file and for none: only `get` tells them apart.
    const list = await ctx.kernel.getAttributeViewKeys(a.id);
    if (list.length === 0) await requireAv(ctx, a.id);
    return { id: a.id, columns: list.map(compactKey) };
  },
  notebooks: workspace,
});

/** The av reads. */
export const avReads = { get, render, keys };
