/**
 * The conformance server: `sisyphus-server` (node-server's exported `startServer`) with the MCP
 * conformance suite's fixtures (`fixtures.ts`) added through the server's extension seam. Test
 * artefact only: `tsup.config.ts` bundles it to `test-artifacts/conformance-server.cjs`, which
 * run.sh runs; node-server's build, `bin` and exports never include it. Same flags and environment
 * as `sisyphus-server`; SIGINT/SIGTERM stop it.
 */
import { parseConfig, startServer } from "@sisyphus/node-server";
import { conformanceFixtures } from "./fixtures.js";

const log = (line: string) => process.stderr.write(`${line}\n`);

async function run(): Promise<void> {
  const config = parseConfig(process.argv.slice(2), process.env);
  const server = await startServer(config, log, { extension: conformanceFixtures });
  log("sisyphus-server: conformance fixtures served (test build, never shipped).");
  const stop = () => {
    server.shutdown(config.shutdownGraceMs).then(
      (result) => process.exit(result.settled ? 0 : 1),
      () => process.exit(1),
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  if (config.transport === "stdio") process.stdin.on("end", stop);
}

run().catch((e: unknown) => {
  log(`sisyphus-server (conformance): ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
