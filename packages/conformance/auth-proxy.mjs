// Loopback proxy for the conformance run: the suite cannot send our bearer token, so this adds
// `Authorization: Bearer $SISYPHUS_AUTH_TOKEN` and forwards everything else (Host, Origin, body,
// streamed SSE) unchanged. Usage: node auth-proxy.mjs <listenPort> <targetUrl>
import { createServer, request } from "node:http";

const [port, target] = process.argv.slice(2);
const upstream = new URL(target);
const token = process.env.SISYPHUS_AUTH_TOKEN;

createServer((req, res) => {
  const headers = { ...req.headers, authorization: `Bearer ${token}` };
  const out = request(
    { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
    (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    },
  );
  out.on("error", () => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  req.pipe(out);
}).listen(Number(port), "127.0.0.1", () => process.stderr.write(`auth-proxy on ${port}\n`));
