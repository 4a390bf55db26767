/**
 * Cross-process test harness: spawns the built `dist/bin.cjs` as real child processes against a
 * sandbox kernel started in the test process, and connects official MCP clients to them.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { REPO_AUDIT_ENV, type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { afterAll, beforeAll } from "vitest";

export const BIN = resolve(import.meta.dirname, "..", "dist", "bin.cjs");
export const AUTH_TOKEN = "test-token-0123456789abcdef";
/** The kernel plugin as users install it (built by `pnpm --filter @sisyphus/kernel-plugin build`). */
export const PLUGIN_PACKAGE_ZIP = resolve(
  import.meta.dirname,
  "..",
  "..",
  "kernel-plugin",
  "dist",
  "package.zip",
);
/** The tools every server lists, sorted. */
export const TOOL_NAMES = [
  "av",
  "block",
  "document",
  "extension",
  "feedback",
  "file",
  "flashcard",
  "fs",
  "history",
  "notebook",
  "search",
  "system",
  "tag",
];
const START_TIMEOUT_MS = 20_000;

/** Data directories made by {@link tempDataDir}: `killAll` stops background authorities left in them. */
const dataDirs = new Set<string>();

export function tempDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "sisyphus-e2e-"));
  dataDirs.add(dir);
  return dir;
}

/** The pid `authority.json` of `dataDir` names, if any (a background authority is not a child of the test). */
export function authorityPid(dataDir: string): number | undefined {
  try {
    const { pid } = JSON.parse(readFileSync(join(dataDir, "authority.json"), "utf8")) as {
      pid?: unknown;
    };
    return typeof pid === "number" ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Whether process `pid` runs. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A spawned HTTP authority. */
export interface Authority {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

const children = new Set<ChildProcess>();

/** Kills every child still running (call in afterAll). */
export async function killAll(): Promise<void> {
  await Promise.all([...children].map((c) => stopChild(c, "SIGKILL")));
  for (const dir of dataDirs) {
    const pid = authorityPid(dir);
    if (pid !== undefined && alive(pid)) process.kill(pid, "SIGKILL");
  }
}

function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    children.delete(child);
    return Promise.resolve();
  }
  return new Promise((done) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    child.once("exit", () => {
      clearTimeout(timer);
      children.delete(child);
      done();
    });
    child.kill(signal);
  });
}

/** Spawns `sisyphus-server --http` on a free port and waits for its "listening on" line. */
export async function spawnAuthority(options: {
  dataDir: string;
  siyuanUrl: string;
  siyuanToken: string;
  extraArgs?: string[];
  /** Another build of the executable (default: the package's `dist/bin.cjs`). */
  bin?: string;
  env?: Record<string, string>;
}): Promise<Authority> {
  const child = spawn(
    process.execPath,
    [
      options.bin ?? BIN,
      "--http",
      "--port",
      "0",
      "--siyuan-url",
      options.siyuanUrl,
      "--data-dir",
      options.dataDir,
      ...(options.extraArgs ?? []),
    ],
    {
      env: {
        ...process.env,
        ...options.env,
        SIYUAN_TOKEN: options.siyuanToken,
        SISYPHUS_AUTH_TOKEN: AUTH_TOKEN,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  children.add(child);
  let err = "";
  child.stderr?.setEncoding("utf8");
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`authority did not start: ${err}`)),
      START_TIMEOUT_MS,
    );
    child.stderr?.on("data", (chunk: string) => {
      err += chunk;
      const m = /listening on (http:\/\/\S+\/mcp)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolveUrl(m[1] as string);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`authority exited with ${code}: ${err}`));
    });
  });
  return { url, child, stderr: () => err, stop: (signal = "SIGTERM") => stopChild(child, signal) };
}

type Era = "modern" | "legacy";

