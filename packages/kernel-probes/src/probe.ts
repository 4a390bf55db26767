/**
 * What a probe is and what it can do: recorded calls (request and answer, normalised), quiet setup
 * calls (not recorded), derived observations, and bounded waits. One {@link Normaliser} per probe,
 * so node IDs are numbered in the order the probe's record first shows them.
 */
import { createHash } from "node:crypto";
import { type KernelTarget, type ProbeAnswer, type ProbeRequest, send } from "./http.js";
import { mask, Normaliser } from "./normalise.js";

/** One recorded call: the request as sent and the answer, both normalised. */
export interface RecordedCall {
  readonly request: { method: string; path: string; body?: unknown };
  readonly status: number;
  /** Selected response headers (only those the probe asked for). */
  readonly headers?: Record<string, string>;
  /** The JSON body, `{text}` for other text, `{bytes, sha256}` for binary, `null` for none. */
  readonly body: unknown;
}

/** A derived observation (`ctx.note`): a value the probe computed from answers. */
export interface RecordedNote {
  readonly note: unknown;
}

/** Everything one probe recorded. */
export interface ProbeRecord {
  readonly title: string;
  readonly endpoints: readonly string[];
  /** Steps in order, keyed by their label. */
  readonly steps: Record<string, RecordedCall | RecordedNote>;
  /** Set when the probe threw (its setup failed or an expectation of shape did not hold). */
  readonly error?: string;
}

/** How a recorded call is kept. */
export interface CallOptions {
  /** Projection of the JSON body before it is recorded (e.g. only the names of a long list). */
  readonly keep?: (json: unknown) => unknown;
  /** Dot paths into the kept body to record as `<volatile>` (`*` = any key or index). */
  readonly mask?: readonly string[];
  /** Response headers to record (lowercase names). */
  readonly headers?: readonly string[];
  /** Record the request body too (default true). */
  readonly recordRequest?: boolean;
}

/** The setup and recording surface a probe runs against. */
export interface ProbeContext {
  /** The probe's own ID (used to name what it creates). */
  readonly probeId: string;
  /** The API token (for probes of the auth schemes); recorded as `<token>`. */
  readonly token: string;
  /** A recorded call. */
  call(label: string, req: ProbeRequest, opts?: CallOptions): Promise<ProbeAnswer>;
  /** A recorded `POST` with a JSON body. */
  post(label: string, path: string, json?: unknown, opts?: CallOptions): Promise<ProbeAnswer>;
  /** A quiet `POST` (not recorded) that must answer code 0; returns `data`. */
  quiet<T = unknown>(path: string, json?: unknown): Promise<T>;
  /** A quiet request of any kind (not recorded); the answer is returned as is. */
  quietRaw(req: ProbeRequest): Promise<ProbeAnswer>;
  /** Records a derived value. */
  note(label: string, value: unknown): void;
  /** Makes the normaliser write `placeholder` wherever `literal` occurs from now on. */
  alias(literal: string, placeholder: string): void;
  /** Creates a fresh notebook named after the probe (quiet); returns its ID. */
  notebook(suffix?: string): Promise<string>;
  /** Creates a document with `createDocWithMd` and waits for the index (quiet); returns its ID. */
  doc(notebook: string, hpath: string, markdown: string): Promise<string>;
  /** `/api/sqlite/flushTransaction` (quiet): what the product calls before reading back. */
  flush(): Promise<void>;
  /** Polls `read` until `done` holds (bounded); returns the last value read. */
  poll<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs?: number): Promise<T>;
  /**
   * Waits so that a later write lands in another second (only where the quirk under test is about
   * time). A runner may replace it (a sandbox on a stepping clock needs no wall-clock wait).
   */
  sleep(ms: number): Promise<void>;
}

/** One probe of the suite. */
export interface Probe {
  /** Stable ID, `<area>.<what>`; the recording and `docs/fidelity.md` use it. */
  readonly id: string;
  /** What the probe shows, in one line. */
  readonly title: string;
  /** Kernel paths the probe covers with recorded calls. */
  readonly endpoints: readonly string[];
  run(ctx: ProbeContext): Promise<void>;
}

/** Default bound of `ctx.poll`. */
export const POLL_TIMEOUT_MS = 10_000;
/** Bound of the wait for a new notebook's second index (SiYuan 3.7.3 runs it after ~2.5 s). */
export const NOTEBOOK_SETTLE_MS = 8_000;
/** Interval of `ctx.poll`. */
export const POLL_INTERVAL_MS = 50;

/** Thrown by a probe when an answer lacks what its next step needs. */
export class ProbeError extends Error {
  override readonly name = "ProbeError";
}

const TEXT_TYPES = /^(text\/|application\/(json|javascript|xml))/;

function bodyOf(a: ProbeAnswer): unknown {
  if (a.json !== undefined) return a.json;
  if (a.bytes.length === 0) return null;
  const ct = a.headers["content-type"] ?? "";
  if (TEXT_TYPES.test(ct) || (ct === "" && !a.text.includes("\uFFFD"))) return { text: a.text };
  return {
    bytes: a.bytes.length,
    sha256: createHash("sha256").update(a.bytes).digest("hex").slice(0, 16),
  };
}

function requestBody(req: ProbeRequest): unknown {
  if (req.json !== undefined) return req.json;
  if (req.raw !== undefined) return { raw: req.raw };
  if (req.form !== undefined) {
    return {
      form: req.form.map((p) =>
        "value" in p
          ? { name: p.name, value: p.value }
          : { name: p.name, filename: p.filename, bytes: p.bytes.length },
      ),
    };
  }
  return undefined;
}

