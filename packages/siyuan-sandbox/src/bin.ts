#!/usr/bin/env node
/**
 * `siyuan-sandbox --token T [--port 6806] [--seed demo|empty] [--data-dir DIR] [--control]
 * [--flush-interval-ms N]`: a sandbox kernel in its own process, for people and for tests that
 * spawn one. `--help` prints the usage (exit 0); without `--token`, or with an unknown option, it
 * prints the usage and exits 2; SIGINT/SIGTERM stop it (exit 0). A
 * parent that sets `SISYPHUS_SANDBOX_REPO_AUDIT` learns of its `/api/repo/*` requests (`audit.ts`).
 */
import { parseArgs } from "node:util";
import { startSandbox } from "./sandbox.js";

const USAGE = `usage: siyuan-sandbox --token T [--port 6806] [--seed demo|empty] [--data-dir DIR] [--control] [--flush-interval-ms N] [--plugin DIR|ZIP]... [--plugin-parallel]

A faithful in-memory SiYuan 3.7.3 kernel (HTTP API) on 127.0.0.1, for tests and the demo.

  --token T               API token required in "Authorization: Token T" (required)
  --port N                TCP port on 127.0.0.1 (default 6806; 0 = any free port)
  --seed demo|empty       start with the demo notebooks or an empty workspace (default empty)
  --data-dir DIR          persist the workspace in SiYuan's layout under DIR (default: memory only)
  --control               serve the authenticated /__sandbox/* control route
  --flush-interval-ms N   write-queue loop interval (default 50)
  --plugin DIR|ZIP        install and enable a kernel plugin (folder or package.zip); repeatable
  --plugin-parallel       do not serialise requests per plugin path (3.7.3 does; docs/plugin-host.md)
  --plugin-engine vm|goja run kernel.js in goja as SiYuan 3.7.3 does (needs the package built with
                          Go) or in a node:vm realm trimmed to goja's built-ins (default:
                          SIYUAN_SANDBOX_PLUGIN_ENGINE, else vm)
  -h, --help              print this help and exit`;

let values: {
  port: string;
  token?: string;
  seed: string;
  "data-dir"?: string;
  control: boolean;
  "flush-interval-ms"?: string;
  help: boolean;
  plugin?: string[];
  "plugin-parallel": boolean;
  "plugin-engine"?: string;
};
try {
  values = parseArgs({
    options: {
      port: { type: "string", default: "6806" },
      token: { type: "string" },
      seed: { type: "string", default: "empty" },
      "data-dir": { type: "string" },
      control: { type: "boolean", default: false },
      "flush-interval-ms": { type: "string" },
      help: { type: "boolean", short: "h", default: false },
      plugin: { type: "string", multiple: true },
      "plugin-parallel": { type: "boolean", default: false },
      "plugin-engine": { type: "string" },
    },
  }).values;
} catch (e) {
  // an unknown or malformed option: say which, show the usage, no stack trace
  console.error(`siyuan-sandbox: ${e instanceof Error ? e.message : String(e)}\n\n${USAGE}`);
  process.exit(2);
}

if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (!values.token) {
  console.error(USAGE);
  process.exit(2);
}
const engine = values["plugin-engine"];
if (engine !== undefined && engine !== "vm" && engine !== "goja") {
  console.error(`siyuan-sandbox: --plugin-engine must be vm or goja\n\n${USAGE}`);
  process.exit(2);
}
const seed = values.seed === "demo" ? "demo" : "empty";
const sandbox = await startSandbox({
  port: Number(values.port),
  seed,
  controlRoute: values.control,
  token: values.token,
  ...(values["data-dir"] ? { dataDir: values["data-dir"] } : {}),
  ...(values["flush-interval-ms"] ? { flushIntervalMs: Number(values["flush-interval-ms"]) } : {}),
  plugins: values.plugin ?? [],
  pluginHost: {
    serialisePaths: !values["plugin-parallel"],
    echoLogs: true,
    watchSources: true,
    ...(engine ? { engine } : {}),
  },
}).catch((e: unknown) => {
  // e.g. a --plugin that is neither a plugin folder nor a package.zip
  console.error(`siyuan-sandbox: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(2);
});
for (const p of sandbox.plugins.list()) {
  console.log(`plugin ${p.name}: ${p.state}${p.error ? ` (${p.error})` : ""}`);
}
console.log(
  `siyuan-sandbox listening on ${sandbox.url} (seed ${seed}${values["data-dir"] ? `, data dir ${values["data-dir"]}` : ", in memory"})`,
);
const shutdown = (): void => {
  void sandbox.stop().then(() => process.exit(0));
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
