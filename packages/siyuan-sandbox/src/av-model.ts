/**
 * Databases (attribute views, contract §4.7): the AV JSON as stored in
 * `data/storage/av/<avID>.json` (kept in the kernel's file store, so `/api/file/*` and the
 * data dir see it), the key/value operations, relations (one- and two-way), rollups, item
 * templates, and the render of a view. Every write goes straight to the file (no queue), as
 * the kernel's AV endpoints do.
 */
import { type Block, walk } from "./block.js";
import { isValidNodeId } from "./clock.js";
import { kernelError } from "./errors.js";
import type { Kernel } from "./kernel.js";
import { escapeHtml, plainContent } from "./render.js";

/** Key types the kernel knows (contract §4.7). */
export const AV_KEY_TYPES = [
  "block",
  "text",
  "number",
  "date",
  "select",
  "mSelect",
  "url",
  "email",
  "phone",
  "mAsset",
  "template",
  "created",
  "updated",
  "checkbox",
  "relation",
  "rollup",
  "lineNumber",
] as const;
export type AvKeyType = (typeof AV_KEY_TYPES)[number];

/** `spec` written into new AV files (the sandbox's assumption of the 3.7.3 value). */
export const AV_SPEC = 4;
/** Default page size of a view (`pageSize` −1 in a render request means this). */
export const AV_DEFAULT_PAGE_SIZE = 50;
/** Maximum database name length (setAttrViewName). */
export const AV_NAME_MAX_CHARS = 512;

export interface AvSelectOption {
  name: string;
  color: string;
  desc?: string;
}
export interface AvRelation {
  avID: string;
  isTwoWay: boolean;
  backKeyID: string;
}
export interface AvRollup {
  relationKeyID: string;
  keyID: string;
  calc: { operator: string; result?: unknown };
}
export interface AvKey {
  id: string;
  name: string;
  type: string;
  icon: string;
  desc: string;
  numberFormat: string;
  template: string;
  options?: AvSelectOption[];
  relation?: AvRelation;
  rollup?: AvRollup;
  date?: { autoFillNow: boolean; fillSpecificTime: boolean };
}
/** A cell value; one typed member (`text`, `number`, `mSelect`, ...) besides the common fields. */
export type AvValue = {
  id?: string;
  keyID: string;
  blockID: string;
  type: string;
  isDetached?: boolean;
  createdAt?: number;
  updatedAt?: number;
} & Record<string, unknown>;
export interface AvViewField {
  id: string;
  wrap: boolean;
  hidden: boolean;
  pin: boolean;
  width: string;
}
export type AvLayout = "table" | "gallery" | "kanban";
export interface AvView {
  id: string;
  icon: string;
  name: string;
  desc: string;
  hideAttrViewName: boolean;
  pageSize: number;
  type: AvLayout;
  table?: { columns: AvViewField[] };
  gallery?: { cardFields: AvViewField[] };
  kanban?: { fields: AvViewField[] };
  itemIds: string[];
  /** Spec 5: one root group (`combination`, its leaves in `filters`); a new view's is empty. */
  filters?: Array<Record<string, unknown>>;
  sorts?: Array<Record<string, unknown>>;
}
/** One new-item template (sandbox shape: static field values by key ID). */
export interface AvNewItemTemplate {
  id: string;
  name: string;
  fieldValues?: Record<string, { mode?: string; value?: Record<string, unknown> }>;
}
export interface AttributeView {
  spec: number;
  id: string;
  name: string;
  keyValues: Array<{ key: AvKey; values?: AvValue[] }>;
  keyIDs: string[] | null;
  viewID: string;
  views: AvView[];
  newItemTemplates?: AvNewItemTemplate[];
  defaultTemplateID?: string;
}

/** One stage of an AV's life, as `control.avLog()` lists them. */
export interface AvEvent {
  seq: number;
  avID: string;
  /** `created` (the file was written for the first time) or `changed`. */
  kind: "created" | "changed";
  /** What did it: the endpoint path, or `tx:<action>` for a transaction op. */
  by: string;
}

/** Value member by key type ("" for types whose cells hold no member). */
const MEMBER: Record<string, string> = {
  block: "block",
  text: "text",
  number: "number",
  date: "date",
  select: "mSelect",
  mSelect: "mSelect",
  url: "url",
  email: "email",
  phone: "phone",
  mAsset: "mAsset",
  template: "template",
  created: "created",
  updated: "updated",
  checkbox: "checkbox",
  relation: "relation",
  rollup: "rollup",
  lineNumber: "",
};
const VALUE_FIELDS = new Set([
  "id",
  "keyID",
  "blockID",
  "type",
  "isDetached",
  "createdAt",
  "updatedAt",
  ...Object.values(MEMBER).filter(Boolean),
]);

