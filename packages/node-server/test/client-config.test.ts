/**
 * "Client configuration that works when pasted" (issue 13): the MCP client configuration the
 * embedded demo prints is parsed as JSON and used as is — the official client connects with the
 * HTTP entry's URL and headers, and launches the stdio entry's command, and through each commits a
 * strict write on a block it discovers through the tools — and the root README shows the same
 * configuration.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEnv, BIN, sc, tempDataDir } from "./harness.js";

interface ServerEntry {
  type: string;
  url: string;
  headers: Record<string, string>;
}
interface StdioEntry {
  type: string;
  command: string;
  args: string[];
  env: Record<string, string>;
}
interface ClientConfig {
  mcpServers: Record<string, ServerEntry | StdioEntry>;
}

/** The key structure of a JSON value (`"string"` for every leaf string). */
function shape(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(shape);
  if (v !== null && typeof v === "object")
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shape(x)]));
  return typeof v;
}

/** The root README's ```json block that holds `mcpServers`. */
function readmeConfig(): ClientConfig {
  const readme = readFileSync(resolve(import.meta.dirname, "..", "..", "..", "README.md"), "utf8");
  const block = [...readme.matchAll(/```json\n([\s\S]*?)\n```/g)]
    .map((m) => m[1] as string)
    .find((b) => b.includes('"mcpServers"'));
  expect(block, "the README has no ```json block with mcpServers").toBeDefined();
  return JSON.parse(block as string) as ClientConfig;
}

describe("the printed client configuration", () => {
  let child: ReturnType<typeof spawn>;
  let printed: ClientConfig;

  beforeAll(async () => {
    child = spawn(process.execPath, [BIN, "--port", "0", "--data-dir", tempDataDir()], {
      env: { PATH: process.env["PATH"] ?? "", ...auditEnv() },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stderr?.setEncoding("utf8");
    await new Promise<void>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(out)), 20_000);
      child.stderr?.on("data", (c: string) => {
        out += c;
        if (/"mcpServers"[\s\S]*\n}\n/.test(out)) {
          clearTimeout(timer);
          done();
        }
      });
    });
    // Everything from the line that opens the configuration to the line that closes it.
    const start = out.indexOf("\n{\n") + 1;
    const end = out.indexOf("\n}\n", start) + 2;
    printed = JSON.parse(out.slice(start, end)) as ClientConfig;
  });

  afterAll(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    }
  });

  it("is an HTTP entry with the bearer header and a stdio entry, and the README shows the same ones", () => {
    const names = Object.keys(printed.mcpServers);
    expect(names).toEqual(["sisyphus", "sisyphus-stdio"]);
    const entry = printed.mcpServers["sisyphus"] as ServerEntry;
    expect(entry.type).toBe("http");
    expect(entry.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(entry.headers["Authorization"]).toMatch(/^Bearer [0-9a-f]{48}$/);
    const readme = readmeConfig();
    expect(shape(readme)).toEqual(shape(printed));
    const documented = readme.mcpServers["sisyphus"] as ServerEntry;
    expect(documented.type).toBe(entry.type);
    expect(documented.url).toBe("http://127.0.0.1:36806/mcp");
    expect(documented.headers["Authorization"]).toMatch(/^Bearer /);
    const stdio = printed.mcpServers["sisyphus-stdio"] as StdioEntry;
    expect(stdio.type).toBe("stdio");
    expect(stdio.command).toBe(process.execPath);
    expect(stdio.args[0]).toBe(BIN);
    expect(stdio.args.slice(1, 3)).toEqual(["--stdio", "--siyuan-url"]);
    expect(Object.keys(stdio.env)).toEqual(["SIYUAN_TOKEN"]);
    const documentedStdio = readme.mcpServers["sisyphus-stdio"] as StdioEntry;
    expect(documentedStdio.args.slice(1)).toEqual([
      "--stdio",
      "--siyuan-url",
      "http://127.0.0.1:6806",
      "--data-dir",
      expect.stringContaining(".sisyphus"),
    ]);
  });

  /** Finds a paragraph through the tools and commits a strict update of it; the commit's content. */
  async function strictWriteThrough(client: Client, text: string) {
    const call = async (args: Record<string, unknown>, name = "block") => {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, JSON.stringify(sc(result))).not.toBe(true);
      return sc(result);
    };
    const notebooks = (await call({ action: "list" }, "notebook"))["notebooks"] as Array<{
      id: string;
    }>;
    const tree = await call(
      { action: "list_tree", notebook: (notebooks[0] as { id: string }).id },
      "document",
    );
    const docId = /"id":"(\d{14}-[0-9a-z]{7})"/.exec(JSON.stringify(tree))?.[1] as string;
    expect(docId).toBeDefined();
    const children = (await call({ action: "get_children", id: docId }))["children"] as Array<{
      id: string;
      type: string;
    }>;
    const paragraph = children.find((c) => c.type === "p") as { id: string };
    expect(paragraph).toBeDefined();
    const args = { action: "update", id: paragraph.id, dataType: "markdown", data: text };
    const pre = await call({ ...args, validateOnly: true });
    const field = pre["preconditionField"] as string;
    return call({ ...args, requestId: pre["requestId"], [field]: pre[field] });
  }

  it("connects as pasted and commits a strict write on a block found through the tools", async () => {
    const entry = printed.mcpServers["sisyphus"] as ServerEntry;
    const client = new Client({ name: "pasted-config", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(entry.url), {
        requestInit: { headers: entry.headers },
      }),
    );
    const commit = await strictWriteThrough(client, "Pasted.");
    expect(commit["status"]).toBe("committed");
    expect(commit["executedNow"]).toBe(true);
    await client.close();
  });

  it("launches the stdio entry as pasted, which delegates to the running demo authority and commits", async () => {
    const entry = printed.mcpServers["sisyphus-stdio"] as StdioEntry;
    const client = new Client({ name: "pasted-stdio-config", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({ command: entry.command, args: entry.args, env: entry.env }),
    );
    const commit = await strictWriteThrough(client, "Pasted through stdio.");
    expect(commit["status"]).toBe("committed");
    expect(commit["executedNow"]).toBe(true);
    await client.close();
  });
});
