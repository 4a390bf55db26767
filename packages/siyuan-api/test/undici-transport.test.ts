/**
 * Wire-level failure classification of the undici transport and the client's retry policy, against
 * a scripted loopback server (resets, 5xx, silence, garbage). Endpoint behaviour is in sandbox tests.
 */
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { Agent, RetryAgent } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  classifyUndiciError,
  createSiyuanClient,
  ENDPOINTS,
  type SiyuanClient,
  undiciTransport,
} from "../src/index.js";
import { failure, instantSleep } from "./support/failure.js";
import { clientMethodKeys, invokeByKey, sampleArgs } from "./support/method-walk.js";
import { ok, refusedPort, startWireServer, type WireServer } from "./support/wire-server.js";

let server: WireServer;
let client: SiyuanClient;

function makeClient(extra: { timeoutMs?: number; token?: string } = {}): SiyuanClient {
  return createSiyuanClient({
    transport: undiciTransport({
      baseUrl: server.url,
      token: extra.token ?? "tok-1",
      timeoutMs: extra.timeoutMs ?? 5_000,
    }),
    sleep: instantSleep,
  });
}

beforeEach(async () => {
  server = await startWireServer();
  client = makeClient();
});
afterEach(async () => {
  await client.close();
  await server.stop();
});

describe("undici transport: what goes on the wire", () => {
  it("POSTs JSON with the token to the endpoint's path and decodes the answer", async () => {
    server.handle(() => ok({ id: "20260101120000-abcdefg", kramdown: 'hello\n{: id="x"}' }));
    const r = await client.block.getBlockKramdown({ id: "20260101120000-abcdefg" });
    expect(r?.kramdown).toContain("hello");
    const req = server.requests[0]!;
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/api/block/getBlockKramdown");
    expect(req.headers["authorization"]).toBe("Token tok-1");
    expect(req.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(req.body.toString("utf8"))).toEqual({ id: "20260101120000-abcdefg" });
    expect(client.stats().calls["/api/block/getBlockKramdown"]).toBe(1);
  });

  it("reuses keep-alive connections across sequential calls", async () => {
    server.handle(() => ok("3.7.3"));
    for (let i = 0; i < 20; i++) expect(await client.system.version()).toBe("3.7.3");
    expect(server.requests).toHaveLength(20);
    // undici may open a second socket while the first is still finishing its answer; never one per call.
    expect(server.connections()).toBeLessThanOrEqual(2);
  });

  it("sends putFile as multipart with path, modTime and the file bytes", async () => {
    server.handle(() => ok(null));
    await client.file.putFile({
      path: "/data/storage/petal/a.bin",
      file: Uint8Array.from([1, 2, 3]),
      modTimeMs: 1_700_000_000_000,
    });
    const req = server.requests[0]!;
    const form = await new Response(req.body, {
      headers: { "content-type": String(req.headers["content-type"]) },
    }).formData();
    expect(form.get("path")).toBe("/data/storage/petal/a.bin");
    expect(form.get("modTime")).toBe("1700000000000");
    const file = form.get("file") as File;
    expect(file.name).toBe("a.bin");
    expect(Array.from(new Uint8Array(await file.arrayBuffer()))).toEqual([1, 2, 3]);
  });

  it("every method goes to its table path; reads are retried on 503, writes sent once", async () => {
    server.handle(() => ({ kind: "raw", status: 503, body: "busy" }));
    for (const key of clientMethodKeys(client)) {
      const spec = ENDPOINTS[key as keyof typeof ENDPOINTS];
      const before = server.requests.length;
      const err = await failure(invokeByKey(client, key, sampleArgs(key)));
      const sent = server.requests.slice(before);
      expect(err.code, key).toBe("outcome_unknown");
      expect(
        sent.every((r) => r.path === spec.path),
        key,
      ).toBe(true);
      expect(sent.length, key).toBe(spec.kind === "read" ? 3 : 1);
      expect(err.details.attempts, key).toBe(sent.length);
    }
  });
});

