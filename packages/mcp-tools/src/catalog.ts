/**
 * The action catalog: every tool, every action, its business-argument schema, its safety policy,
 * and the one-line signature agents read in the tool description.
 *
 * This is the single policy table. An action that is not here does not exist: the runtime refuses
 * it before any kernel call. Handler argument types are derived from these schemas (`ToolHandlers`
 * in `handler.ts`), so the table and the handlers cannot disagree and still compile.
 *
 * An action may accept other spellings (`aliases`): they resolve to the canonical action before
 * anything else happens, so the lease scope, the ledger and the receipt only ever name the
 * canonical action. Aliases are not advertised.
 */
import type { ActionPolicy, PreconditionKind } from "@sisyphus/write-safety";
import { preconditionField } from "@sisyphus/write-safety";
import { z } from "zod";
import {
  attrMap,
  dataType,
  fsPath,
  iconArg,
  nodeId,
  notebookId,
  SORT_MODE_NAMES,
  sortMode,
} from "./args.js";
import { OPTION_LIMITS } from "./settings.js";

/** The aggregated MCP tools. */
export const TOOL_NAMES = [
  "block",
  "document",
  "fs",
  "file",
  "notebook",
  "search",
  "tag",
  "av",
  "history",
  "flashcard",
  "system",
  "extension",
  "feedback",
] as const;
/** One aggregated MCP tool. */
export type ToolName = (typeof TOOL_NAMES)[number];

export type { ActionPolicy, PreconditionKind };

/**
 * When an action needs the user's confirmation: always, never, or when its probe finds it crosses
 * documents (decided at preflight and again at commit from the same probe, whose digest covers both
 * documents, so a commit that passes the digest comparison has the preflight's answer).
 */
export type Danger = boolean | "cross_document";

/** One action as the catalog declares it; the action name is its key in {@link CATALOG}. */
export interface ActionSpec {
  /** The widest policy of the action, used for the advertised schema and description. */
  readonly policy: ActionPolicy;
  /** The policy for these parsed arguments (defaults to `policy`). */
  readonly policyFor?: (args: Record<string, unknown>) => ActionPolicy;
  /**
   * Runtimes ask the user to confirm before executing: `true` always (delete, remove, rm, moves of
   * documents and paths), `"cross_document"` when the probe finds the action leaves its document
   * (block.move to an anchor in another document or notebook). Default false.
   */
  readonly dangerous?: Danger;
  /** Business arguments; unknown keys are rejected. */
  readonly args: z.ZodObject;
  /** The compact signature shown in the tool description, e.g. `update(id,data)`. */
  readonly signature: string;
  /** Other accepted spellings of the action name; never advertised. */
  readonly aliases?: readonly string[];
}

/** One action's surface. `policyFor` may depend on the arguments (e.g. `fs.write` with `overwrite`). */
export interface ActionSurface {
  readonly tool: ToolName;
  /** The canonical action name. */
  readonly action: string;
  /** The widest policy of the action, used for the advertised schema and description. */
  readonly policy: ActionPolicy;
  /** The policy for these parsed arguments (defaults to `policy`). */
  readonly policyFor?: (args: Record<string, unknown>) => ActionPolicy;
  /** Whether runtimes ask the user to confirm before executing (see {@link ActionSpec.dangerous}). */
  readonly dangerous: Danger;
  /** Business arguments; unknown keys are rejected. */
  readonly args: z.ZodObject;
  /** The compact signature shown in the tool description, e.g. `update(id,data)`. */
  readonly signature: string;
  /** Other accepted spellings of `action` (resolved to it before the lease scope); not advertised. */
  readonly aliases: readonly string[];
}

const read = Object.freeze({ kind: "read" } as const) satisfies ActionPolicy;
const external = Object.freeze({ kind: "external" } as const) satisfies ActionPolicy;
const mutation = <P extends PreconditionKind>(precondition: P) =>
  Object.freeze({ kind: "mutation", precondition } as const) satisfies ActionPolicy;
const state = mutation("state");
const structure = mutation("structure");
const manifest = mutation("manifest");
const source = mutation("source");
const additive = mutation("none");

const updateItem = z.strictObject({ id: nodeId, data: z.string(), dataType });
const id = z.strictObject({ id: nodeId });
/** Several blocks of one read (each read once however often named). */
const ids = z.strictObject({ ids: z.array(nodeId).min(1).max(64) });
const notebookOnly = z.strictObject({ notebook: notebookId });
/**
 * The page size of a paged read: settings' `pageSize` is the default when omitted, so its limits
 * are the settings' own (a call's settings' page size is then one every paged schema accepts).
 */
const pageSize = z
  .number()
  .int()
  .min(OPTION_LIMITS.pageSize.min)
  .max(OPTION_LIMITS.pageSize.max)
  .default(OPTION_LIMITS.pageSize.default);
/** Paging of a long list (as `search.fulltext`). */
const paged = { page: z.number().int().min(1).default(1), pageSize };
const pagedId = z.strictObject({ id: nodeId, ...paged });

/** A segment of an assets folder: not empty, `.` or `..`; no separator, quote or control character. */
const assetsSegmentOk = (segment: string) =>
  segment !== "" &&
  segment !== "." &&
  segment !== ".." &&
  [...segment].every((ch) => ch >= " " && !'\\:*?"<>|'.includes(ch));

