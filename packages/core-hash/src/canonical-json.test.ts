import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, canonicalJsonChunks } from "./canonical-json.js";
import { CANONICAL_MAX_DEPTH } from "./constants.js";
import { type CoreHashErrorCode, isCoreHashError } from "./errors.js";
import { seededRandomSource } from "./random.js";
import { createSha256, sha256Hex } from "./sha256.js";
import { stateHash } from "./state-hash.js";

/**
 * The canonical text written the plainest way (what the module's first, concatenating writer did),
 * for JSON data without getters: the reference every path of `canonicalJson` is held to.
 */
function referenceJson(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean" || value === null) {
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map(referenceJson).join(",")}]`;
  const object = value as Record<string, unknown>;
  const members = Object.keys(object)
    .sort()
    .filter((k) => object[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${referenceJson(object[k])}`);
  return `{${members.join(",")}}`;
}

/** The chunks `canonicalJsonChunks` hands on, in order. */
function chunksOf(value: unknown, chunkUnits?: number): string[] {
  const chunks: string[] = [];
  canonicalJsonChunks(value, (chunk) => chunks.push(chunk), chunkUnits);
  return chunks;
}

/** True when `a` ends with the first half of a surrogate pair whose second half starts `b`. */
function splitsPair(a: string, b: string): boolean {
  const high = a.charCodeAt(a.length - 1);
  const low = b.charCodeAt(0);
  return high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff;
}

/** Rebuilds every object of `value` with its keys in a random order. */
function shuffleKeys(value: unknown, random: () => number): unknown {
  if (Array.isArray(value)) return value.map((v) => shuffleKeys(v, random));
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    for (let i = entries.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [entries[i], entries[j]] = [entries[j]!, entries[i]!];
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, shuffleKeys(v, random)]));
  }
  return value;
}

/** JSON data with awkward keys (astral, empty, numeric-looking, "__proto__"-free) and values. */
const jsonValue = fc
  .jsonValue({ maxDepth: 4 })
  .filter((v) => !JSON.stringify(v).includes("__proto__"));

describe("canonicalJson format", () => {
  it("sorts keys by UTF-16 code unit order at every depth and keeps array order", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, 1, 2], c: null }, B: true })).toBe(
      '{"B":true,"a":{"c":null,"d":[3,1,2]},"b":1}',
    );
    // U+FF61 sorts after U+1F600's high surrogate (0xD83D) by code unit, not by code point.
    expect(canonicalJson({ "\uff61": 1, "\u{1f600}": 2, "": 3, "10": 4, "9": 5 })).toBe(
      '{"":3,"10":4,"9":5,"\u{1f600}":2,"\uff61":1}',
    );
  });
  it("writes numbers in shortest form and -0 as 0", () => {
    expect(canonicalJson([-0, 0, 1.5, 1e21, 1e-7, 0.1 + 0.2, -1e308, 5e-324])).toBe(
      "[0,0,1.5,1e+21,1e-7,0.30000000000000004,-1e+308,5e-324]",
    );
    expect(JSON.stringify(-0)).toBe("0");
  });
  it("keeps strings exactly (no normalisation) and escapes like JSON.stringify", () => {
    const composed = "\u00e9";
    const decomposed = "e\u0301";
    expect(canonicalJson(composed)).not.toBe(canonicalJson(decomposed));
    expect(canonicalJson('a"\\\n\u2028\u0000\ud800')).toBe(
      JSON.stringify('a"\\\n\u2028\u0000\ud800'),
    );
    expect(JSON.parse(canonicalJson("\ud83d"))).toBe("\ud83d");
  });
  it("omits undefined properties but not null ones", () => {
    expect(canonicalJson({ a: undefined, b: null, c: [null] })).toBe('{"b":null,"c":[null]}');
    expect(canonicalJson({ a: undefined })).toBe("{}");
  });
  it("accepts null-prototype objects and equals JSON.parse(JSON.stringify) data", () => {
    const o = Object.create(null) as Record<string, unknown>;
    o["z"] = 1;
    o["a"] = [true, false];
    expect(canonicalJson(o)).toBe('{"a":[true,false],"z":1}');
  });
  it("round-trips: parsing the canonical text and canonicalising again is a fixed point", () => {
    fc.assert(
      fc.property(jsonValue, (v) => {
        const text = canonicalJson(v);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(v)));
      }),
      { numRuns: 300 },
    );
  });
});

