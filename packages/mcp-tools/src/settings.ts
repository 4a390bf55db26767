/**
 * The configuration both authorities read (issue 15): the kernel plugin from its own storage,
 * the Node server and the CLI through the kernel's file API. One JSON file, `settings.json`, in
 * the plugin's storage folder; absent means the defaults. Read fresh for the calls that depend on
 * it, so a change is seen by the next call. No dependency (not even zod), so a shell can read the
 * settings before it loads anything else (`@sisyphus/mcp-tools/settings`).
 */

import type { Permission, PermissionMap } from "./permissions.js";

/** The plugin's name: its folder, its storage folder and its private route. */
export const PLUGIN_NAME = "siyuan-plugins-mcp-sisyphus";
/** The settings file inside the plugin's storage (`siyuan.storage` path). */
export const SETTINGS_FILE = "settings.json";
/** The same file as a workspace path for the kernel's `/api/file/getFile`. */
export const SETTINGS_WORKSPACE_PATH = `/data/storage/petal/${PLUGIN_NAME}/${SETTINGS_FILE}`;
/** The kernel authority's MCP endpoint, a path on the SiYuan port. */
export const KERNEL_MCP_PATH = `/plugin/private/${PLUGIN_NAME}/mcp`;

/** The settings, defaults filled in. */
export interface SisyphusSettings {
  /**
   * The kernel plugin is the sole write authority: the Node server, stdio and the CLI delegate
   * every strict call to `KERNEL_MCP_PATH`. Default off: the Node HTTP server is the authority.
   */
  readonly kernelEndpointEnabled: boolean;
  /**
   * Per-notebook permissions (`none` < `read` < `write` < `delete`): a default and overrides by
   * notebook ID. Default: full access (dangerous actions still need the user's confirmation).
   */
  readonly permissions: PermissionMap;
}

/** The settings when the file does not exist. */
export const DEFAULT_SETTINGS: SisyphusSettings = Object.freeze({
  kernelEndpointEnabled: false,
  permissions: Object.freeze({ default: "delete" as const }),
});

const PERMISSIONS: readonly Permission[] = ["none", "read", "write", "delete"];

function permission(value: unknown, where: string): Permission {
  if (typeof value === "string" && (PERMISSIONS as readonly string[]).includes(value)) {
    return value as Permission;
  }
  throw new SettingsError(`${SETTINGS_FILE}: ${where} must be one of ${PERMISSIONS.join(", ")}`);
}

function permissionsOf(raw: unknown): PermissionMap {
  if (raw === undefined) return DEFAULT_SETTINGS.permissions;
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new SettingsError(`${SETTINGS_FILE}: permissions must be an object`);
  }
  const r = raw as Record<string, unknown>;
  const notebooks: Record<string, Permission> = {};
  const given = r["notebooks"];
  if (given !== undefined) {
    if (given === null || typeof given !== "object" || Array.isArray(given)) {
      throw new SettingsError(`${SETTINGS_FILE}: permissions.notebooks must be an object`);
    }
    for (const [id, p] of Object.entries(given)) {
      notebooks[id] = permission(p, `permissions.notebooks.${id}`);
    }
  }
  return {
    default:
      r["default"] === undefined
        ? DEFAULT_SETTINGS.permissions.default
        : permission(r["default"], "permissions.default"),
    ...(Object.keys(notebooks).length > 0 ? { notebooks } : {}),
  };
}

/** Why a settings file could not be used. */
export class SettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SettingsError";
  }
}

/**
 * Parses the file's text (`undefined`: no file → defaults). Unknown keys are kept out; a file that
 * is not JSON, or has a wrong type, throws {@link SettingsError}: a caller fails closed instead of
 * guessing which authority the user chose.
 */
export function parseSettings(text: string | undefined): SisyphusSettings {
  if (text === undefined) return DEFAULT_SETTINGS;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new SettingsError(`${SETTINGS_FILE} is not JSON`);
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new SettingsError(`${SETTINGS_FILE} is not a JSON object`);
  }
  const enabled = (raw as Record<string, unknown>)["kernelEndpointEnabled"];
  if (enabled !== undefined && typeof enabled !== "boolean") {
    throw new SettingsError(`${SETTINGS_FILE}: kernelEndpointEnabled must be true or false`);
  }
  return {
    kernelEndpointEnabled: enabled ?? DEFAULT_SETTINGS.kernelEndpointEnabled,
    permissions: permissionsOf((raw as Record<string, unknown>)["permissions"]),
  };
}
