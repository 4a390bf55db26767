/**
 * history.snapshot_list, snapshot_diff (reads) and snapshot_create (additive): SiYuan's data repo
 * snapshots (`/api/repo/*`), a restore point of the whole workspace. The only actions that call
 * the repo API, and only when asked (the lease, preflight and commit of every other action never
 * do). SiYuan refuses every repo call until the person sets a data repo key, so each action first
 * asks `getConf` whether one is set (a yes/no; the key is never kept or answered) and otherwise
 * refuses with `repo_key_not_set`, naming where the person sets it. No action ever sets, imports
 * or resets a key (decision D-321).
 *
 * `createSnapshot` answers `data: null` both when it made a snapshot and when the data equal the
 * latest one (then it makes none), so the readback tells them apart from the listing: a new
 * newest snapshot with this memo is `committed`; the same latest snapshot is `no_change` with its
 * ID.
 */
import { ToolError } from "../errors.js";
import {
  type ArgsOf,
  type MutationHandler,
  type ReadbackResult,
  readAction,
  type ToolContext,
} from "../handler.js";
import type { RepoDiffFile, RepoSnapshotRow } from "../kernel.js";
import { grantsEverywhere, type Permission } from "../permissions.js";

/** Where SiYuan 3.7.3 sets the data repo key (its settings' "Account & Sync" tab). */
export const REPO_KEY_SETTING = "Settings → Account & Sync → Data repo key";

/**
 * A snapshot covers every notebook: the call needs `needed` on all of them (the memo and the
 * listed files are the workspace's).
 */
export function requireEverywhere(ctx: ToolContext, needed: Permission): void {
  if (!grantsEverywhere(ctx.permissions, needed)) {
    throw new ToolError(
      "permission_denied",
      `a data repo snapshot covers every notebook; it needs ${needed} on all of them`,
      { notebook: "(all notebooks)", needed },
    );
  }
}

/** Refuses unless SiYuan has a data repo key; never sets one. */
export async function requireRepoKey(ctx: ToolContext): Promise<void> {
  if (await ctx.kernel.repoKeySet()) return;
  throw new ToolError(
    "invalid_arguments",
    `SiYuan has no data repo key, so it keeps no snapshots: the person sets one in SiYuan's ${REPO_KEY_SETTING} (this server never sets one)`,
    { reason: "repo_key_not_set", setting: REPO_KEY_SETTING },
  );
}

/**
 * Code points Go's `unicode.IsPrint` refuses, as ranges (inclusive): controls, format and
 * zero-width characters, line and paragraph separators, spaces other than U+0020 and the
 * ideographic space, surrogates and private use. Unassigned code points, which Go refuses too, are
 * not listed (the plugin's JavaScript engine has no Unicode property escapes).
 */
const NOT_PRINTABLE: ReadonlyArray<readonly [number, number]> = [
  [0x0000, 0x001f],
  [0x007f, 0x00a0],
  [0x00ad, 0x00ad],
  [0x0600, 0x0605],
  [0x061c, 0x061c],
  [0x06dd, 0x06dd],
  [0x070f, 0x070f],
  [0x08e2, 0x08e2],
  [0x1680, 0x1680],
  [0x180e, 0x180e],
  [0x2000, 0x200f],
  [0x2028, 0x202f],
  [0x205f, 0x2064],
  [0x2066, 0x206f],
  [0xd800, 0xf8ff],
  [0xfeff, 0xfeff],
  [0xfff9, 0xfffb],
  [0x110bd, 0x110bd],
  [0x110cd, 0x110cd],
  [0x13430, 0x1343f],
  [0x1bca0, 0x1bca3],
  [0x1d173, 0x1d17a],
  [0xe0001, 0xe0001],
  [0xe0020, 0xe007f],
  [0xf0000, 0x10ffff],
];

const printable = (c: number) => !NOT_PRINTABLE.some(([lo, hi]) => c >= lo && c <= hi);

/**
 * The memo as SiYuan stores it (`gulu.Str.RemoveInvisible`, then `TrimSpace`): no-break spaces as
 * spaces, what `unicode.IsPrint` refuses dropped, trimmed.
 */
export function storedMemo(memo: string): string {
  let out = "";
  for (const ch of Array.from(memo.split("\u00a0").join(" "))) {
    if (printable(ch.codePointAt(0) ?? 0)) out += ch;
  }
  return out.trim();
}

const isoOf = (ms: number) => new Date(ms).toISOString();

function snapshotOut(s: RepoSnapshotRow) {
  return {
    id: s.id,
    memo: s.memo,
    created: isoOf(s.created),
    count: s.count,
    size: s.size,
    tag: s.tag,
  };
}

export const snapshotList = readAction<ArgsOf<"history", "snapshot_list">>({
  async run(ctx, a) {
    requireEverywhere(ctx, "read");
    await requireRepoKey(ctx);
    const page = await ctx.kernel.repoSnapshots(a.page);
    return {
      page: a.page,
      pageCount: page.pageCount,
      total: page.totalCount,
      snapshots: page.snapshots.map(snapshotOut),
    };
  },
});

