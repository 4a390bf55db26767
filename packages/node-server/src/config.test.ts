import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfig, USAGE } from "./config.js";
import { isNodeServerError } from "./errors.js";

const TOKEN = "0123456789abcdef0123";

function settingOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (isNodeServerError(e) && e.code === "config_invalid") return e.details.setting;
    throw e;
  }
  return undefined;
}

describe("parseConfig", () => {
  it("defaults to HTTP on loopback port 36806, strict, demo mode without a SiYuan URL", () => {
    const c = parseConfig([], {});
    expect(c.transport).toBe("http");
    expect(c.host).toBe("127.0.0.1");
    expect(c.port).toBe(36806);
    expect(c.strict).toBe(true);
    expect(c.siyuanUrl).toBeUndefined();
    expect(c.authToken).toBeUndefined();
  });

  it("prefers flags over environment fallbacks", () => {
    const c = parseConfig(
      ["--port", "4000", "--siyuan-url", "http://127.0.0.1:6806/", "--auth-token", TOKEN],
      {
        SISYPHUS_HTTP_PORT: "5000",
        SIYUAN_URL: "http://other:1",
        SIYUAN_TOKEN: "kt",
      },
    );
    expect(c.port).toBe(4000);
    expect(c.siyuanUrl).toBe("http://127.0.0.1:6806");
    expect(c.siyuanToken).toBe("kt");
    expect(c.authToken).toBe(TOKEN);
  });

  it("reads environment fallbacks", () => {
    const c = parseConfig(["--stdio", "--no-strict"], {
      SIYUAN_URL: "http://127.0.0.1:6806",
      SISYPHUS_AUTH_TOKEN: TOKEN,
      SISYPHUS_DATA_DIR: "/tmp/x",
      SISYPHUS_HTTP_PORT: "0",
    });
    expect(c.transport).toBe("stdio");
    expect(c.strict).toBe(false);
    expect(c.authToken).toBe(TOKEN);
    expect(c.dataDir).toBe("/tmp/x");
    expect(c.port).toBe(0);
  });

  it("names the setting of every invalid value", () => {
    expect(settingOf(() => parseConfig(["--port", "70000"], {}))).toBe(
      "--port (SISYPHUS_HTTP_PORT)",
    );
    expect(settingOf(() => parseConfig([], { SISYPHUS_HTTP_PORT: "abc" }))).toBe(
      "--port (SISYPHUS_HTTP_PORT)",
    );
    expect(settingOf(() => parseConfig(["--siyuan-url", "ftp://x"], {}))).toBe(
      "--siyuan-url (SIYUAN_URL)",
    );
    expect(settingOf(() => parseConfig(["--siyuan-url", "not a url"], {}))).toBe(
      "--siyuan-url (SIYUAN_URL)",
    );
    expect(settingOf(() => parseConfig(["--stdio", "--http"], {}))).toBe("--stdio/--http");
    expect(settingOf(() => parseConfig(["--auth-token", "short"], {}))).toBe(
      "--auth-token (SISYPHUS_AUTH_TOKEN)",
    );
    expect(settingOf(() => parseConfig(["--siyuan-url", "http://127.0.0.1:6806"], {}))).toBe(
      "--auth-token (SISYPHUS_AUTH_TOKEN)",
    );
    expect(settingOf(() => parseConfig(["--stdio"], {}))).toBe("--siyuan-url (SIYUAN_URL)");
    expect(settingOf(() => parseConfig(["--allowed-origins", "http://a.test/path"], {}))).toBe(
      "--allowed-origins",
    );
    expect(settingOf(() => parseConfig(["--bogus"], {}))).toBe("--bogus");
    expect(settingOf(() => parseConfig(["extra"], {}))).toBe("arguments");
  });

  it("takes the shutdown grace from --shutdown-grace-ms or SISYPHUS_SHUTDOWN_GRACE_MS (default 30 s)", () => {
    expect(parseConfig([], {}).shutdownGraceMs).toBe(30_000);
    expect(parseConfig(["--shutdown-grace-ms", "0"], {}).shutdownGraceMs).toBe(0);
    expect(parseConfig([], { SISYPHUS_SHUTDOWN_GRACE_MS: "1500" }).shutdownGraceMs).toBe(1500);
    expect(
      parseConfig(["--shutdown-grace-ms", "200"], { SISYPHUS_SHUTDOWN_GRACE_MS: "1500" })
        .shutdownGraceMs,
    ).toBe(200);
    for (const bad of ["-1", "1.5", "30s", "600001", ""]) {
      expect(settingOf(() => parseConfig([`--shutdown-grace-ms=${bad}`], {}))).toBe(
        "--shutdown-grace-ms (SISYPHUS_SHUTDOWN_GRACE_MS)",
      );
    }
  });

  it("starts a background authority from stdio unless told not to, and checks --background and --idle-stop-ms", () => {
    const url = ["--siyuan-url", "http://127.0.0.1:6806"];
    const stdio = parseConfig(["--stdio", ...url], {});
    expect(stdio.autostart).toBe(true);
    expect(stdio.idleStopMs).toBe(600_000);
    expect(parseConfig(["--stdio", "--no-autostart", ...url], {}).autostart).toBe(false);
    // An explicit authority is the user's choice: nothing is started.
    expect(
      parseConfig(["--stdio", ...url, "--authority-url", "http://127.0.0.1:9/mcp"], {}).autostart,
    ).toBe(false);
    // A background authority: loopback, a free port, no configured token needed, idle stop on.
    const bg = parseConfig(["--background", ...url], {});
    expect(bg).toMatchObject({
      transport: "http",
      background: true,
      port: 0,
      idleStopMs: 600_000,
      autostart: false,
    });
    expect(bg.authToken).toBeUndefined();
    expect(parseConfig(["--background", ...url, "--idle-stop-ms", "1500"], {}).idleStopMs).toBe(
      1500,
    );
    // A user-started HTTP authority never stops by itself unless asked to.
    expect(parseConfig([...url, "--auth-token", TOKEN], {}).idleStopMs).toBe(0);
    expect(
      parseConfig([...url, "--auth-token", TOKEN], { SISYPHUS_IDLE_STOP_MS: "60000" }).idleStopMs,
    ).toBe(60_000);
    expect(settingOf(() => parseConfig(["--background", "--stdio", ...url], {}))).toBe(
      "--background",
    );
    expect(settingOf(() => parseConfig(["--background"], {}))).toBe("--background");
    expect(settingOf(() => parseConfig(["--background", ...url, "--host", "0.0.0.0"], {}))).toBe(
      "--host",
    );
    for (const bad of ["-1", "1.5", "10m", "86400001"]) {
      expect(settingOf(() => parseConfig([`--idle-stop-ms=${bad}`], {}))).toBe(
        "--idle-stop-ms (SISYPHUS_IDLE_STOP_MS)",
      );
    }
  });

  it("documents every flag it accepts in --help", () => {
    const source = readFileSync(join(import.meta.dirname, "config.ts"), "utf8");
    const options = /options: \{([\s\S]*?)\n {4}\},\n {2}\}\);/.exec(source)?.[1] ?? "";
    const flags = [...options.matchAll(/^ {6}"?([a-z-]+)"?: \{/gm)].map((m) => `--${m[1]}`);
    expect(flags.length).toBeGreaterThan(10);
    for (const flag of flags) expect(USAGE).toContain(flag);
  });

  it("accepts an origin list", () => {
    const c = parseConfig(["--allowed-origins", "http://app.test:3000, https://b.test"], {});
    expect(c.allowedOrigins).toEqual(["http://app.test:3000", "https://b.test"]);
  });
});
