/**
 * The write preview behind the App: given the arguments of a strict write's preflight, what a person
 * checks before confirming — the target, the content before and after (`block.update` and
 * `block.replace`, as a word diff) or the order before and after (`document.reorder`, with the moved documents), and which
 * precondition guards it. Reads only, under the caller's read permission; it issues no lease and
 * never hashes (the aliased hash is the preflight's, which the App already holds).
 */
import { splitArguments } from "../args.js";
import {
  ACTIONS,
  type ActionSurface,
  findAction,
  policyOf,
  preconditionFieldName,
} from "../catalog.js";
import { notFound, ToolError } from "../errors.js";
import type { KernelReads } from "../kernel.js";
import { type PermissionMap, requirePermission } from "../permissions.js";
import { splitOwnIal } from "../state/ial.js";
import { replacedText } from "../tools/block/replace.js";
import { type DiffOp, diffText, diffWords, movedItems } from "./diff.js";

/** The most blocks one preview shows (an update carries at most 64). */
const MAX_PREVIEW_BLOCKS = 16;

/** One block of a content preview. */
export interface ContentChange {
  readonly id: string;
  readonly document: string;
  readonly before: string;
  readonly after: string;
  readonly diff: readonly DiffOp[];
}

/** One document of an order preview. */
export interface OrderItem {
  readonly id: string;
  readonly title: string;
  readonly moved: boolean;
}

/** What the App shows before a strict write. */
export interface WritePreview {
  readonly tool: string;
  readonly action: string;
  /** `false`: this action has no before/after view yet; target and precondition still apply. */
  readonly supported: boolean;
  readonly target: Record<string, unknown>;
  /** The precondition kind and the argument carrying its (aliased) hash; `null` for additive writes. */
  readonly precondition: { readonly kind: string; readonly field: string } | null;
  readonly content?: readonly ContentChange[];
  readonly order?: { readonly before: readonly OrderItem[]; readonly after: readonly OrderItem[] };
  /** Blocks beyond {@link MAX_PREVIEW_BLOCKS} that the preview leaves out. */
  readonly omitted?: number;
}

/**
 * The action of a preflight's arguments. The App may not know the tool's name (a host need not
 * pass it), so without `tool` the action decides among the tools whose catalog parses the
 * business arguments (`reorder(parentID,…)` is the document tool's, `reorder(path,…)` the fs tool's).
 */
export function resolveAction(
  tool: string | undefined,
  args: Record<string, unknown>,
): { surface: ActionSurface; business: Record<string, unknown> } {
  const { action, business } = splitArguments(args);
  const candidates =
    tool !== undefined
      ? [findAction(tool, action)].filter((s): s is ActionSurface => s !== undefined)
      : ACTIONS.filter((s) => s.action === action || s.aliases.includes(String(action)));
  for (const surface of candidates) {
    const parsed = surface.args.safeParse(business);
    if (parsed.success) return { surface, business: parsed.data as Record<string, unknown> };
  }
  throw new ToolError(
    "invalid_arguments",
    `no strict write ${tool === undefined ? "" : `${tool}.`}${String(action)} accepts these arguments`,
  );
}

/** Strips a trailing own IAL line (`{: …}`) so a person compares content, not attributes. */
function shownContent(markdown: string): string {
  return splitOwnIal(markdown).body.replace(/\s+$/, "");
}

async function contentPreview(
  kernel: KernelReads,
  permissions: PermissionMap,
  a: Record<string, unknown>,
): Promise<Pick<WritePreview, "target" | "content" | "omitted">> {
  const items = (
    Array.isArray(a["items"])
      ? a["items"]
      : [{ id: a["id"], data: a["data"], dataType: a["dataType"] }]
  ) as Array<{ id: string; data: string; dataType: string }>;
  const shown = items.slice(0, MAX_PREVIEW_BLOCKS);
  const changes = await Promise.all(
    shown.map(async (item) => {
      // Like for like: Markdown data against the block's Kramdown, DOM data against its DOM.
      const dom = item.dataType === "dom";
      const [info, current] = await Promise.all([
        kernel.getBlockInfo(item.id),
        dom ? kernel.getBlockDOM(item.id) : kernel.getBlockKramdown(item.id),
      ]);
      if (info === null || current === null) throw notFound("block", item.id);
      requirePermission(permissions, [info.box], "read");
      const before = dom ? current : shownContent(current);
      const after = dom ? item.data : shownContent(item.data);
      return {
        change: {
          id: item.id,
          document: info.rootTitle,
          before,
          after,
          diff: diffWords(before, after),
        },
        notebook: info.box,
      };
    }),
  );
  const first = changes[0];
  return {
    target: {
      ids: items.map((i) => i.id),
      ...(first === undefined ? {} : { notebook: first.notebook, document: first.change.document }),
    },
    content: changes.map((c) => c.change),
    ...(items.length > shown.length ? { omitted: items.length - shown.length } : {}),
  };
}

