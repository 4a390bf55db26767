/**
 * The package runs where the kernel plugin runs: a bare JavaScript context with no module loader,
 * console, timers, TextEncoder or Node API. Bundles `src/index.ts` (with core-hash inlined) as one
 * classic script, evaluates it in an empty `node:vm` context, and drives a full strict
 * preflight → commit → replay → state_changed sequence there.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";
import { beforeAll, describe, expect, it } from "vitest";

const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
// A private output directory: a concurrent `tsup` build of this package cleans `dist/`.
const OUT_DIR = mkdtempSync(join(tmpdir(), "write-safety-bare-"));
const BUNDLE = join(OUT_DIR, "index.global.js");
const FORBIDDEN = [
  "require",
  "process",
  "Buffer",
  "TextEncoder",
  "crypto",
  "setTimeout",
  "console",
];

let context: vm.Context;

beforeAll(() => {
  const require = createRequire(import.meta.url);
  const tsupCli = join(dirname(require.resolve("tsup/package.json")), "dist", "cli-default.js");
  execFileSync(process.execPath, [tsupCli, "--config", "test/tsup.bare.config.ts"], {
    cwd: PACKAGE_DIR,
    stdio: "pipe",
    env: { ...process.env, WRITE_SAFETY_BARE_OUT_DIR: OUT_DIR },
  });
  context = vm.createContext({});
  // No console, and none of the ES2022 builtins the kernel plugin host may lack.
  vm.runInContext(
    "delete globalThis.console; delete Object.hasOwn; delete Array.prototype.at;",
    context,
  );
  vm.runInContext(readFileSync(BUNDLE, "utf8"), context, { filename: BUNDLE });
  rmSync(OUT_DIR, { recursive: true, force: true });
}, 90_000);

describe("bundled write-safety in a bare JavaScript context", () => {
  it("has none of the host globals", () => {
    const present = vm.runInContext(
      `${JSON.stringify(FORBIDDEN)}.filter((n) => typeof globalThis[n] !== "undefined")`,
      context,
    ) as string[];
    expect(present).toEqual([]);
  });

  it("preflights, commits once, replays and detects a changed state", async () => {
    const result = (await vm.runInContext(
      `(async () => {
        const ws = SisyphusWriteSafety;
        let t = 1786543200000, seed = 1;
        const clock = { now: () => t };
        const random = { nextInt: (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; } };
        const coordinator = await ws.createWriteCoordinator({ clock, random, epoch: "vm",
          ledgerStore: new ws.MemoryLedgerStore(), reservationStore: new ws.MemoryReservationStore() });
        const hex = (c) => "sha256:v1:" + c.repeat(64);
        let state = hex("a"), writes = 0;
        const call = (extra) => ({ tool: "block", action: "update", policy: ws.mutationPolicy("state"),
          args: Object.assign({ id: "b1", data: "new" }, extra), targetIds: ["b1"] });
        const hooks = { probe: async () => ({ digest: state }),
          execute: async () => { writes++; state = hex("b"); return { receipt: { targetCount: 1 } }; },
          readback: async () => ({ outcome: "applied", digest: state }) };
        const pre = await coordinator.preflight(call({ validateOnly: true }), hooks.probe);
        const args = { requestId: pre.requestId, expectedStateHash: pre.expectedStateHash };
        const first = await coordinator.commit(call(args), hooks);
        const replay = await coordinator.commit(call(args), hooks);
        const pre2 = await coordinator.preflight(call({ validateOnly: true }), hooks.probe);
        state = hex("c");
        let changed;
        try { await coordinator.commit(call({ requestId: pre2.requestId, expectedStateHash: pre2.expectedStateHash }), hooks); }
        catch (e) { changed = { code: e.code, guard: ws.isWriteSafetyError(e) }; }
        return { first, replay, changed, writes, health: coordinator.health() };
      })()`,
      context,
    )) as Record<string, unknown>;
    expect(JSON.parse(JSON.stringify(result))).toMatchObject({
      first: {
        status: "committed",
        targetCount: 1,
        writeSafetyGuaranteed: true,
        executedNow: true,
      },
      replay: { status: "committed", replayed: true, executedNow: false },
      changed: { code: "state_changed", guard: true },
      writes: 1,
      health: { inFlight: 0, ledgerEntries: 2 },
    });
  });
});
