/**
 * Process wiring of `sisyphus-server`: the HTTP authority (lock, durable stores, coordinator,
 * `authority.json`, optional embedded demo sandbox) or a delegating stdio server.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { installNodeSha256 } from "@sisyphus/core-hash/node";
import { Admission, DrainGate, type DrainResult } from "@sisyphus/mcp-tools/shell/gate";
import {
  createWriteCoordinator,
  type LedgerEntry,
  systemClock,
  type WriteCoordinator,
} from "@sisyphus/write-safety";
import { IdleStop } from "./background-authority.js";
import type { ServerConfig } from "./config.js";
import { DATA_FILES, SETTINGS_READ_TIMEOUT_MS } from "./constants.js";
import {
  acquireDataDirLock,
  type DataDirLock,
  describeDataDirPermissions,
  removeAuthorityRecord,
  removeLocalCredential,
  secureDataDir,
  writeAuthorityRecord,
  writeLocalCredential,
} from "./data-dir.js";
import { NodeServerError } from "./errors.js";
import { type HttpServerHandle, startHttpServer } from "./http-server.js";
import { importEsm } from "./import-esm.js";
import type { ServerExtension } from "./mcp-stack.js";
import { cryptoRandomSource } from "./random.js";
import { type StartupSettings, startupSettings } from "./settings-reader.js";
import { FileLedgerStore, FileReservationStore } from "./stores/file-stores.js";
import { withTestCrashPoint } from "./test-crash-point.js";

// Everything that needs the MCP SDK, zod or the tool catalog lives in `mcp-stack.ts`, loaded with
// `import()` only once the HTTP socket listens (or, in stdio mode, at once): keep it out of the
// static imports here, or the cold start pays for it before listening again.

/** A running server process (either transport). */
export interface RunningServer {
  /** The HTTP endpoint (HTTP mode only). */
  readonly url?: string;
  /**
   * The graceful stop of SIGTERM/SIGINT. HTTP authority: new mutation and external calls are
   * refused (`write_coordinator_unavailable`, reason `draining`) while admitted ones get `graceMs`
   * to settle (or until `endGrace()`); those still pending then answer `outcome_unknown` (or
   * `write_coordinator_unavailable` if they never ran); then everything closes as in `close()`.
   * A stdio process closes at once.
   */
  shutdown(graceMs: number): Promise<DrainResult>;
  /** Ends a running `shutdown`'s grace now (a second signal). */
  endGrace(): void;
  /** Stops serving and releases the data directory, without draining. */
  close(): Promise<void>;
}

interface EmbeddedSandbox {
  url: string;
  token: string;
  stop(): Promise<void>;
}

const SANDBOX = "@sisyphus/siyuan-sandbox";

/**
 * The demo kernel is an optional peer dependency (an installed server talks to a real SiYuan), so
 * its absence is a configuration error naming both ways out, not a module-resolution trace.
 */
async function loadSandbox(): Promise<unknown> {
  try {
    return await importEsm(SANDBOX);
  } catch (e) {
    const missing =
      (e as { code?: unknown }).code === "ERR_MODULE_NOT_FOUND" &&
      String((e as Error).message).includes(`'${SANDBOX}'`);
    if (!missing) throw e;
    throw new NodeServerError(
      "config_invalid",
      `Invalid configuration: --siyuan-url (SIYUAN_URL) is not set, and the embedded demo kernel needs ${SANDBOX}, an optional peer dependency that is not installed: pass your SiYuan's URL, or install ${SANDBOX} beside @sisyphus/node-server`,
      { setting: "--siyuan-url (SIYUAN_URL)" },
      { cause: e },
    );
  }
}

async function startEmbeddedSandbox(dataDir: string): Promise<EmbeddedSandbox> {
  const mod = (await loadSandbox()) as {
    startSandbox?: (o: Record<string, unknown>) => Promise<EmbeddedSandbox>;
  };
  if (typeof mod.startSandbox !== "function") throw new Error(`${SANDBOX} has no startSandbox`);
  return mod.startSandbox({ port: 0, seed: "demo", dataDir: join(dataDir, "demo-workspace") });
}

/** Writes one line to stderr (stdout belongs to the stdio protocol). */
export type Log = (line: string) => void;

