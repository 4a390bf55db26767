/**
 * The MCP conformance suite's fixtures (src/fixtures.ts) exist only in this package's test artefact
 * `test-artifacts/conformance-server.cjs`: node-server's production bundle holds none of them and
 * its production executable cannot be made to serve them, while the artefact serves them through
 * the same HTTP shell (authentication included). Uses node-server's test harness (spawned servers).
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  httpClient,
  killAll,
  spawnAuthority,
  TOOL_NAMES,
  tempDataDir,
} from "../../node-server/test/harness.js";

const HERE = resolve(import.meta.dirname, "..");
/** node-server: the production package whose `dist/` and manifest must hold no fixture. */
const PKG = resolve(HERE, "..", "node-server");
const ARTEFACT = join(HERE, "test-artifacts", "conformance-server.cjs");
/** Names only the fixtures use: a tool, a prompt, a resource and the module's export. */
const FIXTURE_MARKERS = [
  "test_simple_text",
  "test_simple_prompt",
  "test://static-text",
  "conformanceFixtures",
];
/** Settings someone might try on the production executable: none of them exists there. */
const TRIED_ENV = {
  SISYPHUS_CONFORMANCE: "1",
  SISYPHUS_CONFORMANCE_FIXTURES: "1",
  NODE_ENV: "test",
};
const KERNEL_DOWN = { siyuanUrl: "http://127.0.0.1:9", siyuanToken: "none" };

beforeAll(() => {
  execFileSync("pnpm", ["run", "build:server"], {
    cwd: HERE,
    stdio: "ignore",
    timeout: 120_000,
  });
}, 150_000);

afterAll(killAll);

describe("the conformance fixtures are a test artefact only", () => {
  it("are in the artefact and in no file of the production dist/", () => {
    const artefact = readFileSync(ARTEFACT, "utf8");
    for (const marker of FIXTURE_MARKERS) expect(artefact).toContain(marker);
    const dist = join(PKG, "dist");
    const files = readdirSync(dist).filter((f) => /\.(c?js|d\.ts)$/.test(f));
    expect(files).toContain("server.cjs");
    for (const file of files) {
      const text = readFileSync(join(dist, file), "utf8");
      for (const marker of FIXTURE_MARKERS) {
        expect(text.includes(marker), `${file} contains ${marker}`).toBe(false);
      }
    }
  });

  it("are reached by no bin, export or published file of the package", () => {
    const pkg = JSON.parse(readFileSync(join(PKG, "package.json"), "utf8")) as Record<
      string,
      unknown
    >;
    const shipped = JSON.stringify([
      pkg["bin"],
      pkg["exports"],
      pkg["publishConfig"],
      pkg["files"],
    ]);
    expect(shipped).not.toMatch(/conformance|test-artifacts/);
  });

  it("the production executable serves none of them, whatever the environment", async () => {
    const authority = await spawnAuthority({
      dataDir: tempDataDir(),
      ...KERNEL_DOWN,
      env: TRIED_ENV,
    });
    for (const era of ["modern", "legacy"] as const) {
      const client = await httpClient(authority.url, { era });
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
      // No prompts capability: the client lists none (it does not even ask).
      expect((await client.listPrompts()).prompts).toEqual([]);
      const call = await client.callTool({ name: "test_simple_text", arguments: {} }).then(
        (r) => JSON.stringify(r),
        (e: Error) => e.message,
      );
      expect(call).toMatch(/Tool test_simple_text not found/);
      await client.close();
    }
    await authority.stop();
  });

  it("the artefact serves them through the same HTTP shell, after the SiYuan tools", async () => {
    const authority = await spawnAuthority({
      dataDir: tempDataDir(),
      ...KERNEL_DOWN,
      bin: ARTEFACT,
    });
    // The shell's authentication holds for the fixtures too.
    await expect(
      httpClient(authority.url, { era: "modern", token: "wrong-token-0123456789" }),
    ).rejects.toThrow();
    for (const era of ["modern", "legacy"] as const) {
      const client = await httpClient(authority.url, { era });
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names.slice(0, TOOL_NAMES.length).sort()).toEqual(TOOL_NAMES);
      expect(names).toContain("test_simple_text");
      const result = await client.callTool({ name: "test_simple_text", arguments: {} });
      expect(result.content).toEqual([
        { type: "text", text: "This is a simple text response for testing." },
      ]);
      expect((await client.listPrompts()).prompts.map((p) => p.name)).toContain(
        "test_simple_prompt",
      );
      await client.close();
    }
    await authority.stop();
  });
});