/**
 * Where an uploaded asset goes, relative to the workspace's `data/`: `/assets/` or a folder under
 * it, so the stored path is an `assets/…` link SiYuan serves (the kernel itself would write anywhere
 * in the workspace).
 */
const assetsDirPath = z
  .string()
  .max(512)
  .refine(
    (p) =>
      /^\/assets(\/|$)/.test(p) &&
      p
        .slice(1)
        .split("/")
        .filter((s, i, all) => s !== "" || i !== all.length - 1)
        .every(assetsSegmentOk),
    "must be /assets/ or a folder under it, like /assets/pictures/",
  )
  .default("/assets/");

/** A workspace-relative path for the kernel's resource export (`data/assets/…`): no `..` segment. */
const workspacePath = z
  .string()
  .min(1)
  .max(1024)
  .refine(
    (p) => !p.includes("\\") && p.split("/").every((s) => s !== ".."),
    "must be a workspace-relative path like data/assets/ without .. segments",
  );

/**
 * A template in SiYuan's templates folder (`data/templates/`): one file name ending in `.md`, not
 * hidden, with no folder separator and none of the characters the kernel refuses in a file name.
 */
const templateName = z
  .string()
  .max(255)
  .refine(
    (n) =>
      n.length > 3 &&
      n.endsWith(".md") &&
      !n.startsWith(".") &&
      [...n].every((ch) => ch >= " " && !'/\\:*?"<>|'.includes(ch)),
    'must be one file name ending in .md, like weekly.md (no folder, no \\ / : * ? " < > |)',
  );

/** A template as file.list_templates names it: a path under `data/templates/`, folders allowed. */
const templatePath = z
  .string()
  .max(1024)
  .refine(
    (n) =>
      n.endsWith(".md") &&
      n
        .split("/")
        .every(
          (seg) =>
            seg !== "" &&
            !seg.startsWith(".") &&
            [...seg].every((ch) => ch >= " " && !'\\:*?"<>|'.includes(ch)),
        ),
    "must be a template name as file.list_templates answers it, like weekly.md or folder/x.md",
  );

/** An asset as file.list_unused_assets names it: `assets/…` or `<notebook>/assets/…`, no `..`. */
const assetPath = z
  .string()
  .max(1024)
  .refine(
    (p) =>
      /^(\d{14}-[a-z0-9]{7}\/)?assets\/./.test(p) &&
      !p.includes("\\") &&
      p.split("/").every((seg) => seg !== "" && seg !== "." && seg !== ".."),
    "must be an asset path as file.list_unused_assets answers it, like assets/x.png",
  );

/** Column types a new database's template may give (relation and rollup need av.add_column). */
export const AV_TEMPLATE_COLUMN_TYPES = [
  "text",
  "number",
  "date",
  "select",
  "mSelect",
  "url",
  "email",
  "phone",
  "mAsset",
  "checkbox",
  "created",
  "updated",
] as const;

/** One column of `av.create`'s template, added after the primary key. */
const avColumn = z.strictObject({
  name: z.string().min(1).max(128),
  type: z.enum(AV_TEMPLATE_COLUMN_TYPES),
});

/** Column types av.add_column adds: a template's, plus relations and rollups. */
export const AV_COLUMN_TYPES = [...AV_TEMPLATE_COLUMN_TYPES, "relation", "rollup"] as const;

/** Rollup calculations (contract §4.7); "" shows the related values as they are. */
export const AV_ROLLUP_CALCS = [
  "",
  "Unique values",
  "Count all",
  "Count values",
  "Count unique values",
  "Count empty",
  "Count not empty",
  "Percent empty",
  "Percent not empty",
  "Percent unique values",
  "Sum",
  "Average",
  "Median",
  "Min",
  "Max",
  "Range",
  "Earliest",
  "Latest",
  "Checked",
  "Unchecked",
  "Percent checked",
  "Percent unchecked",
] as const;

/**
 * One cell of av.set_cells, as av.render shows it: text, a number (dates in Unix ms), a boolean
 * (checkbox), option names (select, mSelect) or item IDs (relation); `null` empties it.
 */
const avCell = z.strictObject({
  rowID: nodeId,
  keyID: nodeId,
  value: z.union([
    z.string().max(65536),
    z.number(),
    z.boolean(),
    z.array(z.string()).max(256),
    z.null(),
  ]),
});

/**
 * A history point's handle as `history.list` answers it: `/history/<time>-<op>/<notebook>/…/<id>.sy`
 * (no `..`, nothing outside the workspace's history folder).
 */
const historyPath = z
  .string()
  .max(1024)
  .regex(
    /^\/history\/\d{4}-\d{2}-\d{2}-\d{6}-[a-z]+\/\d{14}-[0-9a-z]{7}(?:\/\d{14}-[0-9a-z]{7})+\.sy$/,
    "must be a historyPath as history.list answers it",
  );

/** A data repo snapshot's ID, as `history.snapshot_list` answers it. */
const snapshotId = z.string().regex(/^[0-9a-f]{40}$/, "must be a snapshot id from snapshot_list");

/** Where an export is saved on the saving process's host: checked there (absolute, new). */
const outputPath = z.string().min(1).max(4096);

/**
 * Every action of every tool, by tool then canonical action name (in the order they are
 * advertised). Its type is what handler types are derived from.
 */
