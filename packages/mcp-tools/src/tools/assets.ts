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
import { hashChunked, utf8Decode } from "@sisyphus/core-hash";
import { notFound, ToolError } from "../errors.js";
import type { ArgsOf, MutationHandler, ReadbackResult, ToolContext } from "../handler.js";
import { notebooksOfBlocks, requirePermission } from "../permissions.js";
import { KERNEL_UNUSED_ASSETS_MAX } from "./file-reads.js";

type DeleteArgs = ArgsOf<"file", "delete_asset">;
type RemoveUnusedArgs = ArgsOf<"file", "remove_unused_assets">;
type RenameArgs = ArgsOf<"file", "rename_asset">;

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
export async function assetState(ctx: ToolContext, path: string): Promise<AssetState> {
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
  probeUnlikeResult: true,
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

/** At most this many blocks may link an asset that file.rename_asset renames. */
export const RENAME_ASSET_MAX_BLOCKS = 64;

/** Characters SiYuan drops from or replaces in a new asset name (`FilterUploadFileName`). */
const KERNEL_CHANGED_CHARS = /[\\/:*?"'<>|~[\]()!`&{}=#%$;]/;

/** Control, zero-width and direction characters, which SiYuan drops from a file name. */
function hasInvisible(name: string): boolean {
  return [...name].some((ch) => {
    const c = ch.codePointAt(0) ?? 0;
    return (
      c < 0x20 ||
      (c >= 0x7f && c <= 0x9f) ||
      (c >= 0x200b && c <= 0x200f) ||
      (c >= 0x2028 && c <= 0x202e) ||
      c === 0xfeff
    );
  });
}

/**
 * Kramdown with the pairs of each IAL in sorted order: SiYuan 3.7.3 answers a block whose tree it
 * just reloaded from its file (after a rename, a notebook's second index) with the pairs in another
 * order for a moment (`updated` first).
 */
function ialPairsSorted(kramdown: string): string {
  return kramdown.replace(
    /\{: ((?:[^"}\s]+="(?:[^"\\]|\\.)*"\s*)+)\}/g,
    (_m, pairs: string) =>
      `{: ${(pairs.match(/[^"\s]+="(?:[^"\\]|\\.)*"/g) ?? []).sort().join(" ")}}`,
  );
}

const sqlString = (s: string): string => `'${s.replaceAll("'", "''")}'`;
const count = (text: string, part: string): number => text.split(part).length - 1;

interface RenameSeen {
  readonly oldPath: string;
  readonly oldName: string;
  readonly sha256: string;
  /** Each block that holds the old name: its Kramdown. */
  readonly blocks: ReadonlyArray<{ readonly id: string; readonly kramdown: string }>;
  /** Database files (`data/storage/av/…`) that hold the old path. */
  readonly databases: readonly string[];
}

/** The database files that hold `oldPath`, with their digests. */
async function databasesHolding(ctx: ToolContext, oldPath: string) {
  const entries = (await ctx.kernel.readDir("/data/storage/av")) ?? [];
  const out: Array<{ file: string; sha256: string }> = [];
  for (const e of entries) {
    if (e.isDir || !/^\d{14}-[a-z0-9]{7}\.json$/.test(e.name)) continue;
    const bytes = await ctx.kernel.getFile(`/data/storage/av/${e.name}`);
    if (bytes !== null && utf8Decode(bytes).includes(oldPath)) {
      out.push({ file: e.name, sha256: await hashChunked(bytes) });
    }
  }
  return out;
}

/**
 * file.rename_asset: an asset of `data/assets/` renamed by SiYuan (`renameAsset`: the new name
 * gets a new ID, the extension stays), which rewrites the old file name in every document and the
 * old path in database files. The manifest is the asset's digest, the Kramdown of every block that
 * holds the old name and the database files that hold the old path. The probe refuses what would
 * make the rewrite reach further than the links: the old name in text that is not a link to this
 * asset (the kernel replaces it everywhere), a closed notebook (the kernel rewrites its documents,
 * which no read can show), a name the kernel would change. The readback proves the file at the
 * new path with the same bytes, the old path gone and each block and database file rewritten.
 */
export const renameAsset: MutationHandler<RenameArgs, RenameSeen, string> = {
  targets: (a) => [a.path],
  async probe(ctx, a) {
    if (assetNotebook(a.path) !== undefined) {
      throw new ToolError(
        "invalid_arguments",
        `rename_asset renames assets of data/assets/ only, not a notebook's (${a.path})`,
        { path: a.path },
      );
    }
    const oldName = a.path.slice(a.path.lastIndexOf("/") + 1);
    if (
      KERNEL_CHANGED_CHARS.test(a.newName) ||
      hasInvisible(a.newName) ||
      a.newName !== a.newName.trim() ||
      a.newName.endsWith(".") ||
      a.newName === oldName
    ) {
      throw new ToolError(
        "invalid_arguments",
        `SiYuan would not keep the name ${JSON.stringify(a.newName)}: no \\ / : * ? " ' < > | ~ [ ] ( ) ! \` & { } = # % $ ; or invisible characters, no space or . at its ends, not the current name`,
        { newName: a.newName },
      );
    }
    const asset = await assetState(ctx, a.path);
    if (!asset.exists || "folder" in asset) throw notFound("asset file", a.path);
    const closed = (await ctx.kernel.lsNotebooks()).filter((n) => n.closed).map((n) => n.id);
    if (closed.length > 0) {
      throw new ToolError(
        "notebook_closed",
        `SiYuan also rewrites the documents of closed notebooks, which cannot be read first: open ${closed.join(", ")} to rename an asset`,
        { notebooks: closed },
      );
    }
    await ctx.kernel.flush();
    const name = sqlString(oldName);
    const rows = await ctx.kernel.sql(
      `SELECT DISTINCT id FROM blocks WHERE instr(markdown, ${name}) > 0 OR instr(ial, ${name}) > 0 ORDER BY id LIMIT ${RENAME_ASSET_MAX_BLOCKS + 1}`,
    );
    if (rows.length > RENAME_ASSET_MAX_BLOCKS) {
      throw new ToolError(
        "invalid_arguments",
        `more than ${RENAME_ASSET_MAX_BLOCKS} blocks hold ${oldName}: rename it in SiYuan`,
        { path: a.path, max: RENAME_ASSET_MAX_BLOCKS },
      );
    }
    const ids = rows.map((r) => String(r["id"]));
    const kramdowns = ids.length === 0 ? {} : await ctx.kernel.getBlockKramdowns(ids);
    const blocks = ids.flatMap((id) => {
      const kramdown = kramdowns[id];
      return kramdown === undefined ? [] : [{ id, kramdown }];
    });
    const prose = blocks.filter((b) => count(b.kramdown, oldName) !== count(b.kramdown, a.path));
    if (prose.length > 0) {
      throw new ToolError(
        "invalid_arguments",
        `SiYuan would also rewrite ${oldName} where it is not a link to ${a.path}, in blocks ${prose
          .slice(0, 8)
          .map((b) => b.id)
          .join(", ")}: edit those first`,
        { reason: "name_in_text", ids: prose.map((b) => b.id) },
      );
    }
    const databases = await databasesHolding(ctx, a.path);
    const boxes = await notebooksOfBlocks(
      ctx,
      blocks.map((b) => b.id),
    );
    // The asset is the workspace's: its (default) permission too, as file.upload_asset.
    if (boxes.length > 0) requirePermission(ctx.permissions, ["(workspace)"], ctx.needs);
    return {
      // IAL pairs sorted: a tree SiYuan just loaded answers them in another order for a moment.
      state: {
        asset,
        blocks: blocks.map((b) => ({ id: b.id, kramdown: ialPairsSorted(b.kramdown) })),
        databases,
      },
      notebooks: boxes,
      snapshot: {
        oldPath: a.path,
        oldName,
        sha256: asset.sha256,
        blocks,
        databases: databases.map((d) => d.file),
      },
      preflightNotes: { blockCount: blocks.length, databaseCount: databases.length },
    };
  },
  execute: (ctx, a) => ctx.write.renameAsset(a.path, a.newName),
  async readback(ctx, a, before, newPath): Promise<ReadbackResult> {
    const seen = before.snapshot;
    const dir = seen.oldPath.slice(0, seen.oldPath.lastIndexOf("/") + 1);
    const ext = /\.[^./]*$/.exec(seen.oldName)?.[0] ?? "";
    const newBase = newPath.slice(dir.length);
    const shaped =
      newPath.startsWith(dir) &&
      (newBase === `${a.newName}${ext}` ||
        (newBase.startsWith(`${a.newName}-`) &&
          newBase.endsWith(ext) &&
          /^\d{14}-[a-z0-9]{7}$/.test(
            newBase.slice(a.newName.length + 1, newBase.length - ext.length),
          )));
    if (!shaped) {
      return {
        state: { newPath },
        verdict: "mismatch",
        reason: `the kernel answered ${JSON.stringify(newPath)}, not a path named ${a.newName} beside ${seen.oldPath}`,
      };
    }
    const [old, moved] = await Promise.all([
      assetState(ctx, seen.oldPath),
      assetState(ctx, newPath),
    ]);
    await ctx.kernel.flush();
    const ids = seen.blocks.map((b) => b.id);
    const after = ids.length === 0 ? {} : await ctx.kernel.getBlockKramdowns(ids);
    const databases = await databasesHolding(ctx, newPath);
    const state = { old, moved, blocks: after, databases };
    const fail = (reason: string): ReadbackResult => ({ state, verdict: "mismatch", reason });
    if (old.exists) return fail(`${seen.oldPath} is still there`);
    if (!moved.exists || !("sha256" in moved) || moved.sha256 !== seen.sha256) {
      return fail(`${newPath} does not hold the asset's bytes`);
    }
    for (const b of seen.blocks) {
      const now = after[b.id];
      if (
        now === undefined ||
        ialPairsSorted(now) !== ialPairsSorted(b.kramdown.replaceAll(seen.oldName, newBase))
      ) {
        return fail(`block ${b.id} does not link ${newPath} as the rename asks`);
      }
    }
    const rewritten = new Set(databases.map((d) => d.file));
    const missed = seen.databases.filter((f) => !rewritten.has(f));
    if (missed.length > 0)
      return fail(`database files ${missed.join(", ")} still name ${seen.oldPath}`);
    return {
      state,
      verdict: "applied",
      receipt: { newPath, blockCount: seen.blocks.length, databaseCount: seen.databases.length },
    };
  },
};
