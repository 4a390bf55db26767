/**
 * Canonical JSON: one string per JSON value, so that equal data always hashes equally.
 *
 * Object keys are sorted by UTF-16 code unit order (the default `Array.prototype.sort` order) at
 * every depth; array order is kept; numbers are written in ECMAScript's shortest round-trip form
 * with `-0` as `0`; strings are escaped exactly as `JSON.stringify` escapes them and never
 * normalised (lone surrogates come out as `\udxxx` escapes, so no information is lost); properties
 * whose value is `undefined` are omitted. Everything else that is not JSON data throws.
 *
 * Two passes. The first reads the value, each property exactly once (a getter or proxy trap runs
 * once), validates it and copies it into fresh objects whose keys are inserted in sorted order.
 * The second writes the copy, which nothing else can reach, so the text is that of the data that
 * was validated. `JSON.stringify` writes every part of the copy it can (engine fast path); the
 * writer opens the rest level by level: objects with an array-index key ("0", "10"), which
 * objects enumerate numerically before all other keys, not in code unit order, and, for hashing
 * (`canonicalJsonChunks`), anything whose text is longer than `CHUNK_UNITS`, so that the text
 * reaches the hash in chunks and never exists as one string. A string of a megabyte or more cost
 * more to allocate than to hash: V8 gives it pages of its own, fresh from the OS each time.
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
const defineProperty = Object.defineProperty;
const isArray = Array.isArray;
const isView = ArrayBuffer.isView;
const stringify = JSON.stringify;

/**
 * Code units of text handed to the hash at a time, roughly (see `canonicalJsonChunks`): well under
 * the size at which V8 allocates a string on its own pages (128 KiB, 64 Ki two-byte code units).
 */
const CHUNK_UNITS = 16384;

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

/** The sorted key list of objects with one `Object.keys` list, and whether it has an array-index key. */
interface KeyOrder {
  /** `Object.keys` as read. */
  readonly keys: readonly string[];
  readonly sorted: readonly string[];
  readonly indexed: boolean;
}

/**
 * The last key order met at each depth. Sibling objects (an array of blocks, of rows) usually share
 * one key list in one order, so each array is sorted once, not once per element: sorting was the
 * largest part of copying. Per depth, because siblings alternate with their children (a block, its
 * attrs, the next block). Key lists are compared key by key, so a hit never changes the result.
 */
const keyOrders: KeyOrder[] = [];

/** `objectKeys(source).sort()` and whether it has an array-index key, from `keyOrders` if it can. */
function keyOrder(source: object, depth: number): KeyOrder {
  const keys = objectKeys(source);
  const n = keys.length;
  const last = keyOrders[depth];
  if (last !== undefined && last.keys.length === n) {
    let i = 0;
    while (i < n && keys[i] === last.keys[i]) i++;
    if (i === n) return last;
  }
  let ordered = true;
  for (let i = 1; i < n; i++) {
    if (keys[i - 1]! > keys[i]!) {
      ordered = false;
      break;
    }
  }
  const sorted = ordered ? keys : keys.slice().sort();
  let indexed = false;
  for (let i = 0; i < n && !indexed; i++) indexed = isArrayIndexKey(sorted[i]!);
  const order: KeyOrder = { keys, sorted, indexed };
  keyOrders[depth] = order;
  return order;
}

// ---- first pass: read, validate and copy ----

/**
 * The copy of an object with an array-index key: a plain object would enumerate that key first,
 * so the keys (in code unit order, `undefined` members left out) and values are kept apart.
 */
class IndexedCopy {
  constructor(
    readonly keys: string[],
    readonly values: unknown[],
  ) {}
}

/** One copy in progress: the path being copied, the text's length so far, what the writer opens. */
class Copy {
  readonly ancestors: object[] = [];
  /** Roughly the length of the text of everything copied so far. */
  size = 0;
  /**
   * The copies the writer opens itself instead of passing them to `JSON.stringify` whole: every
   * `IndexedCopy` and every copy holding one, and every copy whose text is longer than `limit`.
   * An array maps to the indexes at which its text so far passed `limit` again (where a new run of
   * elements starts), or to undefined.
   */
  readonly opened = new Map<object, number[] | undefined>();
  root: unknown = undefined;
  constructor(readonly limit: number) {}
}

