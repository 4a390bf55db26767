/**
 * The language-level check (`checkLanguageLevel`, acorn) is a fast pre-check; goja is the proof.
 * Here every script the check refuses goes to goja itself (the host's pre-check off), and what goja
 * does with it is pinned: a compile failure puts the plugin in `error`, a mistranslation runs and
 * answers wrongly, exactly as the check's verdict says (contract §6 "Language level").
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkLanguageLevel, type Sandbox } from "../src/index.js";
import { start, TOKEN, usePluginEngine } from "./helpers.js";

usePluginEngine("goja");

const VARIANTS = fileURLToPath(new URL("./fixtures/plugins/bad/variants/", import.meta.url));
const variant = (name: string) => readFileSync(join(VARIANTS, `${name}.js.txt`), "utf8");

function files(name: string, kernel: string) {
  return {
    files: {
      "plugin.json": JSON.stringify({ name, kernels: ["all"] }),
      "index.js": "module.exports = {};",
      "kernel.js": kernel,
    },
  };
}

let sb: Sandbox;
beforeAll(async () => {
  sb = await start({ seed: "empty", pluginHost: { languageCheck: false } });
});
afterAll(() => sb.stop());

async function answer(name: string): Promise<{ status: number; text: string }> {
  const r = await fetch(`${sb.url}/plugin/private/${name}/x`, {
    headers: { authorization: `Token ${TOKEN}` },
  });
  return { status: r.status, text: await r.text() };
}

describe("what the pre-check refuses as a compile failure, goja fails to compile too", () => {
  const cases: Array<[string, RegExp]> = [
    ["top-level-import", /SyntaxError/],
    ["async-generator", /Async generators are not supported yet/],
    ["for-await", /SyntaxError/],
    ["regex-d-flag", /Invalid flags supplied to RegExp constructor 'd'/],
    ["using", /SyntaxError/],
    ["decorator", /SyntaxError/],
  ];
  for (const [name, message] of cases) {
    it(`${name}: goja refuses the whole kernel.js (error state, 503)`, async () => {
      const source = variant(name);
      expect(checkLanguageLevel(source)?.kind).toBe("compile");
      await sb.plugins.install(files(`goja-${name}`, source));
      const st = sb.plugins.status(`goja-${name}`);
      expect(st).toMatchObject({ state: "error", stateCode: 5 });
      expect(st?.error).toMatch(message);
      expect(st?.error).toContain(`goja-${name}/kernel.js`);
      expect((await answer(`goja-${name}`)).status).toBe(503);
    });
  }
});

describe("what the pre-check refuses as a mistranslation, goja runs and answers wrongly", () => {
  const json = (data: string) =>
    `siyuan.server.private.http.handler = () => ({ statusCode: 200, body: { data: { type: "JSON", data: ${data} } } });`;

  it("a named group compiles, but a match has no .groups and $<name> does not substitute", async () => {
    const source = `const date = /(?<year>\\d{4})-(?<month>\\d{2})/;\n${json(
      '[String(date.exec("2026-07").groups), "2026-07".replace(date, "$<month>/$<year>"), date.exec("2026-07")[1]]',
    )}`;
    expect(checkLanguageLevel(source)?.kind).toBe("mistranslated");
    await sb.plugins.install(files("goja-named-group", source));
    expect(sb.plugins.status("goja-named-group")?.state).toBe("running");
    const r = await answer("goja-named-group");
    expect(r.status).toBe(200);
    // V8 would answer ["[object Object]", "07/2026", "2026"]
    expect(JSON.parse(r.text)).toEqual(["undefined", "$<month>/$<year>", "2026"]);
  });

  it("\\p{L} with the u flag compiles, and matches the text p{L} instead of letters", async () => {
    const source = `const letters = /^\\p{L}+$/u;\n${json('[letters.test("abc"), letters.test("p{L}")]')}`;
    expect(checkLanguageLevel(source)?.kind).toBe("mistranslated");
    await sb.plugins.install(files("goja-property-escape", source));
    const r = await answer("goja-property-escape");
    expect(r.status).toBe(200);
    // V8 would answer [true, false]
    expect(JSON.parse(r.text)).toEqual([false, true]);
  });

  it("a top-level TextEncoder is a ReferenceError when the script runs (error state)", async () => {
    await sb.plugins.install(files("goja-top-level-throw", variant("top-level-throw")));
    const st = sb.plugins.status("goja-top-level-throw");
    expect(st).toMatchObject({ state: "error" });
    expect(st?.error).toMatch(/ReferenceError: TextEncoder is not defined/);
  });
});

describe("goja_nodejs's URL, which the product does not trust (docs/fidelity.md)", () => {
  it("drops the port from origin and gives [ as the hostname of an IPv6 address", async () => {
    const source = `siyuan.server.private.http.handler = () => {
      const a = new URL("http://localhost:5173/x"), b = new URL("https://[::1]:8443/");
      return { statusCode: 200, body: { data: { type: "JSON",
        data: [a.origin, a.host, a.port, b.hostname, b.host, b.origin] } } };
    };`;
    await sb.plugins.install(files("goja-url", source));
    const r = await answer("goja-url");
    // V8: ["http://localhost:5173", "localhost:5173", "5173", "[::1]", "[::1]:8443", "https://[::1]:8443"]
    expect(JSON.parse(r.text)).toEqual([
      "http://localhost",
      "localhost:5173",
      "5173",
      "[",
      "[::1]:8443",
      "https://::1",
    ]);
  });
});
