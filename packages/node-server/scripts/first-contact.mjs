/**
 * A client's first contact with the built server, the way the build makes the executable's code
 * cache (`scripts/build.mjs`) and the benchmark warms each cache it compares (`bench/run.ts`): start
 * `bin` with no kernel reachable, answer a 2026-07-28 `server/discover` and `tools/list` and a
 * 2025-era `initialize` and `tools/list`, then stop it with SIGTERM and wait for it to exit (a
 * launcher run with `SISYPHUS_CODE_CACHE=write` writes its cache then; Node's compile cache is
 * flushed then too). Throws with the server's stderr when any step fails.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * @param {{ bin: string, node?: string, env?: Record<string, string> }} options `node` defaults to
 *   the Node running this script; `env` is added to this process's environment.
 * @returns {Promise<void>}
 */
export async function firstContact({ bin, node = process.execPath, env = {} }) {
  const token = randomBytes(24).toString("hex");
  const dataDir = mkdtempSync(join(tmpdir(), "sisyphus-first-contact-"));
  const child = spawn(
    node,
    [bin, "--http", "--port", "0", "--siyuan-url", "http://127.0.0.1:9", "--data-dir", dataDir],
    {
      env: { ...process.env, ...env, SISYPHUS_AUTH_TOKEN: token },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  const exited = new Promise((res) => child.once("exit", (code, signal) => res({ code, signal })));
  let stderr = "";
  child.stderr.setEncoding("utf8");
  try {
    const url = await new Promise((res, rej) => {
      const timer = setTimeout(() => rej(new Error("the server did not start in 30 s")), 30_000);
      child.stderr.on("data", (chunk) => {
        stderr += chunk;
        const m = /listening on (\S+\/mcp)/.exec(stderr);
        if (m) {
          clearTimeout(timer);
          res(m[1]);
        }
      });
      exited.then(() => rej(new Error("the server exited before listening")));
    });
    const headers = {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const modernMeta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
      "io.modelcontextprotocol/clientInfo": { name: "sisyphus-build", version: "0" },
    };
    const post = async (method, params, extra = {}) => {
      const r = await fetch(url, {
        method: "POST",
        headers: { ...headers, ...extra },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      });
      const text = await r.text();
      if (!r.ok || !text.includes('"result"')) throw new Error(`${method}: ${r.status} ${text}`);
      return r;
    };
    for (const method of ["server/discover", "tools/list"]) {
      await post(
        method,
        { _meta: modernMeta },
        { "mcp-protocol-version": "2026-07-28", "mcp-method": method },
      );
    }
    const init = await post("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "sisyphus-build", version: "0" },
    });
    const session = init.headers.get("mcp-session-id");
    if (session === null) throw new Error("initialize: no session");
    const legacy = { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
    const note = await fetch(url, {
      method: "POST",
      headers: { ...headers, ...legacy },
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
    await note.text();
    await post("tools/list", {}, legacy);
  } catch (e) {
    child.kill("SIGKILL");
    throw new Error(`first contact: ${e instanceof Error ? e.message : String(e)}\n${stderr}`);
  } finally {
    child.kill("SIGTERM");
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}