export const CATALOG = {
  block: {
    get_kramdown: { policy: read, args: id, signature: "get_kramdown(id) block or document" },
    get_attrs: { policy: read, args: id, signature: "get_attrs(id)" },
    get_children: {
      policy: read,
      args: id,
      signature:
        "get_children(id) direct children in document order (of a doc: its top-level blocks)",
    },
    info: { policy: read, args: id, signature: "info(id)" },
    dom: { policy: read, args: id, signature: "dom(id)" },
    backlinks: {
      policy: read,
      args: pagedId,
      signature: "backlinks(id,page?,pageSize?) docs referencing it",
    },
    backmentions: {
      policy: read,
      args: pagedId,
      signature: "backmentions(id,page?,pageSize?) docs naming it unlinked",
    },
    breadcrumb: { policy: read, args: id, signature: "breadcrumb(id) doc→block path" },
    batch_kramdown: {
      policy: read,
      args: ids,
      signature: "batch_kramdown(ids) {id:Kramdown}, missing: unknown IDs",
    },
    word_count: {
      policy: read,
      args: ids,
      signature: "word_count(ids) runes, words, links, images, refs summed",
    },
    recent_updated: {
      policy: read,
      args: z.strictObject({}),
      signature: "recent_updated() the 16 paragraphs edited last",
    },
    insert: {
      policy: additive,
      args: z
        .strictObject({
          data: z.string(),
          dataType,
          nextID: nodeId.optional(),
          previousID: nodeId.optional(),
          parentID: nodeId.optional(),
        })
        .refine(
          (a) => a.nextID ?? a.previousID ?? a.parentID,
          "needs nextID, previousID or parentID",
        ),
      signature: "insert(data,nextID=before it|previousID=after it|parentID alone=first child)",
    },
    prepend: {
      policy: additive,
      args: z.strictObject({ parentID: nodeId, data: z.string(), dataType }),
      signature: "prepend(parentID,data): first child",
    },
    append: {
      policy: additive,
      args: z.strictObject({ parentID: nodeId, data: z.string(), dataType }),
      signature:
        'append(parentID,data): last child, answers its id; list item: parentID=list, data="- text" (task: "- [ ] text"), a new last item (id = the item)',
    },
    update: {
      policy: state,
      args: z
        .strictObject({
          id: nodeId.optional(),
          data: z.string().optional(),
          dataType,
          items: z.array(updateItem).min(1).max(64).optional(),
        })
        .refine(
          (a) => (a.items === undefined) === (a.id !== undefined && a.data !== undefined),
          "give either id+data or items[{id,data}]",
        ),
      signature:
        "update(id,data|items[{id,data}]=several blocks in one write) keeps ID+attributes; data: Markdown as read, without the {: } line",
    },
    replace: {
      policy: state,
      args: z.strictObject({
        id: nodeId,
        find: z.string().min(1).max(65536),
        replacement: z.string().max(65536),
        all: z.boolean().default(false),
      }),
      signature:
        "replace(id,find,replacement,all?=false: find must occur once) literal, in its Kramdown (marks included) but not its {: …} line; keeps ID+attributes; answers replacedCount",
    },
    find_replace: {
      policy: manifest,
      dangerous: true,
      args: z.strictObject({
        ids: z.array(nodeId).min(1).max(64),
        find: z.string().min(1).max(65536),
        replacement: z.string().max(65536),
      }),
      signature:
        "find_replace(ids,find,replacement) replace all=true in each block holding find; others kept, listed",
    },
    set_attrs: {
      policy: state,
      args: z.strictObject({ id: nodeId, attrs: attrMap }),
      signature: "set_attrs(id,attrs{custom-x:value}) merges; null removes",
    },
    delete: {
      policy: state,
      dangerous: true,
      args: id,
      signature: "delete(id) with the blocks inside it (a heading's section stays)",
    },
    move: {
      policy: structure,
      dangerous: "cross_document",
      args: z
        .strictObject({
          id: nodeId,
          previousID: nodeId.optional(),
          parentID: nodeId.optional(),
          position: z.enum(["first", "last"]).optional(),
        })
        .refine((a) => a.previousID ?? a.parentID, "needs previousID or parentID")
        .refine(
          (a) => a.position === undefined || a.previousID === undefined,
          "position goes with parentID alone, not with previousID",
        ),
      signature:
        "move(id,previousID=after it|parentID=doc or container,position?=first(default)|last child); answers documentID, previousID (null: first)",
    },
    set_fold_state: {
      policy: state,
      args: z.strictObject({ id: nodeId, folded: z.boolean() }),
      signature: "set_fold_state(id,folded) a heading folds its section",
    },
    transfer_references: {
      policy: manifest,
      dangerous: true,
      args: z.strictObject({ fromID: nodeId, toID: nodeId }),
      signature: "transfer_references(fromID,toID) refs to fromID then point at toID",
    },
    add_to_daily_note: {
      policy: additive,
      args: z.strictObject({
        notebook: notebookId,
        data: z.string(),
        dataType,
        position: z.enum(["append", "prepend"]).default("append"),
      }),
      signature:
        "add_to_daily_note(notebook,data,position?=append|prepend) today's note, made if absent; answers id",
    },
  },
  document: {
    get: {
      policy: read,
      args: z
        .strictObject({
          id: nodeId.optional(),
          title: z.string().min(1).optional(),
          ids: z.array(nodeId).min(1).max(8).optional(),
          titles: z.array(z.string().min(1)).min(1).max(8).optional(),
        })
        .refine(
          (a) => [a.id, a.title, a.ids, a.titles].filter((v) => v !== undefined).length === 1,
          "give one of id, title, ids, titles",
        ),
      signature:
        "get(id|title=exact title, any notebook|ids|titles=up to 8 in one call: {documents,missing?,ambiguous?}) Kramdown: every block's ID+attributes",
    },
    list_tree: {
      policy: read,
      args: z.strictObject({
        notebook: notebookId,
        id: nodeId.optional(),
        depth: z.number().int().min(1).max(7).default(2),
      }),
      signature: "list_tree(notebook,id?,depth?)",
    },
    find: {
      policy: read,
      args: z.strictObject({ title: z.string().min(1).max(512), notebook: notebookId.optional() }),
      signature: "find(title,notebook?) by part of the title",
    },
    lookup: {
      policy: read,
      args: z
        .strictObject({
          id: nodeId.optional(),
          notebook: notebookId.optional(),
          hpath: z.string().optional(),
        })
        .refine((a) => a.id ?? (a.notebook && a.hpath), "give id, or notebook+hpath"),
      signature: "lookup(id|notebook+hpath) exact",
    },
    outline: { policy: read, args: pagedId, signature: "outline(id,page?,pageSize?) headings" },
    child_sort_mode: {
      policy: read,
      args: z.strictObject({ id: nodeId }),
      signature: "child_sort_mode(id) how a document's or notebook's subdocs are ordered",
    },
    recent: {
      policy: read,
      args: z.strictObject({
        sort: z.enum(["updated", "viewed", "opened", "closed"]).default("updated"),
        ...paged,
      }),
      signature: "recent(sort?=updated|viewed|opened|closed,page?,pageSize?)",
    },
    daily_note: {
      policy: read,
      args: notebookOnly,
      signature: "daily_note(notebook) today's note, id null if none",
    },
    snapshot: {
      policy: read,
      args: z.strictObject({
        notebook: notebookId,
        id: nodeId.optional(),
        cursor: z.string().min(1).optional(),
        pageToken: z.string().min(1).optional(),
        docsPerPage: z.number().int().min(1).max(48).default(32),
      }),
      signature:
        "snapshot(notebook,id?=subtree,cursor?=changes since,pageToken?,docsPerPage?) Markdown+manifest",
    },
    create: {
      policy: additive,
      args: z.strictObject({
        notebook: notebookId,
        hpath: z.string().regex(/^\/.+/, "must start with / and name the title"),
        markdown: z.string().default(""),
      }),
      signature:
        "create(notebook,hpath=/Title top level or /parent/Title: last segment is the title,markdown?=body only: any blocks, no title)",
    },
    create_daily_note: {
      policy: additive,
      args: notebookOnly,
      signature: "create_daily_note(notebook) unless it exists",
    },
    duplicate: {
      policy: additive,
      args: id,
      signature:
        'duplicate(id) copy beside it, title+" (Duplicated <time>)", new block IDs, no subdocs; answers its id',
    },
    rename: {
      policy: state,
      args: z.strictObject({ id: nodeId, title: z.string().min(1).max(512) }),
      signature: "rename(id,title) its hpath and fs path follow; answers title",
    },
    set_attrs: {
      policy: state,
      args: z.strictObject({ id: nodeId, attrs: attrMap }),
      signature: "set_attrs(id,attrs) as block's",
      aliases: ["set_attr"],
    },
    heading_to_doc: {
      policy: structure,
      args: z.strictObject({ id: nodeId, parentID: nodeId.optional() }),
      signature:
        "heading_to_doc(id=top-level heading,parentID?=its doc|doc|notebook) it and blocks under it become a doc, same IDs",
    },
    doc_to_heading: {
      policy: structure,
      dangerous: true,
      args: z.strictObject({ id: nodeId, targetID: nodeId, after: z.boolean().default(false) }),
      signature:
        "doc_to_heading(id=doc without subdocs,targetID=top-level block of another doc,after?) doc becomes a heading there, its blocks under it; file removed",
    },
    set_icon: {
      policy: state,
      args: z.strictObject({ id: nodeId, icon: iconArg }),
      signature: 'set_icon(id,icon=emoji|hex like 1f4d4|emojis file|"" clears) stored as hex',
    },
    set_child_sort_mode: {
      policy: state,
      args: z.strictObject({ notebook: notebookId, mode: z.enum(SORT_MODE_NAMES) }),
      signature:
        "set_child_sort_mode(notebook,mode=a name child_sort_mode answers) one mode per notebook in 3.7.3",
    },
    remove: { policy: state, dangerous: true, args: id, signature: "remove(id)" },
    move: {
      policy: structure,
      dangerous: true,
      args: z.strictObject({ ids: z.array(nodeId).min(1).max(64), toID: nodeId }),
      signature: "move(ids,toID=parent doc or notebook)",
    },
    reorder: {
      policy: structure,
      args: z.strictObject({ parentID: nodeId, orderedIDs: z.array(nodeId).min(1).max(512) }),
      signature: "reorder(parentID,orderedIDs)",
    },
  },
  fs: {
    ls: { policy: read, args: z.strictObject({ path: fsPath }), signature: "ls(path)" },
    read: {
      policy: read,
      args: z.strictObject({ path: fsPath }),
      signature: "read(path)",
    },
    tree: {
      policy: read,
      args: z.strictObject({ path: fsPath, depth: z.number().int().min(1).max(7).default(2) }),
      signature: "tree(path,depth?)",
    },
    write: {
      policy: state,
      policyFor: (a) => (a["overwrite"] === true ? state : additive),
      args: z.strictObject({
        path: fsPath,
        markdown: z.string(),
        overwrite: z.boolean().default(false),
      }),
      signature: "write(path,markdown,overwrite?)",
    },
    rm: {
      policy: state,
      dangerous: true,
      args: z.strictObject({ path: fsPath }),
      signature: "rm(path)",
    },
    mv: {
      policy: structure,
      dangerous: true,
      args: z.strictObject({ from: fsPath, to: fsPath }),
      signature: "mv(from,to)",
    },
    reorder: {
      policy: structure,
      args: z.strictObject({ path: fsPath, order: z.array(z.string().min(1)).min(1).max(512) }),
      signature: "reorder(path,order[titles])",
    },
    search: {
      policy: read,
      args: z.strictObject({ path: fsPath, query: z.string().min(1).max(256), ...paged }),
      signature:
        "search(path,query,page?,pageSize?) fulltext within path's document, its subdocuments (a notebook: all): {id,type,hpath,snippet}",
    },
    replace: {
      policy: manifest,
      dangerous: true,
      args: z.strictObject({
        path: fsPath,
        find: z.string().min(1).max(65536),
        replacement: z.string().max(65536),
      }),
      signature:
        "replace(path,find,replacement) block.find_replace over this document's leaf blocks holding find; answers replacedCount",
    },
  },
  file: {
    upload_asset: {
      policy: source,
      args: z
        .strictObject({
          localFilePath: z.string().min(1).max(4096).optional(),
          uploadSource: z.string().min(1).max(256).optional(),
          assetsDirPath,
        })
        .refine(
          (a) => (a.localFilePath === undefined) !== (a.uploadSource === undefined),
          "give exactly one of localFilePath or uploadSource",
        ),
      signature:
        "upload_asset(localFilePath=absolute path on the server|uploadSource=kernel authority's staging handle (bootstrap.uploads),assetsDirPath?=/assets/)",
    },
    create_template: {
      policy: state,
      policyFor: (a) => (a["overwrite"] === true ? state : additive),
      args: z.strictObject({
        name: templateName,
        content: z.string(),
        overwrite: z.boolean().default(false),
      }),
      signature: "create_template(name=x.md,content=Markdown,overwrite?)",
    },
    update_template: {
      policy: state,
      args: z.strictObject({ name: templateName, content: z.string() }),
      signature: "update_template(name,content)",
    },
    save_doc_as_template: {
      policy: state,
      policyFor: (a) => (a["overwrite"] === true ? state : additive),
      args: z.strictObject({
        id: nodeId,
        name: templateName,
        overwrite: z.boolean().default(false),
      }),
      signature: "save_doc_as_template(id=document,name=x.md,overwrite?) as SiYuan saves it",
    },
    delete_template: {
      policy: state,
      dangerous: true,
      args: z.strictObject({ name: templatePath }),
      signature: "delete_template(name) removed, no copy kept",
    },
    delete_asset: {
      policy: state,
      dangerous: true,
      args: z.strictObject({ path: assetPath }),
      signature: "delete_asset(path) one unused asset (linked: refused), copy kept in history",
    },
    rename_asset: {
      policy: manifest,
      args: z.strictObject({ path: assetPath, newName: z.string().min(1).max(128) }),
      signature:
        "rename_asset(path,newName=no extension) answers newPath (SiYuan adds an ID); rewrites its links",
    },
    remove_unused_assets: {
      policy: manifest,
      dangerous: true,
      args: z.strictObject({}),
      signature: "remove_unused_assets() all list_unused_assets lists, copies kept in history",
    },
    export_resources: {
      policy: external,
      args: z.strictObject({
        paths: z.array(workspacePath).min(1).max(256),
        outputPath,
      }),
      signature: "export_resources(paths[workspace-relative],outputPath=new .zip file)",
    },
    extract_doc: {
      policy: external,
      args: z.strictObject({ id: nodeId, outputPath }),
      signature: "extract_doc(id,outputPath=new directory for Markdown+assets)",
    },
    list_templates: {
      policy: read,
      args: z.strictObject({ keyword: z.string().max(256).default("") }),
      signature: "list_templates(keyword?) template names, e.g. weekly.md",
    },
    doc_assets: { policy: read, args: id, signature: "doc_assets(id) assets/… its document links" },
    list_unused_assets: {
      policy: read,
      args: z.strictObject({ ...paged }),
      signature: "list_unused_assets(page?,pageSize?) assets no document links",
    },
    read_template: {
      policy: read,
      args: z.strictObject({ name: templatePath }),
      signature: "read_template(name) a template's Markdown, as list_templates names it",
    },
    render_template: {
      policy: read,
      args: z.strictObject({ name: templatePath, id: nodeId }),
      signature:
        "render_template(name,id) the template SiYuan runs for block id, as Markdown (.title: a doc's title, a block's name); saves nothing",
    },
    export_md: {
      policy: read,
      args: id,
      signature: "export_md(id) a document as Markdown (title, YAML front matter)",
    },
  },
  notebook: {
    list: { policy: read, args: z.strictObject({}), signature: "list()" },
    get_conf: { policy: read, args: notebookOnly, signature: "get_conf(notebook)" },
    create: {
      policy: additive,
      args: z.strictObject({ name: z.string().min(1).max(512) }),
      signature: "create(name)",
    },
    rename: {
      policy: state,
      args: z.strictObject({ notebook: notebookId, name: z.string().min(1).max(512) }),
      signature: "rename(notebook,name)",
    },
    set_conf: {
      policy: state,
      args: z.strictObject({
        notebook: notebookId,
        conf: z
          .strictObject({
            sortMode: sortMode.optional(),
            icon: z.string().optional(),
            refCreateSavePath: z.string().optional(),
            docCreateSavePath: z.string().optional(),
            dailyNoteSavePath: z.string().optional(),
            dailyNoteTemplatePath: z.string().optional(),
          })
          .refine((c) => Object.keys(c).length > 0, "must set at least one field"),
      }),
      signature: "set_conf(notebook,conf)",
    },
    set_open_state: {
      policy: state,
      args: z.strictObject({ notebook: notebookId, open: z.boolean() }),
      signature: "set_open_state(notebook,open)",
    },
    set_icon: {
      policy: state,
      args: z.strictObject({ notebook: notebookId, icon: iconArg }),
      signature: "set_icon(notebook,icon) as document.set_icon",
    },
    remove: {
      policy: state,
      dangerous: true,
      args: notebookOnly,
      signature: "remove(notebook)",
    },
  },
  search: {
    sql: {
      policy: read,
      args: z.strictObject({ stmt: z.string().min(1).max(8192) }),
      signature: "sql(stmt) one SELECT on SiYuan's tables (bootstrap.sql): exact filters",
    },
    fulltext: {
      policy: read,
      args: z.strictObject({
        query: z.string().min(1),
        ...paged,
        full: z.boolean().default(false),
      }),
      signature:
        "fulltext(query,page?,pageSize?<=64,full?) every block whose own text has the words, in every notebook (closed ones are unindexed: listed in closedNotebooks, absent when none; a document title too, as a d hit; in a list or quote, the paragraph, not the container), any case; compact unless full=SiYuan's whole answer",
    },
    invalid_refs: {
      policy: read,
      args: z.strictObject({ ...paged }),
      signature: "invalid_refs(page?,pageSize?) blocks referencing a deleted block",
    },
    assets: {
      policy: read,
      args: z.strictObject({
        keyword: z.string().max(256).default(""),
        exts: z.array(z.string().min(1).max(16)).max(32).default([]),
      }),
      signature: "assets(keyword?,exts?) assets/… files by name, e.g. exts [png]",
    },
    refs: {
      policy: read,
      args: z.strictObject({ keyword: z.string().min(1).max(256), id: nodeId.optional() }),
      signature: "refs(keyword,id?) blocks a (( reference could name; id: the referencing block",
    },
    asset_content: {
      policy: read,
      args: z.strictObject({ query: z.string().min(1).max(256), ...paged }),
      signature: "asset_content(query,page?,pageSize?) text inside assets (txt, md, pdf, docx…)",
    },
    semantic: {
      policy: read,
      args: z.strictObject({ query: z.string().min(1).max(1024), ...paged }),
      signature:
        "semantic(query,page?,pageSize?) blocks by meaning; unsupported while SiYuan's embedding is off",
    },
  },
  tag: {
    list: { policy: read, args: z.strictObject({}), signature: "list()" },
    rename: {
      policy: manifest,
      args: z.strictObject({ oldLabel: z.string().min(1), newLabel: z.string().min(1) }),
      signature: "rename(oldLabel,newLabel)",
    },
    remove: {
      policy: manifest,
      dangerous: true,
      args: z.strictObject({ label: z.string().min(1) }),
      signature: "remove(label)",
    },
  },
  av: {
    get: {
      policy: read,
      args: z.strictObject({ id: nodeId }),
      signature: "get(id) name, views, columns",
    },
    render: {
      policy: read,
      args: z.strictObject({
        id: nodeId,
        viewID: nodeId.optional(),
        ...paged,
        full: z.boolean().default(false),
      }),
      signature: "render(id,viewID?,page?,pageSize?,full?) rows, compact unless full",
    },
    keys: { policy: read, args: z.strictObject({ id: nodeId }), signature: "keys(id) columns" },
    create: {
      policy: additive,
      args: z
        .strictObject({
          nextID: nodeId.optional(),
          previousID: nodeId.optional(),
          parentID: nodeId.optional(),
          name: z.string().max(512).optional(),
          columns: z.array(avColumn).min(1).max(16).optional(),
        })
        .refine(
          (a) => a.nextID ?? a.previousID ?? a.parentID,
          "needs nextID, previousID or parentID",
        ),
      signature:
        "create(nextID|previousID|parentID as block.insert,name?,columns?[{name,type}]) answers avID and its block's id; no columns: Primary Key+Select",
    },
    add_rows: {
      policy: additive,
      args: z
        .strictObject({
          id: nodeId,
          blockIDs: z.array(nodeId).min(1).max(64).optional(),
          detached: z.array(z.string().max(4096)).min(1).max(64).optional(),
        })
        .refine((a) => a.blockIDs ?? a.detached, "needs blockIDs or detached"),
      signature: "add_rows(id,blockIDs?,detached?[primary text]) bind blocks or new rows",
    },
    remove_rows: {
      policy: manifest,
      dangerous: true,
      args: z.strictObject({ id: nodeId, rowIDs: z.array(nodeId).min(1).max(64) }),
      signature: "remove_rows(id,rowIDs) detached rows deleted, bound blocks kept",
    },
    set_cells: {
      policy: manifest,
      args: z.strictObject({
        id: nodeId,
        cells: z.array(avCell).min(1).max(64),
      }),
      signature: "set_cells(id,cells[{rowID,keyID,value}]) plain values as render shows",
    },
    add_column: {
      policy: state,
      args: z
        .strictObject({
          id: nodeId,
          name: z.string().min(1).max(128),
          type: z.enum(AV_COLUMN_TYPES),
          previousKeyID: nodeId.optional(),
          relation: z
            .strictObject({
              avID: nodeId,
              twoWay: z.boolean().default(false),
              backName: z.string().max(128).optional(),
            })
            .optional(),
          rollup: z
            .strictObject({
              relationKeyID: nodeId,
              keyID: nodeId,
              calc: z.enum(AV_ROLLUP_CALCS).default(""),
            })
            .optional(),
        })
        .refine(
          (a) => (a.type === "relation") === (a.relation !== undefined),
          "relation {avID,twoWay?,backName?} is given exactly for type relation",
        )
        .refine(
          (a) => (a.type === "rollup") === (a.rollup !== undefined),
          "rollup {relationKeyID,keyID,calc?} is given exactly for type rollup",
        ),
      signature:
        "add_column(id,name,type,previousKeyID?,relation?{avID,twoWay?,backName?},rollup?{relationKeyID,keyID,calc?})",
    },
    remove_column: {
      policy: state,
      dangerous: true,
      args: z.strictObject({
        id: nodeId,
        keyID: nodeId,
        removeBackKey: z.boolean().default(false),
      }),
      signature: "remove_column(id,keyID,removeBackKey?) two-way back key kept one-way unless",
    },
    rename: {
      policy: state,
      args: z.strictObject({
        id: nodeId,
        name: z
          .string()
          .max(512)
          .refine((n) => n.trim() !== "", "must not be empty"),
      }),
      signature: "rename(id,name) the database's name, trimmed, newlines as spaces",
    },
    duplicate: {
      policy: additive,
      args: z.strictObject({ id: nodeId, blockID: nodeId.optional() }),
      signature:
        "duplicate(id,blockID?) copies columns and rows into a new database, its block after blockID (default: the first); answers avID, id",
    },
    filter_sort: {
      policy: read,
      args: z.strictObject({ id: nodeId, blockID: nodeId.optional() }),
      signature:
        "filter_sort(id,blockID?) the view's filters and sorts (blockID's view, else current)",
    },
    search: {
      policy: read,
      args: z.strictObject({ keyword: z.string().max(256).default("") }),
      signature: "search(keyword?) databases by name, ≤12: avID, blockID, hpath, views",
    },
    primary_key_values: {
      policy: read,
      args: z.strictObject({ id: nodeId, keyword: z.string().max(256).default(""), ...paged }),
      signature: "primary_key_values(id,keyword?,page?,pageSize?) rows' primary text, newest first",
    },
  },
  flashcard: {
    decks: {
      policy: read,
      args: z.strictObject({}),
      signature: "decks() id,name,size; builtin deck included",
    },
    cards: {
      policy: read,
      args: z.strictObject({ deckId: nodeId, ...paged }),
      signature: "cards(deckId,page?,pageSize?) blockId,cardId,due,reps,state",
    },
    due: {
      policy: read,
      args: z
        .strictObject({ deckId: nodeId.optional(), notebook: notebookId.optional() })
        .refine(
          (a) => (a.deckId === undefined) !== (a.notebook === undefined),
          "deckId or notebook",
        ),
      signature: "due(deckId|notebook) cards to review now, nextDues per rating",
    },
    add_cards: {
      policy: additive,
      args: z.strictObject({ deckId: nodeId, ids: z.array(nodeId).min(1).max(64) }),
      signature: "add_cards(deckId,ids) a card per block; existing cards kept",
    },
    remove_cards: {
      policy: state,
      dangerous: true,
      args: z.strictObject({ deckId: nodeId, ids: z.array(nodeId).min(1).max(64) }),
      signature: "remove_cards(deckId,ids) drops cards and review history; blocks kept",
    },
    review: {
      policy: state,
      args: z.strictObject({
        deckId: nodeId,
        cardId: nodeId,
        rating: z.number().int().min(1).max(4),
      }),
      signature: "review(deckId,cardId,rating 1again-4easy) a due card; answers next due",
    },
  },
  history: {
    list: {
      policy: read,
      args: z.strictObject({ id: nodeId, page: z.number().int().min(1).default(1) }),
      signature: "list(id,page?) doc's restore points newest first: time,op,historyPath",
    },
    get: {
      policy: read,
      args: z.strictObject({ historyPath }),
      signature: "get(historyPath) a point's content as Markdown",
    },
    create_point: {
      policy: additive,
      args: id,
      signature: "create_point(id) saves the doc's content now; answers historyPath",
    },
    rollback_document: {
      policy: state,
      dangerous: true,
      args: z
        .strictObject({ id: nodeId, historyPath })
        .refine((a) => a.historyPath.endsWith(`/${a.id}.sy`), "historyPath is not a point of id"),
      signature:
        "rollback_document(id,historyPath) content becomes the point's, same ID; current content not kept: create_point first",
    },
    snapshot_list: {
      policy: read,
      args: z.strictObject({ page: z.number().int().min(1).default(1) }),
      signature:
        "snapshot_list(page?) workspace snapshots newest first: id,memo,created,count,size,tag (needs SiYuan's repo key)",
    },
    snapshot_create: {
      policy: additive,
      args: z.strictObject({ memo: z.string().min(1).max(1024) }),
      signature:
        "snapshot_create(memo) snapshots every notebook; no_change with the latest id when nothing changed",
    },
    snapshot_diff: {
      policy: read,
      args: z.strictObject({ left: snapshotId, right: snapshotId }),
      signature:
        "snapshot_diff(left,right) documents and files added/updated/removed from left to right",
    },
  },
  system: {
    bootstrap: { policy: read, args: z.strictObject({}), signature: "bootstrap()" },
    version: { policy: read, args: z.strictObject({}), signature: "version()" },
    current_time: {
      policy: read,
      args: z.strictObject({}),
      signature: "current_time() SiYuan's clock: unixMs, iso",
    },
    conf: {
      policy: read,
      args: z.strictObject({}),
      signature: "conf() SiYuan settings summary (sort, search limit…), no secrets",
    },
    health: { policy: read, args: z.strictObject({}), signature: "health()" },
    notify: {
      policy: external,
      args: z.strictObject({
        msg: z.string().min(1).max(2048),
        timeout: z.number().int().min(0).optional(),
      }),
      signature: "notify(msg,timeout?=ms shown, 7000)",
    },
    sync: {
      policy: external,
      dangerous: true,
      args: z.strictObject({}),
      signature: "sync() SiYuan cloud sync now; outcome shown in SiYuan",
    },
  },
  extension: {
    list: {
      policy: read,
      args: z.strictObject({ ...paged }),
      signature: "list(page?,pageSize?) SiYuan's own MCP tools",
    },
    call: {
      policy: external,
      dangerous: true,
      args: z.strictObject({
        name: z.string().min(1).max(256),
        arguments: z.record(z.string(), z.unknown()).default({}),
      }),
      signature: "call(name,arguments?) one of them, as SiYuan runs it",
    },
  },
  feedback: {
    submit: {
      policy: external,
      dangerous: true,
      args: z.strictObject({
        message: z.string().min(1).max(4000),
        category: z.enum(["bug", "idea", "question", "other"]).optional(),
        contact: z.string().min(1).max(256).optional(),
      }),
      signature: "submit(message,category?,contact?) to the user's feedback URL",
    },
  },
} satisfies { readonly [T in ToolName]: Readonly<Record<string, ActionSpec>> };

