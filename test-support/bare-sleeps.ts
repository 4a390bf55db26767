/**
 * The rule "tests wait on events, not on time", as a check: no test file sleeps. A sleep is a
 * `setTimeout` handed a bare identifier as its callback (`new Promise((r) => setTimeout(r, n))`),
 * a call of something named `sleep`, or an import of `timers/promises`. Every wait goes through
 * `waitFor` / `observeQuietFor` of `@sisyphus/siyuan-sandbox/testing` instead, which have a deadline
 * and a message. Run by `packages/siyuan-sandbox/test/no-bare-sleeps.test.ts`; imported by relative
 * path (test tooling, not a workspace package).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

/** The repository's root directory. */
export const REPO_ROOT = resolve(import.meta.dirname, "..");

/** One sleep found: where, and the line as written. */
export interface BareSleep {
  /** Path from the repository root, `/`-separated. */
  readonly file: string;
  /** 1-based line of the match's start. */
  readonly line: number;
  /** The matched text, whitespace collapsed. */
  readonly text: string;
}

/**
 * The forms the rule forbids. The callback of a `setTimeout` that resolves a promise is a bare
 * identifier (`r`, `resolve`); a timer that does work has an arrow function or a method there.
 */
const SLEEP_FORMS: readonly RegExp[] = [
  /\bsetTimeout\(\s*[A-Za-z_$][\w$]*\s*,/g,
  /\bsleep\s*\(/g,
  /timers\/promises/g,
];

/** Folders never scanned: dependencies, build output, and plugin code the tests load. */
const SKIPPED_DIRS = new Set(["node_modules", "dist", ".turbo", "fixtures", "goja-host"]);

/** Whether `file` (from the root) is test code: a test, suite or setup file, or under `test/`. */
export function isTestFile(file: string): boolean {
  if (!/\.(ts|mts|js|mjs)$/.test(file)) return false;
  return /\.(test|suite|setup)\.[mc]?[jt]s$/.test(file) || /(^|\/)test\//.test(file);
}

function walk(dir: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith(".") || SKIPPED_DIRS.has(entry.name)) continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else out.push(full);
  }
}

/** The sleeps in one file's `source`. */
export function bareSleepsIn(file: string, source: string): BareSleep[] {
  const found: BareSleep[] = [];
  for (const form of SLEEP_FORMS) {
    for (const m of source.matchAll(form)) {
      const line = source.slice(0, m.index).split("\n").length;
      found.push({ file, line, text: m[0].replace(/\s+/g, " ") });
    }
  }
  return found.sort((a, b) => a.line - b.line);
}

/** Every sleep in the test files under `packages/` (`test-support/` holds no test). */
export function findBareSleeps(root: string = REPO_ROOT): BareSleep[] {
  const files: string[] = [];
  walk(join(root, "packages"), files);
  const found: BareSleep[] = [];
  for (const full of files) {
    const file = relative(root, full).split("\\").join("/");
    if (!isTestFile(file)) continue;
    found.push(...bareSleepsIn(file, readFileSync(full, "utf8")));
  }
  return found;
}
