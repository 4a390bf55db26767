import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("public surface", () => {
  it("exports exactly the documented runtime names", () => {
    expect(Object.keys(api).sort()).toEqual(
      [
        "ADMISSION_CAP",
        "AUTHORITY_EPOCH_META_KEY",
        "Admission",
        "AuthorityLink",
        "CONFIRMATION_TTL_MS",
        "ConfirmationBook",
        "DATA_FILES",
        "DEFAULT_HTTP_HOST",
        "DEFAULT_HTTP_PORT",
        "DEFAULT_SHUTDOWN_GRACE_MS",
        "DELEGATION_TIMEOUT_MS",
        "FileLedgerStore",
        "FileReservationStore",
        "HEALTH_PATH",
        "LEGACY_SESSION_IDLE_MS",
        "MAX_CONFIRMATIONS",
        "MAX_JSON_DEPTH",
        "MAX_REQUEST_BODY_BYTES",
        "MCP_PATH",
        "NodeServerError",
        "PRECHECK_META_KEY",
        "READ_CONCURRENCY",
        "acquireDataDirLock",
        "isLoopbackHost",
        "isNodeServerError",
        "parseConfig",
        "readAuthorityRecord",
        "startServer",
      ].sort(),
    );
  });
});
