/**
 * The SQL index: a real SQLite (sql.js, WebAssembly) holding `blocks`, `attributes` and
 * `refs` with the kernel's columns. It lags the block tree: `sync` copies changed documents.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import initSqlJs, { type Database, type SqlValue, type Statement } from "sql.js";
import { type Block, headingLevel, walk } from "./block.js";
import { SQL_DEFAULT_LIMIT_ROWS } from "./constants.js";
import { escapeIalValue, inlineRefs, inlineTags } from "./markdown.js";
import { firstLeafBlock, ialString, renderKramdown, staticContent } from "./render.js";
import type { Workspace } from "./workspace.js";
import type { DocEntry } from "./workspace-index.js";

const SCHEMA = `
CREATE TABLE blocks (id, parent_id, root_id, hash, box, path, hpath, name, alias, memo, tag, content, fcontent, markdown, length, type, subtype, ial, sort, created, updated);
CREATE INDEX idx_blocks_id ON blocks(id);
CREATE INDEX idx_blocks_root_id ON blocks(root_id);
CREATE TABLE attributes (id, name, value, type, block_id, root_id, box, path);
CREATE INDEX idx_attributes_root_id ON attributes(root_id);
CREATE TABLE refs (id, def_block_id, def_block_parent_id, def_block_root_id, def_block_path, block_id, root_id, box, path, content, markdown, type);
CREATE INDEX idx_refs_root_id ON refs(root_id);
`;

const SORT_WEIGHT: Record<string, number> = { d: 0, h: 5, l: 20, i: 20, b: 20, s: 30 };

let sqlModule: Promise<initSqlJs.SqlJsStatic> | null = null;
function loadSqlJs(): Promise<initSqlJs.SqlJsStatic> {
  if (!sqlModule) {
    const wasmPath = createRequire(import.meta.url).resolve("sql.js/dist/sql-wasm.wasm");
    const wasm = readFileSync(wasmPath);
    const wasmBinary = wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength);
    sqlModule = initSqlJs({ wasmBinary: wasmBinary as ArrayBuffer });
  }
  return sqlModule;
}

const shortHash = (s: string): string => createHash("sha256").update(s).digest("hex").slice(0, 7);

/** Derived, valid-looking node ID for index rows (attributes, refs): deterministic. */
const rowId = (blockId: string, salt: string): string => {
  const h = createHash("sha256").update(`${blockId}|${salt}`).digest();
  let s = "";
  for (let i = 0; i < 7; i++) s += "abcdefghijklmnopqrstuvwxyz0123456789"[h[i]! % 36];
  return `${blockId.slice(0, 14)}-${s}`;
};

/** Kernel rule, textual: a statement without the word LIMIT gets ` LIMIT 64`. */
export function applyDefaultLimit(stmt: string): string {
  if (/\blimit\b/i.test(stmt)) return stmt;
  return `${stmt.replace(/[\s;]+$/, "")} LIMIT ${SQL_DEFAULT_LIMIT_ROWS}`;
}

/** Splits SQL into statements on `;` outside quotes (for the one-statement check). */
export function countStatements(stmt: string): number {
  let n = 0;
  let cur = "";
  let q: string | null = null;
  for (const ch of stmt) {
    if (q) {
      if (ch === q) q = null;
      cur += ch;
    } else if (ch === "'" || ch === '"' || ch === "`") {
      q = ch;
      cur += ch;
    } else if (ch === ";") {
      if (cur.trim()) n++;
      cur = "";
    } else cur += ch;
  }
  if (cur.trim()) n++;
  return n;
}

/**
 * The kernel's `treenode.HeadingParent`, which the blocks table uses as `parent_id`: the nearest
 * earlier sibling heading of a lower level (any heading for a block that is not one), else the
 * tree parent.
 */
function headingParent(b: Block, parent: Block): Block {
  const level = b.type === "h" ? headingLevel(b) : 16;
  const i = parent.children.indexOf(b);
  for (let j = i - 1; j >= 0; j--) {
    const sib = parent.children[j]!;
    if (sib.type === "h" && headingLevel(sib) < level) return sib;
  }
  return parent;
}

/** The SQLite index of one workspace. */
export class SqlIndex {
  private readonly insBlock: Statement;
  private readonly insAttr: Statement;
  private readonly insRef: Statement;

