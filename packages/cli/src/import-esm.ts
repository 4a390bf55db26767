/**
 * The CLI's stand-in for node-server's `import-esm.ts` (swapped in by tsup.config.ts): the MCP client
 * the delegation link loads on its first call is imported by name here, so the bundler follows it
 * into a chunk of its own — loaded only then, and sharing the bundle's zod instead of loading a
 * second copy from node_modules. Any other specifier is imported at run time, as node-server does.
 */
export function importEsm(specifier: string): Promise<unknown> {
  if (specifier === "@modelcontextprotocol/client") return import("@modelcontextprotocol/client");
  return import(specifier);
}
