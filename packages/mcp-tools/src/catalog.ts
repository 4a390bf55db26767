/**
 * The action catalog: every tool, every action, its business-argument schema, its safety policy,
 * and the one-line signature agents read in the tool description.
 *
 * This is the single policy table. An action that is not here does not exist: the runtime refuses
 * it before any kernel call, and a test checks that every action here has a handler.
 */
import {
  type ActionPolicy,
  EXTERNAL_POLICY,
  mutationPolicy,
  type PreconditionKind,
  preconditionField,
  READ_POLICY,
} from "@sisyphus/write-safety";
import { z } from "zod";
import { attrMap, dataType, fsPath, nodeId, sortMode } from "./args.js";

/** The aggregated MCP tools. */
export const TOOL_NAMES = [
  "block",
  "document",
  "fs",
  "notebook",
  "search",
  "tag",
  "system",
] as const;
/** One aggregated MCP tool. */
export type ToolName = (typeof TOOL_NAMES)[number];

export type { ActionPolicy, PreconditionKind };

/** One action's surface. `policyFor` may depend on the arguments (e.g. `fs.write` with `overwrite`). */
export interface ActionSurface {
  readonly tool: ToolName;
  readonly action: string;
  /** The widest policy of the action, used for the advertised schema and description. */
  readonly policy: ActionPolicy;
  /** The policy for these parsed arguments (defaults to `policy`). */
  readonly policyFor?: (args: Record<string, unknown>) => ActionPolicy;
  /** Delete, remove and move: runtimes ask the user to confirm before executing. */
  readonly dangerous: boolean;
  /** Business arguments; unknown keys are rejected. */
  readonly args: z.ZodObject;
  /** The compact signature shown in the tool description, e.g. `update(id,data)`. */
  readonly signature: string;
}

const read = READ_POLICY;
const external = EXTERNAL_POLICY;
const state = mutationPolicy("state");
const structure = mutationPolicy("structure");
const manifest = mutationPolicy("manifest");
const additive = mutationPolicy("none");

const updateItem = z.strictObject({ id: nodeId, data: z.string(), dataType });

type Spec = Omit<ActionSurface, "tool" | "dangerous"> & { dangerous?: boolean };

function define(tool: ToolName, specs: Spec[]): ActionSurface[] {
  return specs.map((s) => ({ ...s, tool, dangerous: s.dangerous ?? false }));
}

const id = z.strictObject({ id: nodeId });
const notebookOnly = z.strictObject({ notebook: nodeId });