/** What the shell running {@link startServer} provides beyond the configuration. */
export interface StartOptions {
  /**
   * The executable's launcher (`dist/bin.cjs`), which a stdio process runs with its own Node to
   * start a background authority when none serves its data directory. Without it a stdio process
   * does not start one (`write_coordinator_unavailable`, reason `no_authority`).
   */
  readonly launcher?: string;
  /**
   * Called once when an HTTP authority with an idle stop (`idleStopMs`) went idle; the executable
   * stops as on SIGTERM. Default: `shutdown(config.shutdownGraceMs)`.
   */
  readonly onIdle?: () => void;
  /**
   * Test builds only (the conformance fixtures): more tools, prompts or resources on the Node
   * authority's HTTP endpoint and on a stdio server. The executable `sisyphus-server` passes none.
   */
  readonly extension?: ServerExtension;
}

/** The SiYuan URL as `authority.json` records it: without user info (never a secret in a file). */
function publicKernelUrl(url: string): string {
  const u = new URL(url);
  u.username = "";
  u.password = "";
  return u.toString().replace(/\/+$/, "");
}

/**
 * Starts the server described by `config`.
 * @throws NodeServerError `data_dir_locked` / `store_corrupt` / `store_io` (HTTP mode), or the
 *   embedded sandbox's start error.
 */
export async function startServer(
  config: ServerConfig,
  log: Log,
  options: StartOptions = {},
): Promise<RunningServer> {
  installNodeSha256();
  return config.transport === "stdio"
    ? startStdio(config, log, options)
    : startHttp(config, log, options);
}

