/**
 * The request object a private handler gets (contract §8.2) and how its response object is
 * written (§8.3), as SiYuan 3.7.3's `kernel/plugin/server.go` and gin do it.
 */
import { createReadStream, statSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { basename, extname } from "node:path";
import { Readable } from "node:stream";
import { parseMultipart } from "../multipart.js";

/** Appends to a map of lists (Go's `map[string][]T`). */
function add<T>(map: Record<string, T[]>, key: string, value: T): void {
  const list = map[key];
  if (list) list.push(value);
  else map[key] = [value];
}

/** Go's textproto.CanonicalMIMEHeaderKey for a (lower-cased) Node header name. */
export function canonicalHeader(name: string): string {
  return name
    .toLowerCase()
    .split("-")
    .map((p) => (p ? p[0]!.toUpperCase() + p.slice(1) : p))
    .join("-");
}

/** Header map name → string[] from raw headers, canonical names (Go keeps no Host in Header). */
export function headerMap(req: IncomingMessage): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const k = canonicalHeader(req.rawHeaders[i]!);
    if (k === "Host") continue;
    add(out, k, req.rawHeaders[i + 1]!);
  }
  return out;
}

function queryMap(params: URLSearchParams): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of params) add(out, k, v);
  return out;
}

function cookieMap(header: string[] | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const line of header ?? []) {
    for (const part of line.split(";")) {
      const i = part.indexOf("=");
      if (i <= 0) continue;
      const k = part.slice(0, i).trim();
      add(out, k, part.slice(i + 1).trim());
    }
  }
  return out;
}

function basicUser(auth: string | undefined): { username: string; password: string } | null {
  const m = /^Basic\s+(.+)$/i.exec(auth ?? "");
  if (!m) return null;
  const dec = Buffer.from(m[1]!, "base64").toString("utf8");
  const i = dec.indexOf(":");
  return i < 0 ? null : { username: dec.slice(0, i), password: dec.slice(i + 1) };
}

/** The request as plain JSON data plus the body parts to turn into realm data objects. */
export interface BuiltRequest {
  /** Everything but the data objects, JSON-clean. */
  json: Record<string, unknown>;
  /** Body for `request.body.data` (null when `form` is set). */
  data: Buffer | null;
  /** Multipart files, in `json.request.body.form.files` order: name → bytes[]. */
  files: Record<string, Buffer[]>;
}

/** Builds the handler argument (without `port`). Throws an Error with the 400 text on parse failure. */
export function buildRequest(
  req: IncomingMessage,
  url: URL,
  raw: Buffer,
  pluginName: string,
): BuiltRequest {
  const headers = headerMap(req);
  const cookies = cookieMap(headers.Cookie);
  delete headers.Cookie;
  delete headers.Authorization;
  const ctRaw = req.headers["content-type"] ?? "";
  const contentType = ctRaw.split(";")[0]!.trim().toLowerCase();
  const prefix = `/plugin/private/${pluginName}`;
  const rest = url.pathname.slice(prefix.length);
  const subPath = rest === "" ? "/" : rest;
  let decodedPath = url.pathname;
  try {
    decodedPath = decodeURIComponent(url.pathname);
  } catch {
    /* keep escaped */
  }
  let form: Record<string, unknown> | null = null;
  let data: Buffer | null = raw;
  const files: Record<string, Buffer[]> = {};
  if (contentType === "multipart/form-data") {
    const parts = parseMultipart(raw, ctRaw);
    if (parts === null) throw new Error("no multipart boundary param in Content-Type");
    const values: Record<string, string[]> = {};
    const fileMeta: Record<string, unknown[]> = {};
    for (const p of parts) {
      if (p.filename === undefined) {
        add(values, p.name, p.data.toString("utf8"));
      } else {
        add(files, p.name, p.data);
        add(fileMeta, p.name, {
          filename: p.filename,
          headers: {
            "Content-Disposition": [`form-data; name="${p.name}"; filename="${p.filename}"`],
            ...(p.contentType ? { "Content-Type": [p.contentType] } : {}),
          },
          size: p.data.length,
        });
      }
    }
    form = { values, files: fileMeta };
    data = null;
  } else if (contentType === "application/x-www-form-urlencoded") {
    // the form parse consumes the body: form stays null and data is empty (contract §8.2)
    data = Buffer.alloc(0);
  }
  const remote = `${req.socket.remoteAddress ?? "127.0.0.1"}`.replace(/^::ffff:/, "");
  const len = req.headers["content-length"];
  const json = {
    url: {
      user: basicUser(req.headers.authorization),
      host: req.headers.host ?? "",
      path: decodedPath,
      pathname: url.pathname,
      fragment: "",
      hash: "",
      search: url.search.replace(/^\?/, ""),
      query: queryMap(url.searchParams),
    },
    request: {
      method: req.method ?? "GET",
      uri: req.url ?? url.pathname,
      proto: `HTTP/${req.httpVersion}`,
      protoMajor: req.httpVersionMajor,
      protoMinor: req.httpVersionMinor,
      headers,
      cookies,
      contentType,
      contentLength: len !== undefined ? Number(len) : raw.length > 0 ? -1 : 0,
      referer: req.headers.referer ?? "",
      userAgent: req.headers["user-agent"] ?? "",
      body: { data: null, form },
    },
    context: {
      path: subPath,
      fullPath: "/plugin/private/:name/*path",
      clientIp: remote,
      remoteIp: remote,
      remoteAddr: `${remote}:${req.socket.remotePort ?? 0}`,
      params: { name: [pluginName], path: [subPath] },
    },
  };
  return { json, data, files };
}

