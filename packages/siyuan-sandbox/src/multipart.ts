/** A minimal multipart/form-data parser (putFile). */

/** One form part. `filename` is set for file parts. */
export interface FormPart {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer;
}

/** Parses a multipart body; null when the content type is not multipart/form-data. */
export function parseMultipart(body: Buffer, contentType: string): FormPart[] | null {
  const m = /^multipart\/form-data\s*;.*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!m) return null;
  const boundary = Buffer.from(`--${m[1] ?? m[2]}`);
  const parts: FormPart[] = [];
  let pos = body.indexOf(boundary);
  while (pos >= 0) {
    const start = pos + boundary.length;
    if (body.subarray(start, start + 2).toString() === "--") break;
    const next = body.indexOf(boundary, start);
    if (next < 0) break;
    const chunk = body.subarray(start + 2, next - 2); // skip CRLF after boundary and before next
    const headerEnd = chunk.indexOf("\r\n\r\n");
    if (headerEnd >= 0) {
      const headers = chunk.subarray(0, headerEnd).toString("utf8");
      const disp = /content-disposition:[^\r\n]*/i.exec(headers)?.[0] ?? "";
      const name = /\bname="([^"]*)"/i.exec(disp)?.[1];
      const filename = /\bfilename="([^"]*)"/i.exec(disp)?.[1];
      const ct = /content-type:\s*([^\r\n]*)/i.exec(headers)?.[1];
      if (name !== undefined) {
        const part: FormPart = { name, data: chunk.subarray(headerEnd + 4) };
        if (filename !== undefined) part.filename = filename;
        if (ct !== undefined) part.contentType = ct;
        parts.push(part);
      }
    }
    pos = next;
  }
  return parts;
}
