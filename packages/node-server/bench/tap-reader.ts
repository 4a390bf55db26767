/**
 * The benches' side of `tap.cjs` (the timing tap preloaded into a server under test): what it
 * records, and how a bench asks for it.
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import type { Interval } from "../../../bench/kit.js";

/** The tap to preload with `node --require`. */
export const TAP = resolve(import.meta.dirname, "tap.cjs");

/** One interval the tap recorded (monotonic ms): an MCP request, a kernel call, the settings read, an fsync, a profile. */
export type TapRecord = Interval & {
  kind: "mcp" | "kernel" | "settings" | "fsync" | "cpu";
  path?: string;
};

/**
 * Asks the server's tap for its records (SIGUSR2: it writes them to `tapFile` and starts afresh)
 * and reads them.
 */
export async function dumpTap(s: { child: ChildProcess; tapFile: string }): Promise<TapRecord[]> {
  rmSync(s.tapFile, { force: true });
  s.child.kill("SIGUSR2");
  for (let i = 0; i < 500 && !existsSync(s.tapFile); i++)
    await new Promise((r) => setTimeout(r, 5));
  const records = JSON.parse(readFileSync(s.tapFile, "utf8")) as TapRecord[];
  rmSync(s.tapFile);
  return records;
}
