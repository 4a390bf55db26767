/**
 * Process wiring of `sisyphus-server`: the HTTP authority (lock, durable stores, coordinator,
 * `authority.json`, optional embedded demo sandbox) or a delegating stdio server.
 */
import { randomBytes, randomInt } from "node:crypto";
import { join } from "node:path";
import { McpServer, type ServerContext } from "@modelcontextprotocol/server";
import type { RandomSource } from "@sisyphus/core-hash";
import { installNodeSha256 } from "@sisyphus/core-hash/node";
import { createToolRuntime, registerTools, type ToolRuntime } from "@sisyphus/mcp-tools";
import { createSiyuanClient } from "@sisyphus/siyuan-api/kernel";
import {
  createWriteCoordinator,
  type LedgerEntry,
  systemClock,
  type WriteCoordinator,
} from "@sisyphus/write-safety";
import { Admission } from "./admission.js";
import { AuthorityLink } from "./authority-link.js";
import type { ServerConfig } from "./config.js";
import { ConfirmationBook } from "./confirmation-book.js";
import { DATA_FILES, KERNEL_TIMEOUT_MS, SERVER_INFO } from "./constants.js";
import {
  acquireDataDirLock,
  type DataDirLock,
  removeAuthorityRecord,
  writeAuthorityRecord,
} from "./data-dir.js";
import { type AuthorityRole, createGateway, type GatewayConnection } from "./gateway.js";
import { type HttpServerHandle, startHttpServer } from "./http-server.js";
import { lazyKernelTransport } from "./kernel-transport.js";
import { principalOf } from "./security.js";
import { FileLedgerStore } from "./stores/file-ledger-store.js";
import { FileReservationStore } from "./stores/file-reservation-store.js";

/** A CSPRNG `RandomSource` for request IDs. */
export const cryptoRandomSource: RandomSource = {
  nextInt(maxExclusive: number): number {
    if (maxExclusive === 0x100000000) return randomBytes(4).readUInt32BE(0);
    return randomInt(0, maxExclusive);
  },
};

/** A running server process (either transport). */
export interface RunningServer {
  /** The HTTP endpoint (HTTP mode only). */
  readonly url?: string;
  /** Stops serving and releases the data directory. */
  close(): Promise<void>;
}

interface EmbeddedSandbox {
  url: string;
  token: string;
  stop(): Promise<void>;
}

async function startEmbeddedSandbox(dataDir: string): Promise<EmbeddedSandbox> {
  const mod = (await import("@sisyphus/siyuan-sandbox")) as unknown as {
    startSandbox?: (o: Record<string, unknown>) => Promise<EmbeddedSandbox>;
  };
  if (typeof mod.startSandbox !== "function")
    throw new Error("@sisyphus/siyuan-sandbox has no startSandbox");
  return mod.startSandbox({ port: 0, seed: "demo", dataDir: join(dataDir, "demo-workspace") });
}

function buildFactory(
  runtime: ToolRuntime,
  gateway: ReturnType<typeof createGateway>,
  principal: string,
) {
  return () => {
    const server = new McpServer(
      { name: SERVER_INFO.name, version: SERVER_INFO.version },
      { capabilities: { tools: {} } },
    );
    const conn: GatewayConnection = {
      principal,
      legacyCapabilities: () => server.server.getClientCapabilities(),
    };
    registerTools(
      server,
      runtime,
      (tool: string, args: Record<string, unknown>, ctx: ServerContext) =>
        gateway(tool, args, ctx, conn),
    );
    return server;
  };
}

/** Writes one line to stderr (stdout belongs to the stdio protocol). */
export type Log = (line: string) => void;

/**
 * Starts the server described by `config`.
 * @throws NodeServerError `data_dir_locked` / `store_corrupt` / `store_io` (HTTP mode), or the
 *   embedded sandbox's start error.
 */
export async function startServer(config: ServerConfig, log: Log): Promise<RunningServer> {
  installNodeSha256();
  return config.transport === "stdio" ? startStdio(config, log) : startHttp(config, log);
}

