/**
 * Profiles and precedence (flags > profile > environment > defaults), shell completion and
 * `sisyphus doctor`, each through the real executable.
 */
import { readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { type Sandbox, startSandbox } from "@sisyphus/siyuan-sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, doc, killAuthorities, scene } from "./harness.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ seed: "demo" });
});
afterAll(async () => {
  killAuthorities();
  await sb.stop();
});

type Effective = Record<string, { value: string; source: string }>;
const effective = async (...args: Parameters<typeof cli>) =>
  doc(await cli(...args)).result["effective"] as Effective;

describe("sisyphus config", () => {
  it("stores profiles owner-only, never a token, and resolves flags > profile > environment > defaults", async () => {
    const s = scene(sb, { SISYPHUS_DATA_DIR: "/tmp/from-env" });
    expect((await cli(s, ["config", "set", "siyuanUrl", "http://127.0.0.1:7000"])).code).toBe(0);
    expect(
      (await cli(s, ["config", "set", "data-dir", "/tmp/from-work", "--profile", "work"])).code,
    ).toBe(0);
    const refused = await cli(s, ["config", "set", "tokenEnv", "abc-123"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/never stored/);
    expect((await cli(s, ["config", "set", "siyuanToken", "secret"])).code).toBe(2);
    const file = readFileSync(s.configFile, "utf8");
    expect(file).not.toContain(sb.token);
    expect(statSync(s.configFile).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(s.configFile)).mode & 0o777).toBe(0o700);

    // No profile selected and no default: the environment and the defaults.
    let e = await effective(s, ["config", "list", "--json"]);
    expect(e["siyuanUrl"]).toEqual({ value: sb.url, source: "environment" });
    expect(e["dataDir"]).toEqual({ value: "/tmp/from-env", source: "environment" });
    expect(e["authorityUrl"]?.source).toBe("default");
    // The profile beats the environment; a flag beats the profile.
    e = await effective(s, ["config", "list", "--json", "--profile", "default"]);
    expect(e["siyuanUrl"]).toEqual({ value: "http://127.0.0.1:7000", source: "profile" });
    e = await effective(s, [
      "config",
      "list",
      "--json",
      "--profile",
      "default",
      "--siyuan-url",
      "http://127.0.0.1:7001",
    ]);
    expect(e["siyuanUrl"]).toEqual({ value: "http://127.0.0.1:7001", source: "flag" });
    // `use` makes a profile the default; SISYPHUS_PROFILE picks another.
    expect((await cli(s, ["config", "use", "work"])).code).toBe(0);
    e = await effective(s, ["config", "list", "--json"]);
    expect(e["dataDir"]).toEqual({ value: "/tmp/from-work", source: "profile" });
    e = await effective(s, ["config", "list", "--json"], { env: { SISYPHUS_PROFILE: "default" } });
    expect(e["siyuanUrl"]?.source).toBe("profile");
    expect(e["dataDir"]?.source).toBe("environment");
    const missing = await cli(s, ["config", "list", "--profile", "nosuch"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no profile named "nosuch"/);
  });

  it("a profile's kernel URL is the one a call uses", async () => {
    const s = scene(sb, { SIYUAN_URL: "http://127.0.0.1:9" });
    await cli(s, ["config", "set", "siyuanUrl", sb.url]);
    const viaEnv = await cli(s, ["notebook", "list", "--json"]);
    expect(viaEnv.code).toBe(6);
    const viaProfile = await cli(s, ["notebook", "list", "--json", "--profile", "default"]);
    expect(viaProfile.code, viaProfile.stderr).toBe(0);
  });
});

describe("completion and doctor", () => {
  it("completes commands, actions, flags and enum values from the catalog", async () => {
    const s = scene(sb);
    const complete = async (...w: string[]) =>
      (await cli(s, ["__complete", ...w])).stdout.trim().split("\n");
    expect(await complete("bl")).toEqual(["block"]);
    expect(await complete("block", "up")).toEqual(["update"]);
    expect(await complete("block", "update", "--expected")).toEqual(["--expected-state-hash"]);
    expect(await complete("block", "update", "--data-type", "")).toEqual(["markdown", "dom"]);
    for (const shell of ["bash", "zsh", "fish"]) {
      const script = await cli(s, ["completion", shell]);
      expect(script.code).toBe(0);
      expect(script.stdout).toContain("sisyphus __complete");
    }
    expect((await cli(s, ["completion", "powershell"])).code).toBe(2);
  });

  it("doctor says what works and what does not", async () => {
    const s = scene(sb);
    const ok = await cli(s, ["doctor", "--json"]);
    expect(ok.code, ok.stdout).toBe(0);
    const checks = (
      doc(ok).result["checks"] as Array<{ name: string; status: string; detail: string }>
    ).map((c) => [c.name, c.status]);
    expect(checks).toEqual([
      ["cli", "ok"],
      ["kernel", "ok"],
      ["token", "ok"],
      ["settings", "ok"],
      ["plugin", "warn"],
      ["authority", "warn"],
    ]);
    const badToken = await cli(s, ["doctor", "--json"], { env: { SIYUAN_TOKEN: "wrong" } });
    expect(badToken.code).toBe(6);
    expect(JSON.stringify(doc(badToken).result)).toMatch(/refused the API token/);
    expect(badToken.stdout).not.toContain("wrong");
    const dead = await cli(scene({ url: "http://127.0.0.1:9", token: "t" }), ["doctor"]);
    expect(dead.code).toBe(6);
    expect(dead.stdout).toMatch(/FAIL\s+kernel/);
  });
});
