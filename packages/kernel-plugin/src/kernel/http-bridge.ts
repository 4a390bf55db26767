/**
 * Between the kernel's private-route objects (contract §8.2, §8.3) and the Web `Request`/`Response`
 * the MCP server SDK serves. The kernel buffers the whole request body and answers only after the
 * handler's promise settles, so both sides carry a complete text body; the answer goes back as a
 * `raw` body with its content type (a `data` body would be re-encoded by gin).
 */
import { DEFAULT_MAX_REQUEST_BODY_SIZE } from "@modelcontextprotocol/server";
import type { PluginRequest, PluginResponse } from "./runtime-globals.js";

/** The Web request for a private-route request: URL, method, headers (joined) and the text body. */
export async function toWebRequest(req: PluginRequest): Promise<Request> {
  const headers = new Headers();
  for (const name of Object.keys(req.request.headers)) {
    headers.set(name, (req.request.headers[name] ?? []).join(", "));
  }
  const method = req.request.method.toUpperCase();
  const body =
    method === "GET" || method === "HEAD" ? undefined : await (req.request.body.data?.text() ?? "");
  const search = req.url.search === "" ? "" : `?${req.url.search}`;
  return new Request(`http://${req.url.host}${req.url.path}${search}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
  });
}

/**
 * A POST's JSON body, parsed once for the SDK's `parsedBody` (era classification and the handler
 * would otherwise each clone, encode, decode and parse it). `undefined` whenever the SDK must see
 * the raw body to answer as it does: not JSON, empty, or possibly over its size limit (declared
 * or by length: a UTF-16 unit is at most 3 UTF-8 bytes). The request's own body is not consumed.
 */
export async function parsedJsonBody(request: Request): Promise<unknown> {
  const max = DEFAULT_MAX_REQUEST_BODY_SIZE;
  if (Number(request.headers.get("content-length")) > max) return undefined;
  const text = await request.clone().text();
  if (text.length * 3 > max) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The private-route response for a Web response (its body read as text). */
export async function fromWebResponse(res: Response): Promise<PluginResponse> {
  const headers: Record<string, string[]> = {};
  res.headers.forEach((value, name) => {
    if (name !== "content-type" && name !== "content-length") headers[name] = [value];
  });
  const text = await res.text();
  return {
    statusCode: res.status,
    headers,
    body:
      text === ""
        ? {}
        : { raw: { contentType: res.headers.get("content-type") ?? "text/plain", data: text } },
  };
}

/** A JSON answer of the plugin's own routes. */
export function jsonResponse(status: number, value: unknown): PluginResponse {
  return {
    statusCode: status,
    body: { raw: { contentType: "application/json", data: JSON.stringify(value) } },
  };
}
