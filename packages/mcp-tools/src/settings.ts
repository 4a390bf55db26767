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
/** The kernel plugin's upload staging endpoints (spec "Kernel file transfer"), paths on the SiYuan port. */
export const KERNEL_TRANSFER_UPLOAD_PATH = `/plugin/private/${PLUGIN_NAME}/transfer/upload`;
export const KERNEL_TRANSFER_LOOKUP_PATH = `/plugin/private/${PLUGIN_NAME}/transfer/lookup`;
/**
 * The largest file the kernel plugin stages, in bytes (10 MiB): its staging area refuses more, and
 * a Node front or the CLI refuses a larger `localFilePath` before sending anything (it needs the
 * Node coordinator).
 */
export const KERNEL_STAGING_FILE_MAX_BYTES = 10 * 1024 * 1024;

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
  /**
   * Strict Safe Writes (default on). Read when an authority starts, like the authority switch: a
   * change applies after the plugin reloads or the Node server restarts, never to leases already
   * issued.
   */
  readonly strictSafeWrites: boolean;
  /**
   * Tools and actions turned off, as `"tool"` or `"tool.action"` (e.g. `"fs"`, `"block.delete"`).
   * Not listed, and a call answers `action_disabled`. Default: none. Names are checked against the
   * catalog by the runtime (an unknown name makes the settings unusable).
   */
  readonly disabled: readonly string[];
  /** The kernel options. */
  readonly options: SisyphusOptions;
}

/** The kernel options of the settings. */
export interface SisyphusOptions {
  /** Attempts of an idempotent kernel read, the first included (1..10, default 3). */
  readonly readRetries: number;
  /** The default `pageSize` of paged reads when the call gives none (1..64, default 16). */
  readonly pageSize: number;
  /**
   * Browser origins (`scheme://host[:port]`) allowed to call the endpoints besides loopback ones;
   * a request with any other `Origin` header is refused (403). Default: none.
   */
  readonly allowedOrigins: readonly string[];
  /**
   * The largest template body `file.create_template`/`update_template` sends, in UTF-8 bytes
   * (1..32 MiB, default 16 MiB); the `putFile` request may add 64 KiB of multipart overhead.
   */
  readonly templateBudgetBytes: number;
  /**
   * Where `feedback.submit` posts (JSON `{message, category?, contact?}`): an `https:` URL, or
   * `http:` on a loopback host, without user name or password. Default `null`: feedback is refused
   * (`feedback_unconfigured`); Sisyphus has no feedback service of its own.
   */
  readonly feedbackUrl: string | null;
}

/**
 * The kernel options a shell passes to each call (from that call's settings snapshot); without
 * `feedbackUrl`, feedback is unconfigured.
 */
export type CallOptions = Pick<
  SisyphusOptions,
  "readRetries" | "pageSize" | "templateBudgetBytes"
> &
  Partial<Pick<SisyphusOptions, "feedbackUrl">>;

/** Bounds of the kernel options. */
export const OPTION_LIMITS = Object.freeze({
  readRetries: { min: 1, max: 10, default: 3 },
  pageSize: { min: 1, max: 64, default: 16 },
  templateBudgetBytes: { min: 1, max: 32 * 1024 * 1024, default: 16 * 1024 * 1024 },
});

/** The settings when the file does not exist. */
export const DEFAULT_SETTINGS: SisyphusSettings = Object.freeze({
  kernelEndpointEnabled: false,
  permissions: Object.freeze({ default: "delete" as const }),
  strictSafeWrites: true,
  disabled: Object.freeze([]),
  options: Object.freeze({
    readRetries: OPTION_LIMITS.readRetries.default,
    pageSize: OPTION_LIMITS.pageSize.default,
    allowedOrigins: Object.freeze([]),
    templateBudgetBytes: OPTION_LIMITS.templateBudgetBytes.default,
    feedbackUrl: null,
  }),
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

function bool(raw: Record<string, unknown>, key: string, fallback: boolean): boolean {
  const v = raw[key];
  if (v === undefined) return fallback;
  if (typeof v !== "boolean")
    throw new SettingsError(`${SETTINGS_FILE}: ${key} must be true or false`);
  return v;
}

function stringList(v: unknown, where: string): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string" || x === "")) {
    throw new SettingsError(`${SETTINGS_FILE}: ${where} must be a list of names`);
  }
  return [...new Set(v as string[])].sort();
}

