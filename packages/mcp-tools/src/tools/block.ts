/**
 * block: reads by ID; additive insert/prepend/append; update, set_attrs, delete (state); move (structure).
 */
import type {
  MutationHandler,
  Probed,
  ReadbackResult,
  RunHandler,
  ToolContext,
  ToolHandlers,
} from "../handler.js";
import { notFound, ToolError } from "../handler.js";
import type { InsertAnchor } from "../kernel.js";
import { notebooksOfBlocks } from "../permissions.js";
import { attributesToKeep, type BlockSnapshot, readBlockState } from "../state/block-state.js";
import { attrsMatch, parseIalLine, renderIalLine } from "../state/ial.js";
import { normalizeKramdown } from "../state/normalize.js";
import { contentMismatch, placedAsRequested, requestIsNoOp } from "../state/readback.js";
import { checkMove, checkUpdateData, requireContainer } from "./block-checks.js";

type DataType = "markdown" | "dom";
interface IdArgs {
  readonly id: string;
}
interface InsertArgs extends InsertAnchor {
  readonly data: string;
  readonly dataType: DataType;
}
interface ParentArgs {
  readonly parentID: string;
  readonly data: string;
  readonly dataType: DataType;
}
interface UpdateItem {
  readonly id: string;
  readonly data: string;
  readonly dataType: DataType;
}
interface UpdateArgs {
  readonly id?: string;
  readonly data?: string;
  readonly dataType: DataType;
  readonly items?: readonly UpdateItem[];
}
interface SetAttrsArgs {
  readonly id: string;
  readonly attrs: Readonly<Record<string, string | null>>;
}
interface MoveArgs {
  readonly id: string;
  readonly previousID?: string;
  readonly parentID?: string;
}

function read<A>(
  run: (ctx: ToolContext, args: A) => Promise<unknown>,
  ids: (a: A) => string[],
): RunHandler<A> {
  return { run, notebooks: (ctx, args) => notebooksOfBlocks(ctx, ids(args)) };
}

async function requireBlock(ctx: ToolContext, id: string): Promise<BlockSnapshot> {
  const snap = await readBlockState(ctx.kernel, id);
  if (!snap.exists) throw notFound("block", id);
  return snap;
}

// ---------------------------------------------------------------- additive inserts

/**
 * Where the new block will land, checked before anything is issued: a sibling anchor must exist, a
 * parent anchor must be a container (the kernel refuses a leaf parent with -1).
 */
async function probeAnchor(
  ctx: ToolContext,
  anchorId: string,
  role: "sibling" | "parent",
): Promise<Probed<null>> {
  if (role === "parent") await requireContainer(ctx, anchorId);
  else if (!(await ctx.kernel.checkBlockExist(anchorId))) throw notFound("anchor block", anchorId);
  return {
    state: { anchor: anchorId },
    notebooks: await notebooksOfBlocks(ctx, [anchorId]),
    snapshot: null,
  };
}

/** Readback of a created block: it must exist after the kernel applied the queue. */
async function createdBlockReadback(
  ctx: ToolContext,
  newId: string | null,
): Promise<ReadbackResult> {
  if (newId === null) {
    return {
      state: { created: null },
      verdict: "mismatch",
      reason: "the kernel returned no new block ID",
    };
  }
  await ctx.kernel.flush();
  const after = await readBlockState(ctx.kernel, newId);
  if (!after.exists) {
    return {
      state: after.state,
      verdict: "mismatch",
      reason: `block ${newId} does not exist after the write`,
      receipt: { id: newId },
    };
  }
  return { state: after.state, verdict: "applied", receipt: { id: newId } };
}

const insert: MutationHandler<InsertArgs, null, string | null> = {
  targets: (a) => [a.nextID ?? a.previousID ?? a.parentID ?? ""],
  probe: (ctx, a) => {
    const sibling = a.nextID ?? a.previousID;
    return sibling !== undefined
      ? probeAnchor(ctx, sibling, "sibling")
      : probeAnchor(ctx, a.parentID as string, "parent");
  },
  execute: (ctx, a) => ctx.write.insertBlock(a.dataType, a.data, a),
  readback: (ctx, _a, _before, newId) => createdBlockReadback(ctx, newId),
};

const prepend: MutationHandler<ParentArgs, null, string | null> = {
  targets: (a) => [a.parentID],
  probe: (ctx, a) => probeAnchor(ctx, a.parentID, "parent"),
  execute: (ctx, a) => ctx.write.prependBlock(a.dataType, a.data, a.parentID),
  readback: (ctx, _a, _before, newId) => createdBlockReadback(ctx, newId),
};