  private constructor(private readonly db: Database) {
    db.run(SCHEMA);
    this.insBlock = db.prepare(
      "INSERT INTO blocks VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    );
    this.insAttr = db.prepare("INSERT INTO attributes VALUES (?,?,?,?,?,?,?,?)");
    this.insRef = db.prepare("INSERT INTO refs VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");
  }

  /** Loads sql.js (once per process) and creates an empty index. */
  static async create(): Promise<SqlIndex> {
    const SQL = await loadSqlJs();
    return new SqlIndex(new SQL.Database());
  }

  /** True when some change has not reached the index yet. */
  isBehind(ws: Workspace): boolean {
    return ws.dirtyDocs.size > 0 || ws.removedDocs.size > 0;
  }

  /** Copies every changed document of the workspace into the index. */
  sync(ws: Workspace): void {
    if (!this.isBehind(ws)) return;
    this.db.run("BEGIN");
    try {
      for (const id of [...ws.removedDocs, ...ws.dirtyDocs]) this.deleteDoc(id);
      for (const id of ws.dirtyDocs) {
        const doc = ws.docs.get(id);
        const box = doc ? ws.notebooks.get(doc.box) : undefined;
        if (doc && box && !box.conf.closed) this.insertDoc(ws, doc);
      }
      this.db.run("COMMIT");
    } catch (e) {
      this.db.run("ROLLBACK");
      throw e;
    }
    ws.removedDocs.clear();
    ws.dirtyDocs.clear();
  }

  private deleteDoc(rootId: string): void {
    this.db.run("DELETE FROM blocks WHERE root_id = ?", [rootId]);
    this.db.run("DELETE FROM attributes WHERE root_id = ?", [rootId]);
    this.db.run("DELETE FROM refs WHERE root_id = ?", [rootId]);
  }

  private insertDoc(ws: Workspace, doc: DocEntry): void {
    const path = ws.docPath(doc.id);
    const hpath = ws.hpath(doc.id);
    walk(doc.root, (b, parent) => {
      // as the kernel's `buildBlockFromNode`: a document's row holds its title (content and
      // fcontent) and no Markdown; a container's fcontent is its first leaf's content
      const content = staticContent(b);
      const container = b.type === "l" || b.type === "i" || b.type === "b" || b.type === "s";
      const fcontent = b.type === "d" ? content : container ? staticContent(firstLeafBlock(b)) : "";
      const markdown = b.type === "d" ? "" : renderKramdown(b, { withIal: false });
      const ial = ialString(b.attrs);
      const tags =
        b.type === "d"
          ? (b.attrs.tags ?? "")
              .split(",")
              .filter(Boolean)
              .map((t) => `#${t}#`)
          : b.type === "p" || b.type === "h"
            ? inlineTags(b.text).map((t) => `#${t}#`)
            : [];
      this.insBlock.run([
        b.id,
        parent ? headingParent(b, parent).id : "",
        doc.id,
        shortHash(ial + markdown),
        doc.box,
        path,
        hpath,
        b.attrs.name ?? "",
        b.attrs.alias ?? "",
        b.attrs.memo ?? "",
        tags.join(" "),
        content,
        fcontent,
        markdown,
        [...(container || b.type === "d" ? fcontent : content)].length,
        b.type,
        b.subtype,
        ial,
        SORT_WEIGHT[b.type] ?? 10,
        b.id.slice(0, 14),
        b.attrs.updated ?? b.id.slice(0, 14),
      ]);
      for (const [name, value] of Object.entries(b.attrs)) {
        if (name === "id" || name === "updated") continue;
        this.insAttr.run([
          rowId(b.id, name),
          name,
          escapeIalValue(value),
          "b",
          b.id,
          doc.id,
          doc.box,
          path,
        ]);
      }
      if (b.type === "p" || b.type === "h") this.insertRefs(ws, b, doc, path);
    });
  }

  /**
   * One row per block and referenced block: repeated references to the same block within a block
   * count once (SiYuan 3.7.3 `sql.isRepeatedRef`, siyuan#9670; kernel-probes
   * `block.transferBlockRef`), the first one's text kept.
   */
  private insertRefs(ws: Workspace, b: Block, doc: DocEntry, path: string): void {
    const seen = new Set<string>();
    inlineRefs(b.text).forEach((r, i) => {
      if (seen.has(r.refId ?? "")) return;
      seen.add(r.refId ?? "");
      const def = r.refId ? ws.locate(r.refId) : null;
      this.insRef.run([
        rowId(b.id, `ref${i}`),
        r.refId ?? "",
        def?.parent?.id ?? "",
        def?.doc.id ?? "",
        def ? ws.docPath(def.doc.id) : "",
        b.id,
        doc.id,
        doc.box,
        path,
        r.text,
        r.refSubtype === "s"
          ? `((${r.refId} "${r.text}"))`
          : `((${r.refId} '${r.text.replace(/'/g, "&apos;")}'))`,
        "textmark",
      ]);
    });
  }

  /** Runs SQL and returns rows as objects (the last statement's rows). Throws SQLite errors. */
  query(stmt: string): Record<string, SqlValue>[] {
    const results = this.db.exec(stmt);
    const last = results[results.length - 1];
    if (!last) return [];
    return last.values.map((row) => {
      const o: Record<string, SqlValue> = {};
      last.columns.forEach((c, i) => {
        o[c] = row[i] ?? null;
      });
      return o;
    });
  }

  /** Parameterized read used by search. */
  select(stmt: string, params: SqlValue[]): Record<string, SqlValue>[] {
    const st = this.db.prepare(stmt);
    try {
      st.bind(params);
      const out: Record<string, SqlValue>[] = [];
      while (st.step()) out.push(st.getAsObject());
      return out;
    } finally {
      st.free();
    }
  }

  /** Frees the SQLite memory. */
  close(): void {
    this.insBlock.free();
    this.insAttr.free();
    this.insRef.free();
    this.db.close();
  }
}
