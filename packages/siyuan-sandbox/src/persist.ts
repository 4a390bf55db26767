/**
 * Persistence in SiYuan's workspace layout: `data/<box>/.siyuan/conf.json`,
 * `data/<box>/.siyuan/sort.json`, nested `data/<box>/<A>/<B>.sy` JSON trees.
 * Simplification: inline content is one `NodeText` whose `Data` is the inline Markdown.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type Block, type BlockType, LUTE_NODE_NAMES, newBlock } from "./block.js";
import { isValidNodeId } from "./clock.js";
import { SandboxError } from "./errors.js";
import type { Workspace } from "./workspace.js";
import type { BoxConf } from "./workspace-index.js";
import { defaultBoxConf } from "./workspace-notebooks.js";

interface SyNode {
  ID?: string;
  Spec?: string;
  Type: string;
  Properties?: Record<string, string>;
  Children?: SyNode[];
  Data?: string;
  HeadingLevel?: number;
  ListData?: { Typ: number; Marker?: string; Checked?: boolean };
  CodeBlockInfo?: string;
  AttributeViewID?: string;
  AttributeViewType?: string;
}

const LIST_TYP: Record<string, number> = { u: 0, o: 1, t: 3 };
const TYPE_BY_NAME = Object.fromEntries(
  Object.entries(LUTE_NODE_NAMES).map(([k, v]) => [v, k as BlockType]),
) as Record<string, BlockType>;

/** A block tree as its `.sy` file holds it. */
export function toSy(b: Block): SyNode {
  const node: SyNode = { ID: b.id, Type: LUTE_NODE_NAMES[b.type], Properties: { ...b.attrs } };
  if (b.type === "d") node.Spec = "1";
  if (b.type === "h") node.HeadingLevel = Number(b.subtype.slice(1));
  if (b.type === "l" || b.type === "i") {
    node.ListData = { Typ: LIST_TYP[b.subtype] ?? 0 };
    if (b.type === "i") {
      node.ListData.Marker = b.marker;
      if (b.checked) node.ListData.Checked = true;
    }
  }
  if (b.type === "av") {
    node.AttributeViewID = b.text;
    node.AttributeViewType = b.lang;
  }
  if (b.type === "c") {
    node.CodeBlockInfo = b.lang;
    node.Children = [{ Type: "NodeCodeBlockCode", Data: b.text }];
  } else if (b.type === "m") {
    node.Children = [{ Type: "NodeMathBlockContent", Data: b.text }];
  } else if (b.type === "p" || b.type === "h" || b.type === "html") {
    node.Children = b.text === "" ? [] : [{ Type: "NodeText", Data: b.text }];
  } else if (b.children.length > 0) {
    node.Children = b.children.map(toSy);
  }
  return node;
}

function fromSy(n: SyNode): Block {
  const type = TYPE_BY_NAME[n.Type] ?? "p";
  const id = n.ID ?? "";
  const b = newBlock(type, { id, attrs: { id, ...(n.Properties ?? {}) } });
  const kids = n.Children ?? [];
  if (type === "h") b.subtype = `h${n.HeadingLevel ?? 1}`;
  if (type === "l" || type === "i") {
    const typ = n.ListData?.Typ ?? 0;
    b.subtype = typ === 1 ? "o" : typ === 3 ? "t" : "u";
    b.marker = n.ListData?.Marker ?? "*";
    b.checked = n.ListData?.Checked === true;
  }
  if (type === "av") {
    b.text = n.AttributeViewID ?? "";
    b.lang = n.AttributeViewType ?? "table";
  } else if (type === "c") {
    b.lang = n.CodeBlockInfo ?? "";
    b.text = kids[0]?.Data ?? "";
  } else if (type === "m" || type === "p" || type === "h" || type === "html") {
    b.text = kids.map((k) => k.Data ?? "").join("");
  } else {
    b.children = kids.map(fromSy);
  }
  return b;
}

const writeJson = (file: string, value: unknown): void => {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value, null, "\t"));
};

function listSyFiles(dir: string, rel = ""): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === ".siyuan") continue;
    const r = `${rel}/${e.name}`;
    if (e.isDirectory()) out.push(...listSyFiles(join(dir, e.name), r));
    else if (e.name.endsWith(".sy")) out.push(r);
  }
  return out;
}

function pruneEmptyDirs(dir: string): boolean {
  let empty = true;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory() && e.name !== ".siyuan") {
      if (pruneEmptyDirs(join(dir, e.name))) rmSync(join(dir, e.name), { recursive: true });
      else empty = false;
    } else empty = false;
  }
  return empty;
}

/** Writes every changed notebook of the workspace under `<dataDir>/data/`. */
export function saveWorkspace(dataDir: string, ws: Workspace): void {
  try {
    const data = join(dataDir, "data");
    for (const id of ws.removedBoxes) rmSync(join(data, id), { recursive: true, force: true });
    ws.removedBoxes.clear();
    for (const boxId of ws.dirtyBoxes) {
      const box = ws.notebooks.get(boxId);
      if (!box) continue;
      const boxDir = join(data, boxId);
      writeJson(join(boxDir, ".siyuan", "conf.json"), box.conf);
      writeJson(join(boxDir, ".siyuan", "sort.json"), box.sortMap);
      const expected = new Set<string>();
      for (const doc of ws.docs.values()) {
        if (doc.box !== boxId) continue;
        const rel = ws.docPath(doc.id);
        expected.add(rel);
        writeJson(join(boxDir, rel), toSy(doc.root));
      }
      for (const rel of listSyFiles(boxDir)) if (!expected.has(rel)) rmSync(join(boxDir, rel));
      pruneEmptyDirs(boxDir);
    }
    ws.dirtyBoxes.clear();
  } catch (e) {
    throw new SandboxError(
      "persistence_failed",
      "could not write the workspace",
      { dataDir },
      { cause: e },
    );
  }
}

/** Loads notebooks and documents from `<dataDir>/data/`. Returns false when there are none. */
export function loadWorkspace(dataDir: string, ws: Workspace): boolean {
  const data = join(dataDir, "data");
  if (!existsSync(data)) return false;
  let found = false;
  for (const e of readdirSync(data, { withFileTypes: true })) {
    if (!e.isDirectory() || !isValidNodeId(e.name)) continue;
    const confFile = join(data, e.name, ".siyuan", "conf.json");
    if (!existsSync(confFile)) continue;
    found = true;
    const conf = {
      ...defaultBoxConf("Untitled"),
      ...JSON.parse(readFileSync(confFile, "utf8")),
    } as BoxConf;
    const sortFile = join(data, e.name, ".siyuan", "sort.json");
    const sortMap = existsSync(sortFile)
      ? (JSON.parse(readFileSync(sortFile, "utf8")) as Record<string, number>)
      : {};
    ws.notebooks.set(e.name, { id: e.name, conf, sortMap });
    for (const rel of listSyFiles(join(data, e.name))) {
      const parts = rel.replace(/\.sy$/, "").split("/").filter(Boolean);
      const root = fromSy(JSON.parse(readFileSync(join(data, e.name, rel), "utf8")) as SyNode);
      ws.addLoadedDoc({
        id: root.id,
        box: e.name,
        parentId: parts.length > 1 ? parts[parts.length - 2]! : null,
        root,
      });
    }
  }
  ws.dirtyBoxes.clear();
  return found;
}
