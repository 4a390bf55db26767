/**
 * Loads an ES module package at run time: the demo sandbox and the MCP client, which stay outside
 * the executable's bundle.
 *
 * The one place the server program calls `import()` on a package. The executable runs
 * `server.cjs` from V8's code cache through `vm.Script`, and on Node 20 a script compiled from a
 * code cache has no dynamic-import callback ("A dynamic import callback was not specified"). So
 * the CommonJS build keeps this module as its own file (`dist/import-esm.cjs`, see
 * tsup.config.ts), which Node loads the ordinary way, with a working `import()`.
 */
export function importEsm(specifier: string): Promise<unknown> {
  return import(specifier);
}
