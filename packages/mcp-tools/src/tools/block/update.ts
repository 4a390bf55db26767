/**
 * block.update: content writes that keep each block's ID and attributes, read back as a content
 * form (every block type and inline mark kept) against what was asked.
 */
import { notFound, ToolError } from "../../errors.js";
import type { ArgsOf, MutationHandler, ToolContext, WriteContext } from "../../handler.js";
import { notebooksOfBlocks } from "../../permissions.js";
import { parseIalLine, renderIalLine } from "../../state/attributes.js";
import {
  attributesToKeep,
  type BlockSnapshot,
  currentOf,
  readBlockStates,
} from "../../state/block-state.js";
import { contentMismatch, requestIsNoOp, spreadsToSiblings } from "../../state/readback.js";
import { checkUpdateData } from "./checks.js";

type UpdateArgs = ArgsOf<"block", "update">;
/** One block of an update: its ID, its new data and the data's type. */
type UpdateItem = NonNullable<UpdateArgs["items"]>[number];

function itemsOf(a: UpdateArgs): UpdateItem[] {
  if (a.items) return [...a.items];
  return [{ id: a.id as string, data: a.data as string, dataType: a.dataType }];
}

/** Distinct target IDs, first occurrence order; a repeated ID counts once (last write wins). */
function distinctItems(a: UpdateArgs): UpdateItem[] {
  const byId = new Map<string, UpdateItem>();
  for (const item of itemsOf(a)) {
    byId.delete(item.id);
    byId.set(item.id, item);
  }
  return [...byId.values()];
}

/**
 * The markdown sent to `updateBlock`: the new content with one IAL line that carries the block's
 * existing attributes (overlaid by any IAL the caller wrote for that block), because the kernel
 * replaces a block's IAL with what the new data carries. For data of several blocks the IAL goes
 * after the first block, which keeps the target's ID, when that block is a plain paragraph or
 * heading (its end is then the first blank line). Returns `undefined` when one IAL line cannot be
 * placed safely (DOM data, or a first block that is a list, quote, fence, table or HTML); then the
 * attributes are restored by a second call.
 */
function markdownWithAttributes(
  data: string,
  keep: Record<string, string>,
): { data: string; attrs: Record<string, string> } | undefined {
  const trimmed = data.replace(/\s+$/, "");
  const blank = /\n[ \t]*\n/.exec(trimmed);
  const first = blank ? trimmed.slice(0, blank.index) : trimmed;
  const rest = blank ? trimmed.slice(blank.index) : "";
  if (!isPlainLeafBlock(first)) return undefined;
  const lines = first.split("\n");
  const own = parseIalLine(lines.at(-1) ?? "");
  const body = own ? lines.slice(0, -1).join("\n") : first;
  if (body.trim() === "") return undefined;
  const attrs = { ...keep, ...(own ?? {}) };
  if (Object.keys(attrs).length === 0) return { data: `${body}${rest}`, attrs };
  return { data: `${body}\n${renderIalLine(attrs)}${rest}`, attrs };
}

/**
 * A paragraph or ATX heading that ends at the next blank line: no list, quote, fence, math,
 * table, HTML, indented code or thematic break at the start of any of its lines.
 */
