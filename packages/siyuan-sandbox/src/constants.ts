/**
 * One source of truth for the sandbox's limits and defaults (quoted by the README): first the
 * kernel-side facts, then the sandbox's own test settings.
 */

// Kernel-side facts: the real SiYuan kernel defines these (contract Part 1). The sandbox mirrors
// them instead of importing the product's copies, so the test kernel shares no fact with the client
// it tests.

/** Interval of the background write-queue loop, as the kernel's (ms). */
export const DEFAULT_FLUSH_INTERVAL_MS = 50;
/** Version string answered by `/api/system/version`. */
export const KERNEL_VERSION = "3.7.3";
/** Rows appended as `LIMIT 64` to SQL statements without a LIMIT (workspace `search.limit`). */
export const SQL_DEFAULT_LIMIT_ROWS = 64;
/** Maximum title / notebook-name length in characters. */
export const MAX_TITLE_CHARS = 512;
/** Documents may not be created deeper than this many levels. */
export const MAX_DOC_DEPTH_LEVELS = 7;
/** Default `maxListCount` of listDocsByPath (workspace `fileTree.maxListCount`). */
export const DEFAULT_MAX_LIST_COUNT = 512;
/** Workspace `fileTree.sort` default: 6 = custom order from sort.json. */
export const WORKSPACE_FILE_TREE_SORT_MODE = 6;
/** A new notebook's `sortMode`: 15 = use the workspace setting. */
export const DEFAULT_NOTEBOOK_SORT_MODE = 15;
/** Default page size of fullTextSearchBlock. */
export const SEARCH_DEFAULT_PAGE_SIZE = 32;
/** Search result `content` is cut to this many characters. */
export const SEARCH_CONTENT_MAX_CHARS = 5120;
/** Default toast timeout for pushMsg (ms). */
export const PUSH_MSG_DEFAULT_TIMEOUT_MS = 7000;
/** Uploaded asset names are cut to this many bytes, extension included (`util.TruncateLenFileName`). */
export const ASSET_NAME_MAX_BYTES = 189;
/** Breadcrumb names are cut to this many characters (`buildBlockBreadcrumb`). */
export const BREADCRUMB_NAME_MAX_CHARS = 1024;
/** Dynamic ref anchor texts are cut to this many characters (`editor.blockRefDynamicAnchorTextMaxLen`). */
export const DYNAMIC_ANCHOR_MAX_CHARS = 96;
/** Items of getRecentDocs sorted by `updated` (`fileTree.recentDocsMaxListCount` default). */
export const RECENT_DOCS_MAX_LIST_COUNT = 32;
/** MCP protocol versions `/mcp` accepts; the second is answered for an unsupported one. */
export const MCP_PROTOCOL_VERSIONS = ["2024-11-05", "2025-06-18", "2026-07-28"] as const;
/** `ttlMs` of a stateless `/mcp` tools/list. */
export const MCP_TOOLS_TTL_MS = 60_000;

// The sandbox's own settings (request log, faults, control route, deterministic clock).

/** Maximum request-log entries kept in memory (oldest dropped first). */
export const REQUEST_LOG_MAX_ENTRIES = 10_000;
/** Default status for the `http5xx` fault. */
export const FAULT_DEFAULT_HTTP_STATUS = 500;
/** Marker appended by the default `corrupt` fault to written strings. */
export const CORRUPTION_MARKER = "\u00a7corrupted\u00a7";
/** Prefix of the optional control HTTP route. */
export const CONTROL_ROUTE_PREFIX = "/__sandbox/";
/** Start of the deterministic clock: 2026-01-01T12:00:00Z (ms since epoch). */
export const DETERMINISTIC_START_MS = Date.UTC(2026, 0, 1, 12, 0, 0);
/** Step of the deterministic clock per reading (ms). */
export const DETERMINISTIC_STEP_MS = 1000;