describe("required fields", () => {
  it("a call missing a required field is not sent (not_dispatched, invalid_request)", async () => {
    let refused = 0;
    for (const key of clientMethodKeys(client)) {
      const spec = ENDPOINTS[key as keyof typeof ENDPOINTS];
      if (spec.required.length === 0 && spec.anyOf === undefined) continue;
      const full = sampleArgs(key);
      for (const field of [...spec.required, ...(spec.anyOf === undefined ? [] : ["<anchor>"])]) {
        const args: Record<string, unknown> = { ...full };
        if (field === "<anchor>") for (const f of spec.anyOf ?? []) delete args[f];
        else args[field] = undefined;
        const e = await failure(invokeByKey(client, key, args));
        expect(e.code, `${key} without ${field}`).toBe("not_dispatched");
        expect(e.details.reason).toBe("invalid_request");
        expect(e.writeDispatched).toBe(false);
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(80);
    expect(server.requests).toHaveLength(0);
    expect(client.stats().totalAttempts).toBe(0);
  });
});

describe("undici transport: failure classes", () => {
  it("refused connection → not_dispatched (a read retries, a write does not)", async () => {
    const port = await refusedPort();
    const c = createSiyuanClient({
      transport: undiciTransport({ baseUrl: `http://127.0.0.1:${port}` }),
      sleep: instantSleep,
    });
    const w = await failure(
      c.block.updateBlock({ id: "20260101120000-abcdefg", dataType: "markdown", data: "x" }),
    );
    expect(w.code).toBe("not_dispatched");
    expect(w.writeDispatched).toBe(false);
    expect(w.details.reason).toBe("connection_refused");
    expect(w.details.attempts).toBe(1);
    const r = await failure(c.system.version());
    expect(r.code).toBe("not_dispatched");
    expect(r.details.attempts).toBe(3);
    expect(c.stats().attempts["/api/system/version"]).toBe(3);
    await c.close();
  });

  it("refuses a RetryAgent dispatcher (it would re-send writes)", async () => {
    const agent = new RetryAgent(new Agent());
    expect(() => undiciTransport({ baseUrl: server.url, dispatcher: agent })).toThrow(/RetryAgent/);
    await agent.close();
  });

  it("a call after close() → not_dispatched (client_closed), nothing on the wire", async () => {
    const c = makeClient();
    await c.close();
    const e = await failure(c.block.deleteBlock({ id: "20260101120000-abcdefg" }));
    expect(e.code).toBe("not_dispatched");
    expect(e.details.reason).toBe("client_closed");
    expect(server.requests).toHaveLength(0);
  });

  it("invalid base URL → not_dispatched, not retried", async () => {
    const c = createSiyuanClient({
      transport: undiciTransport({ baseUrl: "not a url" }),
      sleep: instantSleep,
    });
    const e = await failure(c.system.version());
    expect(e.code).toBe("not_dispatched");
    expect(e.details.reason).toBe("invalid_url");
    expect(e.details.attempts).toBe(1);
    await c.close();
  });

  it("DNS failures and connect timeouts are not_dispatched; socket errors and timeouts are outcome_unknown", () => {
    const cases: Array<[string, string]> = [
      ["ENOTFOUND", "not_dispatched"],
      ["EAI_AGAIN", "not_dispatched"],
      ["UND_ERR_CONNECT_TIMEOUT", "not_dispatched"],
      ["UND_ERR_SOCKET", "outcome_unknown"],
      ["ECONNRESET", "outcome_unknown"],
      ["UND_ERR_HEADERS_TIMEOUT", "outcome_unknown"],
      ["UND_ERR_BODY_TIMEOUT", "outcome_unknown"],
      ["UND_ERR_ABORTED", "outcome_unknown"],
      ["SOMETHING_NEW", "outcome_unknown"],
    ];
    for (const [code, expected] of cases) {
      const e = classifyUndiciError("/api/x", Object.assign(new Error(code), { code }));
      expect(e.code, code).toBe(expected);
      expect(e.details.causeCode, code).toBe(code);
    }
    const aggregate = new AggregateError(
      [
        Object.assign(new Error("a"), { code: "ECONNREFUSED" }),
        Object.assign(new Error("b"), { code: "ECONNREFUSED" }),
      ],
      "all failed",
    );
    expect(classifyUndiciError("/api/x", aggregate).code).toBe("not_dispatched");
    expect(classifyUndiciError("/api/x", new Error("no code")).code).toBe("outcome_unknown");
  });

  it("reset after the request arrived → outcome_unknown, exactly one write on the wire", async () => {
    server.handle(() => ({ kind: "reset" }));
    const e = await failure(
      client.attr.setBlockAttrs({ id: "20260101120000-abcdefg", attrs: { "custom-a": "1" } }),
    );
    expect(e.code).toBe("outcome_unknown");
    expect(e.writeDispatched).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it("a reset on a reused keep-alive socket is not re-sent by undici for a write", async () => {
    const c = createSiyuanClient({
      transport: undiciTransport({ baseUrl: server.url, connections: 1 }),
      sleep: instantSleep,
    });
    server.handle((_r, i) => (i === 0 ? ok("3.7.3") : { kind: "reset" }));
    await c.system.version();
    const e = await failure(
      c.block.updateBlock({ id: "20260101120000-abcdefg", dataType: "markdown", data: "x" }),
    );
    expect(e.code).toBe("outcome_unknown");
    expect(server.requests.map((r) => r.path)).toEqual([
      "/api/system/version",
      "/api/block/updateBlock",
    ]);
    expect(server.connections()).toBe(1);
    await c.close();
  });

  it("reset on a read is retried and the second attempt succeeds", async () => {
    server.handle((_r, i) => (i === 0 ? { kind: "reset" } : ok({ id: "20260101120000-abcdefg" })));
    const attrs = await client.attr.getBlockAttrs({ id: "20260101120000-abcdefg" });
    expect(attrs).toEqual({ id: "20260101120000-abcdefg" });
    expect(server.requests).toHaveLength(2);
    expect(client.stats().attempts["/api/attr/getBlockAttrs"]).toBe(2);
    expect(client.stats().calls["/api/attr/getBlockAttrs"]).toBe(1);
  });

  it("503 on a read then success; 500 on a read is not retried", async () => {
    server.handle((_r, i) => (i === 0 ? { kind: "raw", status: 503, body: "x" } : ok("3.7.3")));
    expect(await client.system.version()).toBe("3.7.3");
    expect(server.requests).toHaveLength(2);
    server.handle(() => ({ kind: "raw", status: 500, body: "boom" }));
    const e = await failure(client.system.version());
    expect(e.code).toBe("outcome_unknown");
    expect(e.details.httpStatus).toBe(500);
    expect(server.requests).toHaveLength(3);
  });

  it("no answer within the timeout → outcome_unknown (timeout), one write on the wire", async () => {
    const c = makeClient({ timeoutMs: 300 });
    server.handle(() => ({ kind: "silence" }));
    const e = await failure(c.block.deleteBlock({ id: "20260101120000-abcdefg" }));
    expect(e.code).toBe("outcome_unknown");
    expect(e.details.reason).toBe("timeout");
    expect(server.requests).toHaveLength(1);
    await c.close();
  });

  it("an unreadable body is outcome_unknown; a wrong shape is decode; code != 0 is kernel_rejected", async () => {
    server.handle(() => ({ kind: "raw", status: 200, body: "<html>not json" }));
    const a = await failure(
      client.block.appendBlock({
        parentID: "20260101120000-abcdefg",
        dataType: "markdown",
        data: "x",
      }),
    );
    expect(a.code).toBe("outcome_unknown");
    expect(a.details.reason).toBe("unreadable_body");

    server.handle(() => ({ kind: "json", body: { hello: 1 } }));
    const b = await failure(client.system.version());
    expect(b.code).toBe("decode");

    server.handle(() => ok({ notebooks: [{ id: 1 }] }));
    const c = await failure(client.notebook.lsNotebooks());
    expect(c.code).toBe("decode");
    expect(c.details.issues?.[0]?.path).toBe("notebooks.0.id");
    expect(c.writeDispatched).toBe(true);

    server.handle(() => ({
      kind: "json",
      body: { code: -1, msg: "tree not found", data: { closeTimeout: 7000 } },
    }));
    const d = await failure(client.filetree.removeDocByID({ id: "20260101120000-abcdefg" }));
    expect(d.code).toBe("kernel_rejected");
    expect(d.details.kernelCode).toBe(-1);
    expect(d.details.kernelMessage).toBe("tree not found");
    expect(d.details.kernelData).toEqual({ closeTimeout: 7000 });
  });

  it("401 with a JSON body and 403 with an empty body → unauthorized, not dispatched", async () => {
    server.handle(() => ({
      kind: "json",
      status: 401,
      body: { code: -1, msg: "Auth failed [header: Authorization]" },
    }));
    const a = await failure(client.notebook.removeNotebook({ notebook: "20260101120000-abcdefg" }));
    expect(a.code).toBe("unauthorized");
    expect(a.writeDispatched).toBe(false);
    expect(a.details.kernelMessage).toBe("Auth failed [header: Authorization]");
    server.handle(() => ({ kind: "raw", status: 403, body: "" }));
    const b = await failure(client.system.version());
    expect(b.code).toBe("unauthorized");
    expect(b.details.httpStatus).toBe(403);
    expect(b.details.attempts).toBe(1);
  });

  it("a write after the server closed the idle keep-alive socket is sent exactly once", async () => {
    await server.stop();
    server = await startWireServer({ keepAliveTimeoutMs: 100 });
    const c = makeClient();
    server.handle(() => ok(null));
    await c.attr.setBlockAttrs({ id: "20260101120000-abcdefg", attrs: {} });
    await waitFor(() => server.openConnections() === 0, {
      what: "the server to close the idle keep-alive socket",
    });
    await c.attr.setBlockAttrs({ id: "20260101120000-abcdefg", attrs: {} });
    expect(server.requests).toHaveLength(2);
    expect(server.connections()).toBe(2);
    await c.close();
  });
});