const append: MutationHandler<ParentArgs, null, string | null> = {
  targets: (a) => [a.parentID],
  probe: (ctx, a) => probeAnchor(ctx, a.parentID, "parent"),
  execute: (ctx, a) => ctx.write.appendBlock(a.dataType, a.data, a.parentID),
  readback: (ctx, _a, _before, newId) => createdBlockReadback(ctx, newId),
};

// ---------------------------------------------------------------- update

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

const update: MutationHandler<UpdateArgs, UpdateSnapshot, readonly UpdatePlan[]> = {
  targets: (a) => itemsOf(a).map((i) => i.id),
  summary: (a) => ({ targetCount: distinctItems(a).length }),
  async probe(ctx, a) {
    // Data naming kernel-managed identity is refused before any read (Markdown IAL id/updated) or
    // once the target's descendants are known (foreign DOM data-node-id).
    for (const item of itemsOf(a)) if (item.dataType === "markdown") checkUpdateData(item);
    const items = distinctItems(a);
    const snaps = await Promise.all(items.map((i) => requireBlock(ctx, i.id)));
    for (const [i, item] of items.entries()) {
      const state = (snaps[i] as BlockSnapshot).state;
      if (item.dataType === "dom" && "dom" in state) checkUpdateData(item, state.dom);
    }
    return {
      state: snaps.map((s) => s.state),
      notebooks: await notebooksOfBlocks(
        ctx,
        items.map((i) => i.id),
      ),
      snapshot: snaps,
    };
  },
  async execute(ctx, a, before) {
    const items = distinctItems(a);
    const plans = items.map((item, i) => planUpdate(item, before.snapshot[i] as BlockSnapshot));
    for (const plan of plans) {
      await ctx.write.updateBlock(plan.item.id, plan.item.dataType, plan.send);
      if (plan.restore) await ctx.write.setBlockAttrs(plan.item.id, plan.restore);
    }
    return plans;
  },
  async readback(ctx, _a, before, plans) {
    await ctx.kernel.flush();
    const afters = await Promise.all(plans.map((p) => readBlockState(ctx.kernel, p.item.id)));
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
    };
  },
};

// ---------------------------------------------------------------- attributes

function validateAttrNames(attrs: Readonly<Record<string, string | null>>): void {
  for (const name of Object.keys(attrs)) {
    const n = name.toLowerCase();
    if (
      n === "id" ||
      n === "updated" ||
      n === "data-task" ||
      !/^[a-z][a-z0-9-]*$/.test(n) ||
      /^custom-[^a-z]/.test(n)
    ) {
      throw new ToolError(
        "invalid_arguments",
        `attribute name ${name} is not allowed`,
        "Use lowercase letters, digits and hyphens, starting with a letter (user attributes: custom-<name>); id and updated are kernel-managed.",
        { name },
      );
    }
  }
}

const setAttrs: MutationHandler<SetAttrsArgs, BlockSnapshot, null> = {
  targets: (a) => [a.id],
  async probe(ctx, a) {
    validateAttrNames(a.attrs);
    const snap = await requireBlock(ctx, a.id);
    return { state: snap.state, notebooks: await notebooksOfBlocks(ctx, [a.id]), snapshot: snap };
  },
  async execute(ctx, a) {
    await ctx.write.setBlockAttrs(a.id, { ...a.attrs });
    return null;
  },
  async readback(ctx, a, before) {
    await ctx.kernel.flush();
    const after = await readBlockState(ctx.kernel, a.id);
    if (!after.exists)
      return { state: after.state, verdict: "mismatch", reason: `block ${a.id} no longer exists` };
    if (!attrsMatch(after.attrs, a.attrs)) {
      return {
        state: after.state,
        verdict: "mismatch",
        reason: "the attributes do not show the requested values",
      };
    }
    const requestedNoOp = attrsMatch(before.snapshot.attrs, a.attrs);
    return { state: after.state, verdict: requestedNoOp ? "unchanged" : "applied" };
  },
};

// ---------------------------------------------------------------- delete

const del: MutationHandler<IdArgs, BlockSnapshot, null> = {
  targets: (a) => [a.id],
  async probe(ctx, a) {
    const snap = await requireBlock(ctx, a.id);
    return { state: snap.state, notebooks: await notebooksOfBlocks(ctx, [a.id]), snapshot: snap };
  },
  async execute(ctx, a) {
    await ctx.write.deleteBlock(a.id);
    return null;
  },
  async readback(ctx, a) {
    await ctx.kernel.flush();
    const after = await readBlockState(ctx.kernel, a.id);
    return after.exists
      ? { state: after.state, verdict: "mismatch", reason: `block ${a.id} still exists` }
      : { state: after.state, verdict: "applied", receipt: { deleted: a.id } };
  },
};

// ---------------------------------------------------------------- move