/** The catalog's type: handler types are mapped over it. */
export type Catalog = typeof CATALOG;

/** The canonical action names of one tool. */
export type ActionName<T extends ToolName> = keyof Catalog[T] & string;

const TABLE: { readonly [T in ToolName]: Readonly<Record<string, ActionSpec>> } = CATALOG;

function surfaceOf(tool: ToolName, action: string, spec: ActionSpec): ActionSurface {
  return Object.freeze({
    tool,
    action,
    policy: spec.policy,
    ...(spec.policyFor ? { policyFor: spec.policyFor } : {}),
    dangerous: spec.dangerous ?? false,
    args: spec.args,
    signature: spec.signature,
    aliases: Object.freeze([...(spec.aliases ?? [])]),
  });
}

/** Every action of every tool, flattened, in catalog order. */
export const ACTIONS: readonly ActionSurface[] = Object.freeze(
  TOOL_NAMES.flatMap((tool) =>
    Object.entries(TABLE[tool]).map(([action, spec]) => surfaceOf(tool, action, spec)),
  ),
);

/**
 * Every spelling of every action, by tool: the canonical name and each alias, mapped to the
 * action's surface. Throws when one spelling would name two actions of a tool (an alias that
 * repeats another action's name or alias), so an ambiguous catalog never loads.
 */
