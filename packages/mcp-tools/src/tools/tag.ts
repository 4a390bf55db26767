/**
 * tag: list (read); rename and remove (manifest).
 *
 * The kernel has no live API that enumerates the blocks carrying a tag, so the candidates come from
 * the SQL index after a flush (which waits for the index queue); the manifest that is hashed is then
 * read live: each candidate's kramdown. A block tagged after the probe changes the manifest's
 * candidates on the re-probe, and so the digest.
 */
import { ToolError } from "../errors.js";
import {
  type MutationHandler,
  mutationAction,
  readAction,
  type ToolContext,
  type ToolHandlers,
} from "../handler.js";
import { notebooksOfBlocks, readableRows } from "../permissions.js";
import { renderIalLine } from "../state/attributes.js";
import { attributesToKeep, type BlockSnapshot, readBlockState } from "../state/block-state.js";
import { canonicalForm, formOfMarkdown } from "../state/content-form.js";

/** At most this many blocks per tag rename/remove; more must be narrowed by the caller. */
export const TAG_MANIFEST_MAX_BLOCKS = 64;

const LABEL = /^[^#\s][^#]*$/;

function sqlString(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

function checkLabel(label: string): void {
  if (!LABEL.test(label)) {
    throw new ToolError(
      "invalid_arguments",
      `tag label ${JSON.stringify(label)} is not valid: give the label without # marks`,
      { label },
    );
  }
}

/**
 * The blocks whose Markdown holds `#label#`, found with `instr` (exact, case-sensitive, as the
 * manifest's own `includes` check): a `LIKE` pattern makes the label's `_` and `%` wildcards, and
 * taking them out of the pattern found no block of a label such as `to_do`, whose rename then
 * answered `no_change` while the tag stayed (`LIKE … ESCAPE` is no way out either: see
 * document/find.ts).
 */
async function taggedBlockIds(ctx: ToolContext, label: string): Promise<string[]> {
  await ctx.kernel.flush();
  const tag = sqlString(`#${label}#`);
  // DISTINCT: the kernel's index may hold a block's row twice (see document/find.ts)
  const rows = await ctx.kernel.sql(
    `SELECT DISTINCT id FROM blocks WHERE type != 'd' AND instr(markdown, ${tag}) > 0 ORDER BY id LIMIT ${TAG_MANIFEST_MAX_BLOCKS + 1}`,
  );
  const ids = rows.map((r) => String(r["id"]));
  if (ids.length > TAG_MANIFEST_MAX_BLOCKS) {
    throw new ToolError(
      "invalid_arguments",
      `more than ${TAG_MANIFEST_MAX_BLOCKS} blocks carry #${label}#: rename the tag in smaller steps with block.update`,
      { label, max: TAG_MANIFEST_MAX_BLOCKS },
    );
  }
  return ids;
}

interface Manifest {
  readonly label: string;
  readonly blocks: readonly BlockSnapshot[];
}

async function readManifest(ctx: ToolContext, label: string): Promise<Manifest> {
  const ids = await taggedBlockIds(ctx, label);
  const blocks = (await Promise.all(ids.map((id) => readBlockState(ctx.kernel, id)))).filter(
    (b) => b.exists && b.body.includes(`#${label}#`),
  );
  return { label, blocks };
}

function manifestState(m: Manifest): unknown {
  return { label: m.label, blocks: m.blocks.map((b) => b.state) };
}

/** A retag: every `#from#` becomes `#to#`, or is removed when `to` is `null`. */
interface Retag {
  readonly from: string;
  readonly to: string | null;
}

/** The engine of tag.rename and tag.remove, over the labels each reads from its arguments. */
function retag<A>(labels: (args: A) => Retag): MutationHandler<A, Manifest, number> {
  const oldLabel = (a: A) => labels(a).from;
  return {
    probeUnlikeResult: true,
    targets: () => [],
    async probe(ctx, a) {
      const { from, to } = labels(a);
      checkLabel(from);
      if (to !== null) checkLabel(to);
      const m = await readManifest(ctx, oldLabel(a));
      return {
        state: manifestState(m),
        notebooks: await notebooksOfBlocks(
          ctx,
          m.blocks.map((b) => b.id),
        ),
        snapshot: m,
        // The commit's receipt reports the same count after readback.
        preflightNotes: { blockCount: m.blocks.length },
      };
    },
    async execute(ctx, a, before) {
      const { from: label, to: next } = labels(a);
      const from = `#${label}#`;
      const to = next === null ? "" : `#${next}#`;
      for (const block of before.snapshot.blocks) {
        const body = block.body.replaceAll(from, to);
        const keep = attributesToKeep(block.attrs);
        const data = Object.keys(keep).length > 0 ? `${body}\n${renderIalLine(keep)}` : body;
        await ctx.write.updateBlock(block.id, "markdown", data);
      }
      return before.snapshot.blocks.length;
    },
    async readback(ctx, a, before, count) {
      await ctx.kernel.flush();
      const afters = await Promise.all(
        before.snapshot.blocks.map((b) => readBlockState(ctx.kernel, b.id)),
      );
      const state = { label: oldLabel(a), blocks: afters.map((b) => b.state) };
      const { to: next } = labels(a);
      const from = `#${oldLabel(a)}#`;
      const to = next === null ? "" : `#${next}#`;
      // Renaming a tag to itself asks for nothing: decided from the request, not the readback.
      const sameLabel = from === to;
      for (const [i, after] of afters.entries()) {
        const prior = before.snapshot.blocks[i] as BlockSnapshot;
        const expected = prior.body.replaceAll(from, to);
        if (
          !after.exists ||
          (!sameLabel && after.body.includes(from)) ||
          (to !== "" && !after.body.includes(to)) ||
          canonicalForm(formOfMarkdown(after.body), { ownAttrs: "ignore" }) !==
            canonicalForm(formOfMarkdown(expected), { ownAttrs: "ignore" })
        ) {
          return {
            state,
            verdict: "mismatch",
            reason: `block ${after.id} does not show the retag`,
          };
        }
      }
      return {
        state,
        verdict: count === 0 || sameLabel ? "unchanged" : "applied",
        receipt: { blockCount: count },
      };
    },
    summary: () => ({}),
  };
}

/** The tag tool's handlers. */
export const tagHandlers = {
  list: readAction({
    run: async (ctx) => {
      await ctx.kernel.flush();
      const { rows } = readableRows(
        ctx.permissions,
        await ctx.kernel.sql("SELECT DISTINCT id, box, tag FROM blocks WHERE tag != '' LIMIT 4096"),
      );
      const counts = new Map<string, number>();
      for (const row of rows) {
        for (const m of String(row["tag"]).matchAll(/#([^#\s][^#]*)#/g)) {
          counts.set(m[1] as string, (counts.get(m[1] as string) ?? 0) + 1);
        }
      }
      return {
        tags: [...counts]
          .sort((x, y) => (x[0] < y[0] ? -1 : 1))
          .map(([label, count]) => ({ label, count })),
      };
    },
  }),
  rename: mutationAction(retag((a) => ({ from: a.oldLabel, to: a.newLabel }))),
  remove: mutationAction(retag((a) => ({ from: a.label, to: null }))),
} satisfies ToolHandlers<"tag">;