const emptyMember = (type: string): unknown => {
  switch (type) {
    case "number":
      return { content: 0, isNotEmpty: false };
    case "date":
    case "created":
    case "updated":
      return { content: 0, isNotEmpty: false, hasEndDate: false, isNotTime: true };
    case "select":
    case "mSelect":
    case "mAsset":
      return [];
    case "checkbox":
      return { checked: false };
    case "relation":
      return { blockIDs: [], contents: [] };
    case "rollup":
      return { contents: [] };
    default:
      return { content: "" };
  }
};

const LAYOUT_NAMES: Record<AvLayout, string> = {
  table: "Table",
  gallery: "Gallery",
  kanban: "Kanban",
};

/** The fields list of a view, whatever its layout. */
export function viewFields(v: AvView): AvViewField[] {
  if (v.type === "gallery") {
    v.gallery ??= { cardFields: [] };
    return v.gallery.cardFields;
  }
  if (v.type === "kanban") {
    v.kanban ??= { fields: [] };
    return v.kanban.fields;
  }
  v.table ??= { columns: [] };
  return v.table.columns;
}

const field = (id: string): AvViewField => ({
  id,
  wrap: false,
  hidden: false,
  pin: false,
  width: "",
});

const newKey = (id: string, name: string, type: string, icon = ""): AvKey => ({
  id,
  name,
  type,
  icon,
  desc: "",
  numberFormat: "",
  template: "",
});

/** Per-kernel AV state: the event log and a parse cache. */
export class AvStore {
  private readonly events: AvEvent[] = [];
  private seq = 0;
  private readonly cache = new Map<string, { raw: Buffer; av: AttributeView }>();

  constructor(readonly kernel: Kernel) {}

  /** Workspace path of an AV file. */
  static path(avID: string): string {
    return `/data/storage/av/${avID}.json`;
  }

  /** True when the AV file exists (never creates anything). */
  exists(avID: string): boolean {
    return isValidNodeId(avID) && this.kernel.files.kind(AvStore.path(avID)) === "file";
  }

  /** The stored AV as a private copy to change and save, or null. Never creates. */
  load(avID: string): AttributeView | null {
    const av = this.peek(avID);
    return av ? structuredClone(av) : null;
  }

  /**
   * The stored AV, shared and read-only (renders), or null for malformed IDs and missing or
   * unparsable files. The file is re-read when its bytes changed (e.g. a putFile). Never creates.
   */
  peek(avID: string): AttributeView | null {
    if (!this.exists(avID)) return null;
    const raw = this.kernel.files.read(AvStore.path(avID));
    const hit = this.cache.get(avID);
    if (hit && (hit.raw === raw || hit.raw.equals(raw))) return hit.av;
    try {
      const av = JSON.parse(raw.toString("utf8")) as AttributeView;
      if (!av || !Array.isArray(av.keyValues) || !Array.isArray(av.views)) return null;
      this.cache.set(avID, { raw, av });
      return av;
    } catch {
      return null;
    }
  }

  /** Like load, but throws the kernel's -1 error when missing. */
  require(avID: string, msg = "attribute view not found"): AttributeView {
    const av = this.load(avID);
    if (!av) throw kernelError(-1, msg);
    return av;
  }

  /** Writes the AV file and logs the stage. */
  save(av: AttributeView, by: string): void {
    const existed = this.exists(av.id);
    const raw = Buffer.from(JSON.stringify(av));
    this.kernel.files.write(AvStore.path(av.id), raw, Date.now());
    this.cache.set(av.id, { raw, av: structuredClone(av) });
    this.log(av.id, existed ? "changed" : "created", by);
  }

  log(avID: string, kind: AvEvent["kind"], by: string): void {
    this.events.push({ seq: ++this.seq, avID, kind, by });
  }

  /** Stage log, oldest first (optionally one AV's). */
  list(avID?: string): AvEvent[] {
    return this.events.filter((e) => avID === undefined || e.avID === avID).map((e) => ({ ...e }));
  }

  newId(): string {
    return this.kernel.ids.newId();
  }

  now(): number {
    return this.kernel.ids.clock.now();
  }
}

const stores = new WeakMap<Kernel, AvStore>();
/** The AV store of a kernel (created on first use). */
export function avStore(kernel: Kernel): AvStore {
  let s = stores.get(kernel);
  if (!s) {
    s = new AvStore(kernel);
    stores.set(kernel, s);
  }
  return s;
}

/** Database blocks (`NodeAttributeView`) in the open notebooks, with their AV IDs. */
export function avBlocks(kernel: Kernel, avID?: string): Block[] {
  const out: Block[] = [];
  for (const doc of kernel.ws.docs.values()) {
    if (kernel.ws.locate(doc.id) === null) continue;
    walk(doc.root, (b) => {
      if (b.type === "av" && (avID === undefined || b.text === avID)) out.push(b);
    });
  }
  return out;
}

/**
 * What the kernel does to a database block it inserts whose database already has a file: the
 * block shows the database's current view (`custom-sy-av-view`, unless it names one already;
 * SiYuan 3.7.3 `doInsert`, kernel-probes av.duplicate).
 */
