/**
 * Runs the probes against one kernel, one after another, and collects the normalised recording. A
 * probe that throws keeps what it recorded before the throw, plus the error.
 */
import type { KernelTarget } from "./http.js";
import { type Probe, type ProbeRecord, ProbeRun } from "./probe.js";
import { PROBES } from "./probes/index.js";

/** The recording file's format version. */
export const RECORDING_FORMAT = 1;

/** Where a recording came from (the header fields of the committed file). */
export interface RecordingHeader {
  /** e.g. `SiYuan 3.7.3`. */
  readonly kernel: string;
  /** The source commit of the kernel, when known. */
  readonly commit?: string;
  /** Day of the recording, `YYYY-MM-DD` (UTC). */
  readonly recordedAt: string;
  /** The command that wrote it. */
  readonly command: string;
}

/** A normalised recording: the header and every probe's record, by probe ID. */
export interface Recording extends RecordingHeader {
  readonly format: number;
  readonly probeCount: number;
  readonly probes: Record<string, ProbeRecord>;
}

/** Options of {@link runProbes}. */
export interface RunOptions {
  /** The probes to run (default: all of {@link PROBES}). */
  readonly probes?: readonly Probe[];
  /** Replaces `ctx.sleep` (a kernel on a stepping clock needs no wall-clock wait). */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Called after each probe (progress output). */
  readonly onProbe?: (id: string, record: ProbeRecord, ms: number) => void;
}

/** Runs the probes in order against `target`; never throws for a probe's failure. */
export async function runProbes(
  target: KernelTarget,
  opts: RunOptions = {},
): Promise<Record<string, ProbeRecord>> {
  const out: Record<string, ProbeRecord> = {};
  for (const probe of opts.probes ?? PROBES) {
    const run = new ProbeRun(target, probe, opts.sleep);
    const started = Date.now();
    let record: ProbeRecord;
    try {
      await probe.run(run);
      record = run.record();
    } catch (e) {
      record = run.record(e);
    }
    out[probe.id] = record;
    opts.onProbe?.(probe.id, record, Date.now() - started);
  }
  return out;
}

/** Wraps records into a recording with its header. */
export function makeRecording(
  header: RecordingHeader,
  probes: Record<string, ProbeRecord>,
): Recording {
  return {
    format: RECORDING_FORMAT,
    kernel: header.kernel,
    ...(header.commit === undefined ? {} : { commit: header.commit }),
    recordedAt: header.recordedAt,
    command: header.command,
    probeCount: Object.keys(probes).length,
    probes,
  };
}
