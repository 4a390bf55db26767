/**
 * Canonical JSON: one string per JSON value, so that equal data always hashes equally.
 *
 * Object keys are sorted by UTF-16 code unit order (the default `Array.prototype.sort` order) at
 * every depth; array order is kept; numbers are written in ECMAScript's shortest round-trip form
 * with `-0` as `0`; strings are escaped exactly as `JSON.stringify` escapes them and never
 * normalised (lone surrogates come out as `\udxxx` escapes, so no information is lost); properties
 * whose value is `undefined` are omitted. Everything else that is not JSON data throws.
 *
 * Two paths give the same text. The fast one validates while copying the value into fresh objects
 * whose keys are inserted in sorted order, then lets `JSON.stringify` write the copy in one flat
 * string (engine fast path; string concatenation would build a rope that costs more to hash than
 * to build). Objects enumerate array-index keys ("0", "10") numerically before all others, which is
 * not code unit order, so a value with such a key anywhere is written by the second path, which
 * concatenates the text itself.
 */
import { CANONICAL_MAX_DEPTH } from "./constants.js";
import { CoreHashError, type CoreHashErrorCode } from "./errors.js";

/** Internal: thrown at the failure site, then given its path while the recursion unwinds. */
class CanonicalFailure {
  /** Path segments from the failure site outwards (reversed). */
  readonly segments: (string | number)[] = [];
  constructor(
    readonly code: CoreHashErrorCode,
    readonly message: string,
    readonly extra: Record<string, unknown> = {},
  ) {}
}

/** Internal: thrown by the copying path when it meets an array-index key. */
const USE_WRITER = { reason: "array-index key" };

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Formats path segments (outermost first) as a JSON path: `$`, `$.a[0]["b c"]`. */
function formatPath(segments: readonly (string | number)[]): string {
  let path = "$";
  for (const s of segments) {
    if (typeof s === "number") path += `[${s}]`;
    else if (IDENTIFIER.test(s)) path += `.${s}`;
    else path += `[${JSON.stringify(s)}]`;
  }
  return path;
}

const objectToString = Object.prototype.toString;
const getPrototypeOf = Object.getPrototypeOf;
const objectKeys = Object.keys;
const getOwnPropertySymbols = Object.getOwnPropertySymbols;
const defineProperty = Object.defineProperty;
const isArray = Array.isArray;
const isView = ArrayBuffer.isView;
const stringify = JSON.stringify;

/** Throws the failure for a primitive (or function) that is not JSON data. */
function rejectPrimitive(value: unknown): never {
  switch (typeof value) {
    case "number":
      throw new CanonicalFailure(
        "canonical_non_finite_number",
        `${value} is not a finite number and has no JSON form`,
        { value: String(value) },
      );
    case "undefined":
      throw new CanonicalFailure(
        "canonical_undefined",
        "undefined is not JSON data (only object properties may be undefined, and are omitted)",
      );
    case "bigint":
      throw new CanonicalFailure(
        "canonical_bigint",
        "a bigint has no JSON form; convert it to a string or number first",
      );
    case "function":
      throw new CanonicalFailure("canonical_function", "a function is not JSON data");
    case "symbol":
      throw new CanonicalFailure("canonical_symbol", "a symbol is not JSON data");
    default:
      throw new CanonicalFailure("canonical_non_plain_object", `unsupported type ${typeof value}`);
  }
}

/** Throws the failure for an object that is neither an array nor a plain object. */
function rejectObject(value: object): never {
  const tag = objectToString.call(value);
  const type = tag.slice(8, -1);
  if (isView(value) || tag === "[object ArrayBuffer]" || tag === "[object SharedArrayBuffer]") {
    throw new CanonicalFailure("canonical_typed_array", `a ${type} is binary data, not JSON data`, {
      type,
    });
  }
  if (tag === "[object Date]") {
    throw new CanonicalFailure(
      "canonical_date",
      "a Date is not JSON data; serialise it to a string first",
    );
  }
  const proto = getPrototypeOf(value) as { constructor?: { name?: unknown } } | null;
  const ctor = proto?.constructor?.name;
  const name = typeof ctor === "string" && ctor ? ctor : type;
  throw new CanonicalFailure(
    "canonical_non_plain_object",
    `an object with prototype ${name} is not a plain object`,
    { constructorName: name, type },
  );
}

