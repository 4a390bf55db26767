/**
 * system.conf against the sandbox kernel over loopback, and its allow-list over a configuration
 * shaped like SiYuan 3.7.3's with every secret filled in: the summary carries the named settings
 * and none of the secrets, host paths or addresses `getConf` answers.
 */
import { describe, expect, it } from "vitest";
import { CONF_SUMMARY_FIELDS, confSummary } from "../src/tools/conf-summary.js";
import { useHarness } from "./harness.js";

const h = useHarness();

/** Every string of a JSON value, at any depth. */
function stringsOf(v: unknown): string[] {
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) return v.flatMap(stringsOf);
  if (v !== null && typeof v === "object") return Object.values(v).flatMap(stringsOf);
  return [];
}

describe("system.conf", () => {
  it("answers SiYuan's settings by the allow-list, as the kernel holds them", async () => {
    const r = await h.call("system", { action: "conf" });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    expect(r.structuredContent).toEqual({
      system: {
        kernelVersion: "3.7.3",
        os: process.platform === "win32" ? "windows" : process.platform,
        container: "std",
      },
      lang: "en",
      readonly: false,
      appearance: { mode: 0 },
      fileTree: { sort: 6, maxListCount: 512, createDocAtTop: false },
      search: { limit: 64, caseSensitive: false },
      editor: {
        readOnly: false,
        historyRetentionDays: 30,
        generateHistoryInterval: 10,
        blockRefDynamicAnchorTextMaxLen: 96,
      },
      sync: { enabled: false },
    });
  });

  it("hands on none of the secrets the kernel's conf holds", async () => {
    const { conf } = await h.client.system.getConf();
    const secrets = [
      h.sandbox.token,
      String(conf["cookieKey"]),
      ...stringsOf(conf["export"]).filter((s) => s.includes("/")),
      ...stringsOf(conf["serverAddrs"]),
    ];
    expect(secrets.every((s) => s.length > 4)).toBe(true);
    const r = await h.call("system", { action: "conf" });
    const answer = JSON.stringify([r.structuredContent, r.content]);
    for (const s of secrets) expect(answer).not.toContain(s);
  });
});

describe("confSummary", () => {
  /** A conf shaped like SiYuan 3.7.3's `getConf`, every secret and host path filled in. */
  const secretConf = {
    lang: "zh_CN",
    readonly: true,
    accessAuthCode: "SECRET-access-code",
    cookieKey: "SECRET-cookie-key",
    mcpOAuth: "SECRET-mcp-oauth",
    userData: "SECRET-user-data",
    serverAddrs: ["http://192.0.2.7:6806"],
    api: { token: "SECRET-api-token" },
    repo: { key: "SECRET-repo-key" },
    secrets: { items: [{ name: "x", value: "SECRET-item" }] },
    sync: {
      enabled: true,
      s3: { accessKey: "SECRET-s3-access", secretKey: "SECRET-s3-secret" },
      webdav: { username: "SECRET-webdav-user", password: "SECRET-webdav-password" },
    },
    ai: { embedding: { apiKey: "SECRET-embedding-key", baseURL: "https://SECRET.example" } },
    publish: { auth: { accounts: [{ username: "u", password: "SECRET-publish" }] } },
    export: { pandocParams: '--reference-doc "/home/SECRET/pandoc.docx"', pandocBin: "/SECRET" },
    system: {
      kernelVersion: "3.7.3",
      os: "linux",
      container: "docker",
      id: "SECRET-device-id",
      workspaceDir: "/home/SECRET/SiYuan",
      dataDir: "/home/SECRET/SiYuan/data",
      homeDir: "/home/SECRET",
      networkProxy: { host: "SECRET-proxy", port: "8080" },
    },
    fileTree: { sort: 0, maxListCount: 100, createDocAtTop: true, docCreateSavePath: "/SECRET" },
    search: { limit: 32, caseSensitive: true },
    editor: { readOnly: true, historyRetentionDays: 7, generateHistoryInterval: 5 },
    appearance: { mode: 1, themeLight: "SECRET-theme" },
  };

  it("keeps the allow-listed settings and no secret, host path or address", () => {
    const out = confSummary(secretConf);
    expect(JSON.stringify(out)).not.toMatch(/SECRET|192\.0\.2\.7/);
    expect(out).toEqual({
      system: { kernelVersion: "3.7.3", os: "linux", container: "docker" },
      lang: "zh_CN",
      readonly: true,
      appearance: { mode: 1 },
      fileTree: { sort: 0, maxListCount: 100, createDocAtTop: true },
      search: { limit: 32, caseSensitive: true },
      editor: { readOnly: true, historyRetentionDays: 7, generateHistoryInterval: 5 },
      sync: { enabled: true },
    });
  });

  it("leaves out an allowed path holding an object, so nothing can hide under it", () => {
    const out = confSummary({ lang: { token: "SECRET" }, search: { limit: [64] } });
    expect(out).toEqual({});
  });

  it("names no field that sounds like a secret or a host path", () => {
    for (const f of CONF_SUMMARY_FIELDS) {
      expect(f).not.toMatch(/token|key|code|secret|password|auth|dir|path|addr|proxy|account/i);
    }
  });
});
