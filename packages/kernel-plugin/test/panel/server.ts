/**
 * The settings panel test's page server (node:http): the stub page and stub `siyuan` module from
 * this folder at `/`, and the BUILT plugin (`dist/plugin/`) at `/plugin/`.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize, resolve, sep } from "node:path";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".png": "image/png",
  ".md": "text/markdown; charset=utf-8",
};

export interface PanelServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves the stub page and `distPlugin` on a free loopback port. */
export async function servePanel(distPlugin: string): Promise<PanelServer> {
  if (!existsSync(join(distPlugin, "index.js"))) {
    throw new Error(
      `${distPlugin}/index.js is missing: run pnpm --filter @sisyphus/kernel-plugin build first`,
    );
  }
  const roots: [string, string][] = [
    ["/plugin/", distPlugin],
    ["/", import.meta.dirname],
  ];
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    const [prefix, root] = roots.find(([p]) => path.startsWith(p)) as [string, string];
    const rel = path === "/" ? "index.html" : path.slice(prefix.length);
    const file = resolve(root, normalize(rel));
    if (!file.startsWith(root + sep) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
    res.end(readFileSync(file));
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}
