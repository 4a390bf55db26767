/** System endpoints, authentication and the envelope's argument errors (contract §1, §4.9). */
import { probe } from "./kit.js";

export const systemProbes = [
  probe(
    "system.version",
    "version by POST and GET, with and without a token",
    ["/api/system/version"],
    async (ctx) => {
      await ctx.post("post", "/api/system/version");
      await ctx.call("get", { method: "GET", path: "/api/system/version" });
      await ctx.call("no-token", { path: "/api/system/version", json: {}, auth: false });
    },
  ),
  probe(
    "system.currentTime",
    "currentTime answers Unix milliseconds",
    ["/api/system/currentTime"],
    async (ctx) => {
      const a = await ctx.post("post", "/api/system/currentTime", {}, { mask: ["data"] });
      const t = (a.json as { data: unknown }).data;
      // milliseconds since the epoch have 13 digits until 2286
      ctx.note(
        "data is Unix ms",
        typeof t === "number" && Number.isInteger(t) && t > 1e12 && t < 1e13,
      );
    },
  ),
  probe(
    "system.bootProgress",
    "bootProgress of a booted kernel",
    ["/api/system/bootProgress"],
    async (ctx) => {
      await ctx.post("post", "/api/system/bootProgress");
    },
  ),
  probe(
    "auth.guards",
    "wrong token, token in the query, no token from localhost, unknown route",
    ["/api/notebook/lsNotebooks"],
    async (ctx) => {
      await ctx.call("wrong token", {
        path: "/api/notebook/lsNotebooks",
        json: {},
        auth: false,
        headers: { authorization: "Token wrong-token" },
      });
      await ctx.call("bearer", {
        path: "/api/system/bootProgress",
        json: {},
        auth: false,
        headers: { authorization: `Bearer ${ctx.token}` },
      });
      await ctx.call("wrong query token", {
        path: "/api/notebook/lsNotebooks?token=wrong-token",
        json: {},
        auth: false,
      });
      await ctx.call(
        "no token (localhost)",
        { path: "/api/notebook/lsNotebooks", json: {}, auth: false },
        { keep: (j) => ({ code: (j as { code: number }).code }) },
      );
      await ctx.call("unknown route", { path: "/api/probe/noSuchEndpoint", json: {} });
      await ctx.call("GET on a POST route", { method: "GET", path: "/api/notebook/lsNotebooks" });
    },
  ),
  probe(
    "envelope.bad-body",
    "a body that is not a JSON object, and a missing required field",
    ["/api/block/getBlockKramdown", "/api/filetree/getHPathByID"],
    async (ctx) => {
      await ctx.call("empty body", { path: "/api/block/getBlockKramdown", raw: "" });
      await ctx.call("not JSON", { path: "/api/block/getBlockKramdown", raw: "not json" });
      await ctx.call("JSON array", { path: "/api/block/getBlockKramdown", raw: "[1]" });
      await ctx.post("missing id", "/api/block/getBlockKramdown", {});
      await ctx.post("id not a string", "/api/block/getBlockKramdown", { id: 42 });
      await ctx.post("malformed id", "/api/filetree/getHPathByID", { id: "not-an-id" });
    },
  ),
];
