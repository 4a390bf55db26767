/**
 * Kernel plugins (contract Part 2, §8–§10): installed through the file API and enabled as the
 * runbook says, then its routes, per-path serialisation, storage, loopback client and RPC.
 */
import type { ProbeContext } from "../probe.js";
import { ProbeError } from "../probe.js";
import { probe, utf8 } from "./kit.js";
import { INDEX_JS, KERNEL_JS, PLUGIN_JSON, PROBE_PLUGIN } from "./plugin-source.js";

const BASE = `/plugin/private/${PROBE_PLUGIN}`;

interface Loaded {
  name: string;
  state?: string;
}

async function loaded(ctx: ProbeContext): Promise<Loaded[]> {
  const a = await ctx.quietRaw({ path: "/api/plugin/listLoadedPlugins", json: {} });
  const d = (a.json as { data?: unknown } | undefined)?.data;
  return Array.isArray(d) ? (d as Loaded[]) : [];
}

const isRunning = (list: Loaded[]) =>
  list.some((p) => p.name === PROBE_PLUGIN && p.state === "running");

/** The petal as setPetalEnabled answers it, kept to what does not repeat the files. */
const petal = (j: unknown) => {
  const e = j as { code: number; msg: string; data: Record<string, unknown> | null };
  if (!e.data) return e;
  const k = e.data["kernel"] as Record<string, unknown> | undefined;
  return {
    ...e,
    data: {
      name: e.data["name"],
      enabled: e.data["enabled"],
      incompatible: e.data["incompatible"],
      kernelExisted: k?.["existed"],
      kernelIncompatible: k?.["incompatible"],
      kernelJsIsTheFile: k?.["js"] === KERNEL_JS,
    },
  };
};

/**
 * Installs and enables the probe plugin unless it already runs: its three files by putFile, the
 * bazaar trusted, the petal enabled (the runbook's order), then waits until it runs. Recorded when
 * `record` is set, else quiet.
 */
export async function ensurePlugin(ctx: ProbeContext, record = false): Promise<void> {
  if (isRunning(await loaded(ctx))) return;
  for (const [file, text] of [
    ["plugin.json", PLUGIN_JSON],
    ["index.js", INDEX_JS],
    ["kernel.js", KERNEL_JS],
  ] as const) {
    const req = {
      path: "/api/file/putFile",
      form: [
        { name: "path", value: `/data/plugins/${PROBE_PLUGIN}/${file}` },
        { name: "file", filename: file, bytes: utf8(text) },
      ],
    };
    if (record) await ctx.call(`put ${file}`, req, { recordRequest: false });
    else await ctx.quietRaw(req);
  }
  const bazaar = { trust: true, petalDisabled: false };
  const enable = { packageName: PROBE_PLUGIN, enabled: true };
  if (record) {
    await ctx.post("setBazaar", "/api/setting/setBazaar", bazaar);
    await ctx.post("setPetalEnabled", "/api/petal/setPetalEnabled", enable, { keep: petal });
    await ctx.post("enable an unknown plugin", "/api/petal/setPetalEnabled", {
      packageName: "no-such-plugin",
      enabled: true,
    });
  } else {
    await ctx.quietRaw({ path: "/api/setting/setBazaar", json: bazaar });
    await ctx.quietRaw({ path: "/api/petal/setPetalEnabled", json: enable });
  }
  const list = await ctx.poll(() => loaded(ctx), isRunning);
  if (!isRunning(list)) throw new ProbeError(`${PROBE_PLUGIN} does not run after it was enabled`);
}

/** The listing kept to the probe plugin, its methods by name (the kernel lists them in map order). */
const mine = (j: unknown) => {
  const e = j as {
    code: number;
    msg: string;
    data: Array<{ name: string; methods?: Array<{ name: string }> | null }> | null;
  };
  if (!Array.isArray(e.data)) return e;
  return {
    ...e,
    data: e.data
      .filter((p) => p.name === PROBE_PLUGIN)
      .map((p) => ({
        ...p,
        methods: p.methods
          ? [...p.methods].sort((a, b) => a.name.localeCompare(b.name))
          : p.methods,
      })),
  };
};

