/** @sisyphus/mcp-tools: The SiYuan note tools (block, document, fs, notebook, search, tag, system) under Strict Safe Writes. */
export const PACKAGE_NAME = "@sisyphus/mcp-tools";