export function adoptAvViews(kernel: Kernel, blocks: readonly Block[]): void {
  for (const top of blocks) {
    walk(top, (b) => {
      if (b.type !== "av" || b.attrs["custom-sy-av-view"]) return;
      const av = avStore(kernel).peek(b.text);
      const view = av?.views.find((v) => v.id === av.viewID);
      if (view) b.attrs["custom-sy-av-view"] = view.id;
    });
  }
}

/** The default AV the kernel writes on first render: "Primary Key" (block) and "Select". */
export function newDefaultAv(store: AvStore, avID: string, layout: AvLayout): AttributeView {
  const pk = newKey(store.newId(), "Primary Key", "block", "");
  const sel = newKey(store.newId(), "Select", "select", "");
  const viewId = store.newId();
  const view: AvView = {
    id: viewId,
    icon: "",
    name: LAYOUT_NAMES[layout],
    desc: "",
    hideAttrViewName: false,
    pageSize: AV_DEFAULT_PAGE_SIZE,
    type: layout,
    itemIds: [],
    filters: [{ column: "", operator: "", value: null, combination: "and" }],
  };
  viewFields(view).push(field(pk.id), field(sel.id));
  return {
    spec: AV_SPEC,
    id: avID,
    name: "",
    keyValues: [{ key: pk }, { key: sel }],
    keyIDs: null,
    viewID: viewId,
    views: [view],
  };
}

export function getKey(av: AttributeView, keyID: string): AvKey | null {
  return av.keyValues.find((kv) => kv.key.id === keyID)?.key ?? null;
}
export function primaryKey(av: AttributeView): AvKey {
  return av.keyValues.find((kv) => kv.key.type === "block")!.key;
}
/** Stored values of a key, without changing the AV (reads). */
const readValues = (av: AttributeView, keyID: string): AvValue[] =>
  av.keyValues.find((x) => x.key.id === keyID)?.values ?? [];
/** Stored values of a key, as a list to add to (writes). */
const valuesOf = (av: AttributeView, keyID: string): AvValue[] => {
  const kv = av.keyValues.find((x) => x.key.id === keyID);
  if (!kv) return [];
  kv.values ??= [];
  return kv.values;
};
/** Item IDs (primary-key values) in stored order. */
export function itemIds(av: AttributeView): string[] {
  return readValues(av, primaryKey(av).id).map((v) => v.blockID);
}

/** Adds a key (addAttributeViewKey). Unsupported types (e.g. `block`) add nothing. */
export function addKey(
  av: AttributeView,
  keyID: string,
  name: string,
  type: string,
  icon: string,
  previousKeyID: string,
): boolean {
  if (type === "block" || !(AV_KEY_TYPES as readonly string[]).includes(type)) return false;
  const key = newKey(keyID, name, type, icon);
  if (type === "rollup") key.rollup = { relationKeyID: "", keyID: "", calc: { operator: "" } };
  if (type === "date") key.date = { autoFillNow: false, fillSpecificTime: false };
  av.keyValues.push({ key });
  for (const v of av.views) insertField(v, keyID, previousKeyID);
  return true;
}

function insertField(v: AvView, keyID: string, previousKeyID: string): void {
  const fields = viewFields(v);
  if (fields.some((f) => f.id === keyID)) return;
  const at = fields.findIndex((f) => f.id === previousKeyID);
  if (at >= 0) fields.splice(at + 1, 0, field(keyID));
  else if (previousKeyID === "" && v.type === "table") fields.unshift(field(keyID));
  else fields.push(field(keyID));
}

/** Removes a key and its values from every view (and handles a two-way relation's back key). */
export function removeKey(
  store: AvStore,
  av: AttributeView,
  keyID: string,
  removeRelationDest: boolean,
  by: string,
): void {
  const key = getKey(av, keyID);
  if (!key) throw kernelError(-1, "key not found");
  if (key.type === "block") throw kernelError(-1, "cannot remove primary key field");
  av.keyValues = av.keyValues.filter((kv) => kv.key.id !== keyID);
  for (const v of av.views) {
    const fields = viewFields(v);
    const at = fields.findIndex((f) => f.id === keyID);
    if (at >= 0) fields.splice(at, 1);
  }
  const rel = key.relation;
  if (key.type === "relation" && rel?.isTwoWay && rel.backKeyID) {
    const same = rel.avID === av.id;
    const dest = same ? av : store.load(rel.avID);
    if (dest) {
      if (removeRelationDest) {
        if (getKey(dest, rel.backKeyID)) removeKey(store, dest, rel.backKeyID, false, by);
      } else {
        const back = getKey(dest, rel.backKeyID);
        if (back?.relation) back.relation = { ...back.relation, isTwoWay: false, backKeyID: "" };
      }
      if (!same) store.save(dest, by);
    }
  }
}