function isPlainLeafBlock(chunk: string): boolean {
  return chunk
    .split("\n")
    .every(
      (line) =>
        !/^ {0,3}(?:[*+-](?:\s|$)|\d+[.)](?:\s|$)|>|```|~~~|\$\$|\||<|\{\{\{|(?:[-*_]\s*){3,}$)/.test(
          line,
        ) && !/^(?: {4}|\t)/.test(line),
    );
}

interface UpdatePlan {
  readonly item: UpdateItem;
  readonly send: string;
  /** Attributes to restore with a second call, when the data could not carry them. */
  readonly restore: Record<string, string> | undefined;
  /** Attributes that must be present afterwards. */
  readonly expectAttrs: Record<string, string>;
}

function planUpdate(item: UpdateItem, before: BlockSnapshot): UpdatePlan {
  const keep = attributesToKeep(before.attrs);
  const carried =
    item.dataType === "markdown" ? markdownWithAttributes(item.data, keep) : undefined;
  if (carried) return { item, send: carried.data, restore: undefined, expectAttrs: carried.attrs };
  return {
    item,
    send: item.data,
    restore: Object.keys(keep).length > 0 ? keep : undefined,
    expectAttrs: keep,
  };
}

type UpdateSnapshot = readonly BlockSnapshot[];

/**
 * The content writes: one `updateBlock` for one block; for several, one `batchUpdateBlock`, which
 * checks every block before it queues anything and applies all of them or none (one kernel
 * transaction), so a batch cannot stop half-applied. DOM data goes block by block: when the
 * batch endpoint unwraps a list given to a list item, it unlinks the node after the list without
 * checking that it is the list's IAL (`updateBlock` checks; kernel `api/block_op.go`), and DOM
 * without `data-node-id` carries none — Markdown always does (the kernel gives every block an ID).
 */
async function sendUpdates(ctx: WriteContext, plans: readonly UpdatePlan[]): Promise<void> {
  if (plans.length > 1 && plans.every((p) => p.item.dataType === "markdown")) {
    await ctx.write.batchUpdateBlock(
      plans.map((p) => ({ id: p.item.id, dataType: "markdown", data: p.send })),
    );
    return;
  }
  for (const p of plans) await ctx.write.updateBlock(p.item.id, p.item.dataType, p.send);
}

/**
 * Makes the kernel's queued writes visible to the readback's tree reads. An execution that ends
 * with `setBlockAttrs` (any plan restoring attributes) needs no flush: that call waits for the
 * write queue first and writes the tree before it answers. The readback reads no SQL.
 */
async function settle(ctx: ToolContext, plans: readonly UpdatePlan[]): Promise<void> {
  if (plans.every((p) => p.restore === undefined)) await ctx.kernel.flush();
}

/**
 * Data of several blocks for a block that is not a document. SiYuan 3.7.3's `updateBlock` and
 * `batchUpdateBlock` keep the data's first block and drop the others without an error (their
 * reply still shows them all; kernel-probes `block.updateBlock`, `kernel/model/transaction.go`
 * `doUpdate`), so such an update is refused before anything is written.
 */
function severalBlocks(id: string): ToolError {
  return new ToolError(
    "invalid_arguments",
    `the data for block ${id} holds several blocks, and SiYuan keeps only the first when it updates a block: update it with one block, then add the others after it with block.insert (previousID=${id})`,
    { id, reason: "several_blocks" },
  );
}

/**
 * block.update: one block (`id`, `data`) or several (`items`), each keeping its attributes (the
 * kernel's `updateBlock` replaces a block's IAL with what the data carries). The data of a block
 * that is not a document is one block (see {@link severalBlocks}).
 */
export const update: MutationHandler<UpdateArgs, UpdateSnapshot, readonly UpdatePlan[]> = {
  targets: (a) => itemsOf(a).map((i) => i.id),
  summary: (a) => ({ targetCount: distinctItems(a).length }),
  showsWritten: true,
  async probe(ctx, a) {
    // Data naming kernel-managed identity is refused before any read (Markdown IAL id/updated) or
    // once the target's descendants are known (foreign DOM data-node-id).
    for (const item of itemsOf(a)) if (item.dataType === "markdown") checkUpdateData(item);
    const items = distinctItems(a);
    const { snapshots: snaps } = await readBlockStates(
      ctx.kernel,
      items.map((i) => i.id),
    );
    for (const snap of snaps) if (!snap.exists) throw notFound("block", snap.id);
    for (const [i, item] of items.entries()) {
      const snap = snaps[i] as BlockSnapshot;
      if (item.dataType === "dom" && "dom" in snap.state) checkUpdateData(item, snap.state.dom);
      if (spreadsToSiblings(item, snap)) throw severalBlocks(item.id);
    }
    return {
      state: snaps.map((s) => s.state),
      notebooks: await notebooksOfBlocks(
        ctx,
        items.map((i) => i.id),
      ),
      snapshot: snaps,
      current: currentOf(snaps),
    };
  },
  async execute(ctx, a, before) {
    const items = distinctItems(a);
    const plans = items.map((item, i) => planUpdate(item, before.snapshot[i] as BlockSnapshot));
    await sendUpdates(ctx, plans);
    // The kernel may answer an update before applying it, and attributes set before the queued
    // update lands would be replaced by it: `setBlockAttrs` waits for the write queue before it
    // sets (kernel `SetBlockAttrs` calls `FlushTxQueue` first), so no flush goes between.
    for (const plan of plans) {
      if (plan.restore) await ctx.write.setBlockAttrs(plan.item.id, plan.restore);
    }
    return plans;
  },
  async readback(ctx, _a, before, plans) {
    await settle(ctx, plans);
    const { snapshots: afters } = await readBlockStates(
      ctx.kernel,
      plans.map((p) => p.item.id),
    );
    const state = afters.map((s) => s.state);
    // `unchanged` only when every item asked for what its block already was (request vs
    // before-state); an item that asked for a change must show it and must differ from before.
    let requestedChange = false;
    for (const [i, plan] of plans.entries()) {
      const after = afters[i] as BlockSnapshot;
      const prior = before.snapshot[i] as BlockSnapshot;
      const mismatch = await contentMismatch(ctx.kernel, plan.item, prior, after);
      if (mismatch !== undefined) return { state, verdict: "mismatch", reason: mismatch };
      for (const [k, v] of Object.entries(plan.expectAttrs)) {
        if (after.attrs[k] !== v) {
          return {
            state,
            verdict: "mismatch",
            reason: `block ${plan.item.id} lost attribute ${k}`,
          };
        }
      }
      if (requestIsNoOp(plan.item, prior, plan.expectAttrs)) continue;
      requestedChange = true;
      if (JSON.stringify(after.state) === JSON.stringify(prior.state)) {
        return {
          state,
          verdict: "mismatch",
          reason: `block ${plan.item.id} still shows its previous state although the request changes it`,
        };
      }
    }
    return {
      state,
      verdict: requestedChange ? "applied" : "unchanged",
      receipt: { targetCount: plans.length },
      shown: currentOf(afters),
    };
  },
};
