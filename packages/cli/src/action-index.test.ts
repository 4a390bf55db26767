import { describe, expect, it } from "vitest";
import { ACTION_ENTRIES } from "./action-index.generated.js";
import { findEntry, TOOLS } from "./action-index.js";
import { actionEntries } from "./action-index-source.js";

describe("the CLI's action index", () => {
  it("is the catalog's actions, spellings, policies and flags (else: pnpm --filter @sisyphus/cli gen:action-index)", () => {
    expect(ACTION_ENTRIES).toEqual(actionEntries());
  });

  it("finds an action by its canonical name and by an alias, and nothing else", () => {
    const aliased = ACTION_ENTRIES.find((e) => e.aliases.length > 0);
    expect(aliased).toBeDefined();
    if (aliased === undefined) return;
    expect(findEntry(aliased.tool, aliased.action)).toBe(aliased);
    expect(findEntry(aliased.tool, aliased.aliases[0] as string)).toBe(aliased);
    expect(findEntry(aliased.tool, "no_such_action")).toBeUndefined();
    expect(findEntry("no_such_tool", aliased.action)).toBeUndefined();
    expect(TOOLS).toContain(aliased.tool);
  });
});