function copyValue(value: unknown, copy: Copy): unknown {
  switch (typeof value) {
    case "string":
      copy.size += value.length;
      return value;
    case "boolean":
      return value;
    case "number":
      copy.size += 8;
      return Number.isFinite(value) ? value : rejectPrimitive(value);
    case "object":
      if (value === null) return null;
      return checkContainer(value, copy.ancestors)
        ? copyArray(value as unknown[], copy)
        : copyObject(value as Record<string, unknown>, copy);
    default:
      return rejectPrimitive(value);
  }
}

function copyArray(array: unknown[], copy: Copy): unknown[] {
  const n = array.length;
  const out: unknown[] = [];
  const start = copy.size;
  const opened = copy.opened.size;
  let runStart = start;
  let cuts: number[] | undefined;
  copy.ancestors.push(array);
  let i = 0;
  try {
    for (; i < n; i++) {
      out.push(copyValue(array[i], copy));
      copy.size++;
      if (copy.size - runStart > copy.limit) {
        if (cuts === undefined) cuts = [];
        cuts.push(i + 1);
        runStart = copy.size;
      }
    }
  } catch (e) {
    if (e instanceof CanonicalFailure) e.segments.push(i);
    throw e;
  }
  copy.ancestors.pop();
  if (copy.size - start > copy.limit || copy.opened.size !== opened) copy.opened.set(out, cuts);
  return out;
}

function copyObject(source: Record<string, unknown>, copy: Copy): object {
  const order = keyOrder(source, copy.ancestors.length);
  const keys = order.sorted;
  const indexed = order.indexed;
  const n = keys.length;
  const out: Record<string, unknown> = {};
  const indexedCopy = indexed ? new IndexedCopy([], []) : undefined;
  const start = copy.size;
  const opened = copy.opened.size;
  copy.ancestors.push(source);
  let key = "";
  try {
    for (let i = 0; i < n; i++) {
      key = keys[i]!;
      const item = source[key];
      if (item === undefined) continue;
      const value = copyValue(item, copy);
      copy.size += key.length + 4;
      if (indexedCopy !== undefined) {
        indexedCopy.keys.push(key);
        indexedCopy.values.push(value);
      } else if (key === "__proto__") {
        defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      } else {
        out[key] = value;
      }
    }
  } catch (e) {
    if (e instanceof CanonicalFailure) e.segments.push(key);
    throw e;
  }
  copy.ancestors.pop();
  const result = indexedCopy ?? out;
  if (indexed || copy.size - start > copy.limit || copy.opened.size !== opened) {
    copy.opened.set(result, undefined);
  }
  return result;
}

/** The validated copy of `value`; `limit` is the text length above which a copy is opened. */
function copyOf(value: unknown, limit: number): Copy {
  const copy = new Copy(limit);
  try {
    copy.root = copyValue(value, copy);
  } catch (e) {
    if (e instanceof CanonicalFailure) throw toCoreHashError(e);
    throw e;
  }
  return copy;
}

// ---- second pass: write the copy ----

/** Collects text and hands it on in chunks of about `limit` code units (all at once if infinite). */
class TextSink {
  private parts: string[] = [];
  private size = 0;
  constructor(
    readonly limit: number,
    private readonly onChunk: (chunk: string) => void,
  ) {}

  push(text: string): void {
    this.parts.push(text);
    this.size += text.length;
    if (this.size > this.limit) this.flush();
  }

  flush(): void {
    if (this.parts.length === 0) return;
    const chunk = this.parts.join("");
    this.parts = [];
    this.size = 0;
    this.onChunk(chunk);
  }
}

/** True for a member the writer writes on its own: an opened copy or a string longer than a chunk. */
function alone(value: unknown, copy: Copy, sink: TextSink): boolean {
  return typeof value === "object"
    ? value !== null && copy.opened.has(value)
    : typeof value === "string" && value.length > sink.limit;
}

function writeCopy(value: unknown, copy: Copy, sink: TextSink): void {
  if (!alone(value, copy, sink)) {
    sink.push(stringify(value));
  } else if (typeof value === "string") {
    writeLongString(value, sink);
  } else if (value instanceof IndexedCopy) {
    writeMembers(value.keys, value.values, copy, sink);
  } else if (isArray(value)) {
    writeArray(value, copy.opened.get(value), copy, sink);
  } else {
    const object = value as Record<string, unknown>;
    const keys = objectKeys(object);
    writeMembers(
      keys,
      keys.map((k) => object[k]),
      copy,
      sink,
    );
  }
}

