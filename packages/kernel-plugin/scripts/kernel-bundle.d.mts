import type { BuildOptions } from "esbuild";

/** See `kernel-bundle.mjs`: the esbuild options of `kernel.js` (entry, outfile, language level). */
export function kernelBundleOptions(pkg: string, outfile: string): BuildOptions;