/** A new item's primary-key value. */
function blockValue(
  store: AvStore,
  pk: AvKey,
  itemID: string,
  boundID: string | null,
  content: string,
): AvValue {
  const now = store.now();
  const block: Record<string, unknown> = { content, created: now, updated: now };
  if (boundID) block.id = boundID;
  return {
    id: store.newId(),
    keyID: pk.id,
    blockID: itemID,
    type: "block",
    isDetached: boundID === null,
    block,
    createdAt: now,
    updatedAt: now,
  };
}

/** Adds the AV to a block's `custom-avs` (and `av-names`). */
export function bindBlock(kernel: Kernel, av: AttributeView, blockID: string, bind: boolean): void {
  const loc = kernel.ws.locate(blockID);
  if (!loc) return;
  const cur = (loc.block.attrs["custom-avs"] ?? "").split(",").filter(Boolean);
  const next = bind
    ? [...new Set([...cur, av.id])]
    : cur.filter((x) => x !== av.id && x.trim() !== "");
  // the kernel's `getAvNames`: one popover span per database ("Untitled" when unnamed), joined
  // by `&nbsp;` (kernel-probes av.keys-rows-values)
  const names = next
    .map((id) => {
      const name = id === av.id ? av.name : avStore(kernel).peek(id)?.name;
      if (name === undefined) return null;
      return `<span data-av-id="${id}" data-popover-url="/api/av/getMirrorDatabaseBlocks" class="popover__block">${escapeHtml(name === "" ? "Untitled" : name)}</span>`;
    })
    .filter((s): s is string => s !== null)
    .join("&nbsp;");
  kernel.ws.setAttrs(blockID, {
    "custom-avs": next.join(",") || null,
    "av-names": names === "" ? null : names,
  });
}

/** After a rename: the bound blocks' `av-names` show the new name (`setAttributeViewName`). */
export function refreshAvNames(kernel: Kernel, av: AttributeView): void {
  for (const v of readValues(av, primaryKey(av).id)) {
    if (!v.isDetached && v.blockID) bindBlock(kernel, av, v.blockID, true);
  }
}

/** A source of addAttributeViewBlocks. */
export interface AvSrc {
  id: string;
  isDetached: boolean;
  content?: string;
  itemID?: string;
}

/** Adds items: bound blocks (unknown blocks become detached rows) or detached rows. */
export function addItems(
  store: AvStore,
  av: AttributeView,
  srcs: AvSrc[],
  previousID: string,
  ignoreDefaultFill: boolean,
): string[] {
  const kernel = store.kernel;
  const pk = primaryKey(av);
  const pkValues = valuesOf(av, pk.id);
  const added: string[] = [];
  let prev = previousID;
  for (const src of srcs) {
    let bound: string | null = null;
    let content = src.content ?? "";
    if (!src.isDetached) {
      if (pkValues.some((v) => !v.isDetached && (v.block as { id?: string })?.id === src.id))
        continue; // already bound in this database
      const loc = isValidNodeId(src.id) ? kernel.ws.locate(src.id) : null;
      if (loc) {
        bound = src.id;
        content = plainContent(loc.block);
      }
    }
    const itemID = src.itemID && isValidNodeId(src.itemID) ? src.itemID : store.newId();
    pkValues.push(blockValue(store, pk, itemID, bound, content));
    for (const v of av.views) {
      const at = prev === "" ? -1 : v.itemIds.indexOf(prev);
      if (at >= 0) v.itemIds.splice(at + 1, 0, itemID);
      else if (prev === "") v.itemIds.unshift(itemID);
      else v.itemIds.push(itemID);
    }
    prev = itemID;
    if (bound) bindBlock(kernel, av, bound, true);
    if (!ignoreDefaultFill && bound === null) applyDefaultTemplate(store, av, itemID);
    added.push(itemID);
  }
  return added;
}

function applyDefaultTemplate(store: AvStore, av: AttributeView, itemID: string): void {
  const tpl = (av.newItemTemplates ?? []).find((t) => t.id === av.defaultTemplateID);
  if (!tpl?.fieldValues) return;
  for (const [keyID, fv] of Object.entries(tpl.fieldValues)) {
    const key = getKey(av, keyID);
    if (!key || key.type === "block" || !fv?.value) continue;
    setValue(store, av, keyID, itemID, structuredClone(fv.value));
  }
}

