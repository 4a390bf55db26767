/** Enumerates a client's endpoint methods as `group.method` keys, with minimal arguments for each. */
import type { SiyuanClient } from "../../src/index.js";

/** Top-level client members that are not kernel endpoints. */
export const NON_ENDPOINT_MEMBERS = new Set(["flush", "callRaw", "stats", "resetStats", "close"]);

/** Every `group.method` the client object exposes. */
export function clientMethodKeys(client: SiyuanClient): string[] {
  const keys: string[] = [];
  for (const [group, value] of Object.entries(client)) {
    if (NON_ENDPOINT_MEMBERS.has(group)) continue;
    for (const [method, fn] of Object.entries(value as Record<string, unknown>)) {
      if (typeof fn === "function") keys.push(`${group}.${method}`);
    }
  }
  return keys.sort();
}

/** Arguments good enough to build a request for each method (the server does not judge them). */
export function sampleArgs(key: string): unknown {
  switch (key) {
    case "asset.upload":
      return { files: [{ filename: "a.txt", bytes: Uint8Array.from([97]) }] };
    case "file.putFile":
      return { path: "/data/x.txt", file: "x" };
    case "query.sql":
      return { stmt: "select 1" };
    default:
      return { id: "20260101120000-abcdefg" };
  }
}

/** Calls `client[group][method](args)`. */
export function invokeByKey(client: SiyuanClient, key: string, args: unknown): Promise<unknown> {
  const [group, method] = key.split(".") as [string, string];
  const g = (client as unknown as Record<string, Record<string, (a: unknown) => Promise<unknown>>>)[
    group
  ]!;
  return g[method]!(args);
}
