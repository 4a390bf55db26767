/**
 * The Web APIs the MCP server SDK uses that SiYuan 3.7.3's goja runtime lacks (contract §6: no
 * `TextEncoder`/`TextDecoder`, `AbortController`, `crypto`, `queueMicrotask`, `Headers`,
 * `Request`/`Response`). Each is installed on `globalThis` only when absent, and implements just
 * what the SDK's JSON (non-streaming) request path calls: UTF-8 text, abort signals with
 * listeners, headers, and request/response bodies held as strings (a body's `getReader()` yields
 * that text as one UTF-8 chunk). `ReadableStream` itself is not provided: the plugin answers every
 * exchange with one JSON body (a plain HTTP handler cannot stream, contract §8.3), so an SDK path
 * that builds a stream fails loudly instead of half-working.
 *
 * Randomness: `crypto.getRandomValues`/`randomUUID` draw from `Math.random`, which goja implements
 * with Go's `math/rand` top-level generator — seeded from the operating system and, since Go 1.22,
 * the runtime's ChaCha8 generator. Nothing here treats a random value as a secret proof: every
 * `requestState` and request ID is checked against a server-side record.
 */
import { utf8Decode, utf8Encode } from "@sisyphus/core-hash";

type Listener = (event: { type: string }) => void;

const g = globalThis as Record<string, unknown>;

// --- queueMicrotask -----------------------------------------------------------------------------
if (typeof g["queueMicrotask"] !== "function") {
  g["queueMicrotask"] = (fn: () => void) => {
    Promise.resolve()
      .then(fn)
      .catch((e: unknown) => {
        setTimeout(() => {
          throw e;
        }, 0);
      });
  };
}

// --- UTF-8 ---------------------------------------------------------------------------------------
// core-hash's portable codec (WHATWG decoding, chunked joins for goja); `fatal` is not supported.
if (typeof g["TextEncoder"] !== "function") {
  g["TextEncoder"] = class TextEncoder {
    readonly encoding = "utf-8";
    encode(text = ""): Uint8Array {
      return utf8Encode(String(text));
    }
  };
}
if (typeof g["TextDecoder"] !== "function") {
  g["TextDecoder"] = class TextDecoder {
    readonly encoding = "utf-8";
    decode(bytes?: ArrayBuffer | ArrayBufferView): string {
      if (bytes === undefined) return "";
      const view =
        bytes instanceof Uint8Array
          ? bytes
          : ArrayBuffer.isView(bytes)
            ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
            : new Uint8Array(bytes);
      return utf8Decode(view);
    }
  };
}