/** Consecutive members that are not `alone` and not split by a cut go to `JSON.stringify` together. */
function writeArray(
  array: unknown[],
  cuts: readonly number[] | undefined,
  copy: Copy,
  sink: TextSink,
): void {
  const n = array.length;
  let next = 0;
  sink.push("[");
  for (let i = 0; i < n; ) {
    if (i > 0) sink.push(",");
    if (alone(array[i], copy, sink)) {
      writeCopy(array[i], copy, sink);
      i++;
      continue;
    }
    while (cuts !== undefined && next < cuts.length && cuts[next]! <= i) next++;
    const end = cuts !== undefined && next < cuts.length ? cuts[next]! : n;
    let j = i + 1;
    while (j < end && !alone(array[j], copy, sink)) j++;
    sink.push(j === i + 1 ? stringify(array[i]) : stringify(array.slice(i, j)).slice(1, -1));
    i = j;
  }
  sink.push("]");
}

function writeMembers(
  keys: readonly string[],
  values: readonly unknown[],
  copy: Copy,
  sink: TextSink,
): void {
  sink.push("{");
  for (let i = 0; i < keys.length; i++) {
    sink.push(`${i > 0 ? "," : ""}${stringify(keys[i])}:`);
    writeCopy(values[i], copy, sink);
  }
  sink.push("}");
}

/**
 * A string longer than a chunk, escaped in slices of about a chunk. A slice never ends between the
 * two halves of a surrogate pair, so each slice escapes exactly as it does inside the whole.
 */
function writeLongString(s: string, sink: TextSink): void {
  const n = s.length;
  sink.push('"');
  for (let start = 0; start < n; ) {
    let end = Math.min(start + sink.limit, n);
    if (end < n && isHighSurrogate(s.charCodeAt(end - 1)) && isLowSurrogate(s.charCodeAt(end))) {
      end = end - 1 > start ? end - 1 : end + 1;
    }
    sink.push(stringify(s.slice(start, end)).slice(1, -1));
    start = end;
  }
  sink.push('"');
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

function toCoreHashError(e: CanonicalFailure): CoreHashError {
  const path = formatPath(e.segments.reverse());
  return new CoreHashError(e.code, `${e.message} (at ${path})`, { path, ...e.extra });
}

/**
 * The canonical JSON text of `value` (see the module comment for the rules). Pure and
 * deterministic: equal JSON data gives an identical string in every runtime. Reads each property
 * of `value` once.
 *
 * @throws CoreHashError with `details.path` naming where the problem is, and code
 *   `canonical_undefined`, `canonical_non_finite_number`, `canonical_bigint`, `canonical_function`,
 *   `canonical_symbol`, `canonical_date`, `canonical_typed_array`, `canonical_cycle`,
 *   `canonical_non_plain_object` or `canonical_too_deep`.
 */
export function canonicalJson(value: unknown): string {
  const copy = copyOf(value, Infinity);
  if (copy.opened.size === 0) return stringify(copy.root);
  let text = "";
  const sink = new TextSink(Infinity, (chunk) => {
    text = chunk;
  });
  writeCopy(copy.root, copy, sink);
  sink.flush();
  return text;
}

/**
 * The text of `canonicalJson(value)` in consecutive chunks of about `chunkUnits` code units, for
 * hashing it without ever holding it as one string. `onChunk` is first called once the whole value
 * has been read and validated (it throws as `canonicalJson` does before any chunk), and a chunk
 * never ends between the two halves of a surrogate pair, so hashing each chunk's UTF-8 in turn
 * hashes the UTF-8 of the whole. Not part of the package index; tests pass small `chunkUnits`.
 */
export function canonicalJsonChunks(
  value: unknown,
  onChunk: (chunk: string) => void,
  chunkUnits = CHUNK_UNITS,
): void {
  const copy = copyOf(value, chunkUnits);
  const sink = new TextSink(chunkUnits, onChunk);
  writeCopy(copy.root, copy, sink);
  sink.flush();
}
