import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as mainEntry from "./index.js";
import * as kernelEntry from "./kernel.js";

const here = dirname(fileURLToPath(import.meta.url));

/** Relative imports reachable from a source file, and every bare/`node:` specifier they use. */
function importClosure(entry: string): { files: Set<string>; specifiers: Set<string> } {
  const files = new Set<string>();
  const specifiers = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/^(?:import|export)\s[^;]*?from\s+"([^"]+)";/gms)) {
      const spec = m[1]!;
      if (/^import\s+type\s|^export\s+type\s/.test(m[0])) continue;
      if (spec.startsWith(".")) visit(resolve(dirname(file), spec.replace(/\.js$/, ".ts")));
      else specifiers.add(spec);
    }
  };
  visit(join(here, entry));
  return { files, specifiers };
}

describe("public surface", () => {
  it("the main entry exports the documented runtime names", () => {
    expect(Object.keys(mainEntry).sort()).toEqual(
      [
        "DEFAULT_POOL_CONNECTIONS",
        "DEFAULT_READ_BASE_DELAY_MS",
        "DEFAULT_READ_MAX_ATTEMPTS",
        "DEFAULT_READ_MAX_DELAY_MS",
        "DEFAULT_REQUEST_TIMEOUT_MS",
        "ENDPOINTS",
        "KERNEL_FETCH_TIMEOUT_MS",
        "MAX_READ_ATTEMPTS_LIMIT",
        "NODE_ID_PATTERN",
        "POOL_KEEP_ALIVE_TIMEOUT_MS",
        "RETRYABLE_HTTP_STATUSES",
        "SiyuanApiError",
        "bothBudgets",
        "classifyUndiciError",
        "createCallBudget",
        "createSiyuanClient",
        "encodeMultipart",
        "isSiyuanApiError",
        "kernelFetchTransport",
        "resolveReadRetry",
        "undiciTransport",
      ].sort(),
    );
  });

  it("the kernel entry is the main entry minus the undici transport", () => {
    const expected = Object.keys(mainEntry)
      .filter((k) => k !== "undiciTransport" && k !== "classifyUndiciError")
      .sort();
    expect(Object.keys(kernelEntry).sort()).toEqual(expected);
  });

  it("the kernel entry's import closure uses no Node API and no undici", () => {
    const { files, specifiers } = importClosure("kernel.ts");
    expect(files.size).toBeGreaterThan(5);
    expect([...specifiers].sort()).toEqual(["@sisyphus/core-hash", "zod"]);
    for (const f of files) {
      const text = readFileSync(f, "utf8");
      expect(text, f).not.toMatch(/\bBuffer\b|\bprocess\./);
    }
  });
});
