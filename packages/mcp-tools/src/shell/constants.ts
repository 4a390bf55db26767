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
/** `_meta` key carrying the authority epoch a delegating process expects. */
export const AUTHORITY_EPOCH_META_KEY = "io.sisyphus/authorityEpoch";
/**
 * `_meta` key of a precheck-only call (`true`): the authority runs the commit's checks that need no
 * kernel read (request ID, ledger, credential, lease) and answers their refusal, or
 * `{ precheck: "passed" }`; it never executes, confirms or admits the call.
 */
export const PRECHECK_META_KEY = "io.sisyphus/precheckOnly";