/** Removes items: their values everywhere, view order, bindings, and two-way back values. */
export function removeItems(store: AvStore, av: AttributeView, ids: string[], by: string): void {
  const drop = new Set(ids);
  const kernel = store.kernel;
  for (const v of valuesOf(av, primaryKey(av).id)) {
    const bound = (v.block as { id?: string } | undefined)?.id;
    if (drop.has(v.blockID) && !v.isDetached && bound) bindBlock(kernel, av, bound, false);
  }
  const dests = new Map<string, AttributeView>();
  for (const kv of av.keyValues) {
    const rel = kv.key.relation;
    if (kv.key.type === "relation" && rel?.isTwoWay && rel.backKeyID) {
      const dest = rel.avID === av.id ? av : (dests.get(rel.avID) ?? store.load(rel.avID));
      if (!dest) continue;
      if (dest !== av) dests.set(rel.avID, dest);
      for (const bv of valuesOf(dest, rel.backKeyID)) {
        const r = bv.relation as { blockIDs?: string[] } | undefined;
        if (r?.blockIDs) r.blockIDs = r.blockIDs.filter((x) => !drop.has(x));
      }
    }
  }
  for (const kv of av.keyValues) {
    if (kv.values) kv.values = kv.values.filter((v) => !drop.has(v.blockID));
  }
  for (const v of av.views) v.itemIds = v.itemIds.filter((x) => !drop.has(x));
  for (const d of dests.values()) store.save(d, by);
}

const randomColor = (store: AvStore): string =>
  String(1 + (Number.parseInt(store.kernel.ids.shortId().replace(/\D/g, "") || "0", 10) % 14));

/**
 * Sets one cell (setAttributeViewBlockAttr): the value JSON is merged onto the stored value
 * as Go's json.Unmarshal does, then normalized per key type. Returns the value, or
 * `undefined` when the key is unknown (the kernel panics there: code 0, data null).
 */
export function setValue(
  store: AvStore,
  av: AttributeView,
  keyID: string,
  itemID: string,
  data: unknown,
): AvValue | undefined {
  const key = getKey(av, keyID);
  if (!key) return undefined;
  const now = store.now();
  const values = valuesOf(av, keyID);
  let val = values.find((v) => v.blockID === itemID);
  if (!val) {
    val = {
      id: store.newId(),
      keyID,
      blockID: itemID,
      type: key.type,
      createdAt: now,
      updatedAt: now,
    };
    values.push(val);
  } else val.type = key.type;
  const oldRel = [...((val.relation as { blockIDs?: string[] } | undefined)?.blockIDs ?? [])];
  if (data && typeof data === "object" && !Array.isArray(data)) {
    for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
      if (VALUE_FIELDS.has(k)) val[k] = v;
    }
  }
  if (val.type === "number" && val.number && typeof val.number === "object") {
    const n = val.number as { content?: number; isNotEmpty?: boolean; formattedContent?: string };
    if (!n.isNotEmpty) {
      n.content = 0;
      n.formattedContent = "";
    } else n.formattedContent = String(n.content ?? 0);
  } else if (val.type === "date" && val.date && typeof val.date === "object") {
    const d = val.date as { content?: number; isNotEmpty?: boolean; formattedContent?: string };
    if (!d.isNotEmpty) {
      d.content = 0;
      d.formattedContent = "";
    }
  } else if ((val.type === "select" || val.type === "mSelect") && Array.isArray(val.mSelect)) {
    const opts = (val.mSelect as Array<{ content?: string; color?: string }>).filter(
      (o) => o && typeof o.content === "string" && o.content !== "",
    );
    val.mSelect = opts;
    if (opts.length === 0) return val; // the kernel returns before saving
    for (const o of opts) {
      key.options ??= [];
      const known = key.options.find((x) => x.name === o.content);
      if (known) o.color = known.color;
      else {
        const color = o.color || randomColor(store);
        o.color = color;
        key.options.push({ name: o.content!, color });
      }
    }
  }
  let added: string[] = [];
  let removed: string[] = [];
  if (val.type === "relation") {
    const r = (val.relation ?? {}) as { blockIDs?: string[]; contents?: unknown };
    const ids = [...new Set((r.blockIDs ?? []).filter((x) => typeof x === "string"))];
    val.relation = { blockIDs: ids };
    added = ids.filter((x) => !oldRel.includes(x));
    removed = oldRel.filter((x) => !ids.includes(x));
  }
  val.updatedAt = now;
  const pkVal = valuesOf(av, primaryKey(av).id).find((v) => v.blockID === itemID);
  if (pkVal && pkVal !== val) pkVal.updatedAt = now;
  if (key.type === "relation" && key.relation?.isTwoWay && (added.length || removed.length)) {
    const dest = key.relation.avID === av.id ? av : store.load(key.relation.avID);
    if (dest) {
      const back = key.relation.backKeyID;
      if (getKey(dest, back)) {
        for (const destItem of added) addBackLink(store, dest, back, destItem, itemID, now);
        for (const destItem of removed) {
          const bv = valuesOf(dest, back).find((v) => v.blockID === destItem);
          const rr = bv?.relation as { blockIDs?: string[] } | undefined;
          if (bv && rr?.blockIDs) {
            rr.blockIDs = rr.blockIDs.filter((x) => x !== itemID);
            bv.updatedAt = now;
          }
        }
      }
      if (dest !== av) store.save(dest, "relation-back");
    }
  }
  return val;
}

