/**
 * The server program behind `sisyphus-server`: parses flags and environment, starts the server,
 * stops on SIGINT/SIGTERM. Bundled to `dist/server.cjs` and run by the launcher `dist/bin.cjs`.
 */
import { parseConfig } from "./config.js";
import { isNodeServerError } from "./errors.js";
import { startServer } from "./main.js";

const log = (line: string) => process.stderr.write(`${line}\n`);

async function run(): Promise<void> {
  const config = parseConfig(process.argv.slice(2), process.env);
  const server = await startServer(config, log);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    server.close().finally(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  if (config.transport === "stdio") process.stdin.on("end", stop);
}

run().catch((e: unknown) => {
  if (isNodeServerError(e)) log(`sisyphus-server: ${e.message}`);
  else log(`sisyphus-server: failed to start: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