function integer(v: unknown, where: string, limits: { min: number; max: number; default: number }) {
  if (v === undefined) return limits.default;
  if (typeof v !== "number" || !Number.isInteger(v) || v < limits.min || v > limits.max) {
    throw new SettingsError(
      `${SETTINGS_FILE}: ${where} must be a whole number from ${limits.min} to ${limits.max}`,
    );
  }
  return v;
}

/** `scheme://host[:port]` exactly, in its canonical form; anything else is refused. */
function origin(v: string, where: string): string {
  const parsed = parseOrigin(v);
  if (parsed === null) {
    throw new SettingsError(
      `${SETTINGS_FILE}: ${where} "${v}" is not an origin like http://localhost:3000`,
    );
  }
  return parsed;
}

/** The schemes whose URLs have an origin other than `null` (WHATWG URL), with their default ports. */
const DEFAULT_PORTS: Readonly<Record<string, string>> = {
  "http:": "80",
  "https:": "443",
  "ws:": "80",
  "wss:": "443",
  "ftp:": "21",
};

/**
 * `scheme://` then `[user@]host[:port]`, then the rest: what this module needs of a URL without
 * `URL`. The kernel plugin runs in goja, whose `URL` (goja_nodejs) drops the port from `origin`
 * and gives `[` as the hostname of `[::1]` (docs/fidelity.md), so origins and hosts are read here.
 */
