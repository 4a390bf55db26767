/**
 * The probes' HTTP client: one request to a kernel, the answer kept whole (status, headers, body
 * bytes and, when the body is JSON, its value). Plain `fetch` on purpose: the probes look at the
 * kernel's own answers, not at what `@sisyphus/siyuan-api` makes of them.
 */

/** Where a kernel listens and the API token it wants. */
export interface KernelTarget {
  /** Base URL, e.g. `http://127.0.0.1:16806`. */
  readonly url: string;
  readonly token: string;
}

/** One multipart part: a field (`value`) or a file (`filename` + `bytes`). */
export type FormPart =
  | { readonly name: string; readonly value: string }
  | { readonly name: string; readonly filename: string; readonly bytes: Uint8Array };

/** A request as a probe describes it. */
export interface ProbeRequest {
  /** Default `POST`. */
  readonly method?: string;
  /** Path and query, e.g. `/api/block/updateBlock`. */
  readonly path: string;
  /** A JSON body (sent as `application/json`). */
  readonly json?: unknown;
  /** A raw body (sent as given, `text/plain` unless a header says otherwise). */
  readonly raw?: string;
  /** A multipart body. */
  readonly form?: readonly FormPart[];
  /** Extra headers; `authorization` is added unless `auth` is false. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Send the API token (default true). */
  readonly auth?: boolean;
}

/** A kernel's answer. */
export interface ProbeAnswer {
  readonly status: number;
  /** Response headers, names lowercased. */
  readonly headers: Readonly<Record<string, string>>;
  readonly bytes: Uint8Array;
  readonly text: string;
  /** The body parsed as JSON, or `undefined` when it is not JSON. */
  readonly json: unknown;
  /** Milliseconds from sending to the end of the body. */
  readonly elapsedMs: number;
}

/** Per-request deadline: a probe that hangs is a finding, not a stuck run. */
export const PROBE_REQUEST_TIMEOUT_MS = 30_000;

/** Sends one request and reads the whole answer. Throws only when no answer arrives. */
export async function send(target: KernelTarget, req: ProbeRequest): Promise<ProbeAnswer> {
  const headers: Record<string, string> = {};
  if (req.auth !== false) headers["authorization"] = `Token ${target.token}`;
  let body: string | FormData | undefined;
  if (req.form !== undefined) {
    const fd = new FormData();
    for (const p of req.form) {
      if ("value" in p) fd.append(p.name, p.value);
      else fd.append(p.name, new Blob([p.bytes]), p.filename);
    }
    body = fd;
  } else if (req.raw !== undefined) {
    body = req.raw;
    headers["content-type"] = "text/plain";
  } else if (req.json !== undefined) {
    body = JSON.stringify(req.json);
    headers["content-type"] = "application/json";
  }
  Object.assign(headers, req.headers ?? {});
  const started = performance.now();
  const res = await fetch(target.url + req.path, {
    method: req.method ?? "POST",
    headers,
    ...(body === undefined ? {} : { body }),
    signal: AbortSignal.timeout(PROBE_REQUEST_TIMEOUT_MS),
  });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const elapsedMs = performance.now() - started;
  const text = new TextDecoder().decode(bytes);
  let json: unknown;
  try {
    json = text.trim() === "" ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  const out: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    out[k.toLowerCase()] = v;
  });
  return { status: res.status, headers: out, bytes, text, json, elapsedMs };
}