interface MoveSnapshot {
  readonly rootIds: readonly string[];
}

/** Structure of a move: the moved block, and the full kramdown of its document and the target's. */
async function moveStructure(
  ctx: ToolContext,
  a: MoveArgs,
): Promise<{ state: unknown; rootIds: string[]; notebooks: string[] }> {
  const anchor = (a.previousID ?? a.parentID) as string;
  const [info, anchorInfo] = await Promise.all([
    ctx.kernel.getBlockInfo(a.id),
    ctx.kernel.getBlockInfo(anchor),
  ]);
  if (!info) throw notFound("block", a.id);
  if (!anchorInfo) throw notFound("anchor block", anchor);
  const rootIds = [...new Set([info.rootID, anchorInfo.rootID])].sort();
  const docs = await Promise.all(rootIds.map((r) => ctx.kernel.getBlockKramdown(r)));
  return {
    state: {
      id: a.id,
      docs: rootIds.map((r, i) => ({ id: r, kramdown: normalizeKramdown(docs[i] ?? "") })),
    },
    rootIds,
    notebooks: [...new Set([info.box, anchorInfo.box])],
  };
}

const move: MutationHandler<MoveArgs, MoveSnapshot, null> = {
  targets: (a) => [a.id, (a.previousID ?? a.parentID) as string],
  async probe(ctx, a) {
    if (a.id === a.previousID || a.id === a.parentID) {
      throw new ToolError(
        "invalid_arguments",
        "a block cannot be moved next to or into itself",
        "Pick another anchor.",
      );
    }
    await checkMove(ctx, a);
    const s = await moveStructure(ctx, a);
    return { state: s.state, notebooks: s.notebooks, snapshot: { rootIds: s.rootIds } };
  },
  async execute(ctx, a) {
    await ctx.write.moveBlock(a.id, {
      previousID: a.previousID,
      parentID: a.previousID ? undefined : a.parentID,
    });
    return null;
  },
  async readback(ctx, a, before) {
    await ctx.kernel.flush();
    const s = await moveStructure(ctx, a);
    const docsOf = (state: unknown) =>
      (state as { docs: { id: string; kramdown: string }[] }).docs ?? [];
    const request = { id: a.id, previousID: a.previousID, parentID: a.parentID };
    if (!placedAsRequested(docsOf(s.state), request)) {
      return {
        state: s.state,
        verdict: "mismatch",
        reason: a.previousID
          ? "the block is not right after previousID"
          : "the block is not the first child of parentID",
      };
    }
    // A move to where the block already was asks for nothing: decided from the before-state.
    const noOp = placedAsRequested(docsOf(before.state), request);
    return { state: s.state, verdict: noOp ? "unchanged" : "applied" };
  },
};

// ---------------------------------------------------------------- reads

const ids = (a: IdArgs) => [a.id];

/** The block tool's handlers. */
export const blockHandlers: ToolHandlers = {
  get_kramdown: {
    read: read<IdArgs>(async (ctx, a) => {
      const kramdown = await ctx.kernel.getBlockKramdown(a.id);
      if (kramdown === null) throw notFound("block", a.id);
      return { id: a.id, kramdown };
    }, ids) as RunHandler<never>,
  },
  get_attrs: {
    read: read<IdArgs>(async (ctx, a) => {
      const attrs = await ctx.kernel.getBlockAttrs(a.id);
      if (attrs === null) throw notFound("block", a.id);
      return { id: a.id, attrs };
    }, ids) as RunHandler<never>,
  },
  get_children: {
    read: read<IdArgs>(async (ctx, a) => {
      if (!(await ctx.kernel.checkBlockExist(a.id))) throw notFound("block", a.id);
      return { id: a.id, children: await ctx.kernel.getChildBlocks(a.id) };
    }, ids) as RunHandler<never>,
  },
  info: {
    read: read<IdArgs>(async (ctx, a) => {
      const info = await ctx.kernel.getBlockInfo(a.id);
      if (info === null) throw notFound("block", a.id);
      return { id: a.id, ...info };
    }, ids) as RunHandler<never>,
  },
  dom: {
    read: read<IdArgs>(async (ctx, a) => {
      const dom = await ctx.kernel.getBlockDOM(a.id);
      if (dom === null) throw notFound("block", a.id);
      return { id: a.id, dom };
    }, ids) as RunHandler<never>,
  },
  insert: { mutation: insert as MutationHandler<never> },
  prepend: { mutation: prepend as MutationHandler<never> },
  append: { mutation: append as MutationHandler<never> },
  update: { mutation: update as MutationHandler<never> },
  set_attrs: { mutation: setAttrs as MutationHandler<never> },
  delete: { mutation: del as MutationHandler<never> },
  move: { mutation: move as MutationHandler<never> },
};
