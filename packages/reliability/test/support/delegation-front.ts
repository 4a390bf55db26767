/**
 * A delegating stdio front for the fault-kinds cells: the built Node server spawned as the HTTP
 * authority of a fresh data directory, and `sisyphus-server --stdio` spawned as the front the
 * official MCP client talks to over stdio. The front reads the kernel itself and delegates every
 * strict call to the authority through an {@link AuthorityProxy} (`--authority-url`), so a test can
 * kill either process, restart the authority, or lose one answer between the two.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import type { ToolResult } from "../../../mcp-tools/src/index.js";
import {
  type Authority,
  alive,
  answerConfirmations,
  authorityFor,
  delegatingClient,
  tempDataDir,
} from "../../../node-server/test/harness.js";
import {
  type AuthorityProxy,
  type KernelProxy,
  startAuthorityProxy,
  startKernelProxy,
} from "./delegation-proxy.js";
import type { Front, FrontFactory } from "./matrix-env.js";

/** The stdio front and its authority, with the delegation faults. */
export interface StdioFront extends Front {
  readonly dataDir: string;
  readonly proxy: AuthorityProxy;
  /** The kernel as the front and its authority reach it. */
  readonly kernel: KernelProxy;
  /** The authority process now serving the data directory. */
  authority(): Authority;
  /** SIGKILLs the stdio process (the MCP client sees its pipe close). */
  killFront(): void;
  /** A new stdio process (and client) delegating to the same authority. */
  newFront(): Promise<void>;
  /** SIGKILLs the authority. */
  killAuthority(): Promise<void>;
  /** Starts the authority again on the same data directory (its ledger and reservations). */
  restartAuthority(): Promise<void>;
  /** Starts again whichever of the two processes is not running (a cell left it dead). */
  heal(): Promise<void>;
}

/** The pid of the stdio process behind `client`. */
function pidOf(client: Client): number {
  const pid = (client.transport as { pid?: number | null } | undefined)?.pid;
  if (typeof pid !== "number") throw new Error("the stdio front has no process");
  return pid;
}

/**
 * A stdio front delegating to a fresh Node authority, both reaching the kernel through `kernel`'s
 * proxy (`stop` ends them). The token is what they present; the proxy's transport has its own.
 */
export async function startStdioFront(kernel: KernelProxy, token: string): Promise<StdioFront> {
  const address = { url: kernel.url, token };
  const dataDir = tempDataDir();
  const files = mkdtempSync(join(tmpdir(), "delegation-sources-"));
  let authority = await authorityFor(address, dataDir);
  const proxy = await startAuthorityProxy(authority.url);
  const connect = async () => {
    const c = await delegatingClient(address, dataDir, {
      elicitation: { form: {} },
      extraArgs: ["--authority-url", proxy.url],
    });
    answerConfirmations(c);
    return c;
  };
  let client = await connect();
  const restartAuthority = async () => {
    authority = await authorityFor(address, dataDir);
    proxy.retarget(authority.url);
  };
  // A staged upload is a local file here: the front sends its path, the authority reads it.
  const staged = new Map<string, string>();
  return {
    dataDir,
    proxy,
    kernel,
    authority: () => authority,
    stage(fileName, bytes) {
      const handle = `staged-${staged.size + 1}`;
      const path = join(files, `${staged.size + 1}-${fileName}`);
      writeFileSync(path, bytes);
      staged.set(handle, path);
      return handle;
    },
    async call(tool, args) {
      const source = staged.get(String(args["uploadSource"]));
      const { uploadSource: _handle, ...rest } = args;
      const sent = source === undefined ? args : { ...rest, localFilePath: source };
      return (await client.callTool({ name: tool, arguments: sent })) as ToolResult;
    },
    killFront() {
      process.kill(pidOf(client), "SIGKILL");
    },
    async newFront() {
      await client.close().catch(() => undefined);
      client = await connect();
    },
    killAuthority: () => authority.stop("SIGKILL"),
    async heal() {
      if (authority.child.exitCode !== null || authority.child.signalCode !== null)
        await restartAuthority();
      const pid = (client.transport as { pid?: number | null } | undefined)?.pid;
      if (typeof pid !== "number" || !alive(pid)) {
        await client.close().catch(() => undefined);
        client = await connect();
      }
    },
    restartAuthority,
    async stop() {
      await client.close().catch(() => undefined);
      await authority.stop("SIGKILL");
      await proxy.close();
      rmSync(files, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Stdio fronts reused from cell to cell, so a cell costs no process start: `factory` hands an idle
 * one out, its kernel proxy pointed at the cell's kernel, and takes it back on `stop`. Each keeps
 * its authority (ledger, leases) across cells; every cell's kernel is fresh, and a request ID is
 * never issued twice by one authority, so no cell can replay another's.
 */
export function frontStations(): { factory: FrontFactory; close(): Promise<void> } {
  const idle: StdioFront[] = [];
  const all: StdioFront[] = [];
  return {
    async factory(transport, token) {
      let front = idle.pop();
      if (front === undefined) {
        front = await startStdioFront(await startKernelProxy(transport), token);
        all.push(front);
      }
      front.kernel.retarget(transport);
      await front.heal();
      const station = front;
      return { ...station, stop: async () => void idle.push(station) } as StdioFront;
    },
    async close() {
      for (const f of all) {
        await f.stop();
        await f.kernel.close();
      }
    },
  };
}
