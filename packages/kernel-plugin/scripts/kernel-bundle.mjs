/**
 * The esbuild options of `kernel.js`, shared by the build (`build.mjs`) and the benches' before/after
 * builds (`bench/variant.ts`): one classic script at goja's language level (contract §6), es2022
 * with async iteration lowered and the regex features goja lacks turned into run-time `RegExp`
 * calls.
 */
import { join } from "node:path";

/** Options bundling `<pkg>/src/kernel/main.ts` into `outfile`; callers add minification, maps, logs. */
export function kernelBundleOptions(pkg, outfile) {
  return {
    entryPoints: [join(pkg, "src", "kernel", "main.ts")],
    outfile,
    bundle: true,
    format: "iife",
    platform: "neutral",
    target: "es2022",
    // The SDK's Cloudflare-Workers build (no Node APIs), our packages from their TypeScript sources.
    conditions: ["workerd", "source", "import", "default"],
    mainFields: ["module", "main"],
    supported: {
      "async-generator": false,
      "for-await": false,
      "regexp-match-indices": false,
      "regexp-set-notation": false,
      "regexp-unicode-property-escapes": false,
      "regexp-named-capture-groups": false,
    },
    legalComments: "none",
  };
}
