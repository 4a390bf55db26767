/**
 * Argument checks of block writes that depend on the live tree, run by the probes so a preflight
 * refuses what the commit would be refused for (validateOnly fidelity), before any lease or write:
 * a `parentID` that cannot take children, and update data that names kernel-managed identity
 * (`id`, `updated`) the kernel would not honour.
 */
import { notFound, ToolError } from "../../errors.js";
import type { ToolContext } from "../../handler.js";

/**
 * Node types that accept children through `parentID`: the kernel's `IsContainerType`
 * (contract §2.3: `d b l i s callout`).
 */
export const CONTAINER_NODE_TYPES: ReadonlySet<string> = new Set([
  "NodeDocument",
  "NodeBlockquote",
  "NodeList",
  "NodeListItem",
  "NodeSuperBlock",
  "NodeCallout",
]);

/** A start tag's attribute value (double-quoted, as the kernel renders block DOM). */
function attrOf(tagAttrs: string, name: string): string | undefined {
  return new RegExp(`(?:^|\\s)${name}="([^"]*)"`).exec(tagAttrs)?.[1];
}

/**
 * The Lute node type of a live block (`NodeParagraph`, `NodeList`, …): `NodeDocument` when it is a
 * document (its own root), else the `data-type` of the outer element of its DOM, which the kernel
 * renders first for every non-document block. `null` when the block does not exist; `undefined`
 * when its DOM does not start with the block itself (the type cannot be read).
 * One `getBlockInfo`, plus one `getBlockDOM` for a non-document.
 */
export async function nodeTypeOf(ctx: ToolContext, id: string): Promise<string | null | undefined> {
  const info = await ctx.kernel.getBlockInfo(id);
  if (info === null) return null;
  if (info.rootID === id) return "NodeDocument";
  const dom = await ctx.kernel.getBlockDOM(id);
  const outer = /^\s*<div\b([^>]*)>/.exec(dom ?? "")?.[1] ?? "";
  if (attrOf(outer, "data-node-id") !== id) return undefined;
  return attrOf(outer, "data-type");
}

/**
 * Requires `parentID` to be a live container, as the kernel's `insertBlock` (parent only),
 * `prependBlock`, `appendBlock` and `moveBlock` (parent only) do: `not_found` for an unknown block,
 * `invalid_arguments` (details `parentID`, `parentType`) for a leaf — a paragraph, a heading, a code
 * block — or a block whose type cannot be read. Returns the parent's node type.
 */
export async function requireContainer(ctx: ToolContext, parentID: string): Promise<string> {
  const type = await nodeTypeOf(ctx, parentID);
  if (type === null) throw notFound("parent block", parentID);
  if (type !== undefined && CONTAINER_NODE_TYPES.has(type)) return type;
  throw new ToolError(
    "invalid_arguments",
    `${
      type === undefined
        ? `the type of parent block ${parentID} cannot be read, so it cannot be proven to take children`
        : `parent block ${parentID} is a ${type}, a leaf block that cannot have children`
    }: use block.insert with previousID (after the block) or nextID (before it), or choose a parent that takes children (a document, list, list item, blockquote, super block or callout)`,
    { parentID, parentType: type ?? null, containerTypes: [...CONTAINER_NODE_TYPES] },
  );
}

/**
 * The kernel's own refusals of `moveBlock`, checked before any lease: the moved block must be a
 * block, not a document (documents move with document.move); a `previousID` must not be a
 * document; a lone `parentID` must be a container, and a list item cannot go directly into a list
 * item. `not_found` for an unknown block or anchor, `invalid_arguments` otherwise.
 */
