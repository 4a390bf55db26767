/** See `bundle.mjs`: the MCP Bundle of the stdio server. */
/** The bundle's `manifest.json`. */
export function bundleManifest(): Record<string, unknown>;
/** Stages and packs the bundle into `outDir` (default `bundle/`); the `.mcpb` path and its size. */
export function buildBundle(options?: {
  outDir?: string;
  silent?: boolean;
}): Promise<{ file: string; bytes: number }>;
/** A placeholder the host replaces when it starts the server: `${name}`. */
export function hostVar(name: string): string;
