import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, parseSettings, SettingsError } from "./settings.js";

describe("parseSettings", () => {
  it("gives the defaults without a file, and reads the authority switch", () => {
    expect(parseSettings(undefined)).toEqual({ kernelEndpointEnabled: false });
    expect(DEFAULT_SETTINGS.kernelEndpointEnabled).toBe(false);
    expect(parseSettings('{"kernelEndpointEnabled":true}')).toEqual({
      kernelEndpointEnabled: true,
    });
    expect(parseSettings("{}")).toEqual({ kernelEndpointEnabled: false });
  });

  it("fails closed on a file it cannot read as settings", () => {
    expect(() => parseSettings("{not json")).toThrow(SettingsError);
    expect(() => parseSettings('{"kernelEndpointEnabled":"yes"}')).toThrow(/kernelEndpointEnabled/);
    expect(() => parseSettings("[]")).toThrow(SettingsError);
  });
});