/** Encodes JSON as Go's encoding/json (gin `JSON`): `<`, `>`, `&`, U+2028/2029 escaped. */
export function goJson(value: unknown, html = true, indent?: string): string {
  const s = JSON.stringify(value ?? null, null, indent) ?? "null";
  const lineSeps = s.replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
  return html
    ? lineSeps.replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026")
    : lineSeps;
}

/**
 * Go's `%v` of a float64 (`strconv.FormatFloat(f, 'g', -1, 64)`): the shortest digits, in
 * exponent form when the exponent is below -4 or at least 6 (`1.234567e+06`).
 */
function goFloat(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (!Number.isFinite(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v === 0) return Object.is(v, -0) ? "-0" : "0";
  const [mantissa, exp] = v.toExponential().split("e") as [string, string];
  const e = Number(exp);
  if (e < -4 || e >= 6)
    return `${mantissa}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  return String(v);
}

/** The Go type of a value decoded by `encoding/json` into `any`, as `%!verb(type=value)` names it. */
function goType(v: unknown): string {
  if (typeof v === "number") return "float64";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (Array.isArray(v)) return "[]interface {}";
  return "map[string]interface {}";
}

/** Go's `%v` of a value decoded by `encoding/json` into `any` (maps with sorted keys). */
function goValue(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (typeof v === "number") return goFloat(v);
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return `[${v.map(goValue).join(" ")}]`;
  const o = v as Record<string, unknown>;
  return `map[${Object.keys(o)
    .sort()
    .map((k) => `${k}:${goValue(o[k])}`)
    .join(" ")}]`;
}

/** `%!verb(type=value)`: Go's answer to a verb that does not fit the value (`%!d(<nil>)` for nil). */
function badVerb(verb: string, v: unknown): string {
  return v === null || v === undefined
    ? `%!${verb}(<nil>)`
    : `%!${verb}(${goType(v)}=${goValue(v)})`;
}

/**
 * Go `fmt.Sprintf` over `body.string.values` as SiYuan passes them: decoded by `encoding/json` into
 * `[]any`, so every number is a float64 (`%d` of 42 is `%!d(float64=42)`, `%v` of it `42`). The
 * verbs plugins use: %v %s %d %f %q %x %X %t %%; missing values `%!v(MISSING)`, extra ones
 * `%!(EXTRA type=value, …)`.
 */
export function goSprintf(fmt: string, values: unknown[]): string {
  let i = 0;
  const out = fmt.replace(
    /%([-+# 0]*)(\d+)?(?:\.(\d+))?([%svdfqxXt])/g,
    (_m, _fl, _w, prec, verb) => {
      if (verb === "%") return "%";
      if (i >= values.length) return `%!${verb}(MISSING)`;
      const v = values[i++];
      switch (verb) {
        case "v":
          return goValue(v);
        case "s":
          return typeof v === "string" ? v : badVerb("s", v);
        case "d":
          return badVerb("d", v); // a JSON number is a float64, never an integer
        case "f":
          return typeof v === "number"
            ? v.toFixed(prec === undefined ? 6 : Number(prec))
            : badVerb("f", v);
        case "q":
          return typeof v === "string" ? JSON.stringify(v) : badVerb("q", v);
        case "t":
          return typeof v === "boolean" ? String(v) : badVerb("t", v);
        default: {
          // %x / %X: a string's bytes in hex (a float64's hex form is left to Go)
          if (typeof v !== "string") return badVerb(verb, v);
          const h = Buffer.from(v).toString("hex");
          return verb === "X" ? h.toUpperCase() : h;
        }
      }
    },
  );
  if (i >= values.length) return out;
  const extra = values
    .slice(i)
    .map((v) => (v === null || v === undefined ? "<nil>" : `${goType(v)}=${goValue(v)}`));
  return `${out}%!(EXTRA ${extra.join(", ")})`;
}

const MIME: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".htm": "text/html; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".md": "text/markdown; charset=utf-8",
  ".json": "application/json",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".svg": "image/svg+xml",
  ".pdf": "application/pdf",
  ".zip": "application/zip",
};

/** A response the host writes. */
export interface WrittenResponse {
  status: number;
}

interface GoCookie {
  Name?: string;
  Value?: string;
  Path?: string;
  Domain?: string;
  Expires?: string;
  MaxAge?: number;
  Secure?: boolean;
  HttpOnly?: boolean;
  SameSite?: number;
  Partitioned?: boolean;
}

function setCookieLine(c: GoCookie): string {
  let s = `${c.Name ?? ""}=${c.Value ?? ""}`;
  if (c.Path) s += `; Path=${c.Path}`;
  if (c.Domain) s += `; Domain=${c.Domain}`;
  if (c.Expires && !c.Expires.startsWith("0001-"))
    s += `; Expires=${new Date(c.Expires).toUTCString()}`;
  if (typeof c.MaxAge === "number" && c.MaxAge > 0) s += `; Max-Age=${c.MaxAge}`;
  else if (typeof c.MaxAge === "number" && c.MaxAge < 0) s += "; Max-Age=0";
  if (c.HttpOnly) s += "; HttpOnly";
  if (c.Secure) s += "; Secure";
  const same = ["", "", "Lax", "Strict", "None"][c.SameSite ?? 0];
  if (same) s += `; SameSite=${same}`;
  if (c.Partitioned) s += "; Partitioned";
  return s;
}

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "set-cookie",
  "content-encoding",
  "content-length",
]);

/** Thrown when the response object cannot be written; the host answers 500 with this text. */
export class ResponseError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Writes the handler's response (already JSON-round-tripped; `rawBytes` pulled out first).
 * `base` are headers every answer carries (CORS). Returns the status sent.
 */
export async function writeResponse(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  resp: Record<string, unknown> | null,
  rawBytes: Buffer | null,
  base: Record<string, string>,
): Promise<number> {
  const r = resp ?? {};
  const code =
    typeof r.statusCode === "number" && r.statusCode > 0 ? Math.trunc(r.statusCode) : 200;
  const headers: Record<string, string | string[]> = { ...base };
  const hdrs = (r.headers ?? {}) as Record<string, unknown>;
  for (const [k, v] of Object.entries(hdrs)) {
    const vals = Array.isArray(v) ? v : [v];
    if (vals.length > 0) headers[canonicalHeader(k)] = String(vals[vals.length - 1]); // "set": last wins
  }
  const cookies = Array.isArray(r.cookies) ? (r.cookies as GoCookie[]) : [];
  if (cookies.length > 0) headers["Set-Cookie"] = cookies.map(setCookieLine);
  const body = (r.body ?? {}) as Record<string, Record<string, unknown> | null | undefined>;
  const end = (status: number, h: Record<string, string | string[]>, b: Buffer | string) => {
    res.writeHead(status, h);
    res.end(req.method === "HEAD" ? undefined : b);
    return status;
  };

  if (body.data) {
    const t = String(body.data.type ?? "");
    const v = body.data.data;
    const json = "application/json; charset=utf-8";
    switch (t) {
      case "JSON":
        return end(code, { ...headers, "Content-Type": json }, goJson(v));
      case "PureJSON":
        return end(code, { ...headers, "Content-Type": json }, `${goJson(v, false)}\n`);
      case "IndentedJSON":
        return end(code, { ...headers, "Content-Type": json }, goJson(v, true, "    "));
      case "AsciiJSON":
        return end(
          code,
          { ...headers, "Content-Type": "application/json" },
          goJson(v, false).replace(
            /[\u0080-\uffff]/g,
            (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
          ),
        );
      case "SecureJSON":
        return end(
          code,
          { ...headers, "Content-Type": json },
          (Array.isArray(v) ? "while(1);" : "") + goJson(v),
        );
      case "JSONP": {
        const cb = url.searchParams.get("callback");
        if (!cb) return end(code, { ...headers, "Content-Type": json }, goJson(v));
        return end(
          code,
          { ...headers, "Content-Type": "application/javascript; charset=utf-8" },
          `${cb.replace(/[<>&'"]/g, "")}(${goJson(v)});`,
        );
      }
      default:
        // XML, YAML, TOML, ProtoBuf are not rendered by the sandbox; an unknown type is a 500 in 3.7.3
        throw new ResponseError(500, `unsupported response data type [${t}]`);
    }
  }
  if (body.file) {
    const p = String(body.file.path ?? "");
    let size = 0;
    try {
      const st = statSync(p);
      if (!st.isFile()) throw new Error("not a file");
      size = st.size;
    } catch {
      return end(
        404,
        { ...headers, "Content-Type": "text/plain; charset=utf-8" },
        "404 page not found",
      );
    }
    const h: Record<string, string | string[]> = {
      ...headers,
      "Content-Type": MIME[extname(p).toLowerCase()] ?? "application/octet-stream",
      "Accept-Ranges": "bytes",
    };
    if (body.file.name) {
      h["Content-Disposition"] = `attachment; filename="${String(body.file.name)}"`;
    } else h["Content-Disposition"] = `inline; filename="${basename(p)}"`;
    const range = /^bytes=(\d*)-(\d*)$/.exec(String(req.headers.range ?? ""));
    let status = 200; // statusCode is ignored for files (http.ServeFile)
    let start = 0;
    let last = size - 1;
    if (range && (range[1] || range[2])) {
      if (range[1]) {
        start = Number(range[1]);
        last = range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
      } else {
        start = Math.max(0, size - Number(range[2]));
      }
      if (start >= size || start > last) {
        return end(416, { ...h, "Content-Range": `bytes */${size}` }, "");
      }
      status = 206;
      h["Content-Range"] = `bytes ${start}-${last}/${size}`;
    }
    h["Content-Length"] = String(size === 0 ? 0 : last - start + 1);
    res.writeHead(status, h);
    if (req.method === "HEAD" || size === 0) {
      res.end();
      return status;
    }
    await new Promise<void>((resolve) => {
      const s = createReadStream(p, { start, end: last });
      s.on("error", () => {
        res.destroy();
        resolve();
      });
      s.on("end", () => resolve());
      s.pipe(res);
    });
    return status;
  }
  if (body.string) {
    const values = Array.isArray(body.string.values) ? body.string.values : [];
    return end(
      code,
      { ...headers, "Content-Type": "text/plain; charset=utf-8" },
      goSprintf(String(body.string.format ?? ""), values),
    );
  }
  if (body.raw) {
    const h = { ...headers };
    if (body.raw.contentType) h["Content-Type"] = String(body.raw.contentType);
    return end(code, h, rawBytes ?? Buffer.alloc(0));
  }
  if (body.redirect) {
    if ((code < 300 || code > 308) && code !== 201) {
      throw new ResponseError(500, `Cannot redirect with status code ${code}`);
    }
    return end(code, { ...headers, Location: String(body.redirect.location ?? "") }, "");
  }
  if (body.proxy) return proxy(req, res, body.proxy, headers);
  return end(code, headers, "");
}

