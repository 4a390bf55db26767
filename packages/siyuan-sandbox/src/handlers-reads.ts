/**
 * Reads added for issue 34 (kernel-probes `reads.*`): a block's word count
 * (`getBlocksWordCount`), the paragraphs updated last (`getRecentUpdatedBlocks`), a document's asset
 * links (`getDocAssets`) and the template search (`searchTemplate`), answered as SiYuan 3.7.3 does.
 */
import { randomBytes } from "node:crypto";
import { posix } from "node:path";
import { type Block, walk } from "./block.js";
import { blockJsonOfRow } from "./block-json.js";
import {
  DEFAULT_MAX_LIST_COUNT,
  DYNAMIC_ANCHOR_MAX_CHARS,
  KERNEL_VERSION,
  RECENT_DOCS_MAX_LIST_COUNT,
  WORKSPACE_FILE_TREE_SORT_MODE,
} from "./constants.js";
import { kernelError } from "./errors.js";
import { type HandlerContext, panicReply, type Route, reqStrArray } from "./handler-kit.js";
import { workspaceAbs } from "./handlers-asset.js";
import { repoKeyOf } from "./handlers-repo.js";
import { type InlineSegment, parseInline } from "./markdown.js";
import { goEscapeHtml } from "./render.js";

const r = (handler: Route["handler"]): Route => ({
  handler,
  auth: true,
  body: "json",
  write: false,
});

/** Lute's zero-width space, which its editor tree holds around some inline elements. */
const ZWSP = "\u200b";

/** Inline marks after which Lute's editor tree holds a zero-width space (and before, at the start). */
const ZWSP_AFTER = new Set(["code", "tag", "kbd"]);

interface Stat {
  runeCount: number;
  wordCount: number;
  linkCount: number;
  imageCount: number;
  refCount: number;
}

/**
 * One inline element of a paragraph as Lute's tree has it: the sandbox's parser reads `![alt](src)`
 * as a `!` and a link, so a link right after a `!` is an image here.
 */
interface InlineItem {
  readonly seg: InlineSegment;
  readonly image: boolean;
}

function inlineItems(text: string): InlineItem[] {
  const out: InlineItem[] = [];
  for (const seg of parseInline(text)) {
    const prev = out[out.length - 1];
    if (
      seg.types.includes("a") &&
      prev &&
      prev.seg.types.length === 0 &&
      prev.seg.text.endsWith("!")
    ) {
      const rest = prev.seg.text.slice(0, -1);
      out.pop();
      if (rest !== "") out.push({ seg: { ...prev.seg, text: rest }, image: false });
      out.push({ seg, image: true });
    } else out.push({ seg, image: false });
  }
  return out;
}

/**
 * The text Lute's `Node.Stat` reads of a paragraph or heading (SiYuan 3.7.3, kernel-probes
 * `reads.getBlocksWordCount`): marks dropped, a link's and a reference's text kept, a zero-width
 * space after inline code, a tag or a key (and before one that opens the block), and around every
 * image of a block holding only images.
 */
function inlineStatText(text: string, stat: Stat): string {
  const items = inlineItems(text);
  const onlyImages = items.length > 0 && items.every((i) => i.image);
  let out = "";
  items.forEach((item, i) => {
    const { seg } = item;
    if (item.image) {
      stat.imageCount++;
      out += onlyImages ? `${i === 0 ? ZWSP : ""}${seg.text}${ZWSP}` : seg.text;
      return;
    }
    if (seg.types.includes("a")) stat.linkCount++;
    if (seg.types.includes("block-ref")) stat.refCount++;
    const zwsp = seg.types.some((t) => ZWSP_AFTER.has(t));
    out += `${zwsp && i === 0 ? ZWSP : ""}${seg.text}${zwsp ? ZWSP : ""}`;
  });
  return out;
}