/** Adds `srcItem` to the back-relation value of `destItem` in the destination AV. */
function addBackLink(
  store: AvStore,
  dest: AttributeView,
  backKeyID: string,
  destItem: string,
  srcItem: string,
  now: number,
): void {
  const bvs = valuesOf(dest, backKeyID);
  let bv = bvs.find((v) => v.blockID === destItem);
  if (!bv) {
    bv = {
      id: store.newId(),
      keyID: backKeyID,
      blockID: destItem,
      type: "relation",
      createdAt: now,
      updatedAt: now,
    };
    bvs.push(bv);
  }
  const old = (bv.relation as { blockIDs?: string[] } | undefined)?.blockIDs ?? [];
  bv.relation = { blockIDs: [...new Set([...old, srcItem])] };
  bv.updatedAt = now;
}

/** `updateAttrViewColRelation` (contract §4.7, relation keys). */
export function setRelation(
  store: AvStore,
  src: AttributeView,
  keyID: string,
  destID: string,
  isTwoWay: boolean,
  backKeyID: string,
  backName: string,
  format: string,
  by: string,
): void {
  const key = getKey(src, keyID);
  if (!key) throw new Error(`key not found [${keyID}]`);
  const dest = destID === src.id ? src : store.load(destID);
  if (!dest) throw new Error(`attribute view not found [${destID}]`);
  const old = key.relation;
  if (old?.isTwoWay && old.backKeyID && (old.avID !== destID || old.backKeyID !== backKeyID)) {
    const oldDest = old.avID === src.id ? src : old.avID === destID ? dest : store.load(old.avID);
    const ob = oldDest ? getKey(oldDest, old.backKeyID) : null;
    if (ob?.relation) ob.relation = { ...ob.relation, isTwoWay: false, backKeyID: "" };
    if (oldDest && oldDest !== src && oldDest !== dest) store.save(oldDest, by);
  }
  key.name = format;
  key.relation = { avID: destID, isTwoWay, backKeyID };
  if (isTwoWay) {
    let back = getKey(dest, backKeyID);
    if (!back) {
      back = newKey(backKeyID, backName.trim() || `${src.name} ${format}`.trim(), "relation");
      dest.keyValues.push({ key: back });
      for (const v of dest.views) insertField(v, backKeyID, "\u0000none");
    }
    back.type = "relation";
    back.relation = { avID: src.id, isTwoWay: true, backKeyID: keyID };
    const now = store.now();
    for (const sv of valuesOf(src, keyID)) {
      for (const destItem of (sv.relation as { blockIDs?: string[] } | undefined)?.blockIDs ?? []) {
        addBackLink(store, dest, backKeyID, destItem, sv.blockID, now);
      }
    }
  }
  if (dest !== src) store.save(dest, by);
}

// ---------------------------------------------------------------------------------------------
// Rendering

const memberOf = (v: AvValue | undefined, type: string): unknown => {
  const m = MEMBER[type];
  if (!m) return undefined;
  return v?.[m] ?? emptyMember(type);
};

/** Plain text of a value (templates, unique-value calcs). */
function valueText(v: AvValue): string {
  const m = MEMBER[v.type] ?? "";
  const x = v[m] as unknown;
  if (Array.isArray(x))
    return x.map((o) => String((o as { content?: unknown }).content ?? "")).join(",");
  if (x && typeof x === "object") {
    const o = x as Record<string, unknown>;
    if ("checked" in o) return o.checked ? "true" : "false";
    if ("content" in o) return String(o.content ?? "");
  }
  return "";
}

function isEmptyValue(v: AvValue): boolean {
  const m = MEMBER[v.type] ?? "";
  const x = v[m] as unknown;
  if (Array.isArray(x)) return x.length === 0;
  if (x && typeof x === "object") {
    const o = x as Record<string, unknown>;
    if ("isNotEmpty" in o) return !o.isNotEmpty;
    if ("checked" in o) return !o.checked;
    if ("blockIDs" in o) return ((o.blockIDs as unknown[]) ?? []).length === 0;
    if ("content" in o) return String(o.content ?? "") === "";
  }
  return true;
}

const num = (n: number): AvValue => ({
  keyID: "",
  blockID: "",
  type: "number",
  number: { content: n, isNotEmpty: true, formattedContent: String(n) },
});

