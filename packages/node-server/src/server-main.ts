/**
 * The server program behind `sisyphus-server`: parses flags and environment, starts the server,
 * drains and stops on SIGINT/SIGTERM (a second signal ends the grace at once). Exit code 0 when
 * every admitted call settled, 1 when some were cut off (answered `outcome_unknown`). Bundled to
 * `dist/server.cjs` and run by the launcher `dist/bin.cjs`.
 */
import { join } from "node:path";
import { z } from "zod";
import { parseConfig, USAGE } from "./config.js";
import { isNodeServerError } from "./errors.js";
import { startServer } from "./main.js";

// Before any schema exists (the SDK's are built when the MCP half loads, after listening): zod
// without its JIT parses through its generic path instead of compiling a `new Function` per object
// schema on first use. That compilation is most of the first request's zod cost, and the code
// cache cannot hold it; the generic path costs microseconds per message (the README's benchmark
// section has the measured gain). Only the executable sets this: the library leaves zod's settings
// alone.
z.config({ jitless: true });

const log = (line: string) => process.stderr.write(`${line}\n`);

async function run(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(USAGE);
    return;
  }
  const config = parseConfig(argv, process.env);
  let stop: (why: string) => void = () => undefined;
  // This bundle runs as `dist/server.cjs`; its launcher is the `bin.cjs` beside it.
  const server = await startServer(config, log, {
    launcher: join(__dirname, "bin.cjs"),
    onIdle: () => stop("idle"),
  });
  let stopping = false;
  stop = (why: string) => {
    if (stopping) {
      log(`sisyphus-server: ${why} again: ending the grace period now.`);
      server.endGrace();
      return;
    }
    stopping = true;
    if (config.transport === "http") {
      log(
        `sisyphus-server: ${why}: draining (new writes are refused; admitted calls get up to ${config.shutdownGraceMs} ms to settle).`,
      );
    }
    server.shutdown(config.shutdownGraceMs).then(
      (result) => {
        if (config.transport === "http") {
          log(
            result.settled
              ? "sisyphus-server: every admitted call settled; stores closed, stopped."
              : `sisyphus-server: grace period over: ${result.cutOff} call(s) still running were answered outcome_unknown (or write_coordinator_unavailable if they were stopped before writing); stores closed, stopped.`,
          );
        }
        process.exit(result.settled ? 0 : 1);
      },
      (e: unknown) => {
        log(`sisyphus-server: error while stopping: ${e instanceof Error ? e.message : String(e)}`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
  if (config.transport === "stdio") process.stdin.on("end", () => stop("stdin closed"));
}

run().catch((e: unknown) => {
  if (isNodeServerError(e)) log(`sisyphus-server: ${e.message}`);
  else log(`sisyphus-server: failed to start: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
