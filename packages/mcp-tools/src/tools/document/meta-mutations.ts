/**
 * document.rename, set_attrs (alias set_attr), set_icon and remove: state mutations whose
 * precondition is the document's location and attributes; fs.rm shares the removal readback.
 */
import { normalizeIcon } from "../../args.js";
import { notFound, ToolError } from "../../errors.js";
import type { ArgsOf, MutationHandler, ReadbackResult, ToolContext } from "../../handler.js";
import { attrsMatch } from "../../state/attributes.js";
import { locateDoc, readDocMeta } from "../../state/doc-state.js";

type Meta = Awaited<ReturnType<typeof readDocMeta>>;

async function probeMeta(ctx: ToolContext, id: string) {
  const meta = await readDocMeta(ctx, id);
  if (!meta.location) throw notFound("document", id);
  return { state: meta.state, notebooks: [meta.location.notebook], snapshot: meta };
}

const normalizeTitle = (t: string) => t.replace(/[/\n\t]/g, "").trim();

/** document.rename: the title (and file name) of a document. */
export const rename: MutationHandler<ArgsOf<"document", "rename">, Meta, null> = {
  targets: (a) => [a.id],
  probe: (ctx, a) => probeMeta(ctx, a.id),
  async execute(ctx, a) {
    await ctx.write.renameDocByID(a.id, a.title);
    return null;
  },
  async readback(ctx, a, before) {
    await ctx.kernel.flush();
    const after = await readDocMeta(ctx, a.id);
    if (after.attrs["title"] !== normalizeTitle(a.title)) {
      return {
        state: after.state,
        verdict: "mismatch",
        reason: "the document does not show the new title",
      };
    }
    return {
      state: after.state,
      verdict: before.snapshot.attrs["title"] === normalizeTitle(a.title) ? "unchanged" : "applied",
      // The title as read back (what the hpath and fs path now end in), so the answer shows it.
      receipt: { title: after.attrs["title"] },
    };
  },
};

/** Attribute names are checked by the argument schema (`attrMap`, one rule for both tools). */
export const setAttrs: MutationHandler<ArgsOf<"document", "set_attrs">, Meta, null> = {
  targets: (a) => [a.id],
  probe: (ctx, a) => probeMeta(ctx, a.id),
  async execute(ctx, a) {
    await ctx.write.setBlockAttrs(a.id, { ...a.attrs });
    return null;
  },
  async readback(ctx, a, before) {
    await ctx.kernel.flush();
    const after = await readDocMeta(ctx, a.id);
    if (!attrsMatch(after.attrs, a.attrs))
      return {
        state: after.state,
        verdict: "mismatch",
        reason: "the attributes do not show the requested values",
      };
    return {
      state: after.state,
      verdict: attrsMatch(before.snapshot.attrs, a.attrs) ? "unchanged" : "applied",
    };
  },
};

/**
 * document.set_icon: the document's `icon` attribute through `setBlockAttrs`, as the kernel stores
 * it (an emoji as its hex code points; "" removes it). A notebook's own ID and a block inside a
 * document are refused: the first is notebook.set_icon's, the second shows no icon in SiYuan.
 */
export const setIcon: MutationHandler<ArgsOf<"document", "set_icon">, Meta, null> = {
  targets: (a) => [a.id],
  async probe(ctx, a) {
    if ((await ctx.kernel.lsNotebooks()).some((n) => n.id === a.id))
      throw new ToolError(
        "invalid_arguments",
        `${a.id} is a notebook: notebook.set_icon sets a notebook's icon`,
        { id: a.id },
      );
    const meta = await readDocMeta(ctx, a.id);
    if (!meta.location) {
      const info = await ctx.kernel.getBlockInfo(a.id);
      if (info === null) throw notFound("document", a.id);
      throw new ToolError(
        "invalid_arguments",
        `${a.id} is a block inside document ${info.rootID}: only a document shows an icon; pass the document's ID`,
        { id: a.id, rootID: info.rootID },
      );
    }
    return { state: meta.state, notebooks: [meta.location.notebook], snapshot: meta };
  },
  async execute(ctx, a) {
    await ctx.write.setBlockAttrs(a.id, { icon: normalizeIcon(a.icon) });
    return null;
  },
  async readback(ctx, a, before) {
    await ctx.kernel.flush();
    const after = await readDocMeta(ctx, a.id);
    const want = normalizeIcon(a.icon);
    const iconOf = (attrs: Record<string, string>) => attrs["icon"] ?? "";
    if (!after.location || iconOf(after.attrs) !== want)
      return {
        state: after.state,
        verdict: "mismatch",
        reason: `the document's icon is ${JSON.stringify(iconOf(after.attrs))}, not ${JSON.stringify(want)}`,
      };
    return {
      state: after.state,
      verdict: iconOf(before.snapshot.attrs) === want ? "unchanged" : "applied",
      receipt: { id: a.id, icon: want },
    };
  },
};

/**
 * Readback of a document removal: existence is checked live by ID first, so a stale path or SQL
 * index cannot turn a successful deletion into a failure. A failed existence query throws, which
 * leaves the outcome unknown; a network error never proves deletion.
 */
export async function removedDocReadback(ctx: ToolContext, id: string): Promise<ReadbackResult> {
  await ctx.kernel.flush();
  const exists = await ctx.kernel.checkBlockExist(id);
  if (!exists)
    return { state: { id, removed: true }, verdict: "applied", receipt: { removed: id } };
  const loc = await locateDoc(ctx, id);
  return {
    state: { id, location: loc },
    verdict: "mismatch",
    reason: `document ${id} still exists`,
  };
}

/** document.remove (dangerous): existence is read back live by ID. */
export const remove: MutationHandler<ArgsOf<"document", "remove">, Meta, null> = {
  targets: (a) => [a.id],
  probe: (ctx, a) => probeMeta(ctx, a.id),
  async execute(ctx, a) {
    await ctx.write.removeDocByID(a.id);
    return null;
  },
  readback: (ctx, a) => removedDocReadback(ctx, a.id),
};
