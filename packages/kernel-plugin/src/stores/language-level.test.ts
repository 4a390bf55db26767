import { createContext, runInContext } from "node:vm";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

// The stores are bundled into the goja kernel script (contract §6, "Language level"). Bundle them
// the way the kernel bundle is built and run them in a bare V8 context that lacks every Web/Node
// API goja lacks: any use of TextEncoder, crypto, fetch, timers, structuredClone, Intl, … fails.
describe("language level", () => {
  it("the stores bundle as a classic script and run without Web or Node APIs", async () => {
    const out = await build({
      stdin: {
        contents: 'export * from "./index.ts";',
        resolveDir: import.meta.dirname,
        loader: "ts",
      },
      bundle: true,
      write: false,
      format: "iife",
      globalName: "Stores",
      target: "es2022",
      conditions: ["source"],
      supported: {
        "async-generator": false,
        "for-await": false,
        "regexp-named-capture-groups": false,
        "regexp-unicode-property-escapes": false,
        "regexp-match-indices": false,
        "regexp-set-notation": false,
      },
      logLevel: "silent",
    });
    const code = out.outputFiles[0]!.text;
    const context = createContext({});
    // A V8 context still has these; goja 3.7.3 does not.
    runInContext(
      "for (const n of ['Intl','SharedArrayBuffer','Atomics','WeakRef','FinalizationRegistry']) delete globalThis[n];",
      context,
    );
    const script = `${code}
      (async () => {
        const storage = new Stores.MemoryPluginStorage();
        const ledger = await Stores.SegmentLedgerStore.open(storage, { maxSegmentBytes: 512 });
        for (let i = 0; i < 20; i++) await ledger.put({ requestId: "r" + (i % 5), n: i, note: "\\u00e9\\ud83d" });
        await ledger.delete(["r1", "r2"]);
        const reservations = await Stores.SegmentReservationStore.open(storage, { maxSegmentBytes: 256 });
        for (let i = 0; i < 50; i++) await reservations.append((0x10000 + i).toString(16));
        const l = await (await Stores.SegmentLedgerStore.open(storage, { maxSegmentBytes: 512 })).loadAll();
        const r = await (await Stores.SegmentReservationStore.open(storage, { maxSegmentBytes: 256 })).loadAll();
        return JSON.stringify({ ledger: l.map((e) => e.requestId + ":" + e.n + ":" + e.note).sort(), reservations: r.length });
      })()`;
    const result = JSON.parse(await runInContext(script, context));
    expect(result).toEqual({
      ledger: ["r0:15:\u00e9\ud83d", "r3:18:\u00e9\ud83d", "r4:19:\u00e9\ud83d"],
      reservations: 50,
    });
    for (const name of [
      "TextEncoder",
      "TextDecoder",
      "crypto",
      "fetch",
      "AbortController",
      "structuredClone",
      "queueMicrotask",
      "setTimeout",
      "process",
      "Buffer",
    ]) {
      expect(code).not.toMatch(new RegExp(`\\b${name}\\b`));
    }
  });
});