/** Applies a rollup operator to the destination values (`""` keeps them all). */
export function rollupCalc(operator: string, vals: AvValue[]): AvValue[] {
  const nums = vals
    .filter((v) => v.type === "number" && !isEmptyValue(v))
    .map((v) => Number((v.number as { content?: number }).content ?? 0));
  const dates = vals
    .filter((v) => v.type === "date" && !isEmptyValue(v))
    .map((v) => Number((v.date as { content?: number }).content ?? 0));
  const texts = vals.map(valueText);
  const nonEmpty = vals.filter((v) => !isEmptyValue(v));
  const pct = (n: number): AvValue =>
    num(vals.length === 0 ? 0 : Math.round((n / vals.length) * 10000) / 100);
  const checked = vals.filter(
    (v) => v.type === "checkbox" && (v.checkbox as { checked?: boolean })?.checked,
  ).length;
  const sorted = [...nums].sort((a, b) => a - b);
  switch (operator) {
    case "":
      return vals;
    case "Unique values": {
      const seen = new Set<string>();
      return vals.filter((v) => {
        const t = valueText(v);
        if (seen.has(t)) return false;
        seen.add(t);
        return true;
      });
    }
    case "Count all":
      return [num(vals.length)];
    case "Count values":
      return [num(nonEmpty.length)];
    case "Count unique values":
      return [num(new Set(nonEmpty.map(valueText)).size)];
    case "Count empty":
      return [num(vals.length - nonEmpty.length)];
    case "Count not empty":
      return [num(nonEmpty.length)];
    case "Percent empty":
      return [pct(vals.length - nonEmpty.length)];
    case "Percent not empty":
      return [pct(nonEmpty.length)];
    case "Percent unique values":
      return [pct(new Set(texts).size)];
    case "Sum":
      return [num(nums.reduce((a, b) => a + b, 0))];
    case "Average":
      return nums.length ? [num(nums.reduce((a, b) => a + b, 0) / nums.length)] : [];
    case "Median": {
      if (!sorted.length) return [];
      const mid = Math.floor(sorted.length / 2);
      return [num(sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2)];
    }
    case "Min":
      return sorted.length ? [num(sorted[0]!)] : [];
    case "Max":
      return sorted.length ? [num(sorted[sorted.length - 1]!)] : [];
    case "Range":
      return sorted.length ? [num(sorted[sorted.length - 1]! - sorted[0]!)] : [];
    case "Earliest":
    case "Latest": {
      if (!dates.length) return [];
      const d = operator === "Earliest" ? Math.min(...dates) : Math.max(...dates);
      return [{ keyID: "", blockID: "", type: "date", date: { content: d, isNotEmpty: true } }];
    }
    case "Checked":
      return [num(checked)];
    case "Unchecked":
      return [num(vals.length - checked)];
    case "Percent checked":
      return [pct(checked)];
    case "Percent unchecked":
      return [pct(vals.length - checked)];
    default:
      return vals;
  }
}

/** Loads other AVs at most once per render. */
class AvCache {
  private readonly map = new Map<string, AttributeView | null>();
  constructor(
    private readonly store: AvStore,
    self: AttributeView,
  ) {
    this.map.set(self.id, self);
  }
  get(id: string): AttributeView | null {
    if (!this.map.has(id)) this.map.set(id, this.store.peek(id));
    return this.map.get(id) ?? null;
  }
}

/** The primary-key value of an item with the bound block's current text. */
function liveBlockValue(kernel: Kernel, v: AvValue): AvValue {
  const b = v.block as { id?: string; content?: string } | undefined;
  if (v.isDetached || !b?.id) return v;
  const loc = kernel.ws.locate(b.id);
  if (!loc) return v;
  return { ...v, block: { ...b, content: plainContent(loc.block) } };
}

/**
 * Values by key and item, built once per stored AV object: renders get the shared parsed AV
 * (`peek`), which is replaced, never changed, on every write.
 */
const valueIndexes = new WeakMap<AttributeView, Map<string, Map<string, AvValue>>>();
function valueIndex(av: AttributeView, keyID: string): Map<string, AvValue> {
  let perKey = valueIndexes.get(av);
  if (!perKey) {
    perKey = new Map();
    valueIndexes.set(av, perKey);
  }
  let m = perKey.get(keyID);
  if (!m) {
    m = new Map();
    for (const v of readValues(av, keyID)) m.set(v.blockID, v);
    perKey.set(keyID, m);
  }
  return m;
}

