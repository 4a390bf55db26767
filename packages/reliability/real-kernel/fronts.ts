/**
 * The four roads to the real kernel a scenario's calls take (`--via`):
 * - `plugin`: the official MCP client on the kernel plugin's `/mcp` route (Token auth);
 * - `node`: the built Node server (`sisyphus-server --http`) against the kernel, through the
 *   recording proxy; with the plugin's kernel endpoint on it delegates strict calls to the plugin,
 *   off it is the authority itself;
 * - `stdio`: `sisyphus-server --stdio`, which delegates to the authority of its data directory
 *   (the plugin when the endpoint is on, else a background Node authority it starts);
 * - `cli`: the built `sisyphus` command, one process per call, `--json` in and out.
 *
 * Every confirmation a front is asked is accepted (form elicitation, or `--yes` for the CLI): the
 * scenarios pass `confirmed` for dangerous actions as the fault matrix does.
 */
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { ToolResult } from "../../mcp-tools/src/index.js";
import { lostAnswer, toolResult } from "../test/support/tool-results.js";
import { type Kernel, PLUGIN_NAME } from "./kernel.js";

const PACKAGES = resolve(import.meta.dirname, "..", "..");
export const NODE_BIN = join(PACKAGES, "node-server", "dist", "bin.cjs");
export const CLI_BIN = join(PACKAGES, "cli", "bin", "sisyphus.cjs");

export type Via = "plugin" | "node" | "stdio" | "cli";

/**
 * Waits until the built executables exist: in a checkout shared with others, a build elsewhere
 * removes `dist/` for a while. A missing build is the harness's problem, never the product's.
 */
export async function builtExecutables(): Promise<void> {
  const wanted = [NODE_BIN, join(PACKAGES, "cli", "dist", "cli.cjs")];
  for (let i = 0; i < 360 && !wanted.every(existsSync); i++) {
    await new Promise((r) => setTimeout(r, 500));
  }
  const missing = wanted.filter((p) => !existsSync(p));
  if (missing.length > 0) throw new Error(`not built: ${missing.join(", ")}`);
}

/** One road to the kernel. */
export interface Front {
  /** `plugin`, `node`, `stdio` or `cli`. */
  readonly via: Via;
  /** The Node data directory, for the roads that have one. */
  readonly dataDir?: string;
  call(tool: string, args: Record<string, unknown>, confirmed: boolean): Promise<ToolResult>;
  /** What this road sends for a file to upload: a staging handle or a local file path. */
  source(fileName: string, bytes: Uint8Array): Promise<Record<string, string>>;
  stop(): Promise<void>;
}

function newClient(name: string): Client {
  const client = new Client(
    { name, version: "1.0.0" },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    },
  );
  client.setRequestHandler(
    "elicitation/create",
    async () => ({ action: "accept", content: { confirm: true } }) as never,
  );
  return client;
}

function mcpCall(client: Client) {
  return async (tool: string, args: Record<string, unknown>): Promise<ToolResult> => {
    try {
      return toolResult(
        await client.callTool({ name: tool, arguments: args }, { timeout: 300_000 }),
      );
    } catch (e) {
      return lostAnswer(e);
    }
  };
}

/** Local files for the Node roads' `localFilePath` uploads. */
function localSources() {
  const dir = mkdtempSync(join(tmpdir(), "real-kernel-sources-"));
  let n = 0;
  return {
    dir,
    async source(fileName: string, bytes: Uint8Array) {
      const sub = join(dir, String(++n));
      mkdirSync(sub);
      const path = join(sub, fileName);
      writeFileSync(path, bytes);
      return { localFilePath: path };
    },
  };
}

/** Stages bytes through the plugin's `/transfer/upload`; the `uploadSource` handle. */
export async function stageThroughPlugin(
  k: Kernel,
  fileName: string,
  bytes: Uint8Array,
): Promise<{ uploadSource: string; status: number; answer: unknown }> {
  const res = await fetch(`${k.url}/plugin/private/${PLUGIN_NAME}/transfer/upload`, {
    method: "POST",
    headers: {
      authorization: `Token ${k.token}`,
      "content-type": "application/octet-stream",
      "x-sisyphus-file-name": encodeURIComponent(fileName),
    },
    body: bytes,
  });
  const answer = (await res.json()) as { uploadSource?: string };
  if (typeof answer.uploadSource !== "string") {
    throw new Error(`staging failed: ${res.status} ${JSON.stringify(answer)}`);
  }
  return { uploadSource: answer.uploadSource, status: res.status, answer };
}

// ---------------------------------------------------------------- plugin