const fileOut = (f: RepoDiffFile) => ({ path: f.path, title: f.title, updated: isoOf(f.updated) });

/** By path: SiYuan lists a diff's files in its map's order. */
const byPath = <T extends { readonly path: string }>(files: readonly T[]): T[] =>
  [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

export const snapshotDiff = readAction<ArgsOf<"history", "snapshot_diff">>({
  async run(ctx, a) {
    requireEverywhere(ctx, "read");
    await requireRepoKey(ctx);
    const d = await ctx.kernel.repoDiff(a.left, a.right);
    if (d === null) {
      throw new ToolError(
        "not_found",
        `snapshot ${a.left} or ${a.right} does not exist: take IDs from history.snapshot_list`,
        { left: a.left, right: a.right },
      );
    }
    return {
      left: a.left,
      right: a.right,
      added: byPath(d.added).map(fileOut),
      updated: byPath(d.updated.map((u) => ({ ...u, path: u.right.path }))).map((u) => ({
        path: u.right.path,
        title: u.right.title,
        updatedBefore: isoOf(u.left.updated),
        updatedAfter: isoOf(u.right.updated),
      })),
      removed: byPath(d.removed).map(fileOut),
    };
  },
});

interface CreateSeen {
  /** The newest snapshot before the write, `null` when there is none. */
  readonly latest: RepoSnapshotRow | null;
  readonly memo: string;
  /** A block changed after the latest snapshot: SiYuan must make a new one. */
  readonly changed: boolean;
  /**
   * The latest snapshot already has this memo and no block changed after it: the request is met
   * (another request made it), so nothing is sent.
   */
  readonly met: boolean;
}

/**
 * Whether some block was updated after Unix ms `since`, by the kernel's own index (its `updated`
 * is the kernel's local time, so SQLite converts in the kernel's zone). `false` does not prove the
 * data equal (a removal or a file changes no block's `updated`); `true` proves they differ.
 */
async function blocksUpdatedAfter(ctx: ToolContext, since: number): Promise<boolean> {
  await ctx.kernel.flush();
  const seconds = Math.floor(since / 1000);
  const rows = await ctx.kernel.sql(
    `SELECT id FROM blocks WHERE updated > strftime('%Y%m%d%H%M%S', ${seconds}, 'unixepoch', 'localtime') LIMIT 1`,
  );
  return rows.length > 0;
}

export const snapshotCreate: MutationHandler<
  ArgsOf<"history", "snapshot_create">,
  CreateSeen,
  null
> = {
  targets: () => [],
  async probe(ctx, a) {
    requireEverywhere(ctx, ctx.needs);
    const memo = storedMemo(a.memo);
    if (memo === "") {
      throw new ToolError("invalid_arguments", "memo is blank: say what this restore point is", {
        reason: "blank_memo",
      });
    }
    await requireRepoKey(ctx);
    const latest = (await ctx.kernel.repoSnapshots(1)).snapshots[0] ?? null;
    const changed = latest === null || (await blocksUpdatedAfter(ctx, latest.created));
    const met = latest !== null && latest.memo === memo && !changed;
    return {
      state: { latest: latest?.id ?? null },
      notebooks: [],
      snapshot: { latest, memo, changed, met },
      preflightNotes: {
        latest: latest === null ? null : snapshotOut(latest),
        hint: met
          ? "the latest snapshot has this memo and no block changed since: nothing to do (no_change)"
          : "no new snapshot when the data equal the latest one (answered as no_change)",
      },
    };
  },
  async execute(ctx, _a, before) {
    if (before.snapshot.met) return null;
    await ctx.write.createSnapshot(before.snapshot.memo);
    return null;
  },
  async readback(ctx, _a, before): Promise<ReadbackResult> {
    const { latest, memo, changed } = before.snapshot;
    const listed = (await ctx.kernel.repoSnapshots(1)).snapshots;
    const newest = listed[0];
    const state = { latest: newest?.id ?? null };
    if (newest !== undefined && latest !== null && newest.id === latest.id) {
      if (changed) {
        return {
          state,
          verdict: "mismatch",
          reason: `no new snapshot is listed although blocks changed after the latest one (${latest.id})`,
        };
      }
      // SiYuan made none: it found the data equal to the latest snapshot, the restore point already
      return {
        state,
        verdict: "unchanged",
        receipt: { id: latest.id, memo: latest.memo, created: isoOf(latest.created), new: false },
      };
    }
    // the new snapshot is newer than the latest before (others may have been made since)
    const at = latest === null ? -1 : listed.findIndex((s) => s.id === latest.id);
    const newer = at < 0 ? listed : listed.slice(0, at);
    const made = newer.find((s) => s.memo === memo);
    if (made === undefined) {
      return {
        state,
        verdict: "mismatch",
        reason: `no snapshot with memo "${memo}" newer than ${latest?.id ?? "none"} is listed`,
      };
    }
    return {
      state: { latest: made.id },
      verdict: "applied",
      receipt: { ...snapshotOut(made), new: true },
    };
  },
};
