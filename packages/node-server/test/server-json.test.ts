/**
 * The root `server.json`, the entry for the official MCP registry (issue 33), checked field by field
 * against the registry's documented format (schema 2025-12-11, github.com/modelcontextprotocol/registry
 * `docs/reference/server-json/`; the schema URL is not reachable from CI) and against this
 * repository: the npm packages and versions of the workspace, a stdio and a Streamable HTTP
 * transport, and only flags and environment variables the built server's `--help` names.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { BIN } from "./harness.js";

const ROOT = resolve(import.meta.dirname, "..", "..", "..");
const readJson = (path: string) =>
  JSON.parse(readFileSync(resolve(ROOT, path), "utf8")) as Record<string, unknown>;

interface Input {
  name?: string;
  description?: string;
  value?: string;
  default?: string;
  format?: string;
  isRequired?: boolean;
  isSecret?: boolean;
  variables?: Record<string, Input>;
  type?: string;
  valueHint?: string;
}
interface Package {
  registryType: string;
  registryBaseUrl: string;
  identifier: string;
  version: string;
  runtimeHint?: string;
  transport: { type: string; url?: string; headers?: Input[] };
  packageArguments?: Input[];
  environmentVariables?: Input[];
}

const server = readJson("server.json") as {
  $schema: string;
  name: string;
  title: string;
  description: string;
  version: string;
  repository: { url: string; source: string; subfolder?: string };
  packages: Package[];
};

/** The keys the 2025-12-11 schema defines, per object (the registry rejects others' types). */
const KEYS = {
  server: [
    "$schema",
    "name",
    "title",
    "description",
    "version",
    "repository",
    "websiteUrl",
    "icons",
    "packages",
    "remotes",
    "_meta",
  ],
  repository: ["url", "source", "id", "subfolder"],
  package: [
    "registryType",
    "registryBaseUrl",
    "identifier",
    "version",
    "fileSha256",
    "runtimeHint",
    "transport",
    "runtimeArguments",
    "packageArguments",
    "environmentVariables",
  ],
  transport: ["type", "url", "headers"],
  input: [
    "name",
    "description",
    "value",
    "default",
    "format",
    "choices",
    "placeholder",
    "isRequired",
    "isSecret",
    "variables",
    "type",
    "valueHint",
    "isRepeated",
  ],
};
const FORMATS = ["string", "number", "boolean", "filepath"];

function expectKeys(what: string, obj: object, allowed: readonly string[]) {
  for (const key of Object.keys(obj)) expect(allowed, `${what}: unknown key ${key}`).toContain(key);
}

function expectInput(what: string, input: Input) {
  expectKeys(what, input, KEYS.input);
  if (input.format !== undefined) expect(FORMATS).toContain(input.format);
  for (const [k, v] of Object.entries(input.variables ?? {})) expectInput(`${what}.${k}`, v);
  // Every {placeholder} in a value is one of its variables.
  for (const [, ref] of (input.value ?? "").matchAll(/\{([^}]+)\}/g)) {
    expect(Object.keys(input.variables ?? {}), `${what}: {${ref}}`).toContain(ref);
  }
}