export async function checkMove(
  ctx: ToolContext,
  a: {
    readonly id: string;
    readonly previousID?: string | undefined;
    readonly parentID?: string | undefined;
  },
): Promise<void> {
  const refuse = (message: string, way: string): never => {
    throw new ToolError("invalid_arguments", `${message}: ${way}`, {
      id: a.id,
      ...(a.previousID === undefined ? { parentID: a.parentID } : { previousID: a.previousID }),
    });
  };
  const [info, prev] = await Promise.all([
    ctx.kernel.getBlockInfo(a.id),
    a.previousID === undefined ? undefined : ctx.kernel.getBlockInfo(a.previousID),
  ]);
  if (info === null) throw notFound("block", a.id);
  if (info.rootID === a.id)
    refuse(`${a.id} is a document, not a block`, "move documents with document.move");
  if (a.previousID !== undefined) {
    if (prev === null || prev === undefined) throw notFound("anchor block", a.previousID);
    if (prev.rootID === a.previousID)
      refuse(
        "previousID cannot be a document",
        "to move the block to the top of a document, send parentID (the document) instead",
      );
    return;
  }
  const parentType = await requireContainer(ctx, a.parentID as string);
  if (parentType === "NodeListItem" && (await nodeTypeOf(ctx, a.id)) === "NodeListItem")
    refuse(
      "a list item cannot directly contain another list item",
      "move the item into a list (parentID of a list block) or after another item (previousID)",
    );
}

/** Attribute names the kernel manages itself; update data may not set them. */
const KERNEL_MANAGED_IAL_NAMES: ReadonlySet<string> = new Set(["id", "updated"]);

/**
 * Names of kernel-managed attributes (`id`, `updated`) in the IALs (`{: …}`) of Markdown, outside
 * fenced code blocks and inline code spans, where the kernel's parser would not read an IAL.
 */
export function kernelManagedIalNames(markdown: string): string[] {
  const found = new Set<string>();
  let fence: string | undefined;
  for (const line of markdown.split("\n")) {
    const opener = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (opener !== undefined && opener[0] === fence[0] && opener.length >= fence.length)
        fence = undefined;
      continue;
    }
    if (opener !== undefined) {
      fence = opener;
      continue;
    }
    const code = line.replace(/(`+)[^`]*?\1/g, "");
    for (const ial of code.matchAll(/\{:([^}]*)\}/g)) {
      for (const m of (ial[1] ?? "").matchAll(/(?:^|\s)([A-Za-z_][\w-]*)\s*=/g)) {
        const name = (m[1] as string).toLowerCase();
        if (KERNEL_MANAGED_IAL_NAMES.has(name)) found.add(name);
      }
    }
  }
  return [...found].sort();
}

/** Every `data-node-id` value in a block DOM, in order. */
export function domNodeIds(dom: string): string[] {
  return [...dom.matchAll(/\sdata-node-id\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))/gi)].map(
    (m) => (m[1] ?? m[2] ?? m[3]) as string,
  );
}

/**
 * Refuses update data that names kernel-managed identity, before any write (`invalid_arguments`):
 * Markdown whose IAL sets `id` or `updated` (the kernel keeps the block's ID and stamps `updated`
 * itself, so the written block would never show them), and DOM whose `data-node-id` names a block
 * other than the target or one of its current descendants (the kernel copies only the target's ID;
 * another block's ID would duplicate it). `currentDom` is the target's live DOM (any normalisation
 * that keeps `data-node-id`).
 */
export function checkUpdateData(
  item: { readonly id: string; readonly data: string; readonly dataType: "markdown" | "dom" },
  currentDom?: string,
): void {
  if (item.dataType === "markdown") {
    const names = kernelManagedIalNames(item.data);
    if (names.length === 0) return;
    throw new ToolError(
      "invalid_arguments",
      `the data for block ${item.id} sets ${names.join(" and ")} in an IAL; the kernel manages these itself: remove them from the IAL (the block keeps its ID and its other attributes), and change other attributes with block.set_attrs`,
      { id: item.id, attributes: names },
    );
  }
  if (currentDom === undefined) return;
  const own = new Set(domNodeIds(currentDom));
  own.add(item.id);
  const foreign = [...new Set(domNodeIds(item.data))].filter((n) => !own.has(n));
  if (foreign.length === 0) return;
  throw new ToolError(
    "invalid_arguments",
    `the DOM for block ${item.id} carries data-node-id of other blocks (${foreign.join(", ")}): start from block.dom of the target and keep its data-node-id values (or leave them out for new blocks), and edit other blocks with their own update`,
    { id: item.id, foreignIds: foreign },
  );
}