export const pluginProbes = [
  probe(
    "plugin.install",
    "installed by putFile and enabled by setPetalEnabled: the loaded-plugin listings",
    [
      "/api/plugin/listLoadedPlugins",
      "GET /api/plugin",
      "/api/setting/setBazaar",
      "/api/petal/setPetalEnabled",
      "/api/file/putFile",
    ],
    async (ctx) => {
      await ctx.post("listed before", "/api/plugin/listLoadedPlugins", {}, { keep: mine });
      await ensurePlugin(ctx, true);
      await ctx.post("listed", "/api/plugin/listLoadedPlugins", {}, { keep: mine });
      await ctx.call("GET /api/plugin", { method: "GET", path: "/api/plugin" }, { keep: mine });
      const petals = await ctx.quietRaw({
        path: "/api/file/getFile",
        json: { path: "/data/storage/petal/petals.json" },
      });
      const list = Array.isArray(petals.json)
        ? (petals.json as Array<Record<string, unknown>>)
        : [];
      ctx.note(
        "petals.json entry",
        list
          .filter((p) => p["name"] === PROBE_PLUGIN)
          .map((p) => ({ name: p["name"], enabled: p["enabled"] })),
      );
    },
  ),
  probe(
    "plugin.routes",
    "/plugin/private/<name>/*: the request object, each body kind, status codes, errors",
    ["/plugin/private/*"],
    async (ctx) => {
      await ensurePlugin(ctx);
      await ctx.call(
        "echo POST",
        {
          path: `${BASE}/echo?a=1&b=two&a=3`,
          raw: '{"hello":"plugin"}',
          headers: {
            "content-type": "application/json; charset=utf-8",
            "x-probe": "yes",
            cookie: "c=1",
          },
        },
        { headers: ["content-type"] },
      );
      await ctx.call("echo GET", { method: "GET", path: `${BASE}/echo` });
      await ctx.call("string", { path: `${BASE}/string`, json: {} }, { headers: ["content-type"] });
      await ctx.call(
        "raw",
        { path: `${BASE}/raw`, json: {} },
        { headers: ["content-type", "x-probe"] },
      );
      await ctx.call("JSON escapes", { path: `${BASE}/escaped`, json: {} });
      const pure = await ctx.quietRaw({ path: `${BASE}/pure`, json: {} });
      const esc = await ctx.quietRaw({ path: `${BASE}/escaped`, json: {} });
      ctx.note("PureJSON text", pure.text.trim());
      ctx.note("JSON text", esc.text.trim());
      await ctx.call("empty 204", { path: `${BASE}/empty`, json: {} });
      await ctx.call("throws", { path: `${BASE}/throw`, json: {} });
      await ctx.call("not found inside", { path: `${BASE}/nope`, json: {} });
      await ctx.call("unknown plugin", { path: "/plugin/private/no-such-plugin/x", json: {} });
      await ctx.call(
        "no token",
        { path: `${BASE}/echo`, json: {}, auth: false },
        {
          keep: (j) => (j as { code?: number }).code ?? j,
        },
      );
    },
  ),
  probe(
    "plugin.serialisation",
    "two requests at once: the same path runs one after the other; a `get…` path runs in parallel",
    ["/plugin/private/*"],
    async (ctx) => {
      await ensurePlugin(ctx);
      await Promise.all([
        ctx.call("same path first", { path: `${BASE}/slow`, json: {} }),
        ctx.call("same path second", { path: `${BASE}/slow`, json: {} }),
      ]);
      const both = await Promise.all([
        ctx.quietRaw({ path: `${BASE}/getSlow`, json: {} }),
        ctx.quietRaw({ path: `${BASE}/getSlow`, json: {} }),
      ]);
      ctx.note(
        "exempt path overlaps",
        both.some((a) => (a.json as { atEnd?: number } | undefined)?.atEnd === 2),
      );
      const split = await Promise.all([
        ctx.quietRaw({ path: `${BASE}/slow`, json: {} }),
        ctx.quietRaw({ path: `${BASE}/slow?other=query`, json: {} }),
      ]);
      ctx.note(
        "same path with another query overlaps",
        split.some((a) => (a.json as { atEnd?: number } | undefined)?.atEnd === 2),
      );
    },
  ),
  probe(
    "plugin.storage",
    "siyuan.storage put/get/list/remove, traversal refused, the files under data/storage/petal",
    ["/plugin/private/*"],
    async (ctx) => {
      await ensurePlugin(ctx);
      await ctx.call("storage ops", { path: `${BASE}/storage`, json: {} });
      await ctx.call("file through the API", {
        path: "/api/file/getFile",
        json: { path: `/data/storage/petal/${PROBE_PLUGIN}/probe/a.txt` },
      });
      await ctx.call("removed file through the API", {
        path: "/api/file/getFile",
        json: { path: `/data/storage/petal/${PROBE_PLUGIN}/probe/b.json` },
      });
    },
  ),
  probe(
    "plugin.client-and-rpc",
    "siyuan.client.fetch to the kernel's API; JSON-RPC at /api/plugin/rpc/<name>",
    ["/plugin/private/*", "/api/plugin/rpc/*"],
    async (ctx) => {
      await ensurePlugin(ctx);
      await ctx.call("client fetch", { path: `${BASE}/fetch`, json: {} });
      const rpc = `/api/plugin/rpc/${PROBE_PLUGIN}`;
      await ctx.call("rpc echo", {
        path: rpc,
        json: { jsonrpc: "2.0", id: 1, method: "echo", params: ["a", 2] },
      });
      await ctx.call("rpc throws", { path: rpc, json: { jsonrpc: "2.0", id: 2, method: "fail" } });
      await ctx.call("rpc unknown method", {
        path: rpc,
        json: { jsonrpc: "2.0", id: 3, method: "nope" },
      });
      await ctx.call("rpc unknown plugin", {
        path: "/api/plugin/rpc/no-such-plugin",
        json: { jsonrpc: "2.0", id: 4, method: "echo" },
      });
      await ctx.call("rpc bad json", { path: rpc, raw: "{" });
    },
  ),
];