async function startHttp(
  config: ServerConfig,
  log: Log,
  options: StartOptions,
): Promise<RunningServer> {
  const cleanups: Array<() => Promise<void>> = [];
  // Idempotent: each cleanup runs once, newest first, however often `cleanup` is called.
  const cleanup = async () => {
    while (cleanups.length > 0)
      await (cleanups.pop() as () => Promise<void>)().catch(() => undefined);
  };
  try {
    let siyuanUrl = config.siyuanUrl;
    let siyuanToken = config.siyuanToken;
    let authToken = config.authToken;
    const demo = siyuanUrl === undefined;
    // The settings choose the authority (the embedded demo kernel has no plugin: Node) and, with
    // `--no-strict`, whether Strict Safe Writes is on, for the life of this process.
    const startup: StartupSettings = demo
      ? { kind: "node-http", strictSafeWrites: true }
      : await startupSettings(siyuanUrl as string, siyuanToken, SETTINGS_READ_TIMEOUT_MS, log);
    const strict = config.strict && startup.strictSafeWrites;
    if (startup.kind === "kernel") {
      if (config.background) {
        throw new NodeServerError(
          "config_invalid",
          "Invalid configuration: --background: the settings select the SiYuan kernel plugin as the write authority",
          { setting: "--background" },
        );
      }
      return await startKernelFront(config, strict, log, cleanups, cleanup);
    }
    const permissions = describeDataDirPermissions(config.dataDir, secureDataDir(config.dataDir));
    if (permissions !== undefined) log(permissions);
    const lock: DataDirLock = await acquireDataDirLock(config.dataDir);
    cleanups.push(() => lock.release());
    if (demo) {
      const sandbox = await startEmbeddedSandbox(config.dataDir);
      cleanups.push(() => sandbox.stop());
      siyuanUrl = sandbox.url;
      siyuanToken = sandbox.token;
      authToken ??= randomBytes(24).toString("hex");
    }
    const ledgerStore = await FileLedgerStore.open<LedgerEntry>(
      join(config.dataDir, DATA_FILES.ledger),
    );
    cleanups.push(() => ledgerStore.close());
    const reservationStore = await FileReservationStore.open(
      join(config.dataDir, DATA_FILES.reservations),
    );
    cleanups.push(() => reservationStore.close());
    const credential = await writeLocalCredential(config.dataDir);
    cleanups.push(() => removeLocalCredential(config.dataDir, credential));
    // A background authority has no configured token: only same-user processes that can read
    // `authority.credential` reach it.
    const authTokens = [...(authToken === undefined ? [] : [authToken]), credential];
    const epoch = `${Date.now().toString(36)}-${randomBytes(6).toString("hex")}`;
    const coordinator: WriteCoordinator = await createWriteCoordinator({
      clock: systemClock,
      // Lease expiry on a monotonic clock: a wall-clock step neither extends nor cuts a lease.
      monotonic: { now: () => performance.now() },
      random: cryptoRandomSource,
      epoch,
      // Inert unless a test sets SISYPHUS_TEST_CRASH_POINT (see test-crash-point.ts).
      ledgerStore: withTestCrashPoint(ledgerStore),
      reservationStore,
      strict,
    });
    const admission = new Admission();
    const drain = new DrainGate();
    let shutdown: (graceMs: number) => Promise<DrainResult> = async () => ({
      settled: true,
      cutOff: 0,
    });
    const idle =
      config.idleStopMs > 0
        ? new IdleStop(
            config.idleStopMs,
            () => {
              const h = coordinator.health();
              return admission.counts().inFlight > 0 || h.running + h.queued > 0;
            },
            () => {
              log(
                `sisyphus-server: no client for ${config.idleStopMs} ms and nothing in flight: stopping.`,
              );
              if (options.onIdle) options.onIdle();
              else void shutdown(config.shutdownGraceMs);
            },
          )
        : undefined;
    const http: HttpServerHandle = await startHttpServer({
      host: config.host,
      port: config.port,
      authTokens,
      ...(idle === undefined ? {} : { onAuthenticated: () => idle.touch() }),
      allowedOrigins: config.allowedOrigins,
      loadEndpoint: async () =>
        (await import("./mcp-stack.js")).createHttpEndpoint({
          siyuanUrl: siyuanUrl as string,
          ...(siyuanToken === undefined ? {} : { siyuanToken }),
          strict,
          authority: { kind: "node-http", epoch, coordinator },
          admission,
          drain,
          authToken: authTokens[0] as string,
          ...(options.extension === undefined ? {} : { extension: options.extension }),
          onError: (e) => log(`sisyphus-server: ${e.message}`),
        }),
      // The admission gate's counts, and the write lane's from the coordinator that owns it (the
      // gate admits writes but does not serialise them; docs/decisions.md D-095).
      health: () => {
        const lane = coordinator.health();
        return {
          authority: "node-http",
          strict: lane.strict,
          draining: lane.draining,
          admission: admission.counts(),
          lane,
        };
      },
      onError: (e) => log(`sisyphus-server: ${e.message}`),
    });
    cleanups.push(() => http.close());
    await lock.announce(http.url);
    await writeAuthorityRecord(config.dataDir, {
      url: http.url,
      pid: process.pid,
      epoch,
      kind: "node-http",
      ...(siyuanUrl === undefined ? {} : { siyuanUrl: publicKernelUrl(siyuanUrl) }),
      ...(config.idleStopMs > 0 ? { idleStopMs: config.idleStopMs } : {}),
    });
    cleanups.push(() => removeAuthorityRecord(config.dataDir));
    if (idle !== undefined) {
      idle.start();
      cleanups.push(async () => idle.stop());
    }
    log(
      `sisyphus-server: listening on ${http.url} (Node write authority, data directory ${config.dataDir})`,
    );
    if (config.background) {
      log(
        `sisyphus-server: background authority for stdio processes of this user (pid ${process.pid}); stops after ${config.idleStopMs} ms without a client.`,
      );
    }
    if (demo) {
      log(
        'sisyphus-server: no SiYuan URL configured, so an embedded demo SiYuan sandbox (seed "demo") is serving the notes.',
      );
      log(`sisyphus-server: demo kernel ${siyuanUrl}`);
      log(`sisyphus-server: auth token ${authToken}`);
      log("sisyphus-server: MCP client configuration:");
      log(
        JSON.stringify(
          {
            mcpServers: {
              sisyphus: {
                type: "http",
                url: http.url,
                headers: { Authorization: `Bearer ${authToken}` },
              },
              // The same authority through stdio: the stdio process finds it in the data
              // directory and delegates writes to it with the local credential.
              "sisyphus-stdio": {
                type: "stdio",
                command: options.launcher === undefined ? "sisyphus-server" : process.execPath,
                args: [
                  ...(options.launcher === undefined ? [] : [options.launcher]),
                  "--stdio",
                  "--siyuan-url",
                  siyuanUrl,
                  "--data-dir",
                  config.dataDir,
                ],
                env: { SIYUAN_TOKEN: siyuanToken },
              },
            },
          },
          null,
          2,
        ),
      );
    }
    const running = serving(http, drain, () => coordinator.drain(), cleanup, log);
    shutdown = running.shutdown;
    return running;
  } catch (e) {
    await cleanup();
    throw e;
  }
}

