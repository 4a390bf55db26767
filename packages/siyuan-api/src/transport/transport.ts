/**
 * The transport port: the one seam between the typed client and the wire. A transport sends one
 * HTTP POST and either returns what came back or throws a {@link SiyuanApiError} with code
 * `not_dispatched` or `outcome_unknown`. It never retries: retries are the client's decision.
 */

/** The body of a kernel request. */
export type TransportBody =
  | { readonly kind: "json"; readonly text: string }
  | { readonly kind: "bytes"; readonly bytes: Uint8Array; readonly contentType: string };

/** One HTTP request to the kernel (always `POST`). */
export interface TransportRequest {
  /** URL pathname such as `/api/block/updateBlock`; must start with `/`. */
  readonly endpoint: string;
  readonly body: TransportBody;
  /** `text` for JSON endpoints, `bytes` for raw downloads (`getFile`). */
  readonly responseType: "text" | "bytes";
  /**
   * Extra request headers (lower-case names), e.g. the kernel `/mcp` endpoint's
   * `mcp-protocol-version`; the transport's own authentication and content type win.
   */
  readonly headers?: Readonly<Record<string, string>>;
}

interface TransportResponseBase {
  /** HTTP status code. */
  readonly status: number;
  /** `Content-Type` header of the answer, if any. */
  readonly contentType: string | undefined;
  /** Size of the answer body in bytes (UTF-8 length for text answers). */
  readonly byteLength: number;
}

/** What came back, as text or as bytes (per {@link TransportRequest.responseType}). */
export type TransportResponse =
  | (TransportResponseBase & { readonly type: "text"; readonly text: string })
  | (TransportResponseBase & { readonly type: "bytes"; readonly bytes: Uint8Array });

/**
 * A way to reach a kernel. Implementations: `undiciTransport` (Node), `kernelFetchTransport`
 * (inside the kernel plugin runtime). Contract: exactly one request on the wire per `send` (no
 * internal retries); failures are thrown as `SiyuanApiError` with `not_dispatched` only when the
 * request provably never left, otherwise `outcome_unknown`.
 */
export interface Transport {
  /** Short name for logs, e.g. `undici` or `kernel-fetch`. */
  readonly name: string;
  send(request: TransportRequest): Promise<TransportResponse>;
  /** Releases sockets this transport owns (not a dispatcher passed in by the caller). */
  close(): Promise<void>;
}
