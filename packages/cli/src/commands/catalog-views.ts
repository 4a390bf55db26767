/**
 * `sisyphus list` and `sisyphus help [tool] [action]`: generated from the catalog the MCP surface
 * is made from (the tool descriptions agents read, the action schemas the server enforces).
 */
import {
  ACTIONS,
  type ActionSurface,
  describeTools,
  findAction,
  TOOL_NAMES,
} from "@sisyphus/mcp-tools";
import { PROFILE_KEYS } from "../config.js";
import { CliError } from "../errors.js";
import { EXIT } from "../exit-codes.js";
import type { FlagSpec } from "../flag-parse.js";
import { flagsOf } from "../flags.js";
import { type Io, out, paint, table } from "../io.js";
import { actionOf } from "./call.js";
import { SNAPSHOT_HELP } from "./snapshot.js";

function classOf(a: ActionSurface): string {
  return a.policy.kind === "mutation"
    ? `write (${a.policy.precondition === "none" ? "additive" : a.policy.precondition})`
    : a.policy.kind;
}

function confirmOf(a: ActionSurface): string {
  return a.dangerous === true ? "yes" : a.dangerous === "cross_document" ? "to another doc" : "";
}

function cliName(action: string): string {
  return action.replace(/_/g, "-");
}

export function runList(io: Io): number {
  if (io.json) {
    out(
      io,
      JSON.stringify({
        exitCode: 0,
        result: {
          actions: ACTIONS.map((a) => ({
            tool: a.tool,
            action: a.action,
            class: a.policy.kind,
            precondition: a.policy.kind === "mutation" ? a.policy.precondition : null,
            dangerous: a.dangerous,
          })),
        },
      }),
    );
    return 0;
  }
  const rows = [
    ["TOOL", "ACTION", "CLASS", "CONFIRM"],
    ...ACTIONS.map((a) => [a.tool, cliName(a.action), classOf(a), confirmOf(a)]),
  ];
  for (const line of table(rows)) out(io, line);
  return 0;
}

function flagText(s: FlagSpec): string {
  const value =
    s.kind === "boolean"
      ? ""
      : s.kind === "enum"
        ? ` ${(s.values ?? []).join("|")}`
        : s.kind === "array"
          ? ` ${s.items ?? "value"}…`
          : ` ${s.kind === "object" ? "JSON" : s.kind.toUpperCase()}`;
  return `--${s.flag}${value}`;
}

/** `sisyphus help <command>` for the commands that are not tools. */
const COMMAND_HELP = new Map<string, string>([
  [
    "list",
    "sisyphus list\n\nEvery tool and action: its class (read, write…) and whether it asks for confirmation.",
  ],
  [
    "help",
    "sisyphus help [tool] [action]\n\nA tool's actions, an action's flags, or a command's usage.",
  ],
  [
    "doctor",
    "sisyphus doctor\n\nChecks in order: the kernel answers, the API token is accepted, the settings select an\nauthority, the kernel plugin runs, the authority answers. Exit 0 when a call can go through, 6\notherwise. Writes nothing.",
  ],
  [
    "task",
    "sisyphus task status|result|cancel <taskId>\n\nThe kernel authority's record of a call (the taskId an outcome_unknown answer names).\nUnder the Node authority reconcile by requestId instead.",
  ],
  [
    "config",
    `sisyphus config path|list|get KEY|set KEY VALUE|unset KEY|use PROFILE [--profile NAME]\n\nThe profiles file. Keys: ${Object.keys(PROFILE_KEYS).join(", ")}. A token is never stored, only the\nname of the variable holding it.`,
  ],
  [
    "completion",
    "sisyphus completion bash|zsh|fish\n\nPrints a completion script that asks sisyphus itself for candidates.",
  ],
  [
    "skill",
    "sisyphus skill list|read [FILE]|install --target DIR [--force]\n\nThe agent skill this version ships. install writes DIR/<skill>/ and refuses (writing nothing)\na file changed since it wrote it, unless --force.",
  ],
  ["snapshot", SNAPSHOT_HELP],
]);