/** Go's `util.WordCount` (lute): runes without white space; an ASCII run or one other rune is a word. */
function wordCount(s: string): { runes: number; words: number } {
  let runes = 0;
  let words = 0;
  for (const field of s.split(/[\s\u0085\u00a0]+/u)) {
    const chars = [...field];
    if (chars.length === 0) continue;
    runes += chars.length;
    words++;
    let ascii = chars[0]!.codePointAt(0)! < 0x80;
    for (const ch of chars.slice(1)) {
      if (ch.codePointAt(0)! >= 0x80) {
        words++;
        ascii = false;
      } else if (!ascii) {
        words++;
        ascii = true;
      }
    }
  }
  return { runes, words };
}

/** Lute's `Node.Stat` of one block and everything under it (a database's cells are not read). */
function statBlock(b: Block): Stat {
  const stat: Stat = { runeCount: 0, wordCount: 0, linkCount: 0, imageCount: 0, refCount: 0 };
  let buf = "";
  const visit = (n: Block): void => {
    switch (n.type) {
      case "p":
      case "h":
        buf += inlineStatText(n.text, stat);
        break;
      case "c":
      case "m":
        buf += n.text;
        break;
      default:
        break;
    }
    for (const c of n.children) visit(c);
    buf += " ";
  };
  visit(b);
  const { runes, words } = wordCount(buf);
  stat.runeCount = runes;
  stat.wordCount = words;
  return stat;
}

/** `getBlocksWordCount`: sums over the IDs found; `blockCount` is the number of IDs sent. */
function getBlocksWordCount(ctx: HandlerContext): unknown {
  const ids = reqStrArray(ctx, "ids");
  const stat = { runeCount: 0, wordCount: 0, linkCount: 0, imageCount: 0, refCount: 0 };
  for (const id of ids) {
    const loc = ctx.kernel.ws.locate(id);
    if (!loc) continue;
    const s = statBlock(loc.block);
    stat.runeCount += s.runeCount;
    stat.wordCount += s.wordCount;
    stat.linkCount += s.linkCount;
    stat.imageCount += s.imageCount;
    stat.refCount += s.refCount;
  }
  return { reqId: ctx.body.reqId ?? null, stat: { ...stat, blockCount: ids.length } };
}

/** `getRecentUpdatedBlocks`: the 16 paragraphs longer than one character updated last (SQL index). */
function getRecentUpdatedBlocks(ctx: HandlerContext): unknown {
  const rows = ctx.kernel.sql.select(
    "SELECT * FROM blocks WHERE type = 'p' AND length > 1 ORDER BY updated DESC LIMIT 16",
    [],
  );
  return rows.map(blockOfRow);
}

/** The kernel's `fromSQLBlock` of one `blocks` row (no search terms): its texts HTML-escaped. */
function blockOfRow(x: Record<string, unknown>): Record<string, unknown> {
  const b = blockJsonOfRow(x);
  return {
    ...b,
    tag: goEscapeHtml(b.tag),
    content: goEscapeHtml(b.content),
    fcontent: goEscapeHtml(b.fcontent),
  };
}

const isAssetDest = (dest: string): boolean => dest.startsWith("assets/");

/**
 * The kernel's `getAssetsLinkDests` over a tree: link and image destinations, `custom-data-assets…`
 * attributes and an HTML block's `src` that start with `assets/`, in document order, each once.
 */
function assetDests(root: Block): string[] {
  const found: string[] = [];
  const visit = (n: Block): void => {
    for (const [k, v] of Object.entries(n.attrs)) {
      if (k.startsWith("custom-data-assets") && v !== "" && isAssetDest(v)) found.push(v);
    }
    if (n.type === "p" || n.type === "h") {
      for (const item of inlineItems(n.text)) {
        const href = item.seg.href;
        if (item.seg.types.includes("a") && href !== undefined && isAssetDest(href))
          found.push(href.trim());
      }
    } else if (n.type === "html") {
      const src = /\ssrc="([^"]*)"/.exec(n.text)?.[1];
      if (src !== undefined && isAssetDest(src)) found.push(src);
    }
    for (const c of n.children) visit(c);
  };
  visit(root);
  return [...new Set(found)].map((a) => (a.endsWith(".rtfd") ? `${a}/` : a));
}

/**
 * `getDocAssets`: the asset links of the block's document (`?…` cut when `retainQueryStr` is
 * false); `null` when there are none (Go's nil slice).
 */