/** Every action of every tool. */
export const ACTIONS: readonly ActionSurface[] = [
  ...define("block", [
    { action: "get_kramdown", policy: read, args: id, signature: "get_kramdown(id)" },
    { action: "get_attrs", policy: read, args: id, signature: "get_attrs(id)" },
    { action: "get_children", policy: read, args: id, signature: "get_children(id)" },
    { action: "info", policy: read, args: id, signature: "info(id)" },
    { action: "dom", policy: read, args: id, signature: "dom(id)" },
    {
      action: "insert",
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
      signature: "insert(data,nextID|previousID|parentID)",
    },
    {
      action: "prepend",
      policy: additive,
      args: z.strictObject({ parentID: nodeId, data: z.string(), dataType }),
      signature: "prepend(parentID,data)",
    },
    {
      action: "append",
      policy: additive,
      args: z.strictObject({ parentID: nodeId, data: z.string(), dataType }),
      signature: "append(parentID,data)",
    },
    {
      action: "update",
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
      signature: "update(id,data|items[{id,data}])",
    },
    {
      action: "set_attrs",
      policy: state,
      args: z.strictObject({ id: nodeId, attrs: attrMap }),
      signature: "set_attrs(id,attrs)",
    },
    { action: "delete", policy: state, dangerous: true, args: id, signature: "delete(id)" },
    {
      action: "move",
      policy: structure,
      dangerous: true,
      args: z
        .strictObject({ id: nodeId, previousID: nodeId.optional(), parentID: nodeId.optional() })
        .refine((a) => a.previousID ?? a.parentID, "needs previousID or parentID"),
      signature: "move(id,previousID|parentID)",
    },
  ]),
  ...define("document", [
    { action: "get", policy: read, args: id, signature: "get(id)" },
    {
      action: "list_tree",
      policy: read,
      args: z.strictObject({
        notebook: nodeId,
        id: nodeId.optional(),
        depth: z.number().int().min(1).max(7).default(2),
      }),
      signature: "list_tree(notebook,id?,depth?)",
    },
    {
      action: "lookup",
      policy: read,
      args: z
        .strictObject({
          id: nodeId.optional(),
          notebook: nodeId.optional(),
          hpath: z.string().optional(),
        })
        .refine((a) => a.id ?? (a.notebook && a.hpath), "give id, or notebook+hpath"),
      signature: "lookup(id|notebook+hpath)",
    },
    {
      action: "create",
      policy: additive,
      args: z.strictObject({
        notebook: nodeId,
        hpath: z.string().regex(/^\/.+/, "must start with / and name the title"),
        markdown: z.string().default(""),
      }),
      signature: "create(notebook,hpath,markdown?)",
    },
    {
      action: "rename",
      policy: state,
      args: z.strictObject({ id: nodeId, title: z.string().min(1).max(512) }),
      signature: "rename(id,title)",
    },
    {
      action: "set_attr",
      policy: state,
      args: z.strictObject({ id: nodeId, attrs: attrMap }),
      signature: "set_attr(id,attrs)",
    },
    { action: "remove", policy: state, dangerous: true, args: id, signature: "remove(id)" },
    {
      action: "move",
      policy: structure,
      dangerous: true,
      args: z.strictObject({ ids: z.array(nodeId).min(1).max(64), toID: nodeId }),
      signature: "move(ids,toID)",
    },
    {
      action: "reorder",
      policy: structure,
      args: z.strictObject({ parentID: nodeId, orderedIDs: z.array(nodeId).min(1).max(512) }),
      signature: "reorder(parentID,orderedIDs)",
    },
  ]),
  ...define("fs", [
    { action: "ls", policy: read, args: z.strictObject({ path: fsPath }), signature: "ls(path)" },
    {
      action: "read",
      policy: read,
      args: z.strictObject({ path: fsPath }),
      signature: "read(path)",
    },
    {
      action: "tree",
      policy: read,
      args: z.strictObject({ path: fsPath, depth: z.number().int().min(1).max(7).default(2) }),
      signature: "tree(path,depth?)",
    },
    {
      action: "write",
      policy: state,
      policyFor: (a) => (a["overwrite"] === true ? state : additive),
      args: z.strictObject({
        path: fsPath,
        markdown: z.string(),
        overwrite: z.boolean().default(false),
      }),
      signature: "write(path,markdown,overwrite?)",
    },
    {
      action: "rm",
      policy: state,
      dangerous: true,
      args: z.strictObject({ path: fsPath }),
      signature: "rm(path)",
    },
    {
      action: "mv",
      policy: structure,
      dangerous: true,
      args: z.strictObject({ from: fsPath, to: fsPath }),
      signature: "mv(from,to)",
    },
    {
      action: "reorder",
      policy: structure,
      args: z.strictObject({ path: fsPath, order: z.array(z.string().min(1)).min(1).max(512) }),
      signature: "reorder(path,order[titles])",
    },
  ]),
  ...define("notebook", [
    { action: "list", policy: read, args: z.strictObject({}), signature: "list()" },
    { action: "get_conf", policy: read, args: notebookOnly, signature: "get_conf(notebook)" },
    {
      action: "create",
      policy: additive,
      args: z.strictObject({ name: z.string().min(1).max(512) }),
      signature: "create(name)",
    },
    {
      action: "rename",
      policy: state,
      args: z.strictObject({ notebook: nodeId, name: z.string().min(1).max(512) }),
      signature: "rename(notebook,name)",
    },
    {
      action: "set_conf",
      policy: state,
      args: z.strictObject({
        notebook: nodeId,
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
    {
      action: "set_open_state",
      policy: state,
      args: z.strictObject({ notebook: nodeId, open: z.boolean() }),
      signature: "set_open_state(notebook,open)",
    },
    {
      action: "remove",
      policy: state,
      dangerous: true,
      args: notebookOnly,
      signature: "remove(notebook)",
    },
  ]),
  ...define("search", [
    {
      action: "sql",
      policy: read,
      args: z.strictObject({ stmt: z.string().min(1).max(8192) }),
      signature: "sql(stmt)",
    },
    {
      action: "fulltext",
      policy: read,
      args: z.strictObject({
        query: z.string().min(1),
        page: z.number().int().min(1).default(1),
        pageSize: z.number().int().min(1).max(64).default(16),
      }),
      signature: "fulltext(query,page?)",
    },
  ]),
  ...define("tag", [
    { action: "list", policy: read, args: z.strictObject({}), signature: "list()" },
    {
      action: "rename",
      policy: manifest,
      args: z.strictObject({ oldLabel: z.string().min(1), newLabel: z.string().min(1) }),
      signature: "rename(oldLabel,newLabel)",
    },
    {
      action: "remove",
      policy: manifest,
      dangerous: true,
      args: z.strictObject({ label: z.string().min(1) }),
      signature: "remove(label)",
    },
  ]),
  ...define("system", [
    { action: "bootstrap", policy: read, args: z.strictObject({}), signature: "bootstrap()" },
    { action: "version", policy: read, args: z.strictObject({}), signature: "version()" },
    { action: "health", policy: read, args: z.strictObject({}), signature: "health()" },
    {
      action: "notify",
      policy: external,
      args: z.strictObject({
        msg: z.string().min(1).max(2048),
        timeout: z.number().int().min(0).optional(),
      }),
      signature: "notify(msg)",
    },
  ]),
];

/** The action of `tool` named `action`, or `undefined`. */
export function findAction(tool: string, action: unknown): ActionSurface | undefined {
  return ACTIONS.find((a) => a.tool === tool && a.action === action);
}

/** The policy of one parsed call. */
export function policyOf(surface: ActionSurface, args: Record<string, unknown>): ActionPolicy {
  return surface.policyFor ? surface.policyFor(args) : surface.policy;
}

/** The request field that carries the credential for a precondition kind. */
export function preconditionFieldName(kind: Exclude<PreconditionKind, "none">): string {
  return preconditionField(kind);
}
