import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, parseSettings, SettingsError } from "./settings.js";

describe("parseSettings", () => {
  it("gives the defaults without a file, and reads the authority switch", () => {
    expect(parseSettings(undefined)).toEqual({
      kernelEndpointEnabled: false,
      permissions: { default: "delete" },
    });
    expect(DEFAULT_SETTINGS.kernelEndpointEnabled).toBe(false);
    expect(parseSettings('{"kernelEndpointEnabled":true}')).toEqual({
      kernelEndpointEnabled: true,
      permissions: { default: "delete" },
    });
    expect(parseSettings("{}")).toEqual(DEFAULT_SETTINGS);
    expect(
      parseSettings(
        '{"permissions":{"default":"read","notebooks":{"20260101120000-nbwrite":"write"}}}',
      ).permissions,
    ).toEqual({ default: "read", notebooks: { "20260101120000-nbwrite": "write" } });
  });

  it("fails closed on a file it cannot read as settings", () => {
    expect(() => parseSettings("{not json")).toThrow(SettingsError);
    expect(() => parseSettings('{"kernelEndpointEnabled":"yes"}')).toThrow(/kernelEndpointEnabled/);
    expect(() => parseSettings("[]")).toThrow(SettingsError);
    expect(() => parseSettings('{"permissions":{"default":"admin"}}')).toThrow(
      /permissions.default/,
    );
    expect(() => parseSettings('{"permissions":{"notebooks":{"x":1}}}')).toThrow(/notebooks.x/);
  });
});
