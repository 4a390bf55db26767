/**
 * Shell completion. `sisyphus completion bash|zsh|fish` prints a small script that asks the
 * command itself for candidates (`sisyphus __complete <words…>`), so completion always matches
 * the installed catalog: commands and tools, then a tool's actions, then the action's flags (and
 * an enum flag's values).
 */
import { ACTIONS, findAction, TOOL_NAMES } from "@sisyphus/mcp-tools";
import { CliError } from "../errors.js";
import { EXIT } from "../exit-codes.js";
import { flagsOf } from "../flags.js";
import { type Io, out } from "../io.js";

const COMMANDS = ["list", "help", "doctor", "task", "config", "completion", "skill", "snapshot"];
const GLOBAL_FLAGS = [
  "--siyuan-url",
  "--token-env",
  "--data-dir",
  "--authority-url",
  "--auth-token-env",
  "--profile",
  "--json",
  "--output",
  "--yes",
  "--no-autostart",
  "--no-color",
  "--help",
  "--version",
];

/** Candidates for the last of `words` (the words after `sisyphus`, the last one being completed). */
export function candidates(words: readonly string[]): string[] {
  const current = words.at(-1) ?? "";
  const before = words.slice(0, -1).filter((w) => !w.startsWith("-"));
  const previous = words.at(-2);
  let pool: string[];
  if (before.length === 0) {
    pool = current.startsWith("-") ? GLOBAL_FLAGS : [...COMMANDS, ...TOOL_NAMES];
  } else {
    const [first, second] = before;
    if (first === "help") {
      pool =
        before.length === 1
          ? [...TOOL_NAMES]
          : ACTIONS.filter((a) => a.tool === second).map((a) => a.action.replace(/_/g, "-"));
    } else if (first === "task") {
      pool = before.length === 1 ? ["status", "result", "cancel"] : [];
    } else if (first === "config") {
      pool = before.length === 1 ? ["path", "list", "get", "set", "unset", "use"] : [];
    } else if (first === "skill") {
      pool = before.length === 1 ? ["list", "read", "install"] : ["--target", "--force"];
    } else if (first === "snapshot") {
      pool = before.length === 1 ? [] : ["--out", "--docs-per-page", "--force"];
    } else if (first === "completion") {
      pool = before.length === 1 ? ["bash", "zsh", "fish"] : [];
    } else if ((TOOL_NAMES as readonly string[]).includes(first ?? "")) {
      if (before.length === 1) {
        pool = ACTIONS.filter((a) => a.tool === first).map((a) => a.action.replace(/_/g, "-"));
      } else {
        const surface = findAction(first as string, (second ?? "").replace(/-/g, "_"));
        const flags = surface === undefined ? [] : flagsOf(surface);
        const enumFlag = flags.find((f) => `--${f.flag}` === previous && f.kind === "enum");
        pool =
          enumFlag !== undefined
            ? [...(enumFlag.values ?? [])]
            : [
                ...flags.flatMap((f) =>
                  f.kind === "boolean" ? [`--${f.flag}`, `--no-${f.flag}`] : [`--${f.flag}`],
                ),
                ...GLOBAL_FLAGS,
              ];
      }
    } else {
      pool = [];
    }
  }
  return pool.filter((c) => c.startsWith(current));
}

const SCRIPTS: Record<string, string> = {
  bash: `# sisyphus completion for bash: eval "$(sisyphus completion bash)"
_sisyphus() {
  local IFS=$'\\n'
  COMPREPLY=( $(sisyphus __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) )
}
complete -o default -F _sisyphus sisyphus
`,
  zsh: `# sisyphus completion for zsh: eval "$(sisyphus completion zsh)"
_sisyphus() {
  local -a candidates
  candidates=("\${(@f)$(sisyphus __complete "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  compadd -a candidates
}
compdef _sisyphus sisyphus
`,
  fish: `# sisyphus completion for fish: sisyphus completion fish | source
complete -c sisyphus -f -a '(sisyphus __complete (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null)'
`,
};

export function runCompletion(io: Io, shell: string | undefined): number {
  const script = shell === undefined ? undefined : SCRIPTS[shell];
  if (script === undefined)
    throw new CliError(EXIT.usage, "usage", "sisyphus completion bash|zsh|fish");
  io.stdout.write(script);
  return 0;
}

export function runComplete(io: Io, words: readonly string[]): number {
  for (const c of candidates(words.length === 0 ? [""] : words)) out(io, c);
  return 0;
}
