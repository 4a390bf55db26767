/**
 * A strict `block.update` through each authority, same sandbox kernel, same run: the Node HTTP
 * authority (the built `dist/bin.cjs`, its coordinator and file stores) and the kernel plugin (the
 * built `package.zip` in the sandbox's plugin host, its coordinator and segment stores, reached on
 * its private route). Per write: the client-observed time of the preflight and of the commit
 * (median of WRITES), and the kernel API calls the tool made, from the sandbox's counters — the
 * settings reads the spec asks for before each strict call are counted apart.
 * Run: pnpm --filter @sisyphus/node-server exec tsx --conditions=source bench/authorities.ts
 */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { DEMO_IDS, type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { httpServerArgs, listeningUrl, median, putPluginSettings } from "../../../bench/kit.js";

const WRITES = 60;
const BIN = resolve(import.meta.dirname, "..", "dist", "bin.cjs");
const ZIP = resolve(import.meta.dirname, "..", "..", "kernel-plugin", "dist", "package.zip");
const TOKEN = "bench-token-0123456789abcdef";
const PLUGIN = "siyuan-plugins-mcp-sisyphus";

/** The kernel plugin's MCP endpoint on (`enabled`) or off. */
const putSettings = (sb: Sandbox, enabled: boolean) =>
  putPluginSettings(sb, PLUGIN, { kernelEndpointEnabled: enabled });

async function nodeAuthority(sb: Sandbox): Promise<{ url: string; stop: () => void }> {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-auth-"));
  const child = spawn(process.execPath, [BIN, ...httpServerArgs(sb.url, dataDir)], {
    env: { ...process.env, SIYUAN_TOKEN: sb.token, SISYPHUS_AUTH_TOKEN: TOKEN },
    stdio: ["ignore", "ignore", "pipe"],
  });
  return { url: await listeningUrl(child), stop: () => child.kill("SIGTERM") };
}

async function clientOf(url: string, authorization: string): Promise<Client> {
  const client = new Client({ name: "bench", version: "1.0.0" }, { capabilities: {} });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization } },
    }),
  );
  return client;
}

interface Measured {
  preflightMs: number;
  commitMs: number;
  apiCallsPerWrite: number;
  settingsReadsPerWrite: number;
}

/** Kernel API calls (paths under /api/) in the sandbox's counters, settings reads apart. */
function apiCalls(sb: Sandbox): { tool: number; settings: number } {
  let tool = 0;
  let settings = 0;
  for (const [path, n] of Object.entries(sb.control.counts())) {
    if (!path.startsWith("/api/")) continue;
    if (path === "/api/file/getFile") settings += n;
    else tool += n;
  }
  return { tool, settings };
}

async function measure(sb: Sandbox, client: Client, label: string): Promise<Measured> {
  const pre: number[] = [];
  const commit: number[] = [];
  const ids = [DEMO_IDS.paragraphGoals, DEMO_IDS.paragraphDecision, DEMO_IDS.paragraphJournal];
  const before = apiCalls(sb);
  for (let i = 0; i < WRITES; i++) {
    const args = {
      action: "update",
      id: ids[i % ids.length],
      dataType: "markdown",
      data: `${label} write ${i}`,
    };
    let t = performance.now();
    const p = (await client.callTool({ name: "block", arguments: { ...args, validateOnly: true } }))
      .structuredContent as Record<string, unknown>;
    pre.push(performance.now() - t);
    const field = p["preconditionField"] as string;
    t = performance.now();
    const c = (
      await client.callTool({
        name: "block",
        arguments: { ...args, requestId: p["requestId"], [field]: p[field] },
      })
    ).structuredContent as Record<string, unknown>;
    commit.push(performance.now() - t);
    if (c["status"] !== "committed") throw new Error(`${label}: ${JSON.stringify(c)}`);
  }
  const after = apiCalls(sb);
  return {
    preflightMs: median(pre),
    commitMs: median(commit),
    apiCallsPerWrite: (after.tool - before.tool) / WRITES,
    settingsReadsPerWrite: (after.settings - before.settings) / WRITES,
  };
}

const sb = await startSandbox({ seed: "demo", plugins: [ZIP] });
try {
  await putSettings(sb, false);
  const node = await nodeAuthority(sb);
  const nodeClient = await clientOf(node.url, `Bearer ${TOKEN}`);
  await measure(sb, nodeClient, "warm-up node");
  const viaNode = await measure(sb, nodeClient, "node");
  await nodeClient.close();
  node.stop();

  await putSettings(sb, true);
  const kernelClient = await clientOf(
    `${sb.url}/plugin/private/${PLUGIN}/mcp`,
    `Token ${sb.token}`,
  );
  await measure(sb, kernelClient, "warm-up kernel");
  const viaKernel = await measure(sb, kernelClient, "kernel");
  await kernelClient.close();

  console.log(`node ${process.version}; ${WRITES} strict block.update each, medians`);
  console.log(
    "| authority | preflight (ms) | commit (ms) | kernel API calls per write (tool) | settings reads per write |",
  );
  console.log("| --- | --- | --- | --- | --- |");
  for (const [name, m] of [
    ["Node HTTP (dist/bin.cjs)", viaNode],
    ["kernel plugin (sandbox host)", viaKernel],
  ] as const) {
    console.log(
      `| ${name} | ${m.preflightMs.toFixed(1)} | ${m.commitMs.toFixed(1)} | ${m.apiCallsPerWrite.toFixed(1)} | ${m.settingsReadsPerWrite.toFixed(1)} |`,
    );
  }
} finally {
  await sb.stop();
}
