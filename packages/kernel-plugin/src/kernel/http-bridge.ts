/**
 * Between the kernel's private-route objects (contract §8.2, §8.3) and the Web `Request`/`Response`
 * the MCP server SDK serves. The kernel buffers the whole request body and answers only after the
 * handler's promise settles, so both sides carry a complete text body; the answer goes back as a
 * `raw` body with its content type (a `data` body would be re-encoded by gin).
 */
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
