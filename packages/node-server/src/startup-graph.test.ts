/**
 * The cold start's static module graph: what `server-main.ts` loads before the HTTP socket
 * listens. Everything reached only through `import()` (the MCP half, `mcp-stack.ts`) loads after,
 * so one static import of the tool catalog, the SDK or mcp-tools' index from a pre-listen module
 * moves all of it in front of "listening" (a `SISYPHUS_VERSION` import from mcp-tools' index once
 * did: about a third of the start). esbuild walks the graph the way the executable's bundle does.
 */
import { join, resolve } from "node:path";
import { build, type Plugin } from "esbuild";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname);

/** The inputs of `entry`'s static graph as absolute paths, `import()` targets left out. */
async function staticGraph(entry: string): Promise<string[]> {
  const dynamicOut: Plugin = {
    name: "dynamic-imports-out",
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) =>
        args.kind === "dynamic-import" ? { path: args.path, external: true } : undefined,
      );
    },
  };
  const result = await build({
    entryPoints: [join(SRC, entry)],
    absWorkingDir: SRC,
    bundle: true,
    write: false,
    metafile: true,
    platform: "node",
    format: "cjs",
    conditions: ["source"],
    logLevel: "silent",
    external: ["@sisyphus/siyuan-sandbox", "undici", "@modelcontextprotocol/client"],
    plugins: [dynamicOut],
  });
  // metafile paths are relative to absWorkingDir (and differ with the runner's cwd otherwise)
  return Object.keys(result.metafile.inputs).map((f) => resolve(SRC, f));
}

describe("what a cold start loads before listening", () => {
  it("leaves the MCP SDK, the tool catalog and mcp-tools' index to the MCP half", async () => {
    const inputs = await staticGraph("server-main.ts");
    // The graph is real: the pre-listen shell is in it.
    expect(inputs.some((f) => f.endsWith("node-server/src/http-server.ts"))).toBe(true);
    expect(inputs.some((f) => f.endsWith("mcp-tools/src/shell/admission.ts"))).toBe(true);
    const early = inputs.filter(
      (f) =>
        f.includes("@modelcontextprotocol") ||
        f.endsWith("mcp-tools/src/index.ts") ||
        f.endsWith("mcp-tools/src/catalog.ts") ||
        f.endsWith("node-server/src/mcp-stack.ts"),
    );
    expect(early).toEqual([]);
  });
});