async function proxy(
  req: IncomingMessage,
  res: ServerResponse,
  spec: Record<string, unknown>,
  headers: Record<string, string | string[]>,
): Promise<number> {
  const text = { ...headers, "Content-Type": "text/plain; charset=utf-8" };
  let target: URL;
  try {
    target = new URL(String(spec.url ?? ""));
  } catch {
    res.writeHead(400, text).end("invalid proxy url");
    return 400;
  }
  const method = String(spec.method ?? req.method ?? "GET").toUpperCase();
  if (!/^https?:$/.test(target.protocol) || (method !== "GET" && method !== "HEAD")) {
    res.writeHead(400, text).end("proxy supports only http/https GET/HEAD");
    return 400;
  }
  const ac = new AbortController();
  res.on("close", () => ac.abort());
  let upstream: Response;
  try {
    upstream = await fetch(target, {
      method,
      headers: (spec.headers ?? {}) as Record<string, string>,
      redirect: "follow",
      signal: ac.signal,
    });
  } catch (e) {
    if (!res.headersSent && !res.destroyed) {
      res.writeHead(502, text).end(`proxy failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    return 502;
  }
  const h: Record<string, string | string[]> = { ...headers };
  upstream.headers.forEach((v, k) => {
    if (!HOP_BY_HOP.has(k)) h[canonicalHeader(k)] = v;
  });
  res.writeHead(upstream.status, h);
  if (!upstream.body || method === "HEAD") {
    res.end();
    return upstream.status;
  }
  await new Promise<void>((resolve) => {
    const s = Readable.fromWeb(upstream.body as import("node:stream/web").ReadableStream);
    s.on("error", () => {
      res.destroy();
      resolve();
    });
    s.on("end", () => resolve());
    s.pipe(res);
  });
  return upstream.status;
}
