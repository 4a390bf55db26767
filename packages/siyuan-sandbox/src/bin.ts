#!/usr/bin/env node
/**
 * `siyuan-sandbox --token T [--port 6806] [--seed demo|empty] [--data-dir DIR] [--control]
 * [--flush-interval-ms N]`: a sandbox kernel in its own process, for people and for tests that
 * spawn one. Without `--token` it prints the usage and exits 2; SIGINT/SIGTERM stop it (exit 0). A
 * parent that sets `SISYPHUS_SANDBOX_REPO_AUDIT` learns of its `/api/repo/*` requests (`audit.ts`).
 */
import { parseArgs } from "node:util";
import { startSandbox } from "./sandbox.js";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "6806" },
    token: { type: "string" },
    seed: { type: "string", default: "empty" },
    "data-dir": { type: "string" },
    control: { type: "boolean", default: false },
    "flush-interval-ms": { type: "string" },
  },
});

if (!values.token) {
  console.error(
    "usage: siyuan-sandbox --token T [--port 6806] [--seed demo|empty] [--data-dir DIR] [--control] [--flush-interval-ms N]",
  );
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
});
console.log(
  `siyuan-sandbox listening on ${sandbox.url} (seed ${seed}${values["data-dir"] ? `, data dir ${values["data-dir"]}` : ", in memory"})`,
);
const shutdown = (): void => {
  void sandbox.stop().then(() => process.exit(0));
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
