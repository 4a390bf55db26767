/**
 * What a tool call's start loads: the chunks `dist/cli.cjs` requires at its top level, chunk by
 * chunk (a command other than a call, and the schema check, are required later, inside
 * `Promise.resolve().then(…)`: the CommonJS form of a dynamic import). Neither zod nor the
 * catalog may be among them (docs/decisions.md D-255): a barrel of theirs imported on this path
 * would put them back into every start.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const DIST = resolve(import.meta.dirname, "..", "dist");

/** The chunk files `file` requires at its top level (a statement of its own), transitively. */
function staticGraph(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(join(DIST, file), "utf8");
  for (const m of text.matchAll(/^(?:var \w+ = )?require\(['"]\.\/([^'"]+)['"]\);$/gm)) {
    staticGraph(m[1] as string, seen);
  }
  return seen;
}

describe("the start of a tool call", () => {
  const files = [...staticGraph("cli.cjs")];
  const text = files.map((f) => readFileSync(join(DIST, f), "utf8")).join("\n");

  it("loads neither zod nor the catalog", () => {
    expect(files.length).toBeGreaterThan(1);
    expect(text).not.toMatch(/zod@|ZodError/);
    // The catalog's module (its source path is in esbuild's module comments).
    expect(text).not.toContain("mcp-tools/src/catalog.ts");
    // The action index it parses the command line with is there instead.
    expect(text).toContain("src/action-index.generated.ts");
  });

  it("loads neither node:crypto nor node:fs/promises (D-270)", () => {
    // Each cost a start milliseconds; only starting an authority, the kernel link and the other
    // commands need them, and those are required later.
    expect(text).toMatch(/require\('http'\)/);
    expect(text).not.toMatch(/require\(['"](?:node:)?(?:crypto|fs\/promises)['"]\)/);
  });

  it("leaves the schema check and the other commands to one dynamic import", () => {
    const dynamic = [
      ...text.matchAll(
        /Promise\.resolve\(\)\.then\(\(\) => \w+\(require\("\.\/(lazy-[A-Z0-9]+\.cjs)"\)\)\)/g,
      ),
    ].map((m) => m[1]);
    expect(dynamic.length).toBeGreaterThan(0);
    const lazyGraph = [...staticGraph(dynamic[0] as string)]
      .map((f) => readFileSync(join(DIST, f), "utf8"))
      .join("\n");
    expect(lazyGraph).toContain("src/flags.ts");
    expect(lazyGraph).toContain("src/commands/catalog-views.ts");
    expect(lazyGraph).toMatch(/ZodError/);
  });
});
