/**
 * The live state of one block: Kramdown, attributes and DOM, canonicalised.
 *
 * Two kernel reads, in parallel: `getBlockKramdown` and `getBlockDOM`. The attributes are the
 * block's own IAL — the one naming its ID: the last line of its kramdown, or right after a list
 * item's marker — the same pairs `getBlockAttrs` returns, so they cost no third call. Timestamps and DOM attribute order do not count; inline marks and block-reference
 * subtypes do.
 */
import { notFound } from "../errors.js";
import type { ToolContext } from "../handler.js";
import type { KernelReads } from "../kernel.js";
import {
  ialOf,
  normalizeAttrs,
  normalizeDom,
  normalizeKramdown,
  splitOwnIal,
} from "./attributes.js";

/** What a block probe returns. `state` is hashed; the rest is for executors and readback. */
export interface BlockSnapshot {
  readonly id: string;
  readonly exists: boolean;
  /** The canonical state (hashed). */
  readonly state: BlockState;
  /** The block's kramdown without its own IAL line, as the kernel returned it. */
  readonly body: string;
  /** The block's own attributes (unescaped), timestamps included. */
  readonly attrs: Readonly<Record<string, string>>;
  /** The block's kramdown as the kernel returned it (what `block.get_kramdown` answers); `""` when missing. */
  readonly kramdown: string;
}

/** The hashed state of a block. */
export type BlockState =
  | { readonly id: string; readonly missing: true }
  | {
      readonly id: string;
      readonly kramdown: string;
      readonly attrs: Readonly<Record<string, string>>;
      readonly dom: string;
    };

/** Reads one block's state (2 kernel calls, in parallel). */
export async function readBlockState(kernel: KernelReads, id: string): Promise<BlockSnapshot> {
  const [kramdown, dom] = await Promise.all([kernel.getBlockKramdown(id), kernel.getBlockDOM(id)]);
  return snapshotOf(id, kramdown, dom);
}

/** The live state of a block a write targets (`readBlockState`); `not_found` before any lease when it does not exist. */
export async function requireBlock(ctx: ToolContext, id: string): Promise<BlockSnapshot> {
  const snap = await readBlockState(ctx.kernel, id);
  if (!snap.exists) throw notFound("block", id);
  return snap;
}

/**
 * Reads several blocks' states, in the order given: 2 kernel calls in parallel whatever their
 * number (the batch endpoints answer each block as the single ones do). `extraKramdown` are IDs
 * whose Kramdown alone rides along in the same call (a readback's documents).
 */
export async function readBlockStates(
  kernel: KernelReads,
  ids: readonly string[],
  extraKramdown: readonly string[] = [],
): Promise<{ snapshots: BlockSnapshot[]; kramdowns: Readonly<Record<string, string>> }> {
  if (ids.length === 1 && extraKramdown.length === 0) {
    return { snapshots: [await readBlockState(kernel, ids[0] as string)], kramdowns: {} };
  }
  const [kramdowns, doms] = await Promise.all([
    kernel.getBlockKramdowns([...new Set([...ids, ...extraKramdown])]),
    kernel.getBlockDOMs(ids),
  ]);
  return {
    snapshots: ids.map((id) => snapshotOf(id, kramdowns[id] ?? null, doms[id] ?? null)),
    kramdowns,
  };
}

function snapshotOf(id: string, kramdown: string | null, dom: string | null): BlockSnapshot {
  if (kramdown === null || dom === null) {
    return { id, exists: false, state: { id, missing: true }, body: "", attrs: {}, kramdown: "" };
  }
  const split = splitOwnIal(kramdown);
  const body = split.body;
  // The last IAL line is the block's own, except for a list item, whose IAL follows its marker.
  const attrs = split.attrs["id"] === id ? split.attrs : (ialOf(kramdown, id) ?? split.attrs);
  return {
    id,
    exists: true,
    state: {
      id,
      kramdown: normalizeKramdown(kramdown),
      attrs: normalizeAttrs(attrs),
      dom: normalizeDom(dom),
    },
    body,
    attrs,
    kramdown,
  };
}

/** The blocks' Kramdown by ID, as a probe's `current` (what a `state_changed` answer carries). */
export function currentOf(snaps: readonly BlockSnapshot[]): Record<string, string> {
  return Object.fromEntries(snaps.filter((s) => s.exists).map((s) => [s.id, s.kramdown]));
}

/** Attributes the kernel manages itself; never written back by an update. */
export const KERNEL_MANAGED_ATTRIBUTES: ReadonlySet<string> = new Set(["id", "updated"]);

/** The attributes an update must carry over so the kernel's `updateBlock` does not drop them. */
export function attributesToKeep(attrs: Readonly<Record<string, string>>): Record<string, string> {
  const keep: Record<string, string> = {};
  for (const [k, v] of Object.entries(attrs)) if (!KERNEL_MANAGED_ATTRIBUTES.has(k)) keep[k] = v;
  return keep;
}