/** One cell value as rendered (relation contents and rollups computed, templates evaluated). */
function cellValue(
  store: AvStore,
  cache: AvCache,
  av: AttributeView,
  key: AvKey,
  itemID: string,
  rowIndex: number,
): AvValue {
  const stored = valueIndex(av, key.id).get(itemID);
  const base: AvValue = { ...(stored ?? {}), keyID: key.id, blockID: itemID, type: key.type };
  switch (key.type) {
    case "block":
      return liveBlockValue(store.kernel, base);
    case "relation": {
      const ids = (stored?.relation as { blockIDs?: string[] })?.blockIDs ?? [];
      const dest = key.relation ? cache.get(key.relation.avID) : null;
      const contents = dest
        ? ids.map((id) => {
            const pv = valueIndex(dest, primaryKey(dest).id).get(id);
            return pv ? liveBlockValue(store.kernel, pv) : null;
          })
        : [];
      return { ...base, relation: { blockIDs: ids, contents: contents.filter(Boolean) } };
    }
    case "rollup": {
      const r = key.rollup;
      const relKey = r ? getKey(av, r.relationKeyID) : null;
      const dest = relKey?.relation ? cache.get(relKey.relation.avID) : null;
      const destKey = dest && r ? getKey(dest, r.keyID) : null;
      if (!r || !relKey || !dest || !destKey) return { ...base, rollup: { contents: [] } };
      const ids =
        (valueIndex(av, relKey.id).get(itemID)?.relation as { blockIDs?: string[] })?.blockIDs ??
        [];
      const destVals = ids.map((id) => {
        const v = valueIndex(dest, destKey.id).get(id);
        const full: AvValue = { ...(v ?? {}), keyID: destKey.id, blockID: id, type: destKey.type };
        if (!v && MEMBER[destKey.type]) full[MEMBER[destKey.type]!] = emptyMember(destKey.type);
        return destKey.type === "block" ? liveBlockValue(store.kernel, full) : full;
      });
      return { ...base, rollup: { contents: rollupCalc(r.calc?.operator ?? "", destVals) } };
    }
    case "template": {
      const content = key.template.replace(
        /(?:\{\{|\.action\{)\s*\.([^}\s]+)\s*\}\}?/g,
        (_m, name: string) => {
          const k = av.keyValues.find((kv) => kv.key.name === name)?.key;
          const v = k ? valueIndex(av, k.id).get(itemID) : undefined;
          return v ? valueText(v) : "";
        },
      );
      return { ...base, template: { content } };
    }
    case "lineNumber":
      return { ...base, number: { content: rowIndex + 1, isNotEmpty: true } };
    default: {
      const m = MEMBER[key.type];
      if (m && base[m] === undefined) base[m] = memberOf(undefined, key.type);
      return base;
    }
  }
}

/** Options of a render. */
export interface RenderOptions {
  viewID: string;
  page: number;
  pageSize: number;
  blockID: string;
}

/** renderAttributeView's data (contract §4.7). */
export function renderAv(store: AvStore, av: AttributeView, o: RenderOptions): unknown {
  const blockView = o.blockID
    ? store.kernel.ws.locate(o.blockID)?.block.attrs["custom-sy-av-view"]
    : undefined;
  const view =
    av.views.find((v) => v.id === o.viewID) ??
    av.views.find((v) => v.id === blockView) ??
    av.views.find((v) => v.id === av.viewID) ??
    av.views[0];
  if (!view) throw kernelError(-1, "view not found");
  const cache = new AvCache(store, av);
  const known = new Set(itemIds(av));
  const order = [...view.itemIds.filter((id) => known.has(id))];
  const inView = new Set(order);
  for (const id of known) if (!inView.has(id)) order.push(id);
  const pageSize = o.pageSize > 0 ? o.pageSize : view.pageSize || AV_DEFAULT_PAGE_SIZE;
  const page = o.page > 0 ? o.page : 1;
  const start = (page - 1) * pageSize;
  const slice = order.slice(start, start + pageSize);
  const fields = viewFields(view)
    .map((f) => ({ f, key: getKey(av, f.id) }))
    .filter((x): x is { f: AvViewField; key: AvKey } => x.key !== null);
  const columns = fields.map(({ f, key }) => ({
    id: key.id,
    name: key.name,
    type: key.type,
    icon: key.icon,
    desc: key.desc,
    wrap: f.wrap,
    hidden: f.hidden,
    pin: f.pin,
    width: f.width,
    numberFormat: key.numberFormat,
    template: key.template,
    calc: null,
    ...(key.options ? { options: key.options } : {}),
    ...(key.relation ? { relation: key.relation } : {}),
    ...(key.rollup ? { rollup: key.rollup } : {}),
    ...(key.date ? { date: key.date } : {}),
  }));
  const rows = slice.map((itemID, i) => ({
    id: itemID,
    cells: fields.map(({ key }) => {
      const value = cellValue(store, cache, av, key, itemID, start + i);
      return { id: value.id ?? "", value, valueType: key.type, color: "", bgColor: "" };
    }),
  }));
  const common = {
    id: view.id,
    icon: view.icon,
    name: view.name,
    desc: view.desc,
    hideAttrViewName: view.hideAttrViewName,
    filters: view.filters ?? [],
    sorts: view.sorts ?? [],
    // the view's own page size, whatever page size the request used (kernel-probes av.*)
    pageSize: view.pageSize || AV_DEFAULT_PAGE_SIZE,
  };
  const body =
    view.type === "table"
      ? { ...common, columns, rows, rowCount: order.length }
      : {
          ...common,
          fields: columns,
          cards: rows.map((r) => ({ id: r.id, values: r.cells })),
          cardCount: order.length,
        };
  return {
    name: av.name,
    id: av.id,
    viewType: view.type,
    viewID: view.id,
    views: av.views.map((v) => ({
      id: v.id,
      icon: v.icon,
      name: v.name,
      desc: v.desc,
      hideAttrViewName: v.hideAttrViewName,
      type: v.type,
      pageSize: v.pageSize,
    })),
    view: body,
    isMirror: avBlocks(store.kernel, av.id).length > 1,
    newItemTemplates: av.newItemTemplates ?? [],
    defaultTemplateID: av.defaultTemplateID ?? "",
  };
}