describe("canonicalJson and its chunks agree with the reference writer", () => {
  const awkwardKey = fc.oneof(
    fc.string(),
    fc.constantFrom(
      "0",
      "1",
      "9",
      "10",
      "01",
      "-1",
      "1.5",
      "4294967294",
      "4294967295",
      "__proto__",
      "toJSON",
    ),
    fc.nat().map(String),
  );
  const value = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: "small" },
      fc.constantFrom(null, true, false, 0, -0, 1e21, -1.5e-7),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.string({ unit: "binary" }),
      fc.array(tie("node"), { maxLength: 4 }),
      fc.dictionary(awkwardKey, fc.oneof(tie("node"), fc.constant(undefined)), { maxKeys: 5 }),
    ),
  })).node;
  it("on random data with array-index, __proto__ and toJSON keys (property)", () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(canonicalJson(v)).toBe(referenceJson(v));
      }),
      { numRuns: 1000 },
    );
  });
  it("in chunks of any size, never splitting a surrogate pair, hashing as the whole (property)", () => {
    fc.assert(
      fc.property(value, fc.integer({ min: 1, max: 48 }), (v, units) => {
        const text = referenceJson(v);
        const chunks = chunksOf(v, units);
        expect(chunks.join("")).toBe(text);
        for (let i = 1; i < chunks.length; i++) {
          expect(splitsPair(chunks[i - 1]!, chunks[i]!)).toBe(false);
        }
        const hash = createSha256();
        for (const chunk of chunks) hash.update(chunk);
        expect(hash.digestHex()).toBe(sha256Hex(text));
      }),
      { numRuns: 1000 },
    );
  });
  it("cuts long strings beside surrogate pairs, lone surrogates and escapes", () => {
    const strings = [
      `${"x".repeat(9)}\u{1f600}${"y".repeat(9)}`,
      `${"x".repeat(10)}\u{1f600}\u{1f600}`,
      `${"x".repeat(9)}\ud800\ud800\udc00`,
      `${"x".repeat(10)}\udc00\ud800`,
      `\u{1f600}`.repeat(12),
      '"\\\n\u0000\u2028'.repeat(5),
    ];
    for (const units of [1, 2, 3, 10, 11]) {
      for (const s of [...strings, { s: strings, "0": strings }]) {
        const chunks = chunksOf(s, units);
        expect(chunks.join("")).toBe(referenceJson(s));
        for (let i = 1; i < chunks.length; i++) {
          expect(splitsPair(chunks[i - 1]!, chunks[i]!)).toBe(false);
        }
      }
    }
  });
  it("sorts each object's own keys when siblings share, reorder or change their key lists", () => {
    const rows = [
      { b: 1, a: 2 },
      { b: 3, a: 4 },
      { a: 5, b: 6 },
      { b: 7, a: 8, c: 9 },
      { b: 10, a: 11 },
      { b: 12, c: 13 },
      { b: 14, a: { b: 15, a: 16 } },
    ];
    const expected =
      '[{"a":2,"b":1},{"a":4,"b":3},{"a":5,"b":6},{"a":8,"b":7,"c":9},{"a":11,"b":10},' +
      '{"b":12,"c":13},{"a":{"a":16,"b":15},"b":14}]';
    expect(canonicalJson(rows)).toBe(expected);
    expect(referenceJson(rows)).toBe(expected);
    // A second call with the same key list but new values, and the key list read back unchanged.
    expect(canonicalJson({ b: "x", a: "y" })).toBe('{"a":"y","b":"x"}');
    expect(canonicalJson({ b: "z", a: "w" })).toBe('{"a":"w","b":"z"}');
    expect(Object.keys(rows[0]!)).toEqual(["b", "a"]);
  });
  it("keeps an own __proto__ key as data", () => {
    const parsed = JSON.parse('{"b":1,"__proto__":{"x":2},"a":[3]}');
    expect(canonicalJson(parsed)).toBe('{"__proto__":{"x":2},"a":[3],"b":1}');
    expect(chunksOf(parsed, 1).join("")).toBe('{"__proto__":{"x":2},"a":[3],"b":1}');
  });
  it("orders array-index keys by code unit, not numerically, at any depth", () => {
    expect(canonicalJson({ z: [{ "10": 1, "9": 2, "1": 3, a: 4 }] })).toBe(
      '{"z":[{"1":3,"10":1,"9":2,"a":4}]}',
    );
  });
});

/**
 * A large document state, the same on every run: kramdown and DOM strings longer than a chunk,
 * 1,500 child blocks (CJK, emoji, escapes, lone surrogates), one block with array-index attrs and
 * one with an own `__proto__` key, and a long array of numbers. Its text is about 40 chunks.
 */
