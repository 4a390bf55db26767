/**
 * The tools and actions the settings turn off (`SisyphusSettings.disabled`), checked against the
 * catalog: an entry is `"tool"` or `"tool.action"`, where the action may be any accepted spelling
 * (an alias turns off its canonical action). `tools/list` omits a turned-off tool and offers only a
 * tool's enabled actions; the gateway answers a call of a turned-off one with `action_disabled`.
 */
import { ACTIONS, type ActionSurface, findAction, TOOL_NAMES, type ToolName } from "./catalog.js";

/** What one `disabled` list turns off. */
export interface TurnedOff {
  /** Entries that name no catalog tool or action (they make the settings unusable). */
  readonly unknown: readonly string[];
  /** Whether a call of `tool` (and its canonical `action`, when known) is turned off. */
  has(tool: string, action?: string): boolean;
  /** The actions of `tool` still enabled, in catalog order (none: the tool is not listed). */
  enabledActions(tool: ToolName): ActionSurface[];
}

function isToolName(name: string): name is ToolName {
  return (TOOL_NAMES as readonly string[]).includes(name);
}

/** Resolves a `disabled` list against the catalog. */
export function turnedOff(disabled: readonly string[]): TurnedOff {
  const tools = new Set<string>();
  const actions = new Set<string>();
  const unknown: string[] = [];
  for (const entry of disabled) {
    if (isToolName(entry)) {
      tools.add(entry);
      continue;
    }
    const dot = entry.indexOf(".");
    const tool = dot < 0 ? "" : entry.slice(0, dot);
    const surface = isToolName(tool) ? findAction(tool, entry.slice(dot + 1)) : undefined;
    if (surface === undefined) unknown.push(entry);
    else actions.add(`${surface.tool}.${surface.action}`);
  }
  const has = (tool: string, action?: string) =>
    tools.has(tool) || (action !== undefined && actions.has(`${tool}.${action}`));
  return {
    unknown,
    has,
    enabledActions: (tool) => ACTIONS.filter((a) => a.tool === tool && !has(tool, a.action)),
  };
}
