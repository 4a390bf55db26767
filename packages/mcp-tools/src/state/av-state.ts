/**
 * The canonical state of a database (attribute view, contract §4.7) that av mutations hash: its
 * columns, its rows, single cells, and the far side of a relation. Pure functions over the file
 * `getAttributeView` returns, so a probe, a readback and a unit test compute the same thing.
 *
 * A cell is canonical as its plain value (what `av.render` shows) with the kernel's bookkeeping
 * left out: value IDs, `createdAt` / `updatedAt` and a number's `formattedContent` change on
 * every write without changing what the cell says. A relation cell is its destination item IDs
 * (the kernel's `contents` are rendered, not stored); a rollup has no stored cells at all.
 */
import { type StateDigest, stateHash } from "@sisyphus/core-hash";
import type { AvFile, AvKey } from "../kernel.js";
import { plainCell } from "../tools/av/reads.js";

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === "object" ? (v as Json) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** A column as the state sees it: what it is called, its type, and how it relates or rolls up. */
export interface KeyState {
  readonly id: string;
  readonly name: string;
  readonly type: string;
  readonly options?: readonly string[];
  readonly relation?: {
    readonly avID: string;
    readonly isTwoWay: boolean;
    readonly backKeyID: string;
  };
  readonly rollup?: {
    readonly relationKeyID: string;
    readonly keyID: string;
    readonly operator: string;
  };
}

/** The columns of the file, in file order. */
export function avKeys(av: AvFile): AvKey[] {
  return list(av.keyValues).map((kv) => obj(obj(kv)["key"]) as AvKey);
}

/** One column, or `undefined`. */
export function avKey(av: AvFile, keyID: string): AvKey | undefined {
  return avKeys(av).find((k) => k.id === keyID);
}

/** The primary-key column (type `block`), or `undefined` in a malformed file. */
export function primaryKey(av: AvFile): AvKey | undefined {
  return avKeys(av).find((k) => k.type === "block");
}

/** A column's canonical state. */
export function keyState(k: AvKey): KeyState {
  const out: { -readonly [F in keyof KeyState]: KeyState[F] } = {
    id: k.id,
    name: k.name,
    type: k.type,
  };
  const options = list(k["options"]).map((o) => String(obj(o)["name"] ?? ""));
  if (options.length > 0) out.options = options;
  const rel = obj(k["relation"]);
  if (typeof rel["avID"] === "string" && rel["avID"] !== "") {
    out.relation = {
      avID: rel["avID"],
      isTwoWay: rel["isTwoWay"] === true,
      backKeyID: String(rel["backKeyID"] ?? ""),
    };
  }
  const roll = obj(k["rollup"]);
  if (k.type === "rollup") {
    out.rollup = {
      relationKeyID: String(roll["relationKeyID"] ?? ""),
      keyID: String(roll["keyID"] ?? ""),
      operator: String(obj(roll["calc"])["operator"] ?? ""),
    };
  }
  return out;
}

/** The stored values of a column by item (row) ID. */
export function valuesOf(av: AvFile, keyID: string): Map<string, Json> {
  const kv = list(av.keyValues)
    .map(obj)
    .find((x) => obj(x["key"])["id"] === keyID);
  const out = new Map<string, Json>();
  for (const v of list(kv?.["values"]).map(obj)) {
    if (typeof v["blockID"] === "string") out.set(v["blockID"], v);
  }
  return out;
}

/** The row (item) IDs: the primary key's values, in stored order. */
export function rowIds(av: AvFile): string[] {
  const pk = primaryKey(av);
  return pk === undefined ? [] : [...valuesOf(av, pk.id).keys()];
}

/**
 * A cell's canonical value: its plain value; a primary-key cell also says which block it binds
 * (`null` for a detached row).
 */
export function cellState(value: Json | undefined): unknown {
  if (value === undefined) return null;
  if (value["type"] === "block") {
    const block = obj(value["block"]);
    return {
      content: String(block["content"] ?? ""),
      bound: value["isDetached"] === true ? null : (block["id"] ?? null),
    };
  }
  return plainCell(value);
}

/** Whether a plain value says "empty" (no stored value and an empty one read the same). */
const emptyPlain = (v: unknown): boolean =>
  v === null || v === false || (Array.isArray(v) && v.length === 0);

/** One row: its ID and every stored, non-empty cell by column ID (rollups have none). */
export function rowState(av: AvFile, itemID: string): { id: string; cells: Json } {
  const cells: Json = {};
  for (const k of avKeys(av)) {
    const v = cellState(valuesOf(av, k.id).get(itemID));
    if (!emptyPlain(v)) cells[k.id] = v;
  }
  return { id: itemID, cells };
}

/** The database's key set: its columns in file order. */
export function keySetState(av: AvFile): { id: string; keys: KeyState[] } {
  return { id: av.id, keys: avKeys(av).map(keyState) };
}

/** A column's canonical values by item ID, items sorted (a relation's back key, a rollup's input). */
export function columnState(av: AvFile, keyID: string): Json {
  const out: Json = {};
  const values = valuesOf(av, keyID);
  for (const id of [...values.keys()].sort()) {
    const v = cellState(values.get(id));
    if (!emptyPlain(v)) out[id] = v;
  }
  return out;
}

/**
 * The far side of a relation column: the destination's key set and, when the relation is
 * two-way, its back key's values. `null` when the destination has no file.
 */
export function relationSide(dest: AvFile | null, backKeyID: string): Json | null {
  if (dest === null) return null;
  return {
    ...keySetState(dest),
    back: backKeyID !== "" && avKey(dest, backKeyID) ? columnState(dest, backKeyID) : null,
  };
}

/** The digest of a canonical state (the same `stateHash` every precondition uses). */
export function avDigest(state: unknown): StateDigest {
  return stateHash(state);
}
