import { describe, expect, it } from "vitest";
import {
  accessFingerprint,
  DEFAULT_SETTINGS,
  originVerdict,
  parseSettings,
  SettingsError,
} from "./settings.js";

describe("parseSettings", () => {
  it("gives the defaults without a file, and reads the authority switch", () => {
    const defaults = {
      kernelEndpointEnabled: false,
      permissions: { default: "delete" },
      strictSafeWrites: true,
      disabled: [],
      options: {
        readRetries: 3,
        pageSize: 16,
        allowedOrigins: [],
        templateBudgetBytes: 16777216,
        feedbackUrl: null,
      },
    };
    expect(parseSettings(undefined)).toEqual(defaults);
    expect(DEFAULT_SETTINGS.kernelEndpointEnabled).toBe(false);
    expect(parseSettings('{"kernelEndpointEnabled":true}')).toEqual({
      ...defaults,
      kernelEndpointEnabled: true,
    });
    expect(parseSettings("{}")).toEqual(DEFAULT_SETTINGS);
    expect(
      parseSettings(
        '{"permissions":{"default":"read","notebooks":{"20260101120000-nbwrite":"write"}}}',
      ).permissions,
    ).toEqual({ default: "read", notebooks: { "20260101120000-nbwrite": "write" } });
  });

  it("reads the turned-off tools, strict mode and the kernel options", () => {
    const s = parseSettings(
      JSON.stringify({
        strictSafeWrites: false,
        disabled: ["fs", "block.delete", "fs"],
        options: {
          readRetries: 1,
          pageSize: 64,
          allowedOrigins: ["http://localhost:3000/"],
          templateBudgetBytes: 33554432,
          feedbackUrl: "https://feedback.example.org/siyuan",
        },
      }),
    );
    expect(s.strictSafeWrites).toBe(false);
    expect(s.disabled).toEqual(["block.delete", "fs"]);
    expect(s.options).toEqual({
      readRetries: 1,
      pageSize: 64,
      allowedOrigins: ["http://localhost:3000"],
      templateBudgetBytes: 32 * 1024 * 1024,
      feedbackUrl: "https://feedback.example.org/siyuan",
    });
    expect(parseSettings('{"options":{}}').options).toEqual(DEFAULT_SETTINGS.options);
  });

  it("fingerprints what decides access, and nothing else", () => {
    const base = accessFingerprint(parseSettings("{}"));
    expect(accessFingerprint(parseSettings('{"options":{"pageSize":8}}'))).toBe(base);
    expect(accessFingerprint(parseSettings('{"options":{"templateBudgetBytes":1024}}'))).toBe(base);
    expect(accessFingerprint(parseSettings('{"strictSafeWrites":false}'))).toBe(base);
    for (const changed of [
      '{"kernelEndpointEnabled":true}',
      '{"permissions":{"default":"read"}}',
      '{"permissions":{"notebooks":{"20260101120000-nbwrite":"write"}}}',
      '{"disabled":["fs"]}',
    ]) {
      expect(accessFingerprint(parseSettings(changed))).not.toBe(base);
    }
    // Key order in the file does not matter.
    expect(
      accessFingerprint(
        parseSettings(
          '{"permissions":{"notebooks":{"20260101120000-aaaaaaa":"read","20260101120000-bbbbbbb":"write"}}}',
        ),
      ),
    ).toBe(
      accessFingerprint(
        parseSettings(
          '{"permissions":{"notebooks":{"20260101120000-bbbbbbb":"write","20260101120000-aaaaaaa":"read"}}}',
        ),
      ),
    );
  });

  it("fails closed on a file it cannot read as settings", () => {
    expect(() => parseSettings("{not json")).toThrow(SettingsError);
    expect(() => parseSettings('{"kernelEndpointEnabled":"yes"}')).toThrow(/kernelEndpointEnabled/);
    expect(() => parseSettings("[]")).toThrow(SettingsError);
    expect(() => parseSettings('{"permissions":{"default":"admin"}}')).toThrow(
      /permissions.default/,
    );
    expect(() => parseSettings('{"permissions":{"notebooks":{"x":1}}}')).toThrow(/notebooks.x/);
    expect(() => parseSettings('{"strictSafeWrites":1}')).toThrow(/strictSafeWrites/);
    expect(() => parseSettings('{"disabled":"fs"}')).toThrow(/disabled/);
    expect(() => parseSettings('{"disabled":[""]}')).toThrow(/disabled/);
    expect(() => parseSettings('{"options":[]}')).toThrow(/options/);
    expect(() => parseSettings('{"options":{"readRetries":0}}')).toThrow(/readRetries/);
    expect(() => parseSettings('{"options":{"pageSize":65}}')).toThrow(/pageSize/);
    expect(() => parseSettings('{"options":{"pageSize":1.5}}')).toThrow(/pageSize/);
    for (const budget of [0, 33554433, 1.5, "16MiB"]) {
      expect(() =>
        parseSettings(JSON.stringify({ options: { templateBudgetBytes: budget } })),
      ).toThrow(/options.templateBudgetBytes must be a whole number from 1 to 33554432/);
    }
    expect(() => parseSettings('{"options":{"allowedOrigins":["localhost"]}}')).toThrow(
      /allowedOrigins/,
    );
    expect(() => parseSettings('{"options":{"allowedOrigins":["http://a.example/path"]}}')).toThrow(
      /allowedOrigins/,
    );
  });

  it("reads origins and feedback hosts with ports and IPv6 brackets (not through goja's URL)", () => {
    const s = parseSettings(
      JSON.stringify({
        options: {
          allowedOrigins: ["https://[2001:db8::1]:8443", "http://notes.example:8080/"],
          feedbackUrl: "http://[::1]:9000/hook",
        },
      }),
    );
    expect(s.options.allowedOrigins).toEqual([
      "http://notes.example:8080",
      "https://[2001:db8::1]:8443",
    ]);
    expect(s.options.feedbackUrl).toBe("http://[::1]:9000/hook");
    for (const url of ["http://[2001:db8::1]/hook", "http://user@localhost/x", "ftp://[::1]/x"]) {
      expect(() => parseSettings(JSON.stringify({ options: { feedbackUrl: url } })), url).toThrow(
        /feedbackUrl/,
      );
    }
  });
});

