/**
 * Builds node-server: the library entry and the executable (`tsup`, see tsup.config.ts), then the
 * executable's V8 code cache (`dist/server.cjs.cache`, see src/bin.ts).
 *
 * The cache is made by running the built server once the way a client first meets it: it starts
 * with no kernel reachable, answers a 2026-07-28 `server/discover` and `tools/list` and a 2025-era
 * `initialize` and `tools/list`, then stops; the launcher writes the cache on exit, so it holds the
 * compiled code of everything a cold start runs. A failure here fails the build.
 */
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const pkg = resolve(import.meta.dirname, "..");
const dist = join(pkg, "dist");

rmSync(dist, { recursive: true, force: true });
execFileSync("tsup", [], { cwd: pkg, stdio: "inherit", shell: process.platform === "win32" });
await makeCodeCache();

async function makeCodeCache() {
  const token = randomBytes(24).toString("hex");
  const dataDir = mkdtempSync(join(tmpdir(), "sisyphus-code-cache-"));
  const child = spawn(
    process.execPath,
    [
      join(dist, "bin.cjs"),
      "--http",
      "--port",
      "0",
      "--siyuan-url",
      "http://127.0.0.1:9",
      "--data-dir",
      dataDir,
    ],
    {
      env: { ...process.env, SISYPHUS_CODE_CACHE: "write", SISYPHUS_AUTH_TOKEN: token },
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
    throw new Error(`code cache: ${e.message}\n${stderr}`);
  } finally {
    child.kill("SIGTERM");
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
  const cache = join(dist, "server.cjs.cache");
  if (!existsSync(cache)) throw new Error(`code cache: not written\n${stderr}`);
  console.log(`code cache: ${(statSync(cache).size / 1024).toFixed(0)} KB (dist/server.cjs.cache)`);
}
