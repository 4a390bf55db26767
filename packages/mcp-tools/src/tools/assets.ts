/**
 * file: delete_asset (state) and remove_unused_assets (manifest), both dangerous: assets no
 * document links, removed the way SiYuan's "unused assets" view removes them (`removeUnusedAsset`,
 * `removeUnusedAssets`; the kernel keeps a copy of each in its history).
 *
 * SiYuan 3.7.3 checks no link when it removes one asset (kernel-probes `asset.removeUnused`): the
 * probe does, against the kernel's own unused list, and refuses an asset that is linked. The state
 * of an asset is its file's SHA-256 and size, or a folder's entries, read by the workspace file API.
 * The bulk removal takes every asset the kernel finds unused at that moment, uncapped, while its list
 * names at most 512: past that no manifest covers what the commit removes, and the probe refuses.
 */
import { hashChunked } from "@sisyphus/core-hash";
import { notFound, ToolError } from "../errors.js";
import type { ArgsOf, MutationHandler, ReadbackResult, ToolContext } from "../handler.js";
import { requirePermission } from "../permissions.js";
import { KERNEL_UNUSED_ASSETS_MAX } from "./file-reads.js";

type DeleteArgs = ArgsOf<"file", "delete_asset">;
type RemoveUnusedArgs = ArgsOf<"file", "remove_unused_assets">;

/** An asset as the file API shows it: gone, a file (its digest), or a folder (its entries). */
type AssetState =
  | { readonly path: string; readonly exists: false }
  | { readonly path: string; readonly exists: true; readonly sha256: string; readonly size: number }
  | {
      readonly path: string;
      readonly exists: true;
      readonly folder: true;
      readonly entries: ReadonlyArray<{ name: string; isDir: boolean; updated: number }>;
    };

/** The notebook of `<notebook>/assets/…`; `undefined` for `assets/…` (the workspace's). */
export function assetNotebook(path: string): string | undefined {
  return /^(\d{14}-[a-z0-9]{7})\/assets\//.exec(path)?.[1];
}

/** `path` (`assets/…` under `data/`) as the file API shows it now. A failed read throws. */
async function assetState(ctx: ToolContext, path: string): Promise<AssetState> {
  const cut = path.lastIndexOf("/");
  const name = path.slice(cut + 1);
  const entry = (await ctx.kernel.readDir(`/data/${path.slice(0, cut)}`))?.find(
    (e) => e.name === name,
  );
  if (entry === undefined) return { path, exists: false };
  if (entry.isDir) {
    const inside = (await ctx.kernel.readDir(`/data/${path}`)) ?? [];
    const entries = inside
      .map((e) => ({ name: e.name, isDir: e.isDir, updated: e.updated }))
      .sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
    return { path, exists: true, folder: true, entries };
  }
  const bytes = await ctx.kernel.getFile(`/data/${path}`);
  if (bytes === null) return { path, exists: false };
  return { path, exists: true, sha256: await hashChunked(bytes), size: bytes.length };
}

/** The kernel's unused list, refused when it is capped (it then cannot vouch for what it leaves out). */
async function unusedPaths(ctx: ToolContext): Promise<string[]> {
  const found = await ctx.kernel.getUnusedAssets();
  if (found.length >= KERNEL_UNUSED_ASSETS_MAX) {
    throw new ToolError(
      "invalid_arguments",
      `SiYuan lists at most ${KERNEL_UNUSED_ASSETS_MAX} unused assets and lists that many: remove some in its "unused assets" view first`,
      { reason: "unused_list_capped", limit: KERNEL_UNUSED_ASSETS_MAX },
    );
  }
  return found.map((a) => a.path);
}

/**
 * file.delete_asset: one unused asset file or folder removed (`removeUnusedAsset`). The probe
 * refuses an asset the kernel's unused list does not name (`invalid_arguments`, reason
 * `asset_in_use`: a document, title image or database links it); the readback proves the path gone.
 */
export const deleteAsset: MutationHandler<DeleteArgs, { path: string }, string> = {
  targets: (a) => [a.path],
  async probe(ctx, a) {
    const state = await assetState(ctx, a.path);
    if (!state.exists) throw notFound("asset", a.path);
    if (!(await unusedPaths(ctx)).includes(a.path)) {
      throw new ToolError(
        "invalid_arguments",
        `${a.path} is in use (a document, title image or database links it): SiYuan's unused list does not name it`,
        { reason: "asset_in_use", path: a.path },
      );
    }
    const box = assetNotebook(a.path);
    return {
      state: { asset: state, unused: true },
      notebooks: box === undefined ? [] : [box],
      snapshot: { path: a.path },
      preflightNotes: { keptInHistory: true },
    };
  },
  execute: (ctx, _a, before) => ctx.write.removeUnusedAsset(before.snapshot.path),
  async readback(ctx, _a, before): Promise<ReadbackResult> {
    const state = await assetState(ctx, before.snapshot.path);
    if (state.exists) {
      return { state, verdict: "mismatch", reason: `${before.snapshot.path} is still there` };
    }
    return { state, verdict: "applied", receipt: { removed: before.snapshot.path } };
  },
};

/**
 * file.remove_unused_assets: every asset SiYuan finds unused removed (`removeUnusedAssets`). The
 * manifest is the kernel's unused list with each asset's state; an asset that becomes unused, is
 * linked or changes after the preflight changes the manifest. The readback proves every asset of
 * the manifest gone and that the kernel removed no other (its answer counts what it removed).
 */
export const removeUnusedAssets: MutationHandler<
  RemoveUnusedArgs,
  { paths: readonly string[] },
  string[] | null
> = {
  targets: () => [],
  async probe(ctx) {
    const paths = await unusedPaths(ctx);
    const assets = await Promise.all(paths.map((p) => assetState(ctx, p)));
    const boxes = [...new Set(paths.flatMap((p) => assetNotebook(p) ?? []))].sort();
    // An asset of data/assets/ needs the workspace's (default) permission, as file.upload_asset.
    if (boxes.length > 0 && paths.some((p) => assetNotebook(p) === undefined)) {
      requirePermission(ctx.permissions, ["(workspace)"], ctx.needs);
    }
    return {
      state: { assets },
      notebooks: boxes,
      snapshot: { paths },
      preflightNotes: { assetCount: paths.length, keptInHistory: true },
    };
  },
  // Nothing listed: no kernel call, so nothing that became unused since can go with it.
  execute: async (ctx, _a, before) =>
    before.snapshot.paths.length === 0 ? null : ctx.write.removeUnusedAssets(),
  async readback(ctx, _a, before, removed): Promise<ReadbackResult> {
    const { paths } = before.snapshot;
    const assets = await Promise.all(paths.map((p) => assetState(ctx, p)));
    const state = { assets };
    const left = assets.filter((x) => x.exists).map((x) => x.path);
    if (left.length > 0) {
      return { state, verdict: "mismatch", reason: `still there: ${left.slice(0, 8).join(", ")}` };
    }
    if (removed !== null && removed.length > paths.length) {
      return {
        state,
        verdict: "mismatch",
        reason: `the kernel removed ${removed.length} assets, ${removed.length - paths.length} more than the preflight listed`,
      };
    }
    return {
      state,
      verdict: paths.length === 0 ? "unchanged" : "applied",
      receipt: { removedCount: paths.length },
    };
  },
};