function getDocAssets(ctx: HandlerContext): unknown {
  const id = ctx.body.id;
  if (typeof id !== "string") throw panicReply();
  const retain = ctx.body.retainQueryStr;
  if (retain !== undefined && retain !== null && typeof retain !== "boolean") throw panicReply();
  const loc = ctx.kernel.ws.locate(id);
  if (!loc) throw kernelError(-1, "tree not found");
  let out = assetDests(loc.doc.root);
  if (retain === false) out = out.map((a) => a.split("?")[0]!);
  return out.length === 0 ? null : out;
}

/** File and folder names the kernel skips in a workspace walk (`isSkipFile`). */
const isSkipName = (name: string): boolean =>
  name.startsWith(".") || name === "node_modules" || name === "dist" || name === "target";

/** The kernel's most unused assets listed (a toast says how many more there are). */
const MAX_UNUSED_ASSETS = 512;

/**
 * `getUnusedAssets` (`model.UnusedAssets`): every file and folder under `data/assets/` and under
 * each notebook's `assets` folders, keyed `assets/…` (a folder with `/`), less those a document
 * links (a key some link starts with, or under a linked folder), a document's title image, a
 * database file mentions, and OCR and Android notification texts; newest first, then by path
 * descending; a notebook's asset is named `<notebook>/assets/…`.
 */
function getUnusedAssets(ctx: HandlerContext): unknown {
  return unusedAssets(ctx).slice(0, MAX_UNUSED_ASSETS);
}

/** `model.UnusedAssets`, uncapped: see {@link getUnusedAssets}. */
function unusedAssets(ctx: HandlerContext): Array<{ item: string; name: string }> {
  const files = ctx.kernel.files;
  // key → [workspace path, mtime in seconds]
  const assets = new Map<string, { wsPath: string; updated: number }>();
  const walkAssets = (dir: string, key: string): void => {
    for (const e of files.list(dir)) {
      if (isSkipName(e.name)) continue;
      const childKey = `${key}${e.name}${e.isDir ? "/" : ""}`;
      assets.set(childKey, { wsPath: `${dir}/${e.name}`, updated: e.updated });
      if (e.isDir) walkAssets(`${dir}/${e.name}`, childKey);
    }
  };
  const findAssetDirs = (dir: string): void => {
    for (const e of files.list(dir)) {
      if (isSkipName(e.name) || !e.isDir) continue;
      if (e.name === "assets") walkAssets(`${dir}/assets`, "assets/");
      else findAssetDirs(`${dir}/${e.name}`);
    }
  };
  for (const box of ctx.kernel.ws.notebooks.keys()) {
    if (files.kind(`/data/${box}`) === "dir") findAssetDirs(`/data/${box}`);
  }
  if (files.kind("/data/assets") === "dir") walkAssets("/data/assets", "assets/");

  const linked = new Set<string>();
  const folders: string[] = [];
  const filesLinked: string[] = [];
  for (const doc of ctx.kernel.ws.docs.values()) {
    const dests = assetDests(doc.root);
    const titleImg = /url\("?(assets\/[^")]+)"?\)/.exec(doc.root.attrs["title-img"] ?? "")?.[1];
    if (titleImg) dests.push(titleImg);
    for (let d of dests) {
      d = d.split("?")[0]!;
      if (!assets.has(d)) continue;
      if (d.endsWith("/")) folders.push(d);
      else filesLinked.push(d);
    }
  }
  for (const key of [...assets.keys()]) {
    if (folders.some((f) => key.startsWith(f)) || filesLinked.some((l) => l.startsWith(key)))
      assets.delete(key);
  }
  for (const d of filesLinked) {
    linked.add(d);
    if (d.endsWith(".pdf")) linked.add(`${d}.sya`);
  }
  for (const key of [...assets.keys()]) {
    if (key.endsWith("ocr-texts.json") || key.endsWith("android-notification-texts.txt"))
      assets.delete(key);
  }
  if (files.kind("/data/storage/av") === "dir") {
    for (const e of files.list("/data/storage/av")) {
      if (!/^\d{14}-[a-z0-9]{7}\.json$/.test(e.name)) continue;
      const text = files.read(`/data/storage/av/${e.name}`).toString("utf8");
      for (const key of [...assets.keys()]) if (text.includes(key)) assets.delete(key);
    }
  }
  const out = [...assets.entries()]
    .filter(([key]) => !linked.has(key))
    .map(([, a]) => {
      // `assets/…` under data/, `<notebook>/assets/…` for a notebook's
      const item = a.wsPath.slice("/data/".length);
      const base = item.replace(/\/$/, "");
      return { item, name: base.slice(base.lastIndexOf("/") + 1), updated: a.updated };
    })
    .sort((x, y) => y.updated - x.updated || (x.item < y.item ? 1 : x.item > y.item ? -1 : 0))
    .map(({ item, name }) => ({ item, name }));
  return out;
}

