/**
 * Canonical JSON: one string per JSON value, so that equal data always hashes equally.
 *
 * Object keys are sorted by UTF-16 code unit order (the default `Array.prototype.sort` order) at
 * every depth; array order is kept; numbers are written in ECMAScript's shortest round-trip form
 * with `-0` as `0`; strings are escaped exactly as `JSON.stringify` escapes them and never
 * normalised (lone surrogates come out as `\udxxx` escapes, so no information is lost); properties
 * whose value is `undefined` are omitted. Everything else that is not JSON data throws.
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
const isArray = Array.isArray;
const isView = ArrayBuffer.isView;

/** Throws the failure for a value that is an object but neither an array nor a plain object. */
function rejectObject(value: object): never {
  const tag = objectToString.call(value);
  if (isView(value) || tag === "[object ArrayBuffer]" || tag === "[object SharedArrayBuffer]") {
    throw new CanonicalFailure(
      "canonical_typed_array",
      `a ${tag.slice(8, -1)} is binary data, not JSON data`,
      {
        type: tag.slice(8, -1),
      },
    );
  }
  if (tag === "[object Date]") {
    throw new CanonicalFailure(
      "canonical_date",
      "a Date is not JSON data; serialise it to a string first",
    );
  }
  const proto = getPrototypeOf(value) as { constructor?: { name?: unknown } } | null;
  const ctor = proto?.constructor?.name;
  throw new CanonicalFailure(
    "canonical_non_plain_object",
    `an object with prototype ${typeof ctor === "string" && ctor ? ctor : tag.slice(8, -1)} is not a plain object`,
    { constructorName: typeof ctor === "string" ? ctor : undefined, type: tag.slice(8, -1) },
  );
}

/**
 * True when `value`'s prototype is `null` or some realm's `Object.prototype` (whose own prototype
 * is `null`), so plain objects from another `vm` context are accepted too.
 */
function isPlainPrototype(value: object): boolean {
  const proto = getPrototypeOf(value);
  if (proto === null || proto === Object.prototype) return true;
  return getPrototypeOf(proto) === null && objectToString.call(value) === "[object Object]";
}

/** Serialises a non-string, non-number value (those two are handled inline by the callers). */
function writeValue(value: unknown, ancestors: object[]): string {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      if (Number.isFinite(value)) return "" + value;
      throw new CanonicalFailure(
        "canonical_non_finite_number",
        `${value} is not a finite number and has no JSON form`,
        { value: String(value) },
      );
    case "boolean":
      return value ? "true" : "false";
    case "object":
      if (value === null) return "null";
      return writeContainer(value, ancestors);
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

function writeContainer(value: object, ancestors: object[]): string {
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
  if (isArray(value)) {
    ancestors.push(value);
    const n = value.length;
    let out = "[";
    let i = 0;
    try {
      for (; i < n; i++) {
        const item: unknown = value[i];
        if (i > 0) out += ",";
        out += typeof item === "string" ? JSON.stringify(item) : writeValue(item, ancestors);
      }
    } catch (e) {
      if (e instanceof CanonicalFailure) e.segments.push(i);
      throw e;
    }
    ancestors.pop();
    return out + "]";
  }
  if (!isPlainPrototype(value)) rejectObject(value);
  if (getOwnPropertySymbols(value).length > 0) {
    throw new CanonicalFailure(
      "canonical_symbol",
      "an object with symbol-keyed properties is not JSON data",
    );
  }
  const keys = objectKeys(value).sort();
  const n = keys.length;
  ancestors.push(value);
  let out = "{";
  let first = true;
  let key = "";
  try {
    for (let i = 0; i < n; i++) {
      key = keys[i]!;
      const item: unknown = (value as Record<string, unknown>)[key];
      if (item === undefined) continue;
      const text = typeof item === "string" ? JSON.stringify(item) : writeValue(item, ancestors);
      if (first) first = false;
      else out += ",";
      out += JSON.stringify(key) + ":" + text;
    }
  } catch (e) {
    if (e instanceof CanonicalFailure) e.segments.push(key);
    throw e;
  }
  ancestors.pop();
  return out + "}";
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
    return writeValue(value, []);
  } catch (e) {
    if (e instanceof CanonicalFailure) {
      const path = formatPath(e.segments.reverse());
      throw new CoreHashError(e.code, `${e.message} (at ${path})`, { path, ...e.extra });
    }
    throw e;
  }
}
