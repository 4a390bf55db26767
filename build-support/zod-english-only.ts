/**
 * An esbuild plugin for the bundles that start a process (the Node server's executable, the CLI).
 */
import { dirname, join } from "node:path";

// zod (its classic API and its core) re-exports every locale as the `locales` namespace (~360 KB of
// the bundle, about half of zod), although only English, which zod installs by itself, is ever used
// here. Bundling the namespace with `en` only keeps the rest out of every cold start's parse.
export const zodEnglishOnly = {
  name: "zod-english-only",
  setup(build: {
    onResolve(
      o: { filter: RegExp },
      cb: (a: {
        path: string;
        importer: string;
      }) => { path: string; namespace: string } | undefined,
    ): void;
    onLoad(
      o: { filter: RegExp; namespace: string },
      cb: (a: { path: string }) => { contents: string; resolveDir: string },
    ): void;
  }) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic|mini|core)[\\/]/.test(args.importer)
        ? { path: join(dirname(args.importer), "..", "locales", "en.js"), namespace: "zod-en" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "zod-en" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: dirname(args.path),
    }));
  },
};
