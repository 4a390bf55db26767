/**
 * The README's example, compiled by `typecheck` (tsconfig includes `examples`); never run. The
 * `readme` region must equal the README's ```ts block (`test/readme-example.test.ts`). What the
 * example takes as given is declared after the region.
 */
//#region readme
import { parseConfig, startServer } from "@sisyphus/node-server";

// The flags and environment of `sisyphus-server`; a bad value throws NodeServerError config_invalid.
const config = parseConfig(["--http", "--port", "0", "--data-dir", dataDir], process.env);
const server = await startServer(config, (line) => process.stderr.write(`${line}\n`));
console.log(server.url); // http://127.0.0.1:<port>/mcp; no --siyuan-url: the embedded demo kernel
const { settled, cutOff } = await server.shutdown(30_000); // as on SIGTERM: drain, close the stores
console.log(settled ? "every admitted call settled" : `${cutOff} call(s) cut off`);

//#endregion

declare const dataDir: string;
