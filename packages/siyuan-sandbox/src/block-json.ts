/**
 * The kernel's `model.Block` JSON, as its search, recent-update, outline and flashcard handlers
 * answer blocks: one shape with Go's zero values, and `fromSQLBlock` of a `blocks` row.
 */
import { type BlockType, LUTE_NODE_NAMES } from "./block.js";

/** `model.Block` with every field at its Go zero value: a handler fills in what it knows. */
export function zeroBlockJson(id = "") {
  return {
    box: "",
    path: "",
    hPath: "",
    id,
    rootID: "",
    parentID: "",
    name: "",
    alias: "",
    memo: "",
    tag: "",
    content: "",
    fcontent: "",
    markdown: "",
    folded: false,
    type: "",
    subType: "",
    refText: "",
    refs: null,
    defID: "",
    defPath: "",
    ial: null as Record<string, string> | null,
    children: null as unknown[] | null,
    depth: 0,
    count: 0,
    refCount: 0,
    sort: 0,
    created: "",
    updated: "",
    riffCardID: "",
    riffCard: null as Record<string, unknown> | null,
  };
}

/** A `blocks` row's `ial` column as the kernel parses it into `Block.IAL` (`null` when empty). */
export function ialOfColumn(ial: string): Record<string, string> | null {
  if (ial === "") return null;
  const out: Record<string, string> = {};
  for (const m of ial.matchAll(/([A-Za-z_][\w-]*)="([^"]*)"/g)) out[m[1]!] = m[2]!;
  return out;
}

/**
 * The kernel's `fromSQLBlock` of one `blocks` row: its texts as stored (a handler escapes or marks
 * them as its endpoint does), its times left zero (the handlers that answer them set them).
 */
export function blockJsonOfRow(x: Record<string, unknown>) {
  const s = (k: string): string => String(x[k] ?? "");
  return {
    ...zeroBlockJson(s("id")),
    box: s("box"),
    path: s("path"),
    hPath: s("hpath"),
    rootID: s("root_id"),
    parentID: s("parent_id"),
    name: s("name"),
    alias: s("alias"),
    memo: s("memo"),
    tag: s("tag"),
    content: s("content"),
    fcontent: s("fcontent"),
    markdown: s("markdown"),
    type: LUTE_NODE_NAMES[s("type") as BlockType] ?? s("type"),
    subType: s("subtype"),
    ial: ialOfColumn(s("ial")),
    sort: Number(x["sort"] ?? 0),
  };
}
