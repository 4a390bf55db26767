/**
 * What every sandbox bench shares: starting a server (the sandbox bin, or a baseline) as a child
 * process and reading its port, and sending one HTTP request over a keep-alive agent.
 */
import { spawn } from "node:child_process";
import { Agent, request } from "node:http";
import { fileURLToPath } from "node:url";

/** The sandbox bin, run from its TypeScript source. */
export const SANDBOX_BIN = fileURLToPath(new URL("../src/bin.ts", import.meta.url));

/** The Node arguments that run the sandbox bin with `args` (token `bench`, a free port). */
export function sandboxArgs(args: string[] = []): string[] {
  return [
    "--import",
    "tsx",
    "--conditions=source",
    SANDBOX_BIN,
    ...["--port", "0", "--token", "bench"],
    ...args,
  ];
}

/** Spawns `node args…` and resolves once it printed `127.0.0.1:<port>`. */
export function spawnServer(args: string[]): Promise<{ port: number; kill: () => void }> {
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (c: string) => {
      out += c;
      const m = /127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve({ port: Number(m[1]), kill: () => child.kill("SIGTERM") });
    });
    child.on("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
}

/** One HTTP request to `127.0.0.1:port` with the bench token; the whole answer. */
export function send(
  agent: Agent,
  port: number,
  method: string,
  path: string,
  headers: Record<string, string | number>,
  body?: Buffer | string,
): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method,
        agent,
        headers: {
          authorization: "Token bench",
          ...(body === undefined ? {} : { "content-length": Buffer.byteLength(body) }),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** A keep-alive agent for `clients` concurrent requests. */
export function keepAlive(clients: number): Agent {
  return new Agent({ keepAlive: true, maxSockets: clients });
}
