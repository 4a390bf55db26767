/**
 * The built artefacts: the global bundle runs in a bare `node:vm` context (no require, process,
 * Buffer, TextEncoder, TextDecoder, crypto or fetch) and gives the same digests as node:crypto; the
 * ESM entries export exactly the public surface.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import vm from "node:vm";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { DIST_DIR, ensureBuilt, GLOBAL_BUNDLE } from "./built-bundle.js";

type CoreHash = typeof import("../src/index.js");

const nodeHex = (input: string | Uint8Array) => createHash("sha256").update(input).digest("hex");

const FORBIDDEN_GLOBALS = [
  "require",
  "process",
  "Buffer",
  "TextEncoder",
  "TextDecoder",
  "crypto",
  "fetch",
  "setTimeout",
  "setImmediate",
  "console",
  "module",
  "exports",
];

let context: vm.Context;
let bare: CoreHash;
const run = <T>(code: string): T => vm.runInContext(code, context) as T;

beforeAll(() => {
  ensureBuilt();
  context = vm.createContext({});
  // V8 gives every context a console; remove it so the bundle provably needs nothing but the language.
  vm.runInContext("delete globalThis.console;", context);
  vm.runInContext(readFileSync(GLOBAL_BUNDLE, "utf8"), context, { filename: GLOBAL_BUNDLE });
  bare = run<CoreHash>("SisyphusCoreHash");
}, 60_000);

describe("global bundle in a bare node:vm context", () => {
  it("runs where none of the host globals exist", () => {
    const present = run<string[]>(
      `${JSON.stringify(FORBIDDEN_GLOBALS)}.filter((name) => typeof globalThis[name] !== "undefined")`,
    );
    expect(present).toEqual([]);
    expect(run<string>("SisyphusCoreHash.sha256BackendName()")).toBe("portable");
  });

  it("reproduces the published SHA-256 vectors", { timeout: 60_000 }, () => {
    const results = run<string[]>(`(() => {
      const h = SisyphusCoreHash;
      return [
        h.sha256Hex(""),
        h.sha256Hex("abc"),
        h.sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
        h.sha256Hex("a".repeat(1000000)),
        h.createSha256().update("a".repeat(500000)).update(h.utf8Encode("a".repeat(500000))).digestHex(),
      ];
    })()`);
    expect(results).toEqual([
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
      "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
      "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
    ]);
  });

  it("gives the state digest that node:crypto gives over JSON built inside the context", () => {
    const doc = `({ id: "20240101120000-abcdefg", kramdown: "# Titel \\u00e9\\u{1f600}\\n", attrs: { z: "1", a: null, "data-\\u00fc": [1.5, -0, 1e21] }, children: [{ t: "p" }, { t: "h", n: 2 }] })`;
    const digest = run<string>(`SisyphusCoreHash.stateHash(${doc})`);
    const canonical = run<string>(`SisyphusCoreHash.canonicalJson(${doc})`);
    expect(canonical).toBe(
      '{"attrs":{"a":null,"data-\u00fc":[1.5,0,1e+21],"z":"1"},"children":[{"t":"p"},{"n":2,"t":"h"}],"id":"20240101120000-abcdefg","kramdown":"# Titel \u00e9\u{1f600}\\n"}',
    );
    expect(digest).toBe(`sha256:v1:${nodeHex(canonical)}`);
  });

  it("agrees with node:crypto on random Unicode strings and byte arrays (property)", {
    timeout: 60_000,
  }, () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 300 }),
        fc.uint8Array({ maxLength: 300 }),
        (s, bytes) => {
          context["__s"] = s;
          // Copy the bytes into a Uint8Array of the context's own realm.
          context["__bytes"] = Array.from(bytes);
          const [fromString, fromBytes] = run<[string, string]>(
            "[SisyphusCoreHash.sha256Hex(__s), SisyphusCoreHash.sha256Hex(new Uint8Array(__bytes))]",
          );
          expect(fromString).toBe(nodeHex(s));
          expect(fromBytes).toBe(nodeHex(bytes));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("accepts values from the host realm (plain objects and Uint8Arrays)", () => {
    const value = { b: [1, "x"], a: { c: true } };
    expect(bare.stateHash(value)).toBe(`sha256:v1:${nodeHex('{"a":{"c":true},"b":[1,"x"]}')}`);
    expect(bare.sha256Hex(new Uint8Array([97, 98, 99]))).toBe(nodeHex("abc"));
    expect(bare.sha256Hex(Buffer.from("abc"))).toBe(nodeHex("abc"));
  });

  it("hashes chunked input with its default microtask yield", async () => {
    const bytes = new Uint8Array(200_000).map((_, i) => (i * 7) & 0xff);
    const digest = await bare.hashChunked(bytes, { batchBytes: 65536 });
    expect(digest).toBe(nodeHex(bytes));
  });

  it("throws branded errors that the host recognises with isCoreHashError", async () => {
    const { isCoreHashError } = await import("../src/index.js");
    let caught: unknown;
    try {
      run("SisyphusCoreHash.canonicalJson({ a: [NaN] })");
    } catch (e) {
      caught = e;
    }
    expect(caught instanceof Error).toBe(false); // another realm's Error
    expect(isCoreHashError(caught)).toBe(true);
    expect((caught as { code: string }).code).toBe("canonical_non_finite_number");
    expect((caught as { details: { path: string } }).details.path).toBe("$.a[0]");
  });

  it("runs the alias pool and the request-ID issuer", () => {
    const result = run<string[]>(`(() => {
      const h = SisyphusCoreHash;
      const pool = new h.AliasPool();
      const d1 = "sha256:v1:abcd0" + "0".repeat(59);
      const d2 = "sha256:v1:abcd1" + "0".repeat(59);
      const issuer = new h.RequestIdIssuer({ random: h.seededRandomSource(1), reservations: new Set() });
      return [pool.aliasFor(d1), pool.aliasFor(d2), pool.resolve("ABCD1") === d2 ? "ok" : "bad", issuer.issue().length + ""];
    })()`);
    expect(result).toEqual(["abcd", "abcd1", "ok", "4"]);
  });
});

const INDEX_EXPORTS = [
  "ALIAS_MIN_HEX_DIGITS",
  "AliasPool",
  "CANONICAL_MAX_DEPTH",
  "CHUNK_BATCH_BYTES",
  "CREDENTIAL_MAX_HEX_DIGITS",
  "CREDENTIAL_MIN_HEX_DIGITS",
  "CoreHashError",
  "PORTABLE_SHA256_BACKEND",
  "REQUEST_ID_MAX_HEX_DIGITS",
  "REQUEST_ID_MIN_HEX_DIGITS",
  "RequestIdIssuer",
  "SHA256_HEX_DIGITS",
  "STATE_DIGEST_PREFIX",
  "canonicalJson",
  "createPortableSha256",
  "createSha256",
  "digestHex",
  "hashChunked",
  "isCoreHashError",
  "isStateDigest",
  "parseCredential",
  "portableSha256Hex",
  "seededRandomSource",
  "setSha256Backend",
  "sha256BackendName",
  "sha256Hex",
  "stateHash",
  "utf8ByteLength",
  "utf8Decode",
  "utf8Encode",
];

const NODE_EXPORTS = [
  "NODE_SHA256_BACKEND",
  "createNodeSha256",
  "installNodeSha256",
  "nodeSha256Hex",
  "yieldToEventLoop",
];

describe("public surface of the built entries", () => {
  it("dist/index.js exports exactly the documented names, and so does the global bundle", async () => {
    const index = await import(pathToFileURL(join(DIST_DIR, "index.js")).href);
    expect(Object.keys(index).sort()).toEqual([...INDEX_EXPORTS].sort());
    expect(Object.keys(bare).sort()).toEqual([...INDEX_EXPORTS].sort());
  });

  it("dist/node.js exports the fast path, which shares the backend slot with dist/index.js", async () => {
    const node = await import(pathToFileURL(join(DIST_DIR, "node.js")).href);
    const index = await import(pathToFileURL(join(DIST_DIR, "index.js")).href);
    expect(Object.keys(node).sort()).toEqual([...NODE_EXPORTS].sort());
    const before = index.stateHash({ a: 1 });
    node.installNodeSha256();
    try {
      expect(index.sha256BackendName()).toBe("node:crypto");
      expect(index.stateHash({ a: 1 })).toBe(before);
    } finally {
      index.setSha256Backend(undefined);
    }
  });

  it("keeps node:* imports out of the main entry and its chunks", () => {
    const index = readFileSync(join(DIST_DIR, "index.js"), "utf8");
    const chunks = [...index.matchAll(/from "(\.\/[^"]+)"/g)].map((m) => m[1]!);
    for (const file of ["index.js", ...chunks]) {
      const text = readFileSync(join(DIST_DIR, file), "utf8");
      expect(text, file).not.toMatch(/from "(node:)?(crypto|fs|path|os|buffer|util)"/);
      expect(text, file).not.toMatch(/\brequire\(/);
    }
    expect(readFileSync(GLOBAL_BUNDLE, "utf8")).not.toMatch(/\brequire\(|node:/);
  });
});