/**
 * `removeUnusedAsset` (`model.RemoveUnusedAsset`): removes `data/<path>`, file or folder, without
 * checking any link; answers its absolute path whether or not anything was there. The copy the
 * kernel keeps in its history folder is not modelled.
 */
function removeUnusedAsset(ctx: HandlerContext): unknown {
  const p = ctx.body.path;
  if (typeof p !== "string") throw panicReply();
  const wsPath = posix.join("/data", p);
  if (ctx.kernel.files.kind(wsPath) !== null) ctx.kernel.files.remove(wsPath);
  return { path: workspaceAbs(ctx.kernel, wsPath) };
}

/**
 * `removeUnusedAssets` (`model.RemoveUnusedAssets`): removes every unused asset, uncapped, and
 * answers their absolute paths (`[]` when none). Reads no request body. History copies as above.
 */
function removeUnusedAssets(ctx: HandlerContext): unknown {
  const paths: string[] = [];
  for (const { item } of unusedAssets(ctx)) {
    const wsPath = posix.join("/data", item);
    if (ctx.kernel.files.kind(wsPath) !== null) ctx.kernel.files.remove(wsPath);
    paths.push(workspaceAbs(ctx.kernel, wsPath));
  }
  return { paths };
}

/**
 * Jaro-Winkler similarity (smetrics.JaroWinkler: boost threshold 0.7, prefix 4), as the kernel ranks
 * template hits and database names.
 */
export function jaroWinkler(a: string, b: string): number {
  const s1 = [...a];
  const s2 = [...b];
  if (s1.length === 0 || s2.length === 0) return 0;
  const range = Math.max(0, Math.floor(Math.max(s1.length, s2.length) / 2) - 1);
  const m1 = new Array<boolean>(s1.length).fill(false);
  const m2 = new Array<boolean>(s2.length).fill(false);
  let matches = 0;
  for (let i = 0; i < s1.length; i++) {
    const lo = Math.max(0, i - range);
    const hi = Math.min(s2.length - 1, i + range);
    for (let j = lo; j <= hi; j++) {
      if (!m2[j] && s1[i] === s2[j]) {
        m1[i] = m2[j] = true;
        matches++;
        break;
      }
    }
  }
  if (matches === 0) return 0;
  let t = 0;
  let k = 0;
  for (let i = 0; i < s1.length; i++) {
    if (!m1[i]) continue;
    while (!m2[k]) k++;
    if (s1[i] !== s2[k]) t++;
    k++;
  }
  const jaro = (matches / s1.length + matches / s2.length + (matches - t / 2) / matches) / 3;
  if (jaro < 0.7) return jaro;
  let prefix = 0;
  while (prefix < Math.min(4, s1.length, s2.length) && s1[prefix] === s2[prefix]) prefix++;
  return jaro + 0.1 * prefix * (1 - jaro);
}

/** `search.MarkText` with a case-insensitive match of each keyword, 32 runes kept before the first. */
function markText(text: string, keywords: readonly string[]): string {
  if (keywords.length === 0) return text;
  const pattern = keywords.map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
  const marked = text.replace(new RegExp(pattern, "gi"), (m) => `<mark>${m}</mark>`);
  const pos = marked.indexOf("<mark>");
  if (pos < 0) return marked;
  const before = [...marked.slice(0, pos)];
  return before.length > 32 ? `...${before.slice(-33).join("")}${marked.slice(pos)}` : marked;
}

