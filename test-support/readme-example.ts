/**
 * README examples that cannot rot. A package README holds one TypeScript block (```ts); the same
 * code is the `//#region readme` … `//#endregion` part of the package's
 * `examples/readme.examples.ts`, which the package's `typecheck` compiles. Each package's
 * `test/readme-example.test.ts` compares the two through {@link readmeExample}; this file is the
 * one shared helper (imported by relative path: it is test tooling, not a workspace package).
 */
import { readFileSync } from "node:fs";

/** The README's example and the compiled region, each without trailing blank space. */
export interface ReadmeExample {
  /** The body of the README's one ```ts block. */
  readonly readme: string;
  /** The `readme` region of `examples/readme.examples.ts`, dedented. */
  readonly examples: string;
}

const TS_BLOCK = /^```ts\n([\s\S]*?)^```$/gm;
const REGION = /^([ \t]*)\/\/#region readme\n([\s\S]*?)^[ \t]*\/\/#endregion/m;

/** The body of the one ```ts block of `markdown`; throws when there is none or more than one. */
export function tsBlockOf(markdown: string, file: string): string {
  const blocks = [...markdown.matchAll(TS_BLOCK)].map((m) => m[1] ?? "");
  if (blocks.length !== 1) {
    throw new Error(`${file}: expected exactly one \`\`\`ts block, found ${blocks.length}`);
  }
  return trimEnd(blocks[0] ?? "");
}

/**
 * The `//#region readme` of `source`, with the indentation of its `//#region` line removed from
 * every line (so a region inside a function body reads as top-level code); throws when absent.
 */
export function readmeRegionOf(source: string, file: string): string {
  const m = REGION.exec(source);
  if (m === null) throw new Error(`${file}: no //#region readme … //#endregion`);
  const indent = m[1] ?? "";
  const lines = (m[2] ?? "")
    .split("\n")
    .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l));
  return trimEnd(lines.join("\n"));
}

/** Reads `README.md` and `examples/readme.examples.ts` of the package at `packageDir`. */
export function readmeExample(packageDir: URL): ReadmeExample {
  const readmeUrl = new URL("README.md", packageDir);
  const examplesUrl = new URL("examples/readme.examples.ts", packageDir);
  return {
    readme: tsBlockOf(readFileSync(readmeUrl, "utf8"), readmeUrl.pathname),
    examples: readmeRegionOf(readFileSync(examplesUrl, "utf8"), examplesUrl.pathname),
  };
}

function trimEnd(text: string): string {
  return text.replace(/\s+$/, "");
}
