/**
 * Per-notebook permissions: `none` < `read` < `write` < `delete`. Loaded fresh for every call and
 * checked inside the probe, so a preflight fails before any lease is issued.
 */
import { ToolError } from "./errors.js";

/** One notebook's permission. */
export type Permission = "none" | "read" | "write" | "delete";

/** Permissions of a workspace: a default and per-notebook overrides. */
export interface PermissionMap {
  readonly default: Permission;
  readonly notebooks?: Readonly<Record<string, Permission>>;
}

/** Everything allowed; dangerous actions still need the user's confirmation. */
export const FULL_ACCESS: PermissionMap = { default: "delete" };

const RANK: Record<Permission, number> = { none: 0, read: 1, write: 2, delete: 3 };

/** The permission of one notebook. */
export function permissionOf(map: PermissionMap, notebook: string): Permission {
  return map.notebooks?.[notebook] ?? map.default;
}

/** True when every notebook has at least `needed`, so no notebook lookup is necessary. */
export function grantsEverywhere(map: PermissionMap, needed: Permission): boolean {
  if (RANK[map.default] < RANK[needed]) return false;
  return Object.values(map.notebooks ?? {}).every((p) => RANK[p] >= RANK[needed]);
}

/** Throws `permission_denied` unless every notebook grants `needed`. */
export function requirePermission(
  map: PermissionMap,
  notebooks: readonly string[],
  needed: Permission,
): void {
  for (const notebook of notebooks) {
    const granted = permissionOf(map, notebook);
    if (RANK[granted] < RANK[needed]) {
      throw new ToolError(
        "permission_denied",
        `notebook ${notebook} allows ${granted}, this action needs ${needed}`,
        { notebook, granted, needed },
      );
    }
  }
}

/**
 * The notebooks of some blocks, for a permission check: no kernel call at all when the permission
 * map grants `needs` everywhere, otherwise one `getBlockInfo` per block (in parallel).
 */
export async function notebooksOfBlocks(
  ctx: {
    readonly kernel: { getBlockInfo(id: string): Promise<{ box: string } | null> };
    readonly permissions: PermissionMap;
    readonly needs: Permission;
  },
  ids: readonly string[],
): Promise<string[]> {
  if (grantsEverywhere(ctx.permissions, ctx.needs)) return [];
  const infos = await Promise.all(ids.map((id) => ctx.kernel.getBlockInfo(id)));
  return infos.flatMap((info) => (info ? [info.box] : []));
}

/**
 * Keeps only the rows whose `box` (notebook) column the permissions let the caller read. When every
 * notebook is readable the rows pass unchanged; otherwise a row without a `box` column is dropped,
 * because its notebook cannot be checked.
 */
export function readableRows<T extends Record<string, unknown>>(
  map: PermissionMap,
  rows: readonly T[],
): { rows: T[]; withheld: number } {
  if (grantsEverywhere(map, "read")) return { rows: [...rows], withheld: 0 };
  const kept = rows.filter(
    (r) => typeof r["box"] === "string" && RANK[permissionOf(map, r["box"] as string)] >= RANK.read,
  );
  return { rows: kept, withheld: rows.length - kept.length };
}