function largeState(): Record<string, unknown> {
  const random = seededRandomSource(19);
  const words = [
    "Sisyphus",
    "über",
    "日本語",
    "😀",
    'a "quote"',
    "back\\slash",
    "tab\t",
    "\u2028",
    "\ud800",
  ];
  const text = (n: number): string => {
    let s = "";
    while (s.length < n) s += `${words[random.nextInt(words.length)]} `;
    return s.slice(0, n);
  };
  const children: Record<string, unknown>[] = [];
  for (let i = 0; i < 1500; i++) {
    const id = `20240601${100000 + i}-${random.nextInt(0x10000000).toString(16)}`;
    children.push({
      id,
      type: i % 7 === 0 ? "h" : "p",
      content: text(60),
      markdown: text(70),
      attrs:
        i % 5 === 0
          ? { id, updated: "20240601120000", "custom-tag": text(10) }
          : { id, updated: "20240601120000" },
      sort: i,
      ratio: i / 7,
      flags: [i % 2 === 0, null, -0],
      note: i % 3 === 0 ? undefined : "n",
    });
  }
  children[700]!["attrs"] = { "10": "ten", "9": "nine", id: "x", "": "empty" };
  children[900] = JSON.parse('{"__proto__":{"a":1},"id":"proto","sort":900}');
  return {
    id: "20240601120000-rootdoc",
    kramdown: `${"x".repeat(16383)}😀${text(40_000)}`,
    dom: `<div>${text(50_000)}</div>`,
    children,
    // products, not `**`: V8's exponentiation differs in the last bit between Node versions
    numbers: Array.from({ length: 5000 }, (_, i) => i * 1.5e-3 * (i * 1.5e-3) * (i * 1.5e-3)),
  };
}

describe("canonicalJson reads each property once and writes large text in chunks", () => {
  it("gives a large state the same text and digest as before, in bounded chunks", () => {
    const text = canonicalJson(largeState());
    expect(text).toBe(referenceJson(largeState()));
    // The digest of the text the module wrote before it read each property once and hashed in chunks.
    const before = "0cabc7f292adcbc6a460d124239c4912b0e6e871bfdb0beb22bd6b8c876f7102";
    expect(createHash("sha256").update(text).digest("hex")).toBe(before);
    expect(stateHash(largeState())).toBe(`sha256:v1:${before}`);
    const chunks = chunksOf(largeState());
    expect(chunks.join("")).toBe(text);
    expect(chunks.length).toBeGreaterThan(20);
    // Below 64 Ki code units: V8 gives longer strings pages of their own.
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(65536);
    for (let i = 1; i < chunks.length; i++) {
      expect(splitsPair(chunks[i - 1]!, chunks[i]!)).toBe(false);
    }
  });

  it("runs each getter and proxy get trap once, also beside an array-index key", () => {
    const reads = new Map<string, number>();
    const read = (name: string) => reads.set(name, (reads.get(name) ?? 0) + 1);
    const make = () => ({
      // Read before the writer meets "0" below: the concatenating fallback used to read it again.
      get a() {
        read("a");
        return { x: [1, "y"] };
      },
      b: {
        "0": "index key",
        get c() {
          read("c");
          return [1, 2];
        },
      },
      d: new Proxy(
        { p: 1, q: { r: "s" } },
        {
          get(target, key, receiver) {
            if (typeof key === "string") read(`d.${key}`);
            return Reflect.get(target, key, receiver);
          },
        },
      ),
      long: Array.from({ length: 300 }, (_, i) => ({
        get v() {
          read(`long${i}`);
          return "v".repeat(i);
        },
      })),
    });
    const expected = referenceJson(make());
    const runs: [string, () => unknown][] = [
      ["canonicalJson", () => expect(canonicalJson(make())).toBe(expected)],
      ["chunks of 64", () => expect(chunksOf(make(), 64).join("")).toBe(expected)],
      ["chunks of 1", () => expect(chunksOf(make(), 1).join("")).toBe(expected)],
      ["stateHash", () => expect(stateHash(make())).toBe(`sha256:v1:${sha256Hex(expected)}`)],
    ];
    for (const [label, run] of runs) {
      reads.clear();
      run();
      expect(reads.size, label).toBe(304);
      for (const [name, count] of reads) expect(count, `${label}: ${name}`).toBe(1);
    }
  });
  it("lets a getter call canonicalJson and stateHash itself (no shared state between calls)", () => {
    const inner = { b: [1, { "9": 2, "10": 3 }], a: "x".repeat(40) };
    const make = () => ({
      z: Array.from({ length: 50 }, (_, i) => ({ i, s: "y".repeat(i) })),
      get m() {
        return { text: canonicalJson(inner), digest: stateHash(inner), chunks: chunksOf(inner, 4) };
      },
      "0": "index key",
    });
    const expected = referenceJson(make());
    expect(expected).toContain(stateHash(inner));
    expect(canonicalJson(make())).toBe(expected);
    expect(chunksOf(make(), 16).join("")).toBe(expected);
    expect(stateHash(make())).toBe(`sha256:v1:${sha256Hex(expected)}`);
  });
});