async function startHttp(config: ServerConfig, log: Log): Promise<RunningServer> {
  const cleanups: Array<() => Promise<void>> = [];
  const cleanup = async () => {
    for (const fn of cleanups.reverse()) await fn().catch(() => undefined);
  };
  try {
    let siyuanUrl = config.siyuanUrl;
    let siyuanToken = config.siyuanToken;
    let authToken = config.authToken;
    const demo = siyuanUrl === undefined;
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
    const epoch = `${Date.now().toString(36)}-${randomBytes(6).toString("hex")}`;
    const coordinator: WriteCoordinator = await createWriteCoordinator({
      clock: systemClock,
      random: cryptoRandomSource,
      epoch,
      ledgerStore,
      reservationStore,
      strict: config.strict,
    });
    const client = createSiyuanClient({
      transport: lazyKernelTransport({
        baseUrl: siyuanUrl as string,
        ...(siyuanToken === undefined ? {} : { token: siyuanToken }),
        timeoutMs: KERNEL_TIMEOUT_MS,
      }),
    });
    const admission = new Admission();
    const runtime = createToolRuntime({
      client,
      coordinator,
      config: {
        strict: config.strict,
        authority: { kind: "node-http", epoch },
        health: () => ({ ...admission.counts() }),
      },
    });
    const role: AuthorityRole = { kind: "local", epoch };
    const gateway = createGateway({
      runtime,
      admission,
      confirmations: new ConfirmationBook(),
      role,
    });
    const principal = principalOf(authToken as string);
    const http: HttpServerHandle = await startHttpServer({
      host: config.host,
      port: config.port,
      authToken: authToken as string,
      allowedOrigins: config.allowedOrigins,
      factory: buildFactory(runtime, gateway, principal),
      health: () => {
        const h = coordinator.health();
        const a = admission.counts();
        return {
          strict: h.strict,
          inFlight: a.inFlight,
          readsRunning: a.readsRunning,
          readsQueued: a.readsQueued,
          writesRunning: a.writesRunning,
          writesQueued: a.writesQueued,
          admissionCap: a.admissionCap,
          leases: h.leases,
          ledgerEntries: h.ledgerEntries,
          reservations: h.reservations,
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
    });
    cleanups.push(() => removeAuthorityRecord(config.dataDir));
    log(
      `sisyphus-server: listening on ${http.url} (Node write authority, data directory ${config.dataDir})`,
    );
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
            },
          },
          null,
          2,
        ),
      );
    }
    return { url: http.url, close: cleanup };
  } catch (e) {
    await cleanup();
    throw e;
  }
}

async function startStdio(config: ServerConfig, log: Log): Promise<RunningServer> {
  const client = createSiyuanClient({
    transport: lazyKernelTransport({
      baseUrl: config.siyuanUrl as string,
      ...(config.siyuanToken === undefined ? {} : { token: config.siyuanToken }),
      timeoutMs: KERNEL_TIMEOUT_MS,
    }),
  });
  const admission = new Admission();
  const runtime = createToolRuntime({
    client,
    config: { strict: config.strict, authority: { kind: "delegating", epoch: "" } },
  });
  const link = new AuthorityLink({
    dataDir: config.dataDir,
    ...(config.authorityUrl === undefined ? {} : { authorityUrl: config.authorityUrl }),
    ...(config.authToken === undefined ? {} : { authToken: config.authToken }),
  });
  const gateway = createGateway({
    runtime,
    admission,
    confirmations: new ConfirmationBook(),
    role: { kind: "delegate", link },
  });
  // Loaded here, not at the top: an HTTP server never needs the stdio transport.
  const { serveStdio } = await import("@modelcontextprotocol/server/stdio");
  const handle = serveStdio(buildFactory(runtime, gateway, `stdio:${process.pid}`), {
    onerror: (e) => log(`sisyphus-server: ${e.message}`),
  });
  log("sisyphus-server: serving MCP on stdio; writes are delegated to the HTTP authority");
  return {
    async close() {
      await handle.close();
      await link.close();
    },
  };
}