// --- AbortController / AbortSignal --------------------------------------------------------------
class EventTargetLite {
  readonly #listeners = new Map<string, Set<Listener>>();
  addEventListener(type: string, fn: Listener, options?: { once?: boolean }): void {
    const set = this.#listeners.get(type) ?? new Set<Listener>();
    this.#listeners.set(type, set);
    if (options?.once) {
      const once: Listener = (e) => {
        set.delete(once);
        fn(e);
      };
      set.add(once);
    } else set.add(fn);
  }
  removeEventListener(type: string, fn: Listener): void {
    this.#listeners.get(type)?.delete(fn);
  }
  dispatchEvent(event: { type: string }): boolean {
    for (const fn of [...(this.#listeners.get(event.type) ?? [])]) fn(event);
    return true;
  }
}

function abortError(reason?: unknown): Error {
  if (reason !== undefined) return reason as Error;
  const e = new Error("This operation was aborted");
  e.name = "AbortError";
  return e;
}

class AbortSignalLite extends EventTargetLite {
  aborted = false;
  reason: unknown = undefined;
  onabort: ((event: { type: string }) => void) | null = null;
  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }
  /** @internal */
  _abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason === undefined ? abortError() : reason;
    const event = { type: "abort" };
    this.onabort?.(event);
    this.dispatchEvent(event);
  }
  static abort(reason?: unknown): AbortSignalLite {
    const s = new AbortSignalLite();
    s._abort(reason);
    return s;
  }
  static timeout(ms: number): AbortSignalLite {
    const s = new AbortSignalLite();
    setTimeout(() => {
      const e = new Error("The operation timed out");
      e.name = "TimeoutError";
      s._abort(e);
    }, ms);
    return s;
  }
  static any(signals: Iterable<AbortSignalLite>): AbortSignalLite {
    const s = new AbortSignalLite();
    for (const x of signals) {
      if (x.aborted) {
        s._abort(x.reason);
        return s;
      }
      x.addEventListener("abort", () => s._abort(x.reason), { once: true });
    }
    return s;
  }
}

if (typeof g["AbortController"] !== "function") {
  g["AbortSignal"] = AbortSignalLite;
  g["AbortController"] = class AbortController {
    readonly signal = new AbortSignalLite();
    abort(reason?: unknown): void {
      this.signal._abort(reason);
    }
  };
}

// --- crypto -------------------------------------------------------------------------------------
if (typeof g["crypto"] !== "object" || g["crypto"] === null) {
  const getRandomValues = <T extends ArrayBufferView>(array: T): T => {
    const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
    return array;
  };
  g["crypto"] = {
    getRandomValues,
    randomUUID(): string {
      const b = getRandomValues(new Uint8Array(16));
      b[6] = ((b[6] as number) & 0x0f) | 0x40;
      b[8] = ((b[8] as number) & 0x3f) | 0x80;
      const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    },
  };
}

// --- Headers / Request / Response ---------------------------------------------------------------
type HeadersInit = HeadersLite | Record<string, string> | Array<[string, string]> | undefined;

class HeadersLite {
  readonly #map = new Map<string, string>();
  constructor(init?: HeadersInit) {
    if (init instanceof HeadersLite) for (const [k, v] of init) this.set(k, v);
    else if (Array.isArray(init)) for (const [k, v] of init) this.append(k, v);
    else if (init)
      for (const k of Object.keys(init)) this.set(k, (init as Record<string, string>)[k] as string);
  }
  get(name: string): string | null {
    return this.#map.get(name.toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.#map.has(name.toLowerCase());
  }
  set(name: string, value: string): void {
    this.#map.set(name.toLowerCase(), String(value));
  }
  append(name: string, value: string): void {
    const k = name.toLowerCase();
    const prev = this.#map.get(k);
    this.#map.set(k, prev === undefined ? String(value) : `${prev}, ${value}`);
  }
  delete(name: string): void {
    this.#map.delete(name.toLowerCase());
  }
  forEach(fn: (value: string, key: string) => void): void {
    for (const [k, v] of this.#map) fn(v, k);
  }
  entries(): IterableIterator<[string, string]> {
    return this.#map.entries();
  }
  keys(): IterableIterator<string> {
    return this.#map.keys();
  }
  values(): IterableIterator<string> {
    return this.#map.values();
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.#map.entries();
  }
  getSetCookie(): string[] {
    const v = this.get("set-cookie");
    return v === null ? [] : [v];
  }
}

function bodyText(body: unknown): string | null {
  if (body === undefined || body === null) return null;
  if (typeof body === "string") return body;
  if (body instanceof Uint8Array) return utf8Decode(body);
  if (body instanceof ArrayBuffer) return utf8Decode(new Uint8Array(body));
  throw new TypeError("this runtime holds request and response bodies as text only (no streams)");
}

class BodyLite {
  readonly #text: string | null;
  bodyUsed = false;
  constructor(body: unknown) {
    this.#text = bodyText(body);
  }
  /** `null` without a body; else a one-chunk stream of the body's UTF-8 bytes. */
  get body(): {
    getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; releaseLock(): void };
  } | null {
    if (this.#text === null) return null;
    return {
      getReader: () => {
        let sent = false;
        return {
          read: async () => {
            if (sent) return { done: true };
            if (this.bodyUsed) throw new TypeError("Body is unusable: Body has already been read");
            sent = true;
            this.bodyUsed = true;
            return { done: false, value: utf8Encode(this.#text ?? "") };
          },
          releaseLock: () => undefined,
        };
      },
    };
  }
  async text(): Promise<string> {
    if (this.bodyUsed) throw new TypeError("Body is unusable: Body has already been read");
    this.bodyUsed = true;
    return this.#text ?? "";
  }
  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = utf8Encode(await this.text());
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }
  /** @internal the body without consuming it */
  _peek(): string | null {
    return this.#text;
  }
}

class RequestLite extends BodyLite {
  readonly url: string;
  readonly method: string;
  readonly headers: HeadersLite;
  readonly signal: AbortSignalLite;
  constructor(
    input: string | URL | RequestLite,
    init: { method?: string; headers?: HeadersInit; body?: unknown; signal?: AbortSignalLite } = {},
  ) {
    const from = input instanceof RequestLite ? input : undefined;
    super(init.body !== undefined ? init.body : from?._peek());
    this.url = from ? from.url : String(input);
    this.method = (init.method ?? from?.method ?? "GET").toUpperCase();
    this.headers = new HeadersLite(init.headers ?? from?.headers);
    this.signal = init.signal ?? from?.signal ?? new AbortSignalLite();
  }
  clone(): RequestLite {
    return new RequestLite(this);
  }
}

class ResponseLite extends BodyLite {
  readonly status: number;
  readonly statusText: string;
  readonly headers: HeadersLite;
  constructor(
    body?: unknown,
    init: { status?: number; statusText?: string; headers?: HeadersInit } = {},
  ) {
    super(body);
    this.status = init.status ?? 200;
    this.statusText = init.statusText ?? "";
    this.headers = new HeadersLite(init.headers);
  }
  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }
  clone(): ResponseLite {
    return new ResponseLite(this._peek(), {
      status: this.status,
      statusText: this.statusText,
      headers: this.headers,
    });
  }
  static json(data: unknown, init: { status?: number; headers?: HeadersInit } = {}): ResponseLite {
    const headers = new HeadersLite(init.headers);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
    return new ResponseLite(JSON.stringify(data), { ...init, headers });
  }
}

if (typeof g["Headers"] !== "function") g["Headers"] = HeadersLite;
if (typeof g["Request"] !== "function") g["Request"] = RequestLite;
if (typeof g["Response"] !== "function") g["Response"] = ResponseLite;
