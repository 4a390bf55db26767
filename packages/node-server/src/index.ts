/** @sisyphus/node-server: stdio + Streamable HTTP MCP server for SiYuan, and the Node write authority. */
export const PACKAGE_NAME = "@sisyphus/node-server";
