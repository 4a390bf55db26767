/**
 * `@sisyphus/mcp-tools/shell/gate`: the pieces of the shell a process needs before it listens —
 * the admission gate, the drain gate, the limits and `_meta` keys, and the `/health` body — without
 * the MCP SDK, so a shell that loads its MCP half only after listening (the Node server) keeps its
 * cold start. Also the version it names itself with.
 */

export { SISYPHUS_VERSION } from "../version.js";
export {
  Admission,
  type AdmissionClass,
  type AdmissionCounts,
  type AdmissionRefusal,
  DrainGate,
  type DrainResult,
  type DrainTicket,
} from "./admission.js";
export * from "./constants.js";
export {
  type AuthorityHealth,
  type AuthorityHealthInput,
  authorityHealth,
  type WriteLaneCounts,
} from "./health.js";
