/**
 * The delegation link asks `server/discover` only before the first preflight or call that may
 * execute (a write goes only to an authority that answered in this era); a read is sent without
 * that round trip. Checked through a recording proxy between a real link and a real Node HTTP
 * authority on a sandbox kernel.
 */
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { DEMO_IDS, type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthorityLink } from "../src/authority-link.js";
import { AUTH_TOKEN, type Authority, authorityFor, killAll, sc, tempDataDir } from "./harness.js";

let sandbox: Sandbox;
let authority: Authority;
let proxy: Server;
let proxyUrl: string;
/** The JSON-RPC methods the proxy passed on, in order. */
const methods: string[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ seed: "demo" });
  authority = await authorityFor(sandbox, tempDataDir());
  const target = new URL(authority.url);
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const method = (JSON.parse(body.toString("utf8") || "{}") as { method?: string }).method;
      if (method !== undefined) methods.push(method);
      const out = request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: req.method,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      out.end(body);
    });
  });
  await new Promise<void>((done) => proxy.listen(0, "127.0.0.1", done));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  await new Promise((done) => proxy.close(done));
  await killAll();
  await sandbox.stop();
});

describe("the delegation link's server/discover", () => {
  it("is skipped for reads, asked once before the first preflight", async () => {
    const link = await AuthorityLink.open({
      dataDir: tempDataDir(),
      authorityUrl: proxyUrl,
      authToken: AUTH_TOKEN,
      siyuanUrl: sandbox.url,
    });
    try {
      const id = DEMO_IDS.paragraphGoals;
      const read = await link.call("block", { action: "get_kramdown", id }, undefined, false);
      expect(read.isError).not.toBe(true);
      const preflight = await link.call(
        "block",
        { action: "update", id, data: "Discovered once", validateOnly: true },
        undefined,
        false,
      );
      expect(preflight.isError).not.toBe(true);
      expect(methods).toEqual(["tools/call", "server/discover", "tools/call"]);
      const p = sc(preflight);
      const commit = {
        action: "update",
        id,
        data: "Discovered once",
        requestId: p["requestId"],
        [p["preconditionField"] as string]: p[p["preconditionField"] as string],
      };
      const committed = await link.call("block", commit, undefined, true);
      expect(sc(committed)["status"]).toBe("committed");
      // The same call again: a replay, and no second discover on this client.
      const replayed = await link.call("block", commit, undefined, true);
      expect(sc(replayed)["replayed"]).toBe(true);
      expect(methods).toEqual([
        "tools/call",
        "server/discover",
        "tools/call",
        "tools/call",
        "tools/call",
      ]);
    } finally {
      await link.close();
    }
  });
});