export async function pluginFront(k: Kernel): Promise<Front> {
  const client = newClient("real-kernel-plugin");
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${k.url}/plugin/private/${PLUGIN_NAME}/mcp`), {
      requestInit: { headers: { authorization: `Token ${k.token}` } },
    }),
  );
  const call = mcpCall(client);
  return {
    via: "plugin",
    call: (tool, args) => call(tool, args),
    async source(fileName, bytes) {
      return { uploadSource: (await stageThroughPlugin(k, fileName, bytes)).uploadSource };
    },
    stop: () => client.close(),
  };
}

// ---------------------------------------------------------------- node (HTTP authority)

const AUTH_TOKEN = `real-kernel-${Math.random().toString(36).slice(2)}-${Date.now()}`;

/** `sisyphus-server --http` on a free port against `kernelUrl`, until its "listening on" line. */
async function spawnHttpServer(kernelUrl: string, token: string, dataDir: string) {
  const child = spawn(
    process.execPath,
    [NODE_BIN, "--http", "--port", "0", "--siyuan-url", kernelUrl, "--data-dir", dataDir],
    {
      env: { ...process.env, SIYUAN_TOKEN: token, SISYPHUS_AUTH_TOKEN: AUTH_TOKEN },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let err = "";
  child.stderr?.setEncoding("utf8");
  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`server did not start: ${err}`)), 30_000);
    child.stderr?.on("data", (chunk: string) => {
      err += chunk;
      const m = /listening on (http:\/\/\S+\/mcp)/.exec(err);
      if (m) {
        clearTimeout(timer);
        done(m[1] as string);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`server exited with ${code}: ${err}`));
    });
  });
  const stop = () =>
    new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      child.once("exit", () => {
        clearTimeout(timer);
        done();
      });
      child.kill("SIGTERM");
    });
  return { url, stop, stderr: () => err };
}

export async function nodeFront(kernelUrl: string, token: string): Promise<Front> {
  await builtExecutables();
  const dataDir = mkdtempSync(join(tmpdir(), "real-kernel-node-"));
  const server = await spawnHttpServer(kernelUrl, token, dataDir);
  const client = newClient("real-kernel-node");
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { authorization: `Bearer ${AUTH_TOKEN}` } },
    }),
  );
  const call = mcpCall(client);
  const files = localSources();
  return {
    via: "node",
    dataDir,
    call: (tool, args) => call(tool, args),
    source: files.source,
    async stop() {
      await client.close().catch(() => undefined);
      await server.stop();
      rmSync(files.dir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------- stdio

/** The pid of the background authority a stdio process or the CLI started for `dataDir`. */
function backgroundPid(dataDir: string): number | undefined {
  try {
    const { pid } = JSON.parse(readFileSync(join(dataDir, "authority.json"), "utf8")) as {
      pid?: unknown;
    };
    return typeof pid === "number" ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Stops the background authority of `dataDir` (a process this harness's front started). */
async function stopBackground(dataDir: string): Promise<void> {
  const pid = backgroundPid(dataDir);
  if (pid === undefined) return;
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return;
  }
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  try {
    process.kill(pid, "SIGKILL");
  } catch {}
}

export async function stdioFront(kernelUrl: string, token: string): Promise<Front> {
  await builtExecutables();
  const dataDir = mkdtempSync(join(tmpdir(), "real-kernel-stdio-"));
  const client = newClient("real-kernel-stdio");
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [NODE_BIN, "--stdio", "--siyuan-url", kernelUrl, "--data-dir", dataDir],
      env: { PATH: process.env["PATH"] ?? "", HOME: dataDir, SIYUAN_TOKEN: token },
      stderr: "ignore",
    }),
  );
  const call = mcpCall(client);
  const files = localSources();
  return {
    via: "stdio",
    dataDir,
    call: (tool, args) => call(tool, args),
    source: files.source,
    async stop() {
      await client.close().catch(() => undefined);
      await stopBackground(dataDir);
      rmSync(files.dir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------- cli

/** One run of the CLI: its exit code, and its stdout and stderr. */
export interface CliRun {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliFront extends Front {
  /** Runs `sisyphus` with these arguments (global flags added). */
  run(argv: readonly string[]): Promise<CliRun>;
}

export async function cliFront(kernelUrl: string, token: string): Promise<CliFront> {
  const dataDir = mkdtempSync(join(tmpdir(), "real-kernel-cli-"));
  const config = mkdtempSync(join(tmpdir(), "real-kernel-cli-config-"));
  const files = localSources();
  const once = (argv: readonly string[]) =>
    new Promise<CliRun>((done) => {
      execFile(
        process.execPath,
        [CLI_BIN, ...argv, "--siyuan-url", kernelUrl, "--data-dir", dataDir, "--no-color"],
        {
          env: {
            PATH: process.env["PATH"] ?? "",
            HOME: config,
            XDG_CONFIG_HOME: config,
            SIYUAN_TOKEN: token,
          },
          maxBuffer: 64 * 1024 * 1024,
          timeout: 300_000,
        },
        (error, stdout, stderr) => {
          const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
          done({ exitCode: code, stdout, stderr });
        },
      );
    });
  // A process that could not load the CLI (a build elsewhere replacing dist/) ran nothing: again.
  const run = async (argv: readonly string[]): Promise<CliRun> => {
    for (let attempt = 1; ; attempt++) {
      await builtExecutables();
      const r = await once(argv);
      const unloaded = r.stdout === "" && /Cannot find module|ERR_MODULE_NOT_FOUND/.test(r.stderr);
      if (!unloaded || attempt === 3) return r;
    }
  };
  return {
    via: "cli",
    dataDir,
    run,
    async call(tool, args, confirmed) {
      const { action, ...rest } = args;
      const argv = [
        tool,
        String(action).replaceAll("_", "-"),
        "--json",
        JSON.stringify(rest),
        ...(confirmed ? ["--yes"] : []),
      ];
      const r = await run(argv);
      let doc: { exitCode?: number; result?: Record<string, unknown>; error?: unknown };
      try {
        doc = JSON.parse(r.stdout) as typeof doc;
      } catch {
        return lostAnswer(new Error(`exit ${r.exitCode}, stdout ${r.stdout} stderr ${r.stderr}`));
      }
      const structured = doc.result ?? { error: doc.error };
      return {
        content: [],
        structuredContent: structured,
        isError: r.exitCode !== 0 || structured["error"] !== undefined,
      };
    },
    source: files.source,
    async stop() {
      await stopBackground(dataDir);
      rmSync(files.dir, { recursive: true, force: true });
      rmSync(config, { recursive: true, force: true });
    },
  };
}
