/** startSandbox: wires the kernel state, the HTTP front and the control surface. */
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import {
  type Clock,
  IdIssuer,
  type RandomSource,
  seededRandom,
  steppingClock,
  systemClock,
  systemRandom,
} from "./clock.js";
import {
  DEFAULT_FLUSH_INTERVAL_MS,
  DETERMINISTIC_START_MS,
  DETERMINISTIC_STEP_MS,
} from "./constants.js";
import { controlRouteHandler, createControl, type SandboxControl } from "./control.js";
import { SandboxError } from "./errors.js";
import { FaultBook, type FaultSpec } from "./faults.js";
import { DiskFileStore, MemoryFileStore } from "./file-store.js";
import { Kernel } from "./kernel.js";
import { loadWorkspace } from "./persist.js";
import { withPluginControl } from "./plugin-host/control.js";
import {
  PluginHost,
  type PluginHostControl,
  type PluginHostOptions,
  type PluginSource,
} from "./plugin-host/host.js";
import { seedDemo } from "./seed.js";
import { createRequestListener, RequestLog } from "./server.js";
import { SqlIndex } from "./sql-index.js";

/** Options of startSandbox. All optional. */
export interface SandboxOptions {
  /** TCP port on 127.0.0.1 (default 0: any free port). */
  port?: number;
  /** API token required in `Authorization: Token <t>` (default: random). */
  token?: string;
  /** `demo` fills an empty workspace with the demo content; `empty` (default) does not. */
  seed?: "demo" | "empty";
  /** Persist the workspace in SiYuan's layout under this directory (default: memory only). */
  dataDir?: string;
  /** Interval of the write-queue loop in ms (default 50, as the kernel). */
  flushIntervalMs?: number;
  /** Faults armed at start. */
  faults?: FaultSpec[];
  /**
   * Reproducible IDs and timestamps: a stepping clock (start 2026-01-01T12:00:00Z, +1 s per
   * reading), a seeded random source, and UTC timestamps. `true` uses the defaults.
   */
  deterministic?: boolean | { startMs?: number; stepMs?: number; randomSeed?: number };
  /** Custom clock (overrides `deterministic`'s). */
  clock?: Clock;
  /** Custom random source (overrides `deterministic`'s). */
  random?: RandomSource;
  /** Format timestamps in UTC instead of local time (the kernel uses local time). */
  utcTimestamps?: boolean;
  /** Serve the authenticated `/__sandbox/*` control route (default false). */
  controlRoute?: boolean;
  /**
   * Kernel-exact replies: block writes (except deleteBlock) wait for the queue before
   * answering, as SiYuan 3.7.3 does. Default false: they answer with the queued
   * transaction before it is applied (issue 4).
   */
  flushBeforeReply?: boolean;
  /** Kernel plugins to install and enable at start: folders, `package.zip` files or in-memory files. */
  plugins?: PluginSource[];
  /** Options of the kernel-plugin host (docs/plugin-host.md). */
  pluginHost?: PluginHostOptions;
}

/** A running sandbox. */
export interface Sandbox {
  /** Base URL, e.g. `http://127.0.0.1:51234`. */
  url: string;
  port: number;
  token: string;
  /** Stops listening, applies the queue (unless held), persists, frees the index. Idempotent. */
  stop(): Promise<void>;
  control: SandboxControl;
  /** The kernel-plugin host: install, states, logs, "plugin reload" and "kernel restart". */
  plugins: PluginHostControl;
}

/** Starts a sandbox kernel on 127.0.0.1. Throws SandboxError `invalid_option`. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const flushIntervalMs = options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS;
  if (!(flushIntervalMs > 0)) {
    throw new SandboxError("invalid_option", "flushIntervalMs must be > 0", { flushIntervalMs });
  }
  const det = options.deterministic === true ? {} : options.deterministic || null;
  const clock =
    options.clock ??
    (det
      ? steppingClock(det.startMs ?? DETERMINISTIC_START_MS, det.stepMs ?? DETERMINISTIC_STEP_MS)
      : systemClock);
  const random = options.random ?? (det ? seededRandom(det.randomSeed ?? 1) : systemRandom);
  const utc = options.utcTimestamps ?? det !== null;
  const ids = new IdIssuer(clock, random, utc);
  const token = options.token ?? randomBytes(12).toString("hex");
  const dataDir = options.dataDir ?? null;
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const sql = await SqlIndex.create();
  const pluginHost = new PluginHost(options.pluginHost);
  const files = pluginHost.watchStore(dataDir ? new DiskFileStore(dataDir) : new MemoryFileStore());
  const kernel = new Kernel(ids, sql, files, dataDir);
  const loaded = dataDir ? loadWorkspace(dataDir, kernel.ws) : false;
  if (!loaded && options.seed === "demo") seedDemo(kernel.ws);
  kernel.tick();

  const faults = new FaultBook();
  for (const f of options.faults ?? []) faults.arm(f);
  const log = new RequestLog();
  let server: Server | null = null;
  let refusing = false;
  let boundPort = 0;
  const sockets = new Set<Socket>();
  const listener = {
    async refuse(on: boolean): Promise<void> {
      if (!server || on === refusing) return;
      refusing = on;
      const srv = server;
      if (on) {
        await new Promise<void>((resolve) => {
          srv.close(() => resolve());
          for (const s of sockets) s.destroy();
        });
      } else {
        await new Promise<void>((resolve, reject) => {
          srv.once("error", reject);
          srv.listen(boundPort, "127.0.0.1", () => {
            srv.off("error", reject);
            resolve();
          });
        });
      }
    },
  };
  const control = createControl(kernel, faults, log, listener);
  server = createServer(
    createRequestListener(kernel, faults, log, {
      token,
      flushBeforeReply: options.flushBeforeReply ?? false,
      controlRoute: options.controlRoute
        ? withPluginControl(controlRouteHandler(control), pluginHost)
        : null,
      pluginHost,
    }),
  );
  server.keepAliveTimeout = 30_000;
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  const srv: Server = server;
  await new Promise<void>((resolve, reject) => {
    srv.once("error", reject);
    srv.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  kernel.start(flushIntervalMs);
  const port = (srv.address() as AddressInfo).port;
  boundPort = port;
  pluginHost.attach(`http://127.0.0.1:${port}`, listener);
  for (const p of options.plugins ?? []) await pluginHost.install(p);
  await pluginHost.startAll();
  let stopped: Promise<void> | null = null;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    token,
    control,
    plugins: pluginHost,
    stop: () => {
      stopped ??= (async () => {
        faults.releaseHeld(); // a held call would keep a plugin's onunload (and so stop) waiting
        await pluginHost.stopAll(); // onunload may still call the API
        if (!refusing) {
          await new Promise<void>((resolve) => {
            srv.close(() => resolve());
            for (const s of sockets) s.destroy();
          });
        }
        kernel.stop();
        sql.close();
      })();
      return stopped;
    },
  };
}