/** An official MCP client over Streamable HTTP. */
export async function httpClient(
  url: string,
  options: {
    era: Era;
    elicitation?: { form?: Record<string, never>; url?: Record<string, never> };
    token?: string;
  } = { era: "modern" },
): Promise<Client> {
  const client = new Client(
    { name: "e2e", version: "1.0.0" },
    {
      capabilities: options.elicitation ? { elicitation: options.elicitation } : {},
      versionNegotiation: { mode: options.era === "modern" ? { pin: "2026-07-28" } : "legacy" },
    },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${options.token ?? AUTH_TOKEN}` } },
  });
  await client.connect(transport);
  return client;
}

/** An official MCP client talking to a spawned `sisyphus-server --stdio`. */
export async function stdioClient(options: {
  era: Era;
  dataDir: string;
  siyuanUrl: string;
  siyuanToken: string;
  authToken?: string;
  elicitation?: { form?: Record<string, never>; url?: Record<string, never> };
  /** More flags after `--stdio` (e.g. `--no-autostart`, `--idle-stop-ms`). */
  extraArgs?: string[];
}): Promise<Client> {
  const client = new Client(
    { name: "e2e-stdio", version: "1.0.0" },
    {
      capabilities: options.elicitation ? { elicitation: options.elicitation } : {},
      versionNegotiation: { mode: options.era === "modern" ? "auto" : "legacy" },
    },
  );
  const env: Record<string, string> = {
    PATH: process.env["PATH"] ?? "",
    ...auditEnv(),
    SIYUAN_URL: options.siyuanUrl,
    SIYUAN_TOKEN: options.siyuanToken,
    SISYPHUS_DATA_DIR: options.dataDir,
  };
  if (options.authToken !== undefined) env["SISYPHUS_AUTH_TOKEN"] = options.authToken;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "--stdio", ...(options.extraArgs ?? [])],
    env,
    stderr: "pipe",
  });
  await client.connect(transport);
  return client;
}

/** Where a spawned process finds the SiYuan kernel (a sandbox's `url` and `token`). */
export interface KernelAddress {
  readonly url: string;
  readonly token: string;
}

/** An HTTP authority for `kernel` on `dataDir`. */
export function authorityFor(kernel: KernelAddress, dataDir: string): Promise<Authority> {
  return spawnAuthority({ dataDir, siyuanUrl: kernel.url, siyuanToken: kernel.token });
}

/** A modern stdio client whose process delegates its writes to the authority of `dataDir`. */
export function delegatingClient(
  kernel: KernelAddress,
  dataDir: string,
  options: { elicitation?: { form?: Record<string, never> }; extraArgs?: string[] } = {},
): Promise<Client> {
  return stdioClient({
    era: "modern",
    dataDir,
    siyuanUrl: kernel.url,
    siyuanToken: kernel.token,
    authToken: AUTH_TOKEN,
    ...options,
  });
}

/** The structured content of a tool result. */
export function sc(result: unknown): Record<string, unknown> {
  return ((result as { structuredContent?: Record<string, unknown> }).structuredContent ??
    {}) as Record<string, unknown>;
}

/** The error code of a tool result, if it is an error. */
export function errorCode(result: unknown): string | undefined {
  const e = sc(result)["error"] as { code?: string } | undefined;
  return e?.code;
}

/**
 * The preflight (`validateOnly`) of the `block` call `args` through `client`: its result, that
 * result's structured content `p`, the precondition `field` it names, and the `commitArgs` (`args`
 * with the request ID and the credential) it leases.
 */
export async function blockPreflight(client: Client, args: Record<string, unknown>) {
  const result = await client.callTool({
    name: "block",
    arguments: { ...args, validateOnly: true },
  });
  const p = sc(result);
  const field = p["preconditionField"] as string;
  return {
    result,
    p,
    field,
    commitArgs: { ...args, requestId: p["requestId"], [field]: p[field] },
  };
}

/** The answer to a `block.update` preflight of `id` (data "x") through `client`. */
export async function updatePreflight(client: Client, id: string) {
  return (await blockPreflight(client, { action: "update", id, dataType: "markdown", data: "x" }))
    .result;
}

/** Preflight + commit of `block.update` through `client`; returns both results. */
export async function strictUpdate(client: Client, id: string, data: string) {
  const pre = await blockPreflight(client, { action: "update", id, dataType: "markdown", data });
  if (pre.result.isError) throw new Error(`preflight failed: ${JSON.stringify(pre.p)}`);
  const commit = await client.callTool({ name: "block", arguments: pre.commitArgs });
  return { pre: pre.p, commit, commitArgs: pre.commitArgs };
}

/** An answer to a confirmation request (`elicitation/create`). */
export interface ConfirmationAnswer {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
}

/**
 * Answers every confirmation `client` is asked with `answer()` (by default: accept, confirm: true)
 * and counts the asks.
 */
export function answerConfirmations(
  client: Client,
  answer: () => ConfirmationAnswer = () => ({ action: "accept", content: { confirm: true } }),
): { count: number } {
  const asked = { count: 0 };
  client.setRequestHandler("elicitation/create", async () => {
    asked.count += 1;
    return answer() as never;
  });
  return asked;
}

/** The `/health` counters of the authority whose MCP endpoint is `url`. */
export async function healthOf(url: string): Promise<Record<string, number>> {
  const res = await fetch(url.replace("/mcp", "/health"), {
    headers: { authorization: `Bearer ${AUTH_TOKEN}` },
  });
  return (await res.json()) as Record<string, number>;
}

/** The headers of a raw JSON-RPC POST to an authority. */
export const RAW_HEADERS = {
  authorization: `Bearer ${AUTH_TOKEN}`,
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** A raw legacy (2025-11-25) `initialize` POSTed to `url`; the answer names the new session. */
export function legacyInitialize(url: string): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: RAW_HEADERS,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "raw", version: "1" },
      },
    }),
  });
}

/** What `sharedDemoAuthority` starts; read its fields inside tests (they are set in `beforeAll`). */
export interface SharedAuthority {
  readonly sandbox: Sandbox;
  readonly authority: Authority;
  readonly dataDir: string;
}

/**
 * The fixture most files share: a demo sandbox and one HTTP authority on it, started before the
 * file's tests and stopped (with every other spawned child) after them.
 */
export function sharedDemoAuthority(): SharedAuthority {
  const shared = {} as { sandbox: Sandbox; authority: Authority; dataDir: string };
  beforeAll(async () => {
    shared.sandbox = await startSandbox({ seed: "demo" });
    shared.dataDir = tempDataDir();
    shared.authority = await authorityFor(shared.sandbox, shared.dataDir);
  });
  afterAll(async () => {
    await killAll();
    await shared.sandbox.stop();
  });
  return shared;
}

/**
 * The suite's `/api/repo/*` audit file (set by the shared setup file), for processes started with
 * a minimal environment, so a sandbox they embed reports into the same audit.
 */
export function auditEnv(): Record<string, string> {
  const file = process.env[REPO_AUDIT_ENV];
  return file ? { [REPO_AUDIT_ENV]: file } : {};
}

/** A stdio process delegating to the shared authority, with the official client in `era`. */
export function sharedStdioClient(
  shared: SharedAuthority,
  era: "modern" | "legacy",
): Promise<Client> {
  return stdioClient({
    era,
    dataDir: shared.dataDir,
    siyuanUrl: shared.sandbox.url,
    siyuanToken: shared.sandbox.token,
    authToken: AUTH_TOKEN,
  });
}
