/**
 * The history checker: a pure function of the recorded history and the final kernel state that
 * lists every anomaly. Rules (issue 18): no marker applied twice; no acknowledged write lost
 * unless a later application to the same block superseded it; every outcome_unknown resolvable
 * by inspecting the target; no execution after a definite refusal (state_changed and the other
 * non-executing codes); no committed/no_change the final state contradicts; no content the
 * history cannot explain; no kernel write nobody committed (a preflight never writes); the tap
 * agrees with the sandbox request log.
 */
import {
  type Application,
  type Call,
  type FinalState,
  type History,
  markersIn,
} from "./history-recorder.js";

export type AnomalyKind =
  | "double_application"
  | "lost_ack"
  | "ack_not_applied"
  | "executed_after_refusal"
  | "unresolvable_unknown"
  | "phantom_content"
  | "unrequested_application"
  | "log_mismatch";

export interface Anomaly {
  kind: AnomalyKind;
  marker?: string;
  block?: string;
  message: string;
}

interface Intent {
  marker: string;
  block: string;
  calls: Call[];
}

/** The commit calls grouped by marker (a marker's first commit and its retries). */
function intents(history: History): Map<string, Intent> {
  const out = new Map<string, Intent>();
  for (const c of history.calls) {
    if (c.kind !== "commit" || !c.marker || !c.block) continue;
    const i = out.get(c.marker) ?? { marker: c.marker, block: c.block, calls: [] };
    i.calls.push(c);
    out.set(c.marker, i);
  }
  return out;
}

function byMarker(apps: Application[]): Map<string, Application[]> {
  const out = new Map<string, Application[]>();
  for (const a of apps) out.set(a.marker, [...(out.get(a.marker) ?? []), a]);
  return out;
}

/** Whether another marker was applied to `block` at or after `at` (it may have overwritten it). */
function superseded(apps: Application[], block: string, marker: string, at: number): boolean {
  return apps.some((a) => a.block === block && a.marker !== marker && a.at >= at);
}

function describe(i: Intent): string {
  return i.calls.map((c) => `#${c.id} ${c.process} ${c.outcome}:${c.detail}`).join(", ");
}

/** Every anomaly of `history` against `final`; empty when the history is correct. */
export function checkHistory(history: History, final: FinalState): Anomaly[] {
  const anomalies: Anomaly[] = [];
  const apps = history.applications;
  const applied = byMarker(apps);
  const kernelApps = apps.filter((a) => a.source === "kernel").length;
  if (kernelApps !== final.kernelWritesLogged) {
    anomalies.push({
      kind: "log_mismatch",
      message: `the request log counts ${final.kernelWritesLogged} handled writes, the tap saw ${kernelApps}`,
    });
  }
  for (const [marker, list] of applied) {
    if (list.length > 1) {
      anomalies.push({
        kind: "double_application",
        marker,
        block: list[0]?.block ?? "",
        message: `marker ${marker} applied ${list.length} times (at ${list.map((a) => a.at).join(", ")})`,
      });
    }
  }
  for (const [block, text] of Object.entries(final.blocks)) {
    for (const m of markersIn(text)) {
      if (!(applied.get(m) ?? []).some((a) => a.block === block)) {
        anomalies.push({
          kind: "phantom_content",
          marker: m,
          block,
          message: `block ${block} holds ${m}, which no application to it explains`,
        });
      }
    }
  }
  const commits = intents(history);
  for (const a of apps) {
    if (a.source === "kernel" && !commits.has(a.marker)) {
      anomalies.push({
        kind: "unrequested_application",
        marker: a.marker,
        block: a.block,
        message: `the kernel received ${a.marker} for ${a.block} but no commit carried it`,
      });
    }
  }
  for (const intent of commits.values()) checkIntent(intent, history, final, applied, anomalies);
  return anomalies;
}

function checkIntent(
  intent: Intent,
  history: History,
  final: FinalState,
  applied: Map<string, Application[]>,
  anomalies: Anomaly[],
): void {
  const { marker, block } = intent;
  const mine = applied.get(marker) ?? [];
  const present = markersIn(final.blocks[block] ?? "").includes(marker);
  const first = mine[0];
  const explained =
    present || (first !== undefined && superseded(history.applications, block, marker, first.at));
  const acked = intent.calls.filter((c) => c.outcome === "ok");
  const unknown = intent.calls.some((c) => c.outcome === "unknown");
  const base = { marker, block };
  if (acked.length > 0) {
    if (mine.length === 0) {
      anomalies.push({
        ...base,
        kind: "ack_not_applied",
        message: `${marker} was acknowledged (${describe(intent)}) but never reached the kernel`,
      });
    } else if (!explained) {
      anomalies.push({
        ...base,
        kind: "lost_ack",
        message: `${marker} was acknowledged (${describe(intent)}) but block ${block} lacks it and no later write superseded it`,
      });
    }
    return;
  }
  if (unknown) {
    // resolvable: applied once and still there or overwritten later, or never applied and absent
    const resolvable = mine.length === 0 ? !present : explained;
    if (!resolvable) {
      anomalies.push({
        ...base,
        kind: "unresolvable_unknown",
        message: `${marker} (${describe(intent)}): ${mine.length} applications, ${present ? "present" : "absent"} in the final state`,
      });
    }
    return;
  }
  if (mine.length > 0 || present) {
    anomalies.push({
      ...base,
      kind: "executed_after_refusal",
      message: `${marker} was refused (${describe(intent)}) yet applied ${mine.length} times${present ? " and present" : ""}`,
    });
  }
}