/**
 * `searchTemplate`: `.md` files under `data/templates/` (not hidden, not a top-level README.md)
 * whose path without `.md` holds every space-separated word of `k`, case-insensitively; ranked by
 * the words' similarity to the file name, ties in directory order.
 */
function searchTemplate(ctx: HandlerContext): unknown {
  const k = ctx.body.k;
  if (typeof k !== "string") throw panicReply();
  const files = ctx.kernel.files;
  const root = "/data/templates";
  const keywords = k
    .trim()
    .split(/\s+/)
    .filter((w) => w !== "");
  const hits: Array<{ item: Record<string, string>; score: number }> = [];
  const consider = (rel: string, name: string, subject: string): void => {
    let score = 0;
    for (const kw of keywords) {
      if (!subject.toLowerCase().includes(kw.toLowerCase())) return;
      score += jaroWinkler(name.toLowerCase(), kw);
    }
    hits.push({
      item: {
        path: workspaceAbs(ctx.kernel, `${root}/${rel}`),
        relativePath: rel,
        content: markText(subject, keywords),
      },
      score,
    });
  };
  const walk = (dir: string, rel: string): void => {
    for (const e of files.list(dir).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.name.startsWith(".")) continue;
      const childRel = rel === "" ? e.name : `${rel}/${e.name}`;
      if (e.isDir) walk(`${dir}/${e.name}`, childRel);
      else if (e.name.toLowerCase().endsWith(".md")) {
        consider(childRel, e.name, `/${childRel}`.replace(/\.md$/i, ""));
      }
    }
  };
  if (files.kind(root) === "dir") {
    for (const e of files.list(root).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.name.startsWith(".")) continue;
      if (e.isDir) walk(`${root}/${e.name}`, e.name);
      else if (e.name.toLowerCase().endsWith(".md") && e.name !== "README.md") {
        consider(e.name, e.name, e.name.slice(0, -3));
      }
    }
  }
  const ranked = hits.map((h, i) => ({ ...h, i })).sort((a, b) => b.score - a.score || a.i - b.i);
  return { templates: ranked.map((h) => h.item), k };
}

/** Go's `int(arg[name].(float64))` of an optional argument: a non-number panics (code 0, no data). */
function optInt(ctx: HandlerContext, name: string, fallback: number): number {
  const v = ctx.body[name];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== "number") throw panicReply();
  const n = Math.trunc(v);
  return n <= 0 ? fallback : n;
}

/**
 * `listInvalidBlockRefs` (`model.ListInvalidBlockRefs`): the blocks whose inline content holds a
 * block reference or a `siyuan://blocks/<id>` link (`?…` cut) to an ID no notebook's tree has,
 * sorted by ID, one page (a page past the end panics as Go's slice bounds do), looked up in the
 * SQL index (unindexed blocks dropped); the counts are over all of them.
 */
function listInvalidBlockRefs(ctx: HandlerContext): unknown {
  const page = optInt(ctx, "page", 1);
  const pageSize = optInt(ctx, "pageSize", 32);
  const existing = new Set<string>();
  const refs = new Map<string, { rootID: string; defIDs: string[] }>();
  for (const doc of ctx.kernel.ws.docs.values()) {
    walk(doc.root, (n) => {
      existing.add(n.id);
      if (n.type !== "p" && n.type !== "h") return;
      for (const seg of parseInline(n.text)) {
        let def: string | undefined;
        if (seg.types.includes("block-ref")) def = seg.refId;
        else if (seg.types.includes("a") && seg.href?.startsWith("siyuan://blocks/")) {
          def = seg.href.slice("siyuan://blocks/".length).split("?")[0];
        }
        if (def === undefined) continue;
        const entry = refs.get(n.id) ?? { rootID: doc.id, defIDs: [] };
        entry.defIDs.push(def);
        refs.set(n.id, entry);
      }
    });
  }
  const invalid = [...refs.entries()]
    .filter(([, e]) => e.defIDs.some((d) => !existing.has(d)))
    .map(([id]) => id)
    .sort();
  const start = (page - 1) * pageSize;
  const end = Math.min(page * pageSize, invalid.length);
  if (start > end) throw panicReply();
  const pageIDs = invalid.slice(start, end);
  const rows =
    pageIDs.length === 0
      ? []
      : ctx.kernel.sql.select(
          `SELECT * FROM blocks WHERE id IN (${pageIDs.map(() => "?").join(",")}) ORDER BY id`,
          pageIDs,
        );
  return {
    blocks: rows.map(blockOfRow),
    matchedBlockCount: invalid.length,
    matchedRootCount: new Set(invalid.map((id) => refs.get(id)?.rootID)).size,
    pageCount: Math.ceil(invalid.length / pageSize),
  };
}