export function runHelp(io: Io, tool: string | undefined, action: string | undefined): number {
  if (tool === undefined) {
    out(io, USAGE);
    return 0;
  }
  const command = COMMAND_HELP.get(tool);
  if (command !== undefined) {
    out(io, command);
    return 0;
  }
  if (!(TOOL_NAMES as readonly string[]).includes(tool)) {
    throw new CliError(EXIT.usage, "unknown_command", `no tool named "${tool}" (sisyphus list)`);
  }
  // `actionOf` answers the command line's usage errors; the catalog has the signature.
  const surface =
    action === undefined ? undefined : findAction(tool, actionOf(tool, action).action);
  if (surface === undefined) {
    const descriptor = describeTools(true).find((d) => d.name === tool);
    out(io, `${paint(io, "bold", tool)}: ${descriptor?.description ?? ""}`);
    out(io, "");
    const rows = ACTIONS.filter((a) => a.tool === tool).map((a) => [
      `sisyphus ${tool} ${cliName(a.action)}`,
      classOf(a),
      a.signature,
    ]);
    for (const line of table(rows)) out(io, `  ${line}`);
    out(io, "");
    out(io, `sisyphus help ${tool} <action> for its flags.`);
    return 0;
  }
  out(
    io,
    `${paint(io, "bold", `sisyphus ${surface.tool} ${cliName(surface.action)}`)}  ${surface.signature}`,
  );
  out(
    io,
    `class: ${classOf(surface)}${surface.dangerous !== false ? `; asks for confirmation${surface.dangerous === "cross_document" ? " when it leaves its document" : ""} (--yes)` : ""}`,
  );
  out(io, "");
  const rows = flagsOf(surface).map((s) => [
    flagText(s),
    s.required ? "required" : s.safety ? "safety" : "",
  ]);
  if (rows.length > 0) for (const line of table(rows)) out(io, `  ${line}`);
  else out(io, "  (no flags)");
  if (surface.policy.kind === "mutation") {
    out(io, "");
    out(
      io,
      "Writes take two steps: run with --validate-only first; it prints the exact command to commit.",
    );
  }
  return 0;
}

export const USAGE = `sisyphus: SiYuan notes from a terminal, every write under Strict Safe Writes

  sisyphus <tool> <action> [--flag value …] [--json '{…}']   one tool call
  sisyphus list                                               every tool and action
  sisyphus help [tool] [action]                               what a tool or action takes
  sisyphus doctor                                             kernel, token, authority, plugin
  sisyphus task status|result|cancel <taskId>                 a kernel call's task record
  sisyphus config list|get|set|unset|use|path                 profiles
  sisyphus completion bash|zsh|fish                           shell completion script
  sisyphus skill list|read [FILE]|install --target DIR        the agent skill (--force replaces a changed file)
  sisyphus snapshot <notebook-or-doc-id> --out DIR [--force]  Markdown files; later runs write only changes

Tools: ${TOOL_NAMES.join(", ")}

Global flags (a profile's value in brackets; environment variable in parentheses):
  --siyuan-url URL       SiYuan kernel [siyuanUrl] (SIYUAN_URL), default http://127.0.0.1:6806
  --token-env NAME       variable holding the SiYuan API token [tokenEnv], default SIYUAN_TOKEN
  --data-dir DIR         the Node authority's data directory [dataDir] (SISYPHUS_DATA_DIR), default ~/.sisyphus
  --authority-url URL    a running Node authority [authorityUrl] (SISYPHUS_AUTHORITY_URL)
  --auth-token-env NAME  variable holding its bearer [authTokenEnv], default SISYPHUS_AUTH_TOKEN
  --profile NAME         profile of the config file (SISYPHUS_PROFILE)
  --json [ARGS]          one JSON document on stdout; a JSON object after it is the call's arguments
  --output human|json    [output] (SISYPHUS_OUTPUT)
  --yes                  confirm destructive actions without asking
  --no-autostart         never start a background Node authority
  --no-color             no colour (also NO_COLOR)
  -v, --version          print the version
  -h, --help             print this

Exit codes: 0 ok, 1 tool error, 2 usage, 3 safety rejection (preflight again; for snapshot and
skill install: a file changed here was left as it is), 4 confirmation needed or declined, 5 outcome unknown
(reconcile with the requestId), 6 kernel or authority unavailable, 7 not permitted (permission or
turned-off action), 130 interrupted.`;
