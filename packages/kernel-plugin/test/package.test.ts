/**
 * The package users install: `dist/package.zip` holds the plugin's files at its root as SiYuan's
 * marketplace and manual install expect, `kernel.js` is one classic script at goja's language level
 * with nothing outside the runtime's globals, and the sandbox host (and its bin) load it.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { checkLanguageLevel, readZip } from "@sisyphus/siyuan-sandbox";
import { describe, expect, it } from "vitest";
import { PACKAGE_ZIP, PLUGIN_NAME } from "./harness.js";

const files = () => readZip(readFileSync(PACKAGE_ZIP));

/** Width and height of a PNG. */
function pngSize(png: Buffer): [number, number] {
  expect(png.subarray(1, 4).toString("latin1")).toBe("PNG");
  return [png.readUInt32BE(16), png.readUInt32BE(20)];
}

describe("dist/package.zip", () => {
  it("holds every file the marketplace expects, at the root", () => {
    const names = [...files().keys()].sort();
    expect(names).toEqual(
      [
        "README.md",
        "i18n/en_US.json",
        "i18n/zh_CN.json",
        "icon.png",
        "index.css",
        "index.js",
        "kernel.js",
        "plugin.json",
        "preview.png",
      ].sort(),
    );
    const manifest = JSON.parse((files().get("plugin.json") as Buffer).toString("utf8"));
    expect(manifest).toMatchObject({
      name: PLUGIN_NAME,
      kernels: ["all"],
      minAppVersion: "3.7.0",
      backends: ["all"],
      frontends: ["all"],
    });
    expect(manifest.displayName.default).toMatch(/Sisyphus/);
    expect(manifest.displayName.zh_CN).toBeTruthy();
    expect(manifest.keywords).toContain("mcp");
    expect(pngSize(files().get("icon.png") as Buffer)).toEqual([160, 160]);
    expect(pngSize(files().get("preview.png") as Buffer)).toEqual([1024, 768]);
    for (const lang of ["en_US", "zh_CN"]) {
      expect(
        JSON.parse((files().get(`i18n/${lang}.json`) as Buffer).toString("utf8")),
      ).toHaveProperty("name");
    }
  });

  it("has a kernel.js that is one classic script at goja's language level", () => {
    const kernel = (files().get("kernel.js") as Buffer).toString("utf8");
    expect(checkLanguageLevel(kernel)).toBeNull();
    // One classic script: no module syntax, no file requires.
    expect(kernel).not.toMatch(/^\s*(import|export)\s/m);
    expect(kernel).not.toMatch(/\brequire\(\s*["'](?!buffer|console|url|util)/);
  });

  it("is served by the sandbox bin given --plugin package.zip", async () => {
    const bin = resolve(
      import.meta.dirname,
      "..",
      "..",
      "siyuan-sandbox",
      "bin",
      "siyuan-sandbox.js",
    );
    const child = spawn(
      process.execPath,
      [bin, "--port", "0", "--token", "t", "--seed", "demo", "--plugin", PACKAGE_ZIP],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    try {
      let out = "";
      const port = await new Promise<number>((done, fail) => {
        const timer = setTimeout(() => fail(new Error(out)), 20_000);
        const read = (c: Buffer) => {
          out += c.toString("utf8");
          const m = /127\.0\.0\.1:(\d+)/.exec(out);
          if (m && out.includes(PLUGIN_NAME)) {
            clearTimeout(timer);
            done(Number(m[1]));
          }
        };
        child.stdout.on("data", read);
        child.stderr.on("data", read);
      });
      const res = await fetch(`http://127.0.0.1:${port}/plugin/private/${PLUGIN_NAME}/health`, {
        headers: { authorization: "Token t" },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ ok: true, authority: "kernel" });
    } finally {
      child.kill("SIGTERM");
    }
  });
});