describe("originVerdict", () => {
  it("passes no Origin and loopback origins, refuses non-origins, and leaves the rest to the list", () => {
    expect(originVerdict(undefined)).toEqual({ verdict: "pass" });
    for (const o of [
      "http://localhost:5173",
      "https://127.0.0.1",
      "http://[::1]:8080",
      "http://127.9.9.9",
    ]) {
      expect(originVerdict(o), o).toEqual({ verdict: "pass" });
    }
    for (const o of [
      "null",
      "not a url",
      "http://localhost/path",
      "file:///etc/passwd",
      // not the canonical form a browser sends: upper case, a default port, a leading zero, a user
      "HTTP://localhost:3000",
      "https://Notes.example",
      "https://notes.example:443",
      "http://localhost:03000",
      "http://user@localhost:3000",
      "http://localhost:99999",
    ]) {
      expect(originVerdict(o), o).toEqual({ verdict: "refuse" });
    }
    // The port is part of the origin (goja_nodejs's URL drops it from `origin`; the parser is ours)
    expect(originVerdict("https://notes.example:8443")).toEqual({
      verdict: "check",
      origin: "https://notes.example:8443",
    });
    expect(originVerdict("https://[2001:db8::1]:8443/")).toEqual({
      verdict: "check",
      origin: "https://[2001:db8::1]:8443",
    });
    // Loopback by name only over http(s): another scheme is judged by the list.
    expect(originVerdict("ftp://localhost")).toEqual({
      verdict: "check",
      origin: "ftp://localhost",
    });
  });
});
