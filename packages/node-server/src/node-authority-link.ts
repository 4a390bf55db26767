/**
 * The link to the Node HTTP authority of a data directory: the one `authority.json` names (started
 * in the background first when allowed and none serves), presented the bearer of
 * `authority.credential` or `SISYPHUS_AUTH_TOKEN`. A restarted authority of the same kind is used
 * as it is (its lease pool is new, so leases issued before answer `preflight_lease_invalid`,
 * reason `other_epoch`); another kind of authority answers `write_coordinator_changed`.
 */
import { join } from "node:path";
import { shellError } from "@sisyphus/mcp-tools/shell";
import {
  AUTHORITY_EPOCH_META_KEY,
  AuthorityLink,
  type LinkTarget,
  NOTHING_SENT,
  type NodeAuthorityLinkOptions,
  unavailable,
} from "./authority-link.js";
import {
  type AuthorityRecord,
  pidAlive,
  readAuthorityRecord,
  readLocalCredential,
} from "./authority-record.js";
import type { BackgroundAuthorityOptions, BackgroundStart } from "./background-authority.js";
import { DATA_FILES, HEALTH_PATH } from "./constants.js";

/** Whether two kernel base URLs name the same kernel (user info and a trailing slash ignored). */
function sameKernel(a: string, b: string): boolean {
  const norm = (u: string) => {
    try {
      const url = new URL(u);
      return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}`;
    } catch {
      return u;
    }
  };
  return norm(a) === norm(b);
}

/** The link to a data directory's Node HTTP authority (see the module comment). */
export class NodeAuthorityLink extends AuthorityLink {
  readonly kind = "node-http" as const;
  readonly #options: NodeAuthorityLinkOptions;
  #seen: AuthorityRecord | undefined;
  #starting: Promise<BackgroundStart> | undefined;
  #heartbeat: { timer: NodeJS.Timeout; key: string } | undefined;
  /** `authority.json` and `authority.credential` read ahead by {@link prefetch}, for the next call. */
  #ahead:
    | Promise<[AuthorityRecord | "untrusted" | undefined, string | "untrusted" | undefined]>
    | undefined;

  constructor(options: NodeAuthorityLinkOptions) {
    super(options);
    this.#options = options;
  }

  /**
   * Reads `authority.json` and `authority.credential` now, for the next call to use instead of
   * reading them again: a process that must first learn which authority serves (the CLI's settings
   * read) reads them while it waits. Reads only: nothing is started or sent.
   */
  override prefetch(): void {
    const o = this.#options;
    this.#ahead ??= Promise.all([
      readAuthorityRecord(o.dataDir),
      o.authToken === undefined ? readLocalCredential(o.dataDir) : undefined,
    ]);
  }

  protected callMeta(): Record<string, unknown> {
    return this.#seen === undefined ? {} : { [AUTHORITY_EPOCH_META_KEY]: this.#seen.epoch };
  }

  /** `authority.json` (starting one first when allowed), the URL and the bearer. */
  protected async target(): Promise<LinkTarget> {
    const o = this.#options;
    const ahead = await this.#ahead;
    this.#ahead = undefined;
    let record = ahead === undefined ? await readAuthorityRecord(o.dataDir) : ahead[0];
    let startedNow = false;
    if (record === "untrusted") {
      return unavailable(
        "untrusted_record",
        `${join(o.dataDir, DATA_FILES.authority)} is not a private file of this user (owner, mode 0600); refusing to delegate to what it names.`,
      );
    }
    const served = record !== undefined && pidAlive(record.pid);
    if (o.authorityUrl === undefined && o.autostart !== undefined && !served) {
      const started = await this.#start(o.autostart, record?.epoch);
      if (!started.ok) {
        return unavailable(
          "start_failed",
          `No write authority serves ${o.dataDir}, and ${started.message}.`,
        );
      }
      record = started.record;
      startedNow = true;
    }
    if (record !== undefined && this.#seen !== undefined && record.kind !== this.#seen.kind) {
      return {
        refusal: shellError(
          "write_coordinator_changed",
          "The write authority changed kind since this process first used it.",
          { reason: "other_kind" },
          NOTHING_SENT,
        ),
      };
    }
    if (
      record?.siyuanUrl !== undefined &&
      o.siyuanUrl !== undefined &&
      !sameKernel(record.siyuanUrl, o.siyuanUrl)
    ) {
      return unavailable(
        "other_kernel",
        `The write authority of ${o.dataDir} writes to the SiYuan kernel at ${record.siyuanUrl}, not ${new URL(o.siyuanUrl).host}: use another --data-dir for this kernel.`,
      );
    }
    const url = o.authorityUrl ?? record?.url ?? this.#seen?.url;
    if (url === undefined) {
      return unavailable(
        "no_authority",
        "No write authority serves this data directory: start `sisyphus-server --http` with the same data directory, or let this process start one (remove --no-autostart).",
      );
    }
    let token = o.authToken;
    if (token === undefined) {
      // A credential read ahead is the one to use unless this call started the authority.
      const credential =
        ahead !== undefined && !startedNow ? ahead[1] : await readLocalCredential(o.dataDir);
      if (credential === "untrusted") {
        return unavailable(
          "untrusted_credential",
          `${join(o.dataDir, DATA_FILES.credential)} is not a private file of this user (owner, mode 0600); refusing to use it.`,
        );
      }
      token = credential;
    }
    if (token === undefined) {
      return unavailable(
        "no_auth_token",
        "No credential for the write authority: it left no authority.credential (it may be stopping), and SISYPHUS_AUTH_TOKEN (or --auth-token) is not set.",
      );
    }
    // A restart of the same kind is the same authority's successor (same ledger): adopt its epoch.
    if (record !== undefined) this.#seen = record;
    if (record?.idleStopMs !== undefined) this.#keepAwake(url, token, record.idleStopMs);
    return { url, headers: { authorization: `Bearer ${token}` }, meta: {} };
  }

  /** One background start at a time for all of this process's calls. */
  #start(
    autostart: Omit<BackgroundAuthorityOptions, "dataDir">,
    staleEpoch: string | undefined,
  ): Promise<BackgroundStart> {
    // Loaded here, not at the top: a start is rare, and it brings the data directory's writers.
    this.#starting ??= import("./background-authority.js")
      .then(({ startBackgroundAuthority }) =>
        startBackgroundAuthority({ ...autostart, dataDir: this.#options.dataDir }, staleEpoch),
      )
      .finally(() => {
        this.#starting = undefined;
      });
    return this.#starting;
  }

  /**
   * Heartbeats (an authenticated `GET /health`) at a third of an idle-stopping authority's idle
   * period, so it keeps serving while this process lives. The timer never keeps this process alive.
   */
  #keepAwake(url: string, token: string, idleStopMs: number): void {
    const key = `${url}\n${token}`;
    if (this.#heartbeat?.key === key) return;
    clearInterval(this.#heartbeat?.timer);
    const health = new URL(HEALTH_PATH, url);
    const timer = setInterval(
      () => {
        fetch(health, { headers: { authorization: `Bearer ${token}` } })
          .then((r) => r.body?.cancel())
          .catch(() => undefined);
      },
      Math.max(20, Math.floor(idleStopMs / 3)),
    );
    timer.unref();
    this.#heartbeat = { timer, key };
  }

  override async close(): Promise<void> {
    clearInterval(this.#heartbeat?.timer);
    this.#heartbeat = undefined;
    await super.close();
  }
}
