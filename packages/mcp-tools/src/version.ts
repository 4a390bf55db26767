/**
 * The package version (`system.version`, the servers' `serverInfo`). Its own module so a shell can
 * name itself before it loads the tools (`@sisyphus/mcp-tools/shell/gate`).
 */
export const SISYPHUS_VERSION = "0.1.0";