/**
 * block.replace: the block's Kramdown before, and after the replacement as the commit would apply
 * it (the preflight's refusal when the text is missing or ambiguous).
 */
async function replacePreview(
  kernel: KernelReads,
  permissions: PermissionMap,
  a: Record<string, unknown>,
): Promise<Pick<WritePreview, "target" | "content">> {
  const id = a["id"] as string;
  const [info, kramdown] = await Promise.all([
    kernel.getBlockInfo(id),
    kernel.getBlockKramdown(id),
  ]);
  if (info === null || kramdown === null) throw notFound("block", id);
  requirePermission(permissions, [info.box], "read");
  const body = splitOwnIal(kramdown).body;
  const replaced = replacedText(
    {
      id,
      find: a["find"] as string,
      replacement: a["replacement"] as string,
      all: a["all"] === true,
    },
    body,
  );
  const before = body.replace(/\s+$/, "");
  const after = replaced.replace(/\s+$/, "");
  return {
    target: { ids: [id], notebook: info.box, document: info.rootTitle },
    content: [{ id, document: info.rootTitle, before, after, diff: diffWords(before, after) }],
  };
}

function titleOf(name: string): string {
  return name.endsWith(".sy") ? name.slice(0, -".sy".length) : name;
}

async function orderPreview(
  kernel: KernelReads,
  permissions: PermissionMap,
  a: Record<string, unknown>,
): Promise<Pick<WritePreview, "target" | "order">> {
  const parentID = a["parentID"] as string;
  const orderedIDs = a["orderedIDs"] as string[];
  const notebooks = await kernel.lsNotebooks();
  const nb = notebooks.find((n) => n.id === parentID);
  let parent: { notebook: string; path: string; title: string };
  if (nb !== undefined) {
    parent = { notebook: nb.id, path: "/", title: nb.name };
  } else {
    const [loc, info] = await Promise.all([
      kernel.getPathByID(parentID),
      kernel.getBlockInfo(parentID),
    ]);
    if (loc === null || !loc.path.endsWith(`/${parentID}.sy`)) throw notFound("document", parentID);
    parent = { notebook: loc.notebook, path: loc.path, title: info?.rootTitle ?? parentID };
  }
  requirePermission(permissions, [parent.notebook], "read");
  const list = await kernel.listDocsByPath(parent.notebook, parent.path);
  if (list === null) throw notFound("document folder", parentID);
  const titles = new Map(list.files.map((f) => [f.id, titleOf(f.name)]));
  const beforeIds = list.files.map((f) => f.id);
  const moved = movedItems(beforeIds, orderedIDs);
  const item = (id: string): OrderItem => ({
    id,
    title: titles.get(id) ?? id,
    moved: moved.has(id),
  });
  return {
    target: { parentID, notebook: parent.notebook, parent: parent.title },
    order: { before: beforeIds.map(item), after: orderedIDs.map(item) },
  };
}

/** The preview of one strict write's preflight arguments (`tool` optional, see {@link resolveAction}). */
export async function previewWrite(
  kernel: KernelReads,
  permissions: PermissionMap,
  tool: string | undefined,
  args: Record<string, unknown>,
): Promise<WritePreview> {
  const { surface, business } = resolveAction(tool, args);
  const policy = policyOf(surface, business);
  if (policy.kind !== "mutation")
    throw new ToolError(
      "invalid_arguments",
      `${surface.tool}.${surface.action} is not a strict write: it has no preview`,
    );
  const base = {
    tool: surface.tool,
    action: surface.action,
    precondition:
      policy.precondition === "none"
        ? null
        : { kind: policy.precondition, field: preconditionFieldName(policy.precondition) },
  };
  const key = `${surface.tool}.${surface.action}`;
  if (key === "block.update")
    return { ...base, supported: true, ...(await contentPreview(kernel, permissions, business)) };
  if (key === "block.replace")
    return { ...base, supported: true, ...(await replacePreview(kernel, permissions, business)) };
  if (key === "document.reorder")
    return { ...base, supported: true, ...(await orderPreview(kernel, permissions, business)) };
  return { ...base, supported: false, target: business };
}

/** The preview as text, for hosts that show tool results without the App. */
export function previewText(p: WritePreview): string {
  const lines = [`${p.tool}.${p.action} on ${JSON.stringify(p.target)}`];
  for (const c of p.content ?? []) lines.push(`block ${c.id} (${c.document}): ${diffText(c.diff)}`);
  if (p.order !== undefined) {
    const show = (items: readonly OrderItem[]) =>
      items.map((i) => (i.moved ? `*${i.title}*` : i.title)).join(" | ");
    lines.push(`order before: ${show(p.order.before)}`, `order after:  ${show(p.order.after)}`);
  }
  if (p.omitted !== undefined) lines.push(`${p.omitted} more blocks not shown`);
  if (!p.supported) lines.push("no before/after view for this action");
  lines.push(
    p.precondition === null
      ? "precondition: none (additive)"
      : `precondition: ${p.precondition.kind}, the preflight's ${p.precondition.field}`,
  );
  return lines.join("\n");
}
