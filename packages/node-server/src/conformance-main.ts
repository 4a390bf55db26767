/**
 * The conformance server: `sisyphus-server` with the MCP conformance suite's fixtures
 * (`conformance-fixtures.ts`) added through the server's extension seam. Test artefact only:
 * `tsup.conformance.config.ts` bundles it to `test-artifacts/conformance/conformance-server.cjs`,
 * which packages/conformance/run.sh runs; it is no entry of the production build, the package's
 * `bin` or its exports. Same flags and environment as `sisyphus-server`; SIGINT/SIGTERM stop it.
 */
import { parseConfig } from "./config.js";
import { conformanceFixtures } from "./conformance-fixtures.js";
import { startServer } from "./main.js";

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