export function indexSpellings(
  actions: readonly ActionSurface[],
): ReadonlyMap<string, ReadonlyMap<string, ActionSurface>> {
  const byTool = new Map<string, Map<string, ActionSurface>>();
  for (const a of actions) {
    const spellings = byTool.get(a.tool) ?? new Map<string, ActionSurface>();
    byTool.set(a.tool, spellings);
    for (const name of [a.action, ...a.aliases]) {
      const taken = spellings.get(name);
      if (taken !== undefined) {
        throw new Error(
          `catalog: ${a.tool}.${name} would name both ${taken.action} and ${a.action}`,
        );
      }
      spellings.set(name, a);
    }
  }
  return byTool;
}

const SPELLINGS = indexSpellings(ACTIONS);

/**
 * The action of `tool` spelled `action` (its canonical name or an alias), or `undefined`. The
 * surface returned always carries the canonical name.
 */
export function findAction(tool: string, action: unknown): ActionSurface | undefined {
  return typeof action === "string" ? SPELLINGS.get(tool)?.get(action) : undefined;
}

/** The policy of one parsed call. */
export function policyOf(surface: ActionSurface, args: Record<string, unknown>): ActionPolicy {
  return surface.policyFor ? surface.policyFor(args) : surface.policy;
}

/** The request field that carries the credential for a precondition kind. */
export function preconditionFieldName(kind: Exclude<PreconditionKind, "none">): string {
  return preconditionField(kind);
}