const workspacePackage = (name: string) => {
  const dir = name.replace(/^@sisyphus\//, "packages/");
  return readJson(`${dir}/package.json`) as {
    name: string;
    version: string;
    private?: boolean;
    bin?: Record<string, string>;
    mcpName?: string;
  };
};

describe("server.json for the official MCP registry", () => {
  const help = execFileSync(process.execPath, [BIN, "--help"], { encoding: "utf8" });
  const plugin = readJson("packages/kernel-plugin/plugin/plugin.json") as { url: string };

  it("has the registry's server fields, named after the repository", () => {
    expectKeys("server", server, KEYS.server);
    expect(server.$schema).toBe(
      "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
    );
    expect(server.name).toMatch(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
    expect(server.name.length).toBeLessThanOrEqual(200);
    expect(server.description.length).toBeGreaterThan(0);
    expect(server.description.length).toBeLessThanOrEqual(100);
    expect(server.title.length).toBeLessThanOrEqual(100);
    expectKeys("repository", server.repository, KEYS.repository);
    expect(server.repository).toMatchObject({ url: plugin.url, source: "github" });
    // A GitHub namespace is the repository's owner: io.github.<owner>/<name>.
    const [, owner, repo] = /^https:\/\/github\.com\/([^/]+)\/([^/]+)$/.exec(plugin.url) ?? [];
    expect(server.name).toBe(`io.github.${owner}/${repo}`);
  });

  it("names npm packages of this workspace at their package.json versions; the npm package names the server back (mcpName)", () => {
    expect(server.packages.length).toBeGreaterThan(0);
    for (const p of server.packages) {
      expectKeys(p.identifier, p, KEYS.package);
      expect(p).toMatchObject({
        registryType: "npm",
        registryBaseUrl: "https://registry.npmjs.org",
      });
      const pkg = workspacePackage(p.identifier);
      expect(pkg.name).toBe(p.identifier);
      expect(pkg.private).not.toBe(true);
      expect(p.version).toBe(pkg.version);
      expect(server.version).toBe(pkg.version);
      // `npx <package>` runs its one bin.
      expect(Object.keys(pkg.bin ?? {})).toHaveLength(1);
      expect(pkg.mcpName).toBe(server.name);
    }
  });

  it("offers the stdio and the Streamable HTTP transport, each with the flag that selects it", () => {
    const byType = new Map(server.packages.map((p) => [p.transport.type, p]));
    expect([...byType.keys()].sort()).toEqual(["stdio", "streamable-http"]);
    const flags = (p: Package | undefined) => (p?.packageArguments ?? []).map((a) => a.value);
    expect(flags(byType.get("stdio"))).toContain("--stdio");
    expect(flags(byType.get("streamable-http"))).toContain("--http");
    const http = byType.get("streamable-http") as Package;
    expect(http.transport.url).toMatch(/^http:\/\/127\.0\.0\.1:\{[A-Z_]+\}\/mcp$/);
    // The URL's {placeholder} is an environment variable of that package.
    for (const [, ref] of (http.transport.url ?? "").matchAll(/\{([^}]+)\}/g)) {
      expect((http.environmentVariables ?? []).map((e) => e.name)).toContain(ref);
    }
    expect(http.transport.headers?.map((h) => h.name)).toEqual(["Authorization"]);
    expect(http.transport.headers?.[0]?.value).toMatch(/^Bearer \{/);
    for (const p of server.packages) {
      expectKeys(`${p.transport.type} transport`, p.transport, KEYS.transport);
      for (const h of p.transport.headers ?? []) expectInput(`header ${h.name}`, h);
    }
  });

  it("uses only the flags and environment variables the server's --help names; the token is secret", () => {
    for (const p of server.packages) {
      for (const a of p.packageArguments ?? []) {
        expectInput(`argument ${a.value ?? a.name}`, a);
        expect(["positional", "named"]).toContain(a.type);
        const flag = a.type === "named" ? a.name : a.value;
        expect(flag).toMatch(/^--[a-z-]+$/);
        expect(help, `${flag} in --help`).toMatch(new RegExp(`(^|\\s|\\[)${flag}(\\]|\\s)`, "m"));
      }
      for (const e of p.environmentVariables ?? []) {
        expectInput(`env ${e.name}`, e);
        expect(help, `${e.name} in --help`).toContain(`[${e.name}]`);
      }
      const env = new Map((p.environmentVariables ?? []).map((e) => [e.name, e]));
      expect(env.get("SIYUAN_URL")).toMatchObject({ isRequired: true });
      expect(env.get("SIYUAN_TOKEN")).toMatchObject({ isRequired: true, isSecret: true });
    }
  });
});