/**
 * Checks what every container must satisfy before its members are visited: no cycle, not too
 * deep, and (for non-arrays) a plain object without symbol keys. Returns true for an array.
 */
function checkContainer(value: object, ancestors: readonly object[]): boolean {
  const depth = ancestors.length;
  for (let i = 0; i < depth; i++) {
    if (ancestors[i] === value) {
      throw new CanonicalFailure("canonical_cycle", "the value contains itself (a cycle)");
    }
  }
  if (depth >= CANONICAL_MAX_DEPTH) {
    throw new CanonicalFailure(
      "canonical_too_deep",
      `nesting deeper than ${CANONICAL_MAX_DEPTH} levels`,
      { maxDepth: CANONICAL_MAX_DEPTH },
    );
  }
  if (isArray(value)) return true;
  // A plain object's prototype is null or some realm's Object.prototype (whose prototype is null),
  // so plain objects from another vm context are accepted too.
  const proto = getPrototypeOf(value);
  if (
    proto !== null &&
    proto !== Object.prototype &&
    (getPrototypeOf(proto) !== null || objectToString.call(value) !== "[object Object]")
  ) {
    rejectObject(value);
  }
  if (getOwnPropertySymbols(value).length > 0) {
    throw new CanonicalFailure(
      "canonical_symbol",
      "an object with symbol-keyed properties is not JSON data",
    );
  }
  return false;
}

/** True for a key that objects enumerate before all others, in numeric order (an array index). */
function isArrayIndexKey(key: string): boolean {
  const c = key.charCodeAt(0);
  if (c < 48 || c > 57) return false;
  if (key.length > 10 || (c === 48 && key.length > 1)) return false;
  for (let i = 1; i < key.length; i++) {
    const d = key.charCodeAt(i);
    if (d < 48 || d > 57) return false;
  }
  return Number(key) < 4294967295;
}

/**
 * The last key list `sortedKeys` sorted, and its sorted copy. Sibling objects (an array of blocks,
 * of rows) usually share one key list in one order, so each array is sorted once, not once per
 * element: sorting was the largest part of copying. Keys are compared by identity first, then
 * as strings, so a hit never changes the result.
 */
let lastKeys: string[] = [];
let lastSorted: string[] = [];

/** `objectKeys(source).sort()`, reusing the previous result when the key list is the same. */
function sortedKeys(source: object): string[] {
  const keys = objectKeys(source);
  const n = keys.length;
  if (n === lastKeys.length) {
    let i = 0;
    while (i < n && keys[i] === lastKeys[i]) i++;
    if (i === n) return lastSorted;
  }
  let ordered = true;
  for (let i = 1; i < n; i++) {
    if (keys[i - 1]! > keys[i]!) {
      ordered = false;
      break;
    }
  }
  lastKeys = keys;
  lastSorted = ordered ? keys : keys.slice().sort();
  return lastSorted;
}

// ---- fast path: validate while copying with sorted keys, then JSON.stringify the copy ----

function copyValue(value: unknown, ancestors: object[]): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : rejectPrimitive(value);
    case "object":
      return value === null ? null : copyContainer(value, ancestors);
    default:
      return rejectPrimitive(value);
  }
}

