/** Every limit of the shared shell pieces, with units in the names; the shells' READMEs quote these. */
import { WRITE_ADMISSION_MAX_IN_FLIGHT } from "@sisyphus/write-safety";

/** Read actions running at once (spec: concurrency 4). */
export const READ_CONCURRENCY = 4;
/**
 * Calls admitted at once by a shell's gate, reads and writes, including preparation, before
 * `queue_full`: the write coordinator's own cap, so the gate and the lane behind it cannot disagree.
 * (Mutations and external effects run one at a time in the coordinator's FIFO lane.)
 */
export const ADMISSION_CAP = WRITE_ADMISSION_MAX_IN_FLIGHT;
/** Lifetime of an issued confirmation `requestState`, in milliseconds (spec: 5 minutes). */
export const CONFIRMATION_TTL_MS = 5 * 60 * 1000;
/** Most confirmations retained at once, oldest evicted (spec: 128). */
export const MAX_CONFIRMATIONS = 128;
/** Idle time after which a legacy (2025) session is closed, in milliseconds (spec: 30 minutes). */
export const LEGACY_SESSION_IDLE_MS = 30 * 60 * 1000;
/** Most legacy sessions kept at once; the oldest idle one is closed to admit a new one. */
export const MAX_LEGACY_SESSIONS = 256;
/** How often a shell sweeps its idle legacy sessions, in milliseconds. */
export const LEGACY_SESSION_SWEEP_MS = 60 * 1000;
/** The first legacy protocol revision without JSON-RPC batching (2025-06-18 removed it). */
export const FIRST_UNBATCHED_PROTOCOL_VERSION = "2025-06-18";
/**
 * The one prefix of every name Sisyphus puts on the wire beside the protocol's own: its `_meta`
 * keys and its extension's name (the spec's `io.siyuan.sisyphus/…`).
 */
export const SISYPHUS_WIRE_PREFIX = "io.siyuan.sisyphus/";
/**
 * `_meta` key of a call's taskId (spec: task-control extension): a UUID under which the kernel
 * authority keeps the call's record for `POST /tasks`.
 */
export const TASK_ID_META_KEY = `${SISYPHUS_WIRE_PREFIX}taskId` as const;
/** `_meta` key carrying the authority epoch a delegating process expects. */
export const AUTHORITY_EPOCH_META_KEY = `${SISYPHUS_WIRE_PREFIX}authorityEpoch` as const;
/**
 * `_meta` key of a precheck-only call (`true`): the authority runs the commit's checks that need no
 * kernel read (request ID, ledger, credential, lease) and answers their refusal, or
 * `{ precheck: "passed" }`; it never executes, confirms or admits the call.
 */
export const PRECHECK_META_KEY = `${SISYPHUS_WIRE_PREFIX}precheckOnly` as const;
/**
 * `_meta` key beside {@link PRECHECK_META_KEY} (`true`): the delegating process will ask its user,
 * so a passed answer also carries `subject`, what the call would remove or move, read at the
 * authority under its settings (bounded reads, no write).
 */
export const PRECHECK_SUBJECT_META_KEY = `${SISYPHUS_WIRE_PREFIX}precheckSubject` as const;
/** The task-control extension's name, as `server/discover` and `initialize` advertise it. */
export const TASK_CONTROL_EXTENSION = `${SISYPHUS_WIRE_PREFIX}task-control` as const;
/** The task-control extension's version (spec: 2). */
export const TASK_CONTROL_VERSION = 2;
