/**
 * block.find_replace: every literal occurrence of a text replaced in each of the given blocks, as
 * `block.replace` with `all: true` does it in one block, and written through our own update path
 * (`block.update`'s plans: attributes kept, one `batchUpdateBlock` for several blocks, a single
 * kernel transaction that applies all of them or none) rather than SiYuan's
 * `/api/search/findReplace`: that endpoint re-reads and rewrites the blocks itself, so a block
 * changed after our preflight would be rewritten from its new content (no per-block precondition
 * can reach inside it), and it writes no attributes we could prove kept.
 *
 * The precondition is a manifest: the blocks that hold the text (matched literally against each
 * block's Kramdown, its own `{: …}` line left out), each with its state. A given block without the
 * text is left alone and listed as unmatched; the commit's re-probe finding a different set of
 * matching blocks, or any of them changed, answers `state_changed` before anything is written.
 */
import { digestHex, stateHash } from "@sisyphus/core-hash";
import { notFound, ToolError } from "../../errors.js";
import type { ArgsOf, MutationHandler, Probed, ToolContext } from "../../handler.js";
import { notebooksOfBlocks } from "../../permissions.js";
import { type BlockSnapshot, currentOf, readBlockStates } from "../../state/block-state.js";
import { plannedUpdate } from "./replace.js";
import { update } from "./update.js";

type FindReplaceArgs = ArgsOf<"block", "find_replace">;
type UpdateArgs = ArgsOf<"block", "update">;

/** One matched block's planned body and how many occurrences it replaces. */
interface Match {
  readonly id: string;
  readonly body: string;
  readonly count: number;
}

export interface FindReplaceSnapshot {
  /** The blocks that hold the text, in the order given (the manifest). */
  readonly blocks: readonly BlockSnapshot[];
  /** Given blocks without the text: not written. */
  readonly unmatched: readonly string[];
  /** Each matched block's plan; absent when the commit's re-probe found the request no longer
   * applies (the digest comparison then answers `state_changed`). */
  readonly planned: readonly Match[] | undefined;
}

/**
 * A matched block's own hash as the preflight lists it: the first 12 hex digits of the digest of
 * the state the manifest hashes for it (it changes whenever the block does).
 */
export const blockHash = (b: BlockSnapshot): string => digestHex(stateHash(b.state)).slice(0, 12);

const distinct = (ids: readonly string[]) => [...new Set(ids)];

/** The block.update these replacements amount to (one item per matched block, Markdown). */
function asUpdate(planned: readonly Match[]): UpdateArgs {
  return {
    dataType: "markdown",
    items: planned.map((m) => ({ id: m.id, data: m.body, dataType: "markdown" as const })),
  };
}

function plannedOf(before: Probed<FindReplaceSnapshot>): readonly Match[] {
  const planned = before.snapshot.planned;
  if (planned === undefined)
    throw new ToolError("internal_error", "block.find_replace executed without planned bodies");
  return planned;
}

/** What block.update's executor and readback take for these blocks. */
function updateBefore(before: Probed<FindReplaceSnapshot>): Probed<readonly BlockSnapshot[]> {
  return { ...before, snapshot: before.snapshot.blocks };
}

/** The manifest's canonical state: each matching block's state, in the order given. */
const manifestState = (blocks: readonly BlockSnapshot[]) => ({
  blocks: blocks.map((b) => b.state),
});

/**
 * The manifest probe of a find-and-replace over `a.ids` (block.find_replace; fs.replace over a
 * document's blocks). `options.notebooks` replaces the per-block notebook look-up when the caller
 * knows them; `options.nothingFound` the refusal's message when no block holds the text.
 */
export async function probeMatches(
  ctx: ToolContext,
  a: Pick<FindReplaceArgs, "ids" | "find" | "replacement">,
  options: { notebooks?: readonly string[]; nothingFound?: string } = {},
): Promise<Probed<FindReplaceSnapshot>> {
  const ids = distinct(a.ids);
  const { snapshots } =
    ids.length === 0 ? { snapshots: [] } : await readBlockStates(ctx.kernel, ids);
  for (const snap of snapshots) if (!snap.exists) throw notFound("block", snap.id);
  const blocks = snapshots.filter((s) => s.body.includes(a.find));
  const unmatched = snapshots.filter((s) => !s.body.includes(a.find)).map((s) => s.id);
  if (blocks.length === 0 && ctx.phase !== "commit") {
    throw new ToolError(
      "invalid_arguments",
      `${options.nothingFound ?? `none of the ${ids.length} blocks contains the text to find`}; it is matched literally and case-sensitively against each block's Kramdown as block.get_kramdown shows it (Markdown marks and escapes included)`,
      { reason: "text_not_found", unmatched },
    );
  }
  let planned: Match[] | undefined;
  try {
    planned = blocks.map((snap) => ({
      id: snap.id,
      ...plannedUpdate({ id: snap.id, find: a.find, replacement: a.replacement, all: true }, snap),
    }));
  } catch (e) {
    // At commit the same arguments passed at preflight: a refusal now means a block changed,
    // which the digest comparison reports as state_changed.
    if (ctx.phase !== "commit") throw e;
    planned = undefined;
  }
  return {
    state: manifestState(blocks),
    notebooks: options.notebooks ?? (await notebooksOfBlocks(ctx, ids)),
    snapshot: { blocks, unmatched, planned },
    current: currentOf(blocks),
    ...(planned
      ? {
          preflightNotes: {
            matches: planned.map((m, i) => ({
              id: m.id,
              occurrences: m.count,
              stateHash: blockHash(blocks[i] as BlockSnapshot),
            })),
            unmatched,
          },
        }
      : {}),
  };
}

/** What block.find_replace's (and fs.replace's) write answers. */
export type FindReplaceExecuted = Awaited<ReturnType<typeof update.execute>>;

export const findReplace: MutationHandler<
  FindReplaceArgs,
  FindReplaceSnapshot,
  Awaited<ReturnType<typeof update.execute>>
> = {
  probeUnlikeResult: true,
  targets: (a) => a.ids,
  summary: () => ({}),
  probe: (ctx, a) => probeMatches(ctx, a),
  async execute(ctx, _a, before) {
    return update.execute(ctx, asUpdate(plannedOf(before)), updateBefore(before));
  },
  async readback(ctx, _a, before, plans) {
    const planned = plannedOf(before);
    const seen = await update.readback(ctx, asUpdate(planned), updateBefore(before), plans);
    const state = { blocks: seen.state };
    if (seen.verdict === "mismatch") {
      return {
        state,
        verdict: "mismatch",
        reason: `${seen.reason ?? "a block does not show the replacement"} (each matched block should hold its previous Kramdown with every occurrence replaced)`,
      };
    }
    return {
      state,
      verdict: seen.verdict,
      receipt: {
        blocks: planned.map((m) => ({ id: m.id, replacedCount: m.count })),
        replacedCount: planned.reduce((n, m) => n + m.count, 0),
        unmatched: before.snapshot.unmatched,
      },
    };
  },
};
