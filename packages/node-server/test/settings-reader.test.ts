/**
 * The settings read every runtime makes before choosing its authority and before every strict
 * call (`settings-reader.ts`), against the sandbox kernel over loopback: each answer of
 * `/api/file/getFile` maps to one outcome, and a kernel that does not answer in time is
 * `unreachable`, never a default.
 */
import { createSiyuanClient, undiciTransport } from "@sisyphus/siyuan-api";
import { type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { readSettings } from "../src/settings-reader.js";

const SETTINGS = "/data/storage/petal/siyuan-plugins-mcp-sisyphus/settings.json";
const GET_FILE = "/api/file/getFile";
let sandbox: Sandbox;

const files = () =>
  createSiyuanClient({
    transport: undiciTransport({ baseUrl: sandbox.url, token: sandbox.token }),
  });

async function putSettings(text: string): Promise<void> {
  await files().file.putFile({ path: SETTINGS, file: text });
}

beforeAll(async () => {
  sandbox = await startSandbox({ seed: "demo" });
});
afterAll(async () => {
  await sandbox.stop();
});
afterEach(async () => {
  sandbox.control.clearFaults();
  await putSettings("{}");
});

describe("readSettings", () => {
  it("reads the file: the kernel endpoint switch selects the authority", async () => {
    await putSettings(JSON.stringify({ kernelEndpointEnabled: true, strictSafeWrites: false }));
    const read = await readSettings(sandbox.url, sandbox.token, 2_000);
    expect(read).toMatchObject({ ok: true, kind: "kernel" });
    expect(read.ok && read.settings.strictSafeWrites).toBe(false);
    await putSettings(JSON.stringify({ kernelEndpointEnabled: false }));
    expect(await readSettings(sandbox.url, sandbox.token, 2_000)).toMatchObject({
      ok: true,
      kind: "node-http",
    });
  });

  it("takes a missing file (getFile's HTTP 202, code 404) as the defaults", async () => {
    await files().file.removeFile({ path: SETTINGS });
    const read = await readSettings(sandbox.url, sandbox.token, 2_000);
    expect(read).toMatchObject({ ok: true, kind: "node-http" });
    expect(read.ok && read.settings.strictSafeWrites).toBe(true);
  });

  it("says unauthorized for a refused token and invalid for a file that is not settings", async () => {
    expect(await readSettings(sandbox.url, "wrong-token", 2_000)).toMatchObject({
      ok: false,
      reason: "unauthorized",
    });
    await putSettings("{ not json");
    expect(await readSettings(sandbox.url, sandbox.token, 2_000)).toMatchObject({
      ok: false,
      reason: "invalid",
    });
  });

  it("is unreachable when nothing listens, when the kernel answers 5xx and when it is too slow", async () => {
    const down = await readSettings("http://127.0.0.1:9", sandbox.token, 2_000);
    expect(down).toMatchObject({ ok: false, reason: "unreachable" });
    expect(!down.ok && down.message).toContain("127.0.0.1:9");
    sandbox.control.armFault({ endpoint: GET_FILE, kind: "http5xx" });
    expect(await readSettings(sandbox.url, sandbox.token, 2_000)).toMatchObject({
      ok: false,
      reason: "unreachable",
    });
    sandbox.control.clearFaults();
    sandbox.control.armFault({ endpoint: GET_FILE, kind: "delay", delayMs: 1_500 });
    expect(await readSettings(sandbox.url, sandbox.token, 200)).toMatchObject({
      ok: false,
      reason: "unreachable",
    });
  });
});
