/**
 * The server program behind `sisyphus-server`: parses flags and environment, starts the server,
 * stops on SIGINT/SIGTERM. Bundled to `dist/server.cjs` and run by the launcher `dist/bin.cjs`.
 */
import { z } from "zod";
import { parseConfig } from "./config.js";
import { isNodeServerError } from "./errors.js";
import { startServer } from "./main.js";

// Before any schema exists (the SDK's are built when the MCP half loads, after listening): zod
// without its JIT parses through its generic path instead of compiling a `new Function` per object
// schema on first use. That compilation is most of the first request's zod cost, and the code
// cache cannot hold it; the generic path costs microseconds per message. Measured −10 to −15 ms to
// the first tools/list. Only the executable sets this: the library leaves zod's settings alone.
z.config({ jitless: true });

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