const URL_HEAD =
  /^([A-Za-z][A-Za-z0-9+.-]*:)\/\/(?:([^@/?#\s]*)@)?(\[[0-9A-Fa-f:.]+\]|[^:/?#@[\]\s]*)(?::(\d*))?([/?#][^\s]*)?$/;

/**
 * The canonical origin of an origin string (`scheme://host[:port]`, an optional final
 * `/`), or null: lowercase scheme and host, no default port, no user, path, query or fragment. A
 * string that is not already in that form (as a browser's `Origin` header is) is refused, as
 * `new URL(v).origin !== v` refused it.
 */
export function parseOrigin(v: string): string | null {
  const m = URL_HEAD.exec(v);
  if (m === null) return null;
  const [, scheme = "", user, host = "", port, rest] = m;
  if (user !== undefined || (rest !== undefined && rest !== "/")) return null;
  if (DEFAULT_PORTS[scheme] === undefined) return null;
  if (host === "" || host !== host.toLowerCase()) return null;
  if (!host.startsWith("[") && !/^[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(host)) return null;
  if (port !== undefined) {
    if (!/^[1-9]\d{0,4}$/.test(port) || Number(port) > 65535 || DEFAULT_PORTS[scheme] === port) {
      return null;
    }
  }
  return `${scheme}//${host}${port === undefined ? "" : `:${port}`}`;
}

/**
 * A URL's scheme, host (IPv6 in brackets) and origin (`scheme://host[:port]`, without a default
 * port), lowercased, or null when it has no host.
 */
export function urlHost(
  v: string,
): { scheme: string; host: string; origin: string; hasUser: boolean } | null {
  const m = URL_HEAD.exec(v);
  if (m === null || m[3] === undefined || m[3] === "") return null;
  const scheme = m[1]!.toLowerCase();
  const host = m[3].toLowerCase();
  const port =
    m[4] === undefined || m[4] === "" || DEFAULT_PORTS[scheme] === m[4] ? "" : `:${m[4]}`;
  return { scheme, host, origin: `${scheme}//${host}${port}`, hasUser: m[2] !== undefined };
}

/** A feedback destination: `https:`, or `http:` on loopback; no credentials in the URL. */
function feedbackUrl(v: unknown, where: string): string | null {
  if (v === undefined || v === null) return null;
  let parsed: URL | undefined;
  try {
    parsed = typeof v === "string" ? new URL(v) : undefined;
  } catch {
    parsed = undefined;
  }
  const head = typeof v === "string" ? urlHost(v) : null;
  const allowed =
    parsed !== undefined &&
    head !== null &&
    !head.hasUser &&
    parsed.username === "" &&
    parsed.password === "" &&
    (head.scheme === "https:" || (head.scheme === "http:" && isLoopbackHost(head.host)));
  if (!allowed) {
    throw new SettingsError(
      `${SETTINGS_FILE}: ${where} must be an https URL (or http on localhost/127.0.0.1/[::1]) without user name or password`,
    );
  }
  return (parsed as URL).href;
}

function optionsOf(raw: unknown): SisyphusOptions {
  if (raw === undefined) return DEFAULT_SETTINGS.options;
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new SettingsError(`${SETTINGS_FILE}: options must be an object`);
  }
  const r = raw as Record<string, unknown>;
  return {
    readRetries: integer(r["readRetries"], "options.readRetries", OPTION_LIMITS.readRetries),
    pageSize: integer(r["pageSize"], "options.pageSize", OPTION_LIMITS.pageSize),
    allowedOrigins: stringList(r["allowedOrigins"], "options.allowedOrigins").map((o) =>
      origin(o, "options.allowedOrigins"),
    ),
    templateBudgetBytes: integer(
      r["templateBudgetBytes"],
      "options.templateBudgetBytes",
      OPTION_LIMITS.templateBudgetBytes,
    ),
    feedbackUrl: feedbackUrl(r["feedbackUrl"], "options.feedbackUrl"),
  };
}

/**
 * What decides who may do what through the tools: the authority switch, the permissions and the
 * turned-off tools and actions, as one string (keys sorted). Two calls with the same fingerprint
 * see the same tools and the same access: `/tasks` answers `access_changed` for a result recorded
 * under another fingerprint, and the legacy `tools/list_changed` stream coalesces on it.
 */
export function accessFingerprint(settings: SisyphusSettings): string {
  const notebooks = settings.permissions.notebooks ?? {};
  return JSON.stringify([
    settings.kernelEndpointEnabled,
    settings.permissions.default,
    Object.keys(notebooks)
      .sort()
      .map((id) => [id, notebooks[id]]),
    settings.disabled,
  ]);
}

/** Whether a host name is this machine's loopback (`localhost`, `127.x.x.x`, `::1`, brackets allowed). */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/**
 * The browser-origin rule of every Sisyphus endpoint, before any list is consulted: `pass` for no
 * `Origin` header or a loopback origin (http or https, any port); `refuse` for one that is not an
 * origin (`null`, unparseable, a path); otherwise `check` with the origin, which then passes only
 * when listed exactly (the Node server's `--allowed-origins`, the plugin's `options.allowedOrigins`).
 */
export function originVerdict(
  origin: string | undefined,
):
  | { readonly verdict: "pass" | "refuse" }
  | { readonly verdict: "check"; readonly origin: string } {
  if (origin === undefined) return { verdict: "pass" };
  const canonical = parseOrigin(origin);
  if (canonical === null || canonical !== origin.replace(/\/$/, "")) return { verdict: "refuse" };
  const head = urlHost(canonical)!;
  if ((head.scheme === "http:" || head.scheme === "https:") && isLoopbackHost(head.host)) {
    return { verdict: "pass" };
  }
  return { verdict: "check", origin: canonical };
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
  const r = raw as Record<string, unknown>;
  return {
    kernelEndpointEnabled: bool(r, "kernelEndpointEnabled", DEFAULT_SETTINGS.kernelEndpointEnabled),
    permissions: permissionsOf(r["permissions"]),
    strictSafeWrites: bool(r, "strictSafeWrites", DEFAULT_SETTINGS.strictSafeWrites),
    disabled: stringList(r["disabled"], "disabled"),
    options: optionsOf(r["options"]),
  };
}