/**
 * The HTTP server when the settings select the kernel plugin as the write authority: no data
 * directory lock, no stores, no coordinator and no `authority.json` — reads run here, every strict
 * call goes to the plugin's `/mcp` (`KernelAuthorityLink`), and a drain on SIGTERM lets the
 * calls in flight finish.
 */
async function startKernelFront(
  config: ServerConfig,
  strict: boolean,
  log: Log,
  cleanups: Array<() => Promise<void>>,
  cleanup: () => Promise<void>,
): Promise<RunningServer> {
  const siyuanUrl = config.siyuanUrl as string;
  const siyuanToken = config.siyuanToken;
  const { KernelAuthorityLink } = await import("./kernel-authority-link.js");
  const link = new KernelAuthorityLink({
    kernel: { siyuanUrl, ...(siyuanToken === undefined ? {} : { siyuanToken }) },
  });
  cleanups.push(() => link.close());
  const admission = new Admission();
  const drain = new DrainGate();
  const http: HttpServerHandle = await startHttpServer({
    host: config.host,
    port: config.port,
    authTokens: [config.authToken as string],
    allowedOrigins: config.allowedOrigins,
    loadEndpoint: async () =>
      (await import("./mcp-stack.js")).createHttpEndpoint({
        siyuanUrl,
        ...(siyuanToken === undefined ? {} : { siyuanToken }),
        strict,
        authority: { kind: "kernel", link },
        admission,
        drain,
        authToken: config.authToken as string,
        onError: (e) => log(`sisyphus-server: ${e.message}`),
      }),
    // No write lane here: the kernel plugin's is the one.
    health: () => ({
      authority: "kernel",
      strict,
      draining: drain.draining,
      admission: admission.counts(),
    }),
    onError: (e) => log(`sisyphus-server: ${e.message}`),
  });
  cleanups.push(() => http.close());
  log(
    `sisyphus-server: listening on ${http.url} (the write authority is the SiYuan kernel plugin at ${siyuanUrl}; strict calls are delegated to it)`,
  );
  // Calls in flight are the kernel's to finish: the drain waits for their answers only.
  return serving(http, drain, async () => undefined, cleanup, log);
}

/**
 * The running HTTP server of either kind: the MCP half loads after the socket listens (a faster
 * first answer), and if it cannot load the server stops with a clear message instead of answering
 * every `/mcp` request with 500; `shutdown` drains — `settle` is what must finish besides the
 * admitted calls (the coordinator's lane) — then runs the cleanups.
 */
function serving(
  http: HttpServerHandle,
  drain: DrainGate,
  settle: () => Promise<unknown>,
  cleanup: () => Promise<void>,
  log: Log,
): RunningServer & { url: string } {
  http.loadEndpoint().catch(async (e: unknown) => {
    log(
      `sisyphus-server: cannot load the MCP endpoint (${e instanceof Error ? e.message : String(e)}); stopping.`,
    );
    process.exitCode = 1;
    await cleanup();
  });
  let endGrace: () => void = () => undefined;
  return {
    url: http.url,
    close: cleanup,
    endGrace: () => endGrace(),
    async shutdown(graceMs: number): Promise<DrainResult> {
      let timer: NodeJS.Timeout | undefined;
      const graceEnds = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
        endGrace = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      const result = await drain.drain(graceEnds, settle());
      clearTimeout(timer);
      await cleanup();
      return result;
    },
  };
}

async function startStdio(
  config: ServerConfig,
  log: Log,
  options: StartOptions,
): Promise<RunningServer> {
  const handle = await (await import("./mcp-stack.js")).startStdio(
    config,
    log,
    options.launcher,
    options.extension,
  );
  return {
    close: () => handle.close(),
    endGrace: () => undefined,
    async shutdown() {
      await handle.close();
      return { settled: true, cutOff: 0 };
    },
  };
}
