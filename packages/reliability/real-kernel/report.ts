/** A road's run as JSON (everything) and as a Markdown summary. */
import type { ExtraResult } from "./extras.js";
import type { ScenarioResult } from "./scenarios.js";

/** SiYuan v3.7.3, the tag the harness was run against. */
export const SIYUAN_COMMIT = "eef10568384e2e7cf547adb029ae46a72e43c287";

export interface RoadReport {
  readonly road: string;
  readonly via: string;
  readonly kernelEndpointEnabled: boolean;
  readonly kernel: string;
  readonly siyuanVersion: string;
  /** The Sisyphus commit that ran (and whether files under packages/ differed from it). */
  readonly sisyphus: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly command: string;
  /** Kernel log lines of the plugin's load (`... serving`). */
  readonly pluginLoad: readonly string[];
  readonly scenarios: readonly ScenarioResult[];
  readonly extras: readonly ExtraResult[];
}

const cell = (s: string) => s.replaceAll("|", "\\|").replaceAll("\n", " ");

function calls(list: readonly string[] | null | undefined): string {
  if (list === null || list === undefined) return "n/a";
  const api = list.filter((c) => c.startsWith("/api/"));
  const other = list.length - api.length;
  return `${api.length}${other > 0 ? ` (+${other} plugin route)` : ""}`;
}

export function markdownReport(r: RoadReport): string {
  const ok = r.scenarios.filter((s) => s.ok).length;
  const committed = r.scenarios.filter(
    (s) =>
      s.commit !== undefined &&
      /status=(committed|no_change)/.test(s.commit.answer) &&
      s.readback === "ok",
  ).length;
  const replays = r.scenarios.filter((s) => s.replayVerdict === "ok").length;
  const lines = [
    `# Real SiYuan kernel: ${r.road}`,
    "",
    `- Date: ${r.startedAt} – ${r.finishedAt}`,
    `- SiYuan ${r.siyuanVersion} (commit ${SIYUAN_COMMIT}), kernel at ${r.kernel}`,
    `- Sisyphus ${r.sisyphus} (plugin, Node server and CLI as built from it)`,
    `- Road: ${r.via}; the plugin's kernel endpoint ${r.kernelEndpointEnabled ? "on" : "off"}`,
    `- Command: \`${r.command}\``,
    `- Result: ${ok}/${r.scenarios.length} scenarios passed; ${committed} committed with the readback holding; ${replays} replays answered \`replayed\` and wrote nothing; extras ${r.extras.filter((x) => x.ok).length}/${r.extras.length}`,
    "",
  ];
  if (r.pluginLoad.length > 0) {
    lines.push("Plugin load, from the kernel log (`temp/siyuan.log`):", "", "```");
    lines.push(...r.pluginLoad.slice(-4));
    lines.push("```", "");
  }
  const compared = r.scenarios.some((s) => s.callsVsSandbox !== undefined);
  lines.push(
    "Kernel calls: the `/api/` requests of the commit and of the replay as the recording proxy saw them (`n/a` where the kernel plugin calls its kernel from inside; the Node roads' settings reads included)." +
      (compared
        ? " `vs sandbox`: the commit's calls without the settings reads beside the same scenario's clean commit in the sandbox."
        : ""),
    "",
    `| scenario | answer | readback | replay | kernel calls (commit / replay) |${compared ? " vs sandbox |" : ""} ms (commit / replay / total) |`,
    `| --- | --- | --- | --- | --- |${compared ? " --- |" : ""} --- |`,
  );
  for (const s of r.scenarios) {
    const vs = compared ? ` ${cell(s.callsVsSandbox ?? "—")} |` : "";
    lines.push(
      `| ${cell(s.scenario)} | ${cell(s.commit?.answer ?? s.problems.join("; "))} | ${cell(s.readback ?? "—")} | ${cell(s.replayVerdict ?? "—")} | ${calls(s.commit?.kernelCalls)} / ${calls(s.replay?.kernelCalls)} |${vs} ${s.commit?.ms ?? "—"} / ${s.replay?.ms ?? "—"} / ${s.ms} |`,
    );
  }
  if (r.extras.length > 0) {
    lines.push("", "| extra check | verdict | detail |", "| --- | --- | --- |");
    for (const x of r.extras) {
      lines.push(`| ${cell(x.name)} | ${x.ok ? "ok" : "FAIL"} | ${cell(x.detail)} |`);
    }
  }
  return `${lines.join("\n")}\n`;
}