/** A value as it reads back from JSON (undefined members gone): what the recording file holds. */
const jsonClean = (v: unknown): unknown => (v === undefined ? null : JSON.parse(JSON.stringify(v)));

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The context of one probe run; `record()` is what it recorded. */
export class ProbeRun implements ProbeContext {
  private readonly norm = new Normaliser();
  private readonly steps: Record<string, RecordedCall | RecordedNote> = {};
  private notebooks = 0;

  constructor(
    readonly target: KernelTarget,
    readonly probe: Probe,
    private readonly sleeper: (ms: number) => Promise<void> = sleep,
  ) {
    this.norm.alias(target.token, "<token>");
  }

  get probeId(): string {
    return this.probe.id;
  }

  get token(): string {
    return this.target.token;
  }

  private label(label: string): string {
    if (label in this.steps) throw new ProbeError(`step label used twice: ${label}`);
    return label;
  }

  async call(label: string, req: ProbeRequest, opts: CallOptions = {}): Promise<ProbeAnswer> {
    const key = this.label(label);
    // the slot keeps the step order even when the answer arrives after a later step's
    this.steps[key] = { note: "<pending>" };
    const answer = await send(this.target, req);
    const body = requestBody(req);
    this.norm.beginStep();
    const request = {
      method: req.method ?? "POST",
      path: this.norm.request(req.path) as string,
      ...(body === undefined || opts.recordRequest === false
        ? {}
        : { body: this.norm.request(body) }),
    };
    let kept = bodyOf(answer);
    if (opts.keep && answer.json !== undefined) kept = jsonClean(opts.keep(answer.json));
    const headers: Record<string, string> = {};
    for (const h of opts.headers ?? []) {
      const v = answer.headers[h];
      if (v !== undefined) headers[h] = this.norm.string(v);
    }
    this.steps[key] = {
      request,
      status: answer.status,
      ...(opts.headers ? { headers } : {}),
      body: mask(this.norm.value(kept), opts.mask ?? []),
    };
    return answer;
  }

  post(label: string, path: string, json?: unknown, opts?: CallOptions): Promise<ProbeAnswer> {
    return this.call(label, { path, json: json ?? {} }, opts);
  }

  async quiet<T = unknown>(path: string, json?: unknown): Promise<T> {
    const a = await send(this.target, { path, json: json ?? {} });
    const env = a.json as { code?: unknown; msg?: unknown; data?: unknown } | undefined;
    if (a.status !== 200 || env?.code !== 0) {
      throw new ProbeError(`setup ${path} failed: HTTP ${a.status} ${a.text.slice(0, 300)}`);
    }
    return env.data as T;
  }

  quietRaw(req: ProbeRequest): Promise<ProbeAnswer> {
    return send(this.target, req);
  }

  note(label: string, value: unknown): void {
    const key = this.label(label);
    this.norm.beginStep();
    this.steps[key] = { note: this.norm.value(jsonClean(value)) };
  }

  alias(literal: string, placeholder: string): void {
    this.norm.alias(literal, placeholder);
  }

  async notebook(suffix = ""): Promise<string> {
    this.notebooks += 1;
    const name = `probe ${this.probe.id}${suffix}${this.notebooks > 1 ? ` ${this.notebooks}` : ""}`;
    const r = await this.quiet<{ notebook: { id: string } }>("/api/notebook/createNotebook", {
      name,
    });
    await this.settleNotebook(r.notebook.id);
    return r.notebook.id;
  }

  /**
   * SiYuan 3.7.3 indexes a new notebook again about 2.5 s after creating it (its top-level
   * notebook document, and every document created in it meanwhile, get a second set of `blocks`
   * rows). A probe's setup waits for that second index so what it records does not depend on
   * timing; `sql.notebook-index` records the quirk itself. Kernels without notebook documents
   * (`boxDocEnabled: false`) have nothing to wait for.
   */
  private async settleNotebook(id: string): Promise<void> {
    await this.flush();
    const ls = await this.quiet<{ boxDocEnabled?: boolean }>("/api/notebook/lsNotebooks", {});
    if (ls.boxDocEnabled !== true) return;
    await this.poll(
      async () => {
        await this.flush();
        const rows = await this.quiet<Array<{ n: number }>>("/api/query/sql", {
          stmt: `SELECT COUNT(*) AS n FROM blocks WHERE root_id = '${id}'`,
        });
        return rows[0]?.n ?? 0;
      },
      (n) => n >= 4,
      NOTEBOOK_SETTLE_MS,
    );
  }

  async doc(notebook: string, hpath: string, markdown: string): Promise<string> {
    const id = await this.quiet<string>("/api/filetree/createDocWithMd", {
      notebook,
      path: hpath,
      markdown,
    });
    await this.flush();
    return id;
  }

  async flush(): Promise<void> {
    await this.quiet("/api/sqlite/flushTransaction", {});
  }

  async poll<T>(
    read: () => Promise<T>,
    done: (v: T) => boolean,
    timeoutMs = POLL_TIMEOUT_MS,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = await read();
      if (done(v) || Date.now() > deadline) return v;
      await sleep(POLL_INTERVAL_MS);
    }
  }

  sleep(ms: number): Promise<void> {
    return this.sleeper(ms);
  }

  /** What the probe recorded (with `error` when it threw). */
  record(error?: unknown): ProbeRecord {
    return {
      title: this.probe.title,
      endpoints: this.probe.endpoints,
      steps: this.steps,
      ...(error === undefined
        ? {}
        : { error: this.norm.string(error instanceof Error ? error.message : String(error)) }),
    };
  }
}
