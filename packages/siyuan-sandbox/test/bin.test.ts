import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { DEMO_IDS, takeRepoRequests } from "../src/index.js";

const BIN = fileURLToPath(new URL("../src/bin.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "siyuan-sandbox-bin-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[]) {
  const child = spawn(process.execPath, ["--import", "tsx", "--conditions=source", BIN, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (c: string) => {
      out += c;
      const m = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    void exited.then((code) => reject(new Error(`exited ${code}`)));
  });
  return { child, exited, url };
}

describe("siyuan-sandbox bin", () => {
  it("serves the demo seed, persists to --data-dir and stops on SIGTERM", async () => {
    const p = run(["--port", "0", "--token", "bin-token", "--seed", "demo", "--data-dir", dir]);
    const url = await p.url;
    const r = await fetch(`${url}/api/attr/getBlockAttrs`, {
      method: "POST",
      headers: { authorization: "Token bin-token" },
      body: JSON.stringify({ id: DEMO_IDS.paragraphStatus }),
    });
    expect(((await r.json()) as { data: Record<string, string> }).data["custom-status"]).toBe(
      "draft",
    );
    p.child.kill("SIGTERM");
    expect(await p.exited).toBe(0);
    expect(existsSync(join(dir, "data", DEMO_IDS.notebookResearch, `${DEMO_IDS.docPlan}.sy`))).toBe(
      true,
    );
  });

  it("reports /api/repo/* requests to the suite's audit across processes", async () => {
    const p = run(["--port", "0", "--token", "bin-token"]);
    const url = await p.url;
    await fetch(`${url}/api/repo/createSnapshot`, {
      method: "POST",
      headers: { authorization: "Token bin-token" },
      body: "{}",
    });
    p.child.kill("SIGTERM");
    await p.exited;
    // Taking them here clears the audit, so the shared after-each check passes.
    expect(takeRepoRequests()).toEqual(["/api/repo/createSnapshot"]);
  });

  it("refuses to start without --token", async () => {
    const p = run(["--port", "0"]);
    p.url.catch(() => {});
    expect(await p.exited).toBe(2);
  });
});
