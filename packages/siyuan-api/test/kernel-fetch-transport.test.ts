/**
 * The kernel-fetch transport against a fake `siyuan.client` that speaks real loopback HTTP, with the
 * contract's reply shape. Wire faults come from the scripted wire server.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSiyuanClient, kernelFetchTransport, type SiyuanClient } from "../src/kernel.js";
import { failure, instantSleep } from "./support/failure.js";
import { type FakeSiyuanClient, fakeSiyuanClient } from "./support/fake-siyuan-client.js";
import { ok, refusedPort, startWireServer, type WireServer } from "./support/wire-server.js";

let server: WireServer;
let fake: FakeSiyuanClient;
let client: SiyuanClient;

beforeEach(async () => {
  server = await startWireServer();
  fake = fakeSiyuanClient(server.url, "tok-k");
  client = createSiyuanClient({ transport: kernelFetchTransport(fake), sleep: instantSleep });
});
afterEach(async () => {
  await client.close();
  await server.stop();
});

describe("kernel-fetch transport", () => {
  it("sends a string JSON body with POST and decodes the envelope", async () => {
    server.handle(() =>
      ok({ box: "20260101120000-box0001", name: "Work", conf: { name: "Work", closed: false } }),
    );
    const conf = await client.notebook.getNotebookConf({ notebook: "20260101120000-box0001" });
    expect(conf.name).toBe("Work");
    const req = server.requests[0]!;
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/api/notebook/getNotebookConf");
    expect(req.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(req.body.toString("utf8"))).toEqual({ notebook: "20260101120000-box0001" });
    expect(fake.droppedBodies).toBe(0);
  });

  it("sends multipart uploads as an ArrayBuffer that arrives intact", async () => {
    server.handle(() =>
      ok({ errFiles: null, succMap: { "ü.png": "assets/ü-20260101120000-abcdefg.png" } }),
    );
    const bytes = Uint8Array.from({ length: 300 }, (_, i) => i % 256);
    const r = await client.asset.upload({
      files: [{ filename: "ü.png", bytes, contentType: "image/png" }],
    });
    expect(r.succMap["ü.png"]).toMatch(/^assets\//);
    expect(fake.droppedBodies).toBe(0);
    const req = server.requests[0]!;
    const form = await new Response(req.body, {
      headers: { "content-type": String(req.headers["content-type"]) },
    }).formData();
    const file = form.get("file[]") as File;
    expect(file.name).toBe("ü.png");
    expect(Array.from(new Uint8Array(await file.arrayBuffer()))).toEqual(Array.from(bytes));
  });

  it("getFile returns raw bytes on 200 and null on HTTP 202 + code 404", async () => {
    server.handle((_r, i) =>
      i === 0
        ? {
            kind: "raw",
            status: 200,
            body: Uint8Array.from([0xff, 0, 1]),
            contentType: "application/octet-stream",
          }
        : {
            kind: "json",
            status: 202,
            body: { code: 404, msg: "file does not exist", data: null },
          },
    );
    const f = await client.file.getFile({ path: "/data/x.bin" });
    expect(f && Array.from(f.bytes)).toEqual([0xff, 0, 1]);
    expect(f?.contentType).toBe("application/octet-stream");
    expect(await client.file.getFile({ path: "/data/missing" })).toBeNull();
  });

  it("getFile with HTTP 202 and another code is kernel_rejected", async () => {
    server.handle(() => ({
      kind: "json",
      status: 202,
      body: { code: 403, msg: "permission denied", data: null },
    }));
    const e = await failure(client.file.getFile({ path: "/../etc/passwd" }));
    expect(e.code).toBe("kernel_rejected");
    expect(e.details.kernelCode).toBe(403);
    expect(e.details.httpStatus).toBe(202);
  });

  it("a Go dial error (connection refused) is not_dispatched", async () => {
    const port = await refusedPort();
    const c = createSiyuanClient({
      transport: kernelFetchTransport(fakeSiyuanClient(`http://127.0.0.1:${port}`)),
      sleep: instantSleep,
    });
    const e = await failure(
      c.block.insertBlock({ dataType: "markdown", data: "x", parentID: "20260101120000-abcdefg" }),
    );
    expect(e.code).toBe("not_dispatched");
    expect(e.writeDispatched).toBe(false);
    expect(e.details.attempts).toBe(1);
  });

  it("a reset is outcome_unknown with one write on the wire; a read retries", async () => {
    server.handle(() => ({ kind: "reset" }));
    const e = await failure(
      client.block.updateBlock({ id: "20260101120000-abcdefg", dataType: "markdown", data: "x" }),
    );
    expect(e.code).toBe("outcome_unknown");
    expect(server.requests).toHaveLength(1);
    server.handle((_r, i) => (i === 1 ? { kind: "reset" } : ok(true)));
    expect(await client.block.checkBlockExist({ id: "20260101120000-abcdefg" })).toBe(true);
    expect(server.requests).toHaveLength(3);
  });

  it("no answer within timeoutMs is outcome_unknown (timeout)", async () => {
    const c = createSiyuanClient({
      // Long enough for the request to reach a loaded machine's server before the client gives up.
      transport: kernelFetchTransport(fake, { timeoutMs: 1_000 }),
      sleep: instantSleep,
    });
    server.handle(() => ({ kind: "silence" }));
    const e = await failure(c.notification.pushMsg({ msg: "hi" }));
    expect(e.code).toBe("outcome_unknown");
    expect(e.details.reason).toBe("timeout");
    expect(server.requests).toHaveLength(1);
  });
});