describe("stateHash properties", () => {
  it("is invariant under random key permutations at every depth", () => {
    fc.assert(
      fc.property(jsonValue, fc.integer(), (v, seed) => {
        let x = seed | 0 || 1;
        const random = () => {
          x ^= x << 13;
          x ^= x >>> 17;
          x ^= x << 5;
          return (x >>> 0) / 0x100000000;
        };
        expect(stateHash(shuffleKeys(v, random))).toBe(stateHash(v));
      }),
      { numRuns: 300 },
    );
  });
  it("is sensitive to array order", () => {
    fc.assert(
      fc.property(fc.array(jsonValue, { minLength: 2, maxLength: 6 }), (arr) => {
        const reversed = [...arr].reverse();
        const same = canonicalJson(arr) === canonicalJson(reversed);
        expect(stateHash(arr) === stateHash(reversed)).toBe(same);
      }),
      { numRuns: 300 },
    );
    expect(stateHash([1, 2])).not.toBe(stateHash([2, 1]));
  });
  it("changes when any single leaf changes", () => {
    const doc = {
      id: "20240101120000-abcdefg",
      attrs: { "custom-a": "1", updated: "20240101" },
      children: [
        { id: "c1", text: "hello", n: 1, ok: true },
        { id: "c2", text: "", n: 0, none: null },
      ],
    };
    const base = stateHash(doc);
    const leaves: { path: (string | number)[]; value: unknown }[] = [];
    const walk = (v: unknown, path: (string | number)[]) => {
      if (Array.isArray(v)) {
        for (const [i, x] of v.entries()) walk(x, [...path, i]);
      } else if (v !== null && typeof v === "object")
        for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
      else leaves.push({ path, value: v });
    };
    walk(doc, []);
    expect(leaves.length).toBe(11);
    const variants = (v: unknown): unknown[] => {
      if (typeof v === "string")
        return [v + "x", v.toUpperCase() === v ? v + " " : v.toUpperCase(), 0];
      if (typeof v === "number") return [v + 1, -v - 1, String(v)];
      if (typeof v === "boolean") return [!v, null];
      return [false, 0, ""];
    };
    for (const leaf of leaves) {
      for (const replacement of variants(leaf.value)) {
        const copy = structuredClone(doc) as Record<string | number, unknown>;
        let target = copy;
        for (const key of leaf.path.slice(0, -1)) target = target[key] as typeof copy;
        target[leaf.path.at(-1)!] = replacement;
        expect(stateHash(copy), JSON.stringify(leaf.path)).not.toBe(base);
      }
    }
  });
  it("changes when any leaf of random data changes (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.integer(), fc.boolean()), { minLength: 1 }),
        fc.nat(),
        (leaves, pick) => {
          const i = pick % leaves.length;
          const changed = [...leaves];
          const old = changed[i];
          changed[i] =
            typeof old === "string" ? old + "!" : typeof old === "number" ? old + 1 : !old;
          expect(stateHash({ leaves: changed })).not.toBe(stateHash({ leaves }));
        },
      ),
    );
  });
  it("has the versioned form and a pinned value", () => {
    expect(stateHash({})).toBe(
      "sha256:v1:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
    );
  });
});

function failure(
  value: unknown,
  run: (value: unknown) => unknown = canonicalJson,
): { code: CoreHashErrorCode; path: string | undefined } {
  try {
    run(value);
  } catch (e) {
    if (isCoreHashError(e)) return { code: e.code, path: e.details.path };
    throw e;
  }
  throw new Error("expected canonicalJson to throw");
}

class Point {
  constructor(readonly x: number) {}
}