function copyContainer(value: object, ancestors: object[]): unknown {
  if (checkContainer(value, ancestors)) {
    const array = value as unknown[];
    const n = array.length;
    const out: unknown[] = [];
    ancestors.push(array);
    let i = 0;
    try {
      for (; i < n; i++) {
        const item = array[i];
        out.push(typeof item === "string" ? item : copyValue(item, ancestors));
      }
    } catch (e) {
      if (e instanceof CanonicalFailure) e.segments.push(i);
      throw e;
    }
    ancestors.pop();
    return out;
  }
  const source = value as Record<string, unknown>;
  const keys = sortedKeys(source);
  const n = keys.length;
  const out: Record<string, unknown> = {};
  ancestors.push(source);
  let key = "";
  try {
    for (let i = 0; i < n; i++) {
      key = keys[i]!;
      if (isArrayIndexKey(key)) throw USE_WRITER;
      const item = source[key];
      if (item === undefined) continue;
      const copy = typeof item === "string" ? item : copyValue(item, ancestors);
      if (key === "__proto__") {
        defineProperty(out, key, {
          value: copy,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else {
        out[key] = copy;
      }
    }
  } catch (e) {
    if (e instanceof CanonicalFailure) e.segments.push(key);
    throw e;
  }
  ancestors.pop();
  return out;
}

// ---- general path: concatenate the text directly ----

function writeValue(value: unknown, ancestors: object[]): string {
  switch (typeof value) {
    case "string":
      return stringify(value);
    case "number":
      return Number.isFinite(value) ? "" + value : rejectPrimitive(value);
    case "boolean":
      return value ? "true" : "false";
    case "object":
      return value === null ? "null" : writeContainer(value, ancestors);
    default:
      return rejectPrimitive(value);
  }
}

function writeContainer(value: object, ancestors: object[]): string {
  if (checkContainer(value, ancestors)) {
    const array = value as unknown[];
    const n = array.length;
    let out = "[";
    ancestors.push(array);
    let i = 0;
    try {
      for (; i < n; i++) {
        if (i > 0) out += ",";
        out += writeValue(array[i], ancestors);
      }
    } catch (e) {
      if (e instanceof CanonicalFailure) e.segments.push(i);
      throw e;
    }
    ancestors.pop();
    return out + "]";
  }
  const source = value as Record<string, unknown>;
  const keys = objectKeys(source).sort();
  const n = keys.length;
  let out = "{";
  let first = true;
  ancestors.push(source);
  let key = "";
  try {
    for (let i = 0; i < n; i++) {
      key = keys[i]!;
      const item = source[key];
      if (item === undefined) continue;
      const text = writeValue(item, ancestors);
      if (first) first = false;
      else out += ",";
      out += stringify(key) + ":" + text;
    }
  } catch (e) {
    if (e instanceof CanonicalFailure) e.segments.push(key);
    throw e;
  }
  ancestors.pop();
  return out + "}";
}

function toCoreHashError(e: CanonicalFailure): CoreHashError {
  const path = formatPath(e.segments.reverse());
  return new CoreHashError(e.code, `${e.message} (at ${path})`, { path, ...e.extra });
}

/**
 * The canonical JSON text of `value` (see the module comment for the rules). Pure and
 * deterministic: equal JSON data gives an identical string in every runtime.
 *
 * @throws CoreHashError with `details.path` naming where the problem is, and code
 *   `canonical_undefined`, `canonical_non_finite_number`, `canonical_bigint`, `canonical_function`,
 *   `canonical_symbol`, `canonical_date`, `canonical_typed_array`, `canonical_cycle`,
 *   `canonical_non_plain_object` or `canonical_too_deep`.
 */
export function canonicalJson(value: unknown): string {
  try {
    if (typeof value === "object" && value !== null) {
      return stringify(copyContainer(value, []));
    }
    return writeValue(value, []);
  } catch (e) {
    if (e instanceof CanonicalFailure) throw toCoreHashError(e);
    if (e !== USE_WRITER) throw e;
  }
  return canonicalJsonWritten(value);
}

/**
 * The general path on its own: same text as `canonicalJson`, built by concatenation. Exported for
 * tests that hold the two paths to each other; not part of the package index.
 */
export function canonicalJsonWritten(value: unknown): string {
  try {
    return writeValue(value, []);
  } catch (e) {
    if (e instanceof CanonicalFailure) throw toCoreHashError(e);
    throw e;
  }
}
