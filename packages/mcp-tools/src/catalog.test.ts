import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ACTIONS,
  type ActionSurface,
  findAction,
  indexSpellings,
  policyOf,
  TOOL_NAMES,
  type ToolName,
} from "./catalog.js";
import { HANDLERS } from "./dispatch.js";
import { mutationAction, readAction, type ToolHandlers } from "./handler.js";
import { describeTool, describeTools } from "./surface.js";

/**
 * Never called: checked by `typecheck` only. The catalog's types reach the handlers, so each line
 * marked `@ts-expect-error` must stay a compile error (an unused directive fails `typecheck` too).
 */
export function catalogHandlerTypes(): void {
  const exact: ToolHandlers<"block"> = HANDLERS.block;

  const { get_kramdown: _dropped, ...withoutOne } = HANDLERS.block;
  // @ts-expect-error a catalog action without a handler
  const missing: ToolHandlers<"block"> = withoutOne;

  const orphan: ToolHandlers<"block"> = {
    ...HANDLERS.block,
    // @ts-expect-error a handler that names no catalog action
    get_kramdwon: HANDLERS.block.get_kramdown,
  };

  const disagreeing: ToolHandlers<"block"> = {
    ...HANDLERS.block,
    // @ts-expect-error a handler whose arguments disagree with the schema (block.info takes `id`)
    info: readAction({ run: async (_ctx, a: { ids: readonly string[] }) => a.ids }),
  };

  const wrongKind: ToolHandlers<"block"> = {
    ...HANDLERS.block,
    // @ts-expect-error a mutation's handler for a read action
    info: HANDLERS.block.delete,
  };

  const badMutation: ToolHandlers<"document"> = {
    ...HANDLERS.document,
    // @ts-expect-error a mutation whose handler reads an argument the schema does not have
    rename: mutationAction({
      targets: (a: { id: string; name: string }) => [a.id, a.name],
      probe: async () => ({ state: null, notebooks: [], snapshot: null }),
      execute: async () => null,
      readback: async () => ({ state: null, verdict: "applied" }),
    }),
  };
  void [exact, missing, orphan, disagreeing, wrongKind, badMutation];
}

describe("the policy table", () => {
  it("classifies every action the handlers implement, and nothing else", () => {
    const catalog = ACTIONS.map((a) => `${a.tool}.${a.action}`);
    const handled = TOOL_NAMES.flatMap((tool) =>
      Object.keys(HANDLERS[tool]).map((action) => `${tool}.${action}`),
    );
    expect(
      handled.filter((h) => !catalog.includes(h)),
      "handlers that name no catalog action",
    ).toEqual([]);
    expect(
      catalog.filter((c) => !handled.includes(c)),
      "catalog actions without a handler",
    ).toEqual([]);
    for (const a of ACTIONS) {
      const table: Readonly<Record<string, { readonly kind: string }>> = HANDLERS[a.tool];
      expect(table[a.action]?.kind, `${a.tool}.${a.action}`).toBe(a.policy.kind);
    }
  });

  it("resolves every spelling of an action to its canonical name, and nothing else", () => {
    const setAttrs = findAction("document", "set_attrs");
    expect(setAttrs?.action).toBe("set_attrs");
    expect(findAction("document", "set_attr")).toBe(setAttrs);
    expect(findAction("block", "set_attr")).toBeUndefined();
    expect(findAction("document", "set_atr")).toBeUndefined();
    expect(findAction("document", ["set_attrs"])).toBeUndefined();
    expect(findAction("document", "__proto__")).toBeUndefined();
    for (const a of ACTIONS) {
      for (const spelling of [a.action, ...a.aliases]) {
        expect(findAction(a.tool, spelling), `${a.tool}.${spelling}`).toBe(a);
      }
      const table: Readonly<Record<string, unknown>> = HANDLERS[a.tool];
      for (const alias of a.aliases) expect(table[alias], `${a.tool}.${alias}`).toBeUndefined();
    }
  });

  it("refuses to load a catalog in which one spelling names two actions", () => {
    const base = ACTIONS.find((a) => a.tool === "document" && a.action === "set_attrs");
    const other = ACTIONS.find((a) => a.tool === "document" && a.action === "rename");
    const clash: ActionSurface = { ...(other as ActionSurface), aliases: ["set_attr"] };
    expect(() => indexSpellings([base as ActionSurface, clash])).toThrow(
      /document\.set_attr would name both set_attrs and rename/,
    );
    const shadow: ActionSurface = { ...(other as ActionSurface), aliases: ["set_attrs"] };
    expect(() => indexSpellings([base as ActionSurface, shadow])).toThrow(/set_attrs/);
    expect(() => indexSpellings(ACTIONS)).not.toThrow();
  });

  it("has the actions the issue lists, with their precondition kinds", () => {
    const table = Object.fromEntries(
      ACTIONS.map((a) => [
        `${a.tool}.${a.action}`,
        a.policy.kind === "mutation" ? a.policy.precondition : a.policy.kind,
      ]),
    );
    expect(table).toMatchObject({
      "block.update": "state",
      "block.replace": "state",
      "block.set_attrs": "state",
      "block.delete": "state",
      "block.move": "structure",
      "block.insert": "none",
      "block.set_fold_state": "state",
      "block.transfer_references": "manifest",
      "block.add_to_daily_note": "none",
      "document.reorder": "structure",
      "document.create": "none",
      "document.duplicate": "none",
      "fs.write": "state",
      "fs.mv": "structure",
      "file.upload_asset": "source",
      "file.create_template": "state",
      "file.update_template": "state",
      "notebook.create": "none",
      "notebook.set_open_state": "state",
      "tag.rename": "manifest",
      "block.find_replace": "manifest",
      "fs.replace": "manifest",
      "fs.search": "read",
      "search.sql": "read",
      "system.notify": "external",
    });
    // fs.write and file.create_template are additive unless they overwrite.
    for (const [tool, action] of [
      ["fs", "write"],
      ["file", "create_template"],
    ] as const) {
      const surface = findAction(tool, action) as ActionSurface;
      expect(policyOf(surface, { overwrite: false })).toEqual({
        kind: "mutation",
        precondition: "none",
      });
      expect(policyOf(surface, { overwrite: true })).toEqual({
        kind: "mutation",
        precondition: "state",
      });
    }
  });

  it("marks delete, remove, rm and cross-document moves dangerous and nothing that only reads", () => {
    const dangerous = ACTIONS.filter((a) => a.dangerous === true).map(
      (a) => `${a.tool}.${a.action}`,
    );
    expect(dangerous.sort()).toEqual(
      [
        "block.delete",
        "block.transfer_references",
        "document.remove",
        "document.move",
        "document.doc_to_heading",
        "fs.rm",
        "fs.mv",
        "notebook.remove",
        "tag.remove",
        "system.sync",
        "extension.call",
        "feedback.submit",
        "av.remove_rows",
        "av.remove_column",
        "history.rollback_document",
        "flashcard.remove_cards",
        "block.find_replace",
        "fs.replace",
        "file.delete_template",
        "file.delete_asset",
        "file.remove_unused_assets",
      ].sort(),
    );
    const byState = ACTIONS.filter((a) => a.dangerous === "cross_document");
    expect(byState.map((a) => `${a.tool}.${a.action}`)).toEqual(["block.move"]);
    expect(ACTIONS.filter((a) => a.dangerous && a.policy.kind === "read")).toEqual([]);
  });
});

