/**
 * The kernel plugin's cold start (issue 19): a plugin reload in the sandbox's plugin host (its
 * memory gone, `kernel.js` evaluated again, lifecycle run) until the first `tools/list` answer on
 * its private route, beside the same for a minimal plugin (a route with a constant JSON-RPC answer:
 * what the host's reload and route cost before any plugin code runs). Rounds alternate between the
 * two; medians of wall time and of this process's CPU time (the host runs in it).
 * Run: pnpm --filter @sisyphus/kernel-plugin exec tsx --conditions=source bench/reload.ts [--quick]
 */
import { resolve } from "node:path";
import { type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { machineLine, median, postToolsList, putPluginSettings } from "../../../bench/kit.js";
import { PLUGIN } from "./client.js";

const QUICK = process.argv.includes("--quick");
const ROUNDS = QUICK ? 7 : 21;
const MINIMAL = "bench-minimal";
const ZIP = resolve(import.meta.dirname, "..", "dist", "package.zip");

/** The floor: a plugin whose route answers every POST with one constant JSON-RPC result. */
const MINIMAL_KERNEL_JS = `
siyuan.plugin.lifecycle.onload = () => {};
siyuan.plugin.lifecycle.onrunning = () => {};
siyuan.plugin.lifecycle.onunload = () => {};
siyuan.server.private.http.handler = async () => ({
  statusCode: 200,
  body: { raw: { contentType: "application/json", data: '{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}' } },
});
`;

/** One reload of `plugin` until its first `tools/list` answer: wall and CPU ms. */
async function reloadToFirstList(sb: Sandbox, plugin: string) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await sb.plugins.reload(plugin);
  const tools = await postToolsList(`${sb.url}/plugin/private/${plugin}/mcp`, `Token ${sb.token}`);
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { wall, cpu: (cpu.user + cpu.system) / 1000, tools };
}

const sb = await startSandbox({
  seed: "demo",
  plugins: [
    ZIP,
    {
      files: {
        "plugin.json": JSON.stringify({ name: MINIMAL, version: "1.0.0", kernels: ["all"] }),
        "index.js": "module.exports = {};",
        "kernel.js": MINIMAL_KERNEL_JS,
      },
    },
  ],
});
try {
  await putPluginSettings(sb, PLUGIN, { kernelEndpointEnabled: true });
  type Run = { wall: number; cpu: number };
  const runs: { ours: Run[]; minimal: Run[] } = { ours: [], minimal: [] };
  let tools = 0;
  for (let i = -2; i < ROUNDS; i++) {
    const o = await reloadToFirstList(sb, PLUGIN);
    const m = await reloadToFirstList(sb, MINIMAL);
    tools = o.tools;
    if (i < 0) continue; // warm-up: the host's first reloads compile its own code
    runs.ours.push(o);
    runs.minimal.push(m);
  }
  const med = (xs: Run[], k: "wall" | "cpu") => median(xs.map((x) => x[k]));
  console.log(machineLine(QUICK));
  console.log(`| plugin reload → first tools/list (medians of ${ROUNDS}) | wall (ms) | CPU (ms) |`);
  console.log("| --- | --- | --- |");
  console.log(
    `| ${PLUGIN} (${tools} tools) | ${med(runs.ours, "wall").toFixed(1)} | ${med(runs.ours, "cpu").toFixed(1)} |`,
  );
  console.log(
    `| floor: minimal plugin, constant answer | ${med(runs.minimal, "wall").toFixed(1)} | ${med(runs.minimal, "cpu").toFixed(1)} |`,
  );
  console.log(
    `ratio to the minimal plugin: ${(med(runs.ours, "wall") / med(runs.minimal, "wall")).toFixed(1)}× wall. The sandbox's host evaluates kernel.js with node:vm; in SiYuan, goja interprets it, so absolute times there are larger.`,
  );
} finally {
  await sb.stop();
}