/** SiYuan's search limit (`Conf.Search.Limit`, 64 by default). */
const SEARCH_LIMIT = 64;

/** `util.RemoveID`: a file name without the `-<node ID>` before its extension. */
function removeID(name: string): string {
  const dot = name.lastIndexOf(".");
  const ext = dot > 0 ? name.slice(dot) : "";
  let base = ext === "" ? name : name.slice(0, -ext.length);
  if (base.length > 23 && /^\d{14}-[a-z0-9]{7}$/.test(base.slice(-22))) base = base.slice(0, -23);
  return base + ext;
}

/** Occurrences of `needle` in `hay` (Go's `strings.Count`: an empty needle counts runes + 1). */
function countOf(hay: string, needle: string): number {
  if (needle === "") return [...hay].length + 1;
  return hay.split(needle).length - 1;
}

/**
 * `searchAsset` (`model.SearchAssetsByName` over the asset cache): files under `data/assets/`
 * (hidden names, hidden folders and `.sya` left out; the cache follows the folder, the sandbox reads
 * it live), `exts` compared with the extension and its dot, case-insensitively; `k` whole (64 per
 * hit in name and in path) and each space-separated word (its occurrences) scores each asset, those
 * scoring 0 left out; highest score first (ties in no order the kernel keeps), at most the search
 * limit; `hName` with the hits in `<mark>`.
 */
function searchAsset(ctx: HandlerContext): unknown {
  const k = ctx.body.k;
  if (typeof k !== "string") throw panicReply();
  const extsArg = ctx.body.exts;
  let exts: string[] = [];
  if (extsArg !== undefined && extsArg !== null) exts = reqStrArray(ctx, "exts");
  const keywords = k === "" ? [k] : [k, ...k.split(" ")];
  const files = ctx.kernel.files;
  const hits: Array<{ hName: string; path: string; updated: number; score: number }> = [];
  const visit = (dir: string, rel: string): void => {
    for (const e of files.list(dir).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.isDir) {
        if (!e.name.startsWith(".")) visit(`${dir}/${e.name}`, `${rel}/${e.name}`);
        continue;
      }
      if (e.name.endsWith(".sya") || e.name.startsWith(".") || e.name.startsWith("~$")) continue;
      const hName = removeID(e.name);
      const path = `assets${rel}/${e.name}`;
      if (exts.length > 0) {
        const dot = hName.lastIndexOf(".");
        const ext = dot >= 0 ? hName.slice(dot).toLowerCase() : "";
        if (!exts.some((x) => x.toLowerCase() === ext)) continue;
      }
      const name = hName.toLowerCase();
      const lowerPath = path.toLowerCase();
      let score = 0;
      keywords.forEach((kw, i) => {
        const w = kw.toLowerCase();
        if (i === 0) score += (name.includes(w) ? 64 : 0) + (lowerPath.includes(w) ? 64 : 0);
        score += countOf(name, w) + countOf(lowerPath, w);
      });
      if (score < 1) continue;
      hits.push({ hName, path, updated: e.updated, score });
    }
  };
  if (files.kind("/data/assets") === "dir") visit("/data/assets", "");
  const words = keywords.map((w) => w.trim()).filter((w) => w !== "");
  const pattern =
    words.length === 0
      ? null
      : new RegExp(words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "gi");
  return hits
    .sort((a, b) => b.score - a.score)
    .slice(0, SEARCH_LIMIT)
    .map((h) => ({
      hName: pattern ? h.hName.replace(pattern, (m) => `<mark>${m}</mark>`) : h.hName,
      path: h.path,
      updated: h.updated,
    }));
}

