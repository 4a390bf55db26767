// Bench plugin: a constant answer, and a pass-through of getBlockKramdown via siyuan.client.
// Route names start with "get" so the host does not serialise them, like getBlockKramdown.
siyuan.plugin.lifecycle.onload = () => {};
siyuan.plugin.lifecycle.onrunning = () => {};
siyuan.plugin.lifecycle.onunload = () => {};
siyuan.server.private.http.handler = async (req) => {
  if (req.context.path === "/getEcho") {
    return {
      statusCode: 200,
      body: { data: { type: "JSON", data: { code: 0, msg: "", data: "x" } } },
    };
  }
  const body = await req.request.body.data.text();
  const r = await siyuan.client.fetch("/api/block/getBlockKramdown", { method: "POST", body });
  return {
    statusCode: 200,
    body: { raw: { contentType: "application/json", data: await r.text() } },
  };
};