describe("the advertised surface", () => {
  it("advertises preflight fields only on tools with strict mutations, and only the fields used", () => {
    const byName = Object.fromEntries(describeTools(true).map((t) => [t.name, t]));
    const props = (name: string) =>
      Object.keys((byName[name]?.inputSchema["properties"] ?? {}) as object);
    expect(props("search")).not.toContain("validateOnly");
    expect(props("search")).not.toContain("requestId");
    expect(props("system")).not.toContain("validateOnly");
    expect(props("block")).toEqual(
      expect.arrayContaining([
        "validateOnly",
        "requestId",
        "expectedStateHash",
        "expectedStructureHash",
      ]),
    );
    expect(props("block")).toContain("expectedManifestHash");
    expect(props("block")).not.toContain("expectedSourceHash");
    expect(props("tag")).toContain("expectedManifestHash");
    expect(props("tag")).not.toContain("expectedStateHash");
  });

  it("names, in a mixed tool's description, which actions need which field", () => {
    const block = describeTool("block", true).description;
    expect(block).toMatch(/update,replace,set_attrs,delete,set_fold_state: expectedStateHash/);
    expect(block).toMatch(/transfer_references: expectedManifestHash/);
    expect(block).toMatch(/move: expectedStructureHash/);
    expect(block).toMatch(/insert,prepend,append,add_to_daily_note: requestId only/);
    const file = describeTool("file", true).description;
    expect(file).toMatch(/upload_asset: expectedSourceHash/);
    expect(file).toMatch(
      /create_template,update_template,save_doc_as_template,delete_template,delete_asset: expectedStateHash/,
    );
    expect(file).toMatch(/remove_unused_assets: expectedManifestHash/);
    expect(file).toMatch(/create_template\(new\),save_doc_as_template\(new\): requestId only/);
  });

  it("advertises the legacy surface with strict mode off", () => {
    for (const t of describeTools(false)) {
      const props = Object.keys(t.inputSchema["properties"] as object);
      expect(
        props.some((p) => p === "validateOnly" || p === "requestId" || p.startsWith("expected")),
      ).toBe(false);
    }
    expect(describeTool("block", false).description).toMatch(/unguarded/);
  });

  it("advertises confirm (boolean) on every tool with a dangerous action, strict or not", () => {
    for (const strict of [true, false]) {
      for (const t of describeTools(strict)) {
        const props = t.inputSchema["properties"] as Record<string, unknown>;
        const dangerous = ACTIONS.some((a) => a.tool === t.name && a.dangerous !== false);
        expect({ tool: t.name, confirm: props["confirm"] }).toEqual({
          tool: t.name,
          confirm: dangerous ? { type: "boolean" } : undefined,
        });
      }
    }
    expect(describeTool("block", true).description).toMatch(
      /User confirms: find_replace,delete,move\(to another doc\),transfer_references\./,
    );
  });

  it("says what an agent would otherwise guess (issue 33)", () => {
    const d = (tool: ToolName) => describeTool(tool, true).description;
    expect(d("document")).toContain(
      "get(id|title=exact title, any notebook|ids|titles=up to 8 in one call: {documents,missing?,ambiguous?}) Kramdown: every block's ID+attributes",
    );
    expect(d("document")).toContain(
      "create(notebook,hpath=/Title top level or /parent/Title: last segment is the title,markdown?=body only: any blocks, no title)",
    );
    expect(d("block")).toContain(
      "update(id,data|items[{id,data}]=several blocks in one write) keeps ID+attributes",
    );
    expect(d("block")).toContain("set_attrs(id,attrs{custom-x:value}) merges; null removes");
    expect(d("block")).toContain('list item: parentID=list, data="- text" (task: "- [ ] text")');
    expect(d("av")).toContain("id = avID (not the block's ID)");
    expect(d("av")).toMatch(
      /create\(.*\) answers avID and its block's id; no columns: Primary Key\+Select/,
    );
    expect(d("search")).toContain("sql(stmt) one SELECT on SiYuan's tables (bootstrap.sql)");
    expect(d("search")).toContain("every block whose own text has the words");
    expect(d("file")).toContain(
      "uploadSource=kernel authority's staging handle (bootstrap.uploads)",
    );
  });

  it("spells out what each anchor means and the default dataType", () => {
    const block = describeTool("block", true).description;
    expect(block).toContain(
      "insert(data,nextID=before it|previousID=after it|parentID alone=first child)",
    );
    expect(block).toContain("prepend(parentID,data): first child");
    expect(block).toContain("append(parentID,data): last child");
    expect(block).toContain(
      "move(id,previousID=after it|parentID=doc or container,position?=first(default)|last child)",
    );
    expect(block).toContain("data is Markdown unless dataType:dom");
    expect(describeTool("document", true).description).toContain(
      "move(ids,toID=parent doc or notebook)",
    );
  });

  it("lists every tool once with an action enum covering its actions", () => {
    const tools = describeTools(true);
    expect(tools.map((t) => t.name)).toEqual([...TOOL_NAMES]);
    for (const t of tools) {
      const action = (t.inputSchema["properties"] as Record<string, { enum: string[] }>)["action"];
      expect(action?.enum).toEqual(ACTIONS.filter((a) => a.tool === t.name).map((a) => a.action));
    }
  });

  it("describes each argument as the zod JSON Schema of the action would (the oracle)", () => {
    type Json = Record<string, unknown>;
    // The former route: full JSON Schemas from zod, reduced to type / enum / item type.
    const reduce = (schema: Json): Json => {
      if (Array.isArray(schema["anyOf"])) {
        const variants = (schema["anyOf"] as Json[]).filter((v) => v["type"] !== "null");
        return variants.length === 1 ? reduce(variants[0] as Json) : {};
      }
      const out: Json = {};
      if (schema["enum"]) out["enum"] = schema["enum"];
      else if (schema["type"]) out["type"] = schema["type"];
      if (schema["type"] === "array" && schema["items"]) {
        const items = reduce(schema["items"] as Json);
        if (items["type"] === "object") out["items"] = { type: "object" };
        else if (Object.keys(items).length > 0) out["items"] = items;
      }
      return out;
    };
    let compared = 0;
    for (const strict of [true, false]) {
      for (const tool of TOOL_NAMES) {
        const expected: Json = {};
        for (const a of ACTIONS.filter((x) => x.tool === tool)) {
          const json = z.toJSONSchema(a.args, { io: "input", unrepresentable: "any" }) as Json;
          for (const [key, value] of Object.entries((json["properties"] ?? {}) as Json)) {
            if (!(key in expected)) expected[key] = reduce(value as Json);
          }
        }
        const actual = describeTool(tool, strict).inputSchema["properties"] as Json;
        for (const [key, value] of Object.entries(expected)) {
          expect({ tool, key, schema: actual[key] }).toEqual({ tool, key, schema: value });
          compared += 1;
        }
        const extra = Object.keys(actual).filter((k) => !(k in expected));
        for (const key of extra) {
          expect(
            ["action", "validateOnly", "requestId", "confirm"].includes(key) ||
              key.startsWith("expected"),
          ).toBe(true);
        }
      }
    }
    expect(compared).toBeGreaterThan(60);
  });
});