/** A stand-in for SiYuan's random `cookieKey`, the same for the sandbox's whole life. */
const COOKIE_KEY = randomBytes(8).toString("hex");

/**
 * `getConf`: the configuration as SiYuan 3.7.3 answers it on a fresh workspace (kernel-probes
 * `reads.getConf`), reduced to the settings the sandbox follows and the secrets a real one holds
 * (the API token, `cookieKey`, an empty access code, sync and AI keys, a host path in
 * `export.pandocParams`, the server address), so a client that hands it on is caught.
 */
function getConf(ctx: HandlerContext): unknown {
  const os = process.platform === "win32" ? "windows" : process.platform;
  return {
    conf: {
      logLevel: "debug",
      appearance: {
        mode: 0,
        modeOS: true,
        lang: "en",
        themeLight: "daylight",
        themeDark: "midnight",
      },
      lang: "en",
      fileTree: {
        sort: WORKSPACE_FILE_TREE_SORT_MODE,
        maxListCount: DEFAULT_MAX_LIST_COUNT,
        createDocAtTop: false,
        allowCreateDeeper: false,
        recentDocsMaxListCount: RECENT_DOCS_MAX_LIST_COUNT,
        docCreateSavePath: "",
        refCreateSavePath: "",
      },
      editor: {
        fontSize: 16,
        readOnly: false,
        historyRetentionDays: 30,
        generateHistoryInterval: 10,
        blockRefDynamicAnchorTextMaxLen: DYNAMIC_ANCHOR_MAX_CHARS,
      },
      export: {
        pandocBin: "",
        pandocParams: `--reference-doc "${workspaceAbs(ctx.kernel, "/conf/pandoc.docx")}"`,
      },
      readonly: false,
      serverAddrs: [`http://${ctx.headers.host ?? "127.0.0.1"}`],
      accessAuthCode: "",
      system: {
        id: "sandbox",
        name: "sandbox",
        kernelVersion: KERNEL_VERSION,
        os,
        container: "std",
        workspaceDir: "",
        dataDir: "",
        networkProxy: { scheme: "", host: "", port: "" },
      },
      sync: {
        enabled: false,
        s3: { endpoint: "", accessKey: "", secretKey: "", bucket: "" },
        webdav: { endpoint: "", username: "", password: "" },
      },
      search: { limit: SEARCH_LIMIT, caseSensitive: false },
      ai: { embedding: { enabled: false, apiKey: "" } },
      api: { token: ctx.token ?? "" },
      repo: {
        key: repoKeyOf(ctx.kernel),
        syncIndexTiming: 12000,
        indexRetentionDays: 180,
        retentionIndexesDaily: 2,
      },
      publish: { enable: false, port: 6808, auth: { enable: true, accounts: [] } },
      cookieKey: COOKIE_KEY,
    },
    isPublish: false,
    start: true,
  };
}

/** The routes of this file. */
export const readRoutes: Record<string, Route> = {
  "/api/block/getBlocksWordCount": r(getBlocksWordCount),
  "/api/block/getRecentUpdatedBlocks": r(getRecentUpdatedBlocks),
  "/api/asset/getDocAssets": r(getDocAssets),
  "/api/asset/getUnusedAssets": r(getUnusedAssets),
  "/api/asset/removeUnusedAsset": {
    handler: removeUnusedAsset,
    auth: true,
    body: "json",
    write: true,
  },
  "/api/asset/removeUnusedAssets": {
    handler: removeUnusedAssets,
    auth: true,
    body: "none",
    write: true,
  },
  "/api/search/searchTemplate": r(searchTemplate),
  "/api/search/listInvalidBlockRefs": r(listInvalidBlockRefs),
  "/api/search/searchAsset": r(searchAsset),
  "/api/system/getConf": r(getConf),
};
