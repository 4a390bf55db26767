/**
 * The history run's system with the kernel plugin as the authority: a demo sandbox with the built
 * plugin in its plugin host, one official MCP client per agent on the plugin's `/mcp` over loopback
 * HTTP. The plugin cannot be SIGKILLed apart from its kernel, so its "crash" is a reload: the
 * runtime's memory (leases, staging, tasks) goes, its durable ledger and reservations stay, and a
 * commit in flight drains first (`onunload` waits for it).
 */
import type { Client } from "@modelcontextprotocol/client";
import type { Sandbox } from "@sisyphus/siyuan-sandbox";
import {
  kernelClient,
  PLUGIN_NAME,
  sandboxWithPlugin,
} from "../../../kernel-plugin/test/harness.js";
import type { HistorySystem } from "./history-runner.js";

class KernelSystem implements HistorySystem {
  clients: Client[] = [];
  /** A reload begun by `crashDuring`, finished by `restart`. */
  private reloading: Promise<void> | null = null;

  constructor(
    readonly sandbox: Sandbox,
    private readonly agents: number,
  ) {}

  async start(): Promise<void> {
    this.clients = await Promise.all(
      Array.from({ length: this.agents }, () => kernelClient(this.sandbox)),
    );
  }

  async crash(): Promise<void> {
    await this.sandbox.plugins.reload(PLUGIN_NAME);
    await this.restart();
  }

  async crashDuring(): Promise<void> {
    this.reloading = this.sandbox.plugins.reload(PLUGIN_NAME);
  }

  async restart(): Promise<void> {
    await this.reloading;
    this.reloading = null;
    await Promise.all(this.clients.map((c) => c.close().catch(() => undefined)));
    await this.start();
  }

  async stop(): Promise<void> {
    await this.reloading?.catch(() => undefined);
    await Promise.all(this.clients.map((c) => c.close().catch(() => undefined)));
  }
}

/** Opens the plugin's system for `agents` agents (not started yet). */
export async function openKernelSystem(agents: number): Promise<HistorySystem> {
  return new KernelSystem(await sandboxWithPlugin(), agents);
}