describe("canonicalJson rejects what is not JSON data, naming the code and the path", () => {
  const cyclic: Record<string, unknown> = { a: [] };
  (cyclic["a"] as unknown[]).push({ back: cyclic });
  const cyclicArray: unknown[] = [1];
  cyclicArray.push(cyclicArray);
  const symbolKeyed = { ok: 1, [Symbol("s")]: 2 };
  const cases: [string, unknown, CoreHashErrorCode, string][] = [
    ["top-level undefined", undefined, "canonical_undefined", "$"],
    ["undefined in an array", { a: [1, undefined] }, "canonical_undefined", "$.a[1]"],
    // biome-ignore lint/suspicious/noSparseArray: a hole is the case under test
    ["a hole in a sparse array", [1, , 3], "canonical_undefined", "$[1]"],
    ["NaN", { n: Number.NaN }, "canonical_non_finite_number", "$.n"],
    ["Infinity", [Infinity], "canonical_non_finite_number", "$[0]"],
    ["-Infinity", { "a b": -Infinity }, "canonical_non_finite_number", '$["a b"]'],
    ["bigint", { big: 1n }, "canonical_bigint", "$.big"],
    ["function", { f: () => 1 }, "canonical_function", "$.f"],
    ["symbol value", [Symbol("x")], "canonical_symbol", "$[0]"],
    ["symbol key", { inner: symbolKeyed }, "canonical_symbol", "$.inner"],
    ["Date", { when: new Date(0) }, "canonical_date", "$.when"],
    ["Uint8Array", { bytes: new Uint8Array(2) }, "canonical_typed_array", "$.bytes"],
    ["Float64Array", [new Float64Array(1)], "canonical_typed_array", "$[0]"],
    ["DataView", new DataView(new ArrayBuffer(1)), "canonical_typed_array", "$"],
    ["ArrayBuffer", { b: new ArrayBuffer(4) }, "canonical_typed_array", "$.b"],
    ["object cycle", cyclic, "canonical_cycle", "$.a[0].back"],
    ["array cycle", cyclicArray, "canonical_cycle", "$[1]"],
    ["Map", { m: new Map() }, "canonical_non_plain_object", "$.m"],
    ["Set", [new Set()], "canonical_non_plain_object", "$[0]"],
    ["RegExp", { r: /x/ }, "canonical_non_plain_object", "$.r"],
    ["class instance", { p: new Point(1) }, "canonical_non_plain_object", "$.p"],
    ["boxed string", { s: new String("x") }, "canonical_non_plain_object", "$.s"],
    ["Error", { e: new Error("x") }, "canonical_non_plain_object", "$.e"],
    ["Promise", { p: Promise.resolve() }, "canonical_non_plain_object", "$.p"],
    [
      "deep key with quotes",
      { 'k"1': { "0": [null, { x: 1n }] } },
      "canonical_bigint",
      '$["k\\"1"]["0"][1].x',
    ],
  ];
  it.each(cases)("%s", (_label, value, code, path) => {
    expect(failure(value)).toEqual({ code, path });
  });

  it.each(cases)(
    "%s: the same from stateHash and the chunks, before any chunk",
    (_l, value, code, path) => {
      let chunks = 0;
      expect(failure(value, (v) => canonicalJsonChunks(v, () => chunks++, 1))).toEqual({
        code,
        path,
      });
      expect(failure(value, stateHash)).toEqual({ code, path });
      expect(chunks).toBe(0);
    },
  );

  it("accepts a shared (non-cyclic) object referenced twice", () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: [shared] })).toBe('{"a":{"x":1},"b":[{"x":1}]}');
  });

  it(`accepts nesting to depth ${CANONICAL_MAX_DEPTH} and rejects deeper with canonical_too_deep`, () => {
    const nest = (depth: number): unknown => {
      let v: unknown = 0;
      for (let i = 0; i < depth; i++) v = i % 2 ? { k: v } : [v];
      return v;
    };
    expect(() => canonicalJson(nest(CANONICAL_MAX_DEPTH))).not.toThrow();
    const deep = failure(nest(CANONICAL_MAX_DEPTH + 1));
    expect(deep.code).toBe("canonical_too_deep");
    expect(deep.path?.length).toBeGreaterThan(CANONICAL_MAX_DEPTH * 2);
    expect(failure(nest(100_000)).code).toBe("canonical_too_deep");
  });

  it("passes through an exception thrown by a getter, untouched", () => {
    const boom = new Error("getter");
    const v = {
      get x() {
        throw boom;
      },
    };
    expect(() => canonicalJson(v)).toThrow(boom);
  });

  it("puts no note content in the error message or details", () => {
    let caught: unknown;
    try {
      canonicalJson({ secret: "do not leak me", bad: Number.NaN });
    } catch (e) {
      caught = e;
    }
    expect(isCoreHashError(caught)).toBe(true);
    expect(
      JSON.stringify((caught as Error).message) +
        JSON.stringify((caught as { details: unknown }).details),
    ).not.toContain("leak");
  });
});
