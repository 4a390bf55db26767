/** Enumerates a client's endpoint methods as `group.method` keys, with minimal arguments for each. */
import { ENDPOINTS, type EndpointKey, type SiyuanClient } from "../../src/index.js";

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

const ARRAY_FIELDS = new Set([
  "ids",
  "fromIDs",
  "notebooks",
  "paths",
  "fromPaths",
  "srcIDs",
  "srcs",
  "values",
  "blockAttrs",
  "transactions",
]);

/** Arguments that satisfy the table's required fields (the wire server does not judge them). */
export function sampleArgs(key: string): Record<string, unknown> {
  const spec = ENDPOINTS[key as EndpointKey];
  const args: Record<string, unknown> = {};
  for (const f of [...spec.required, ...(spec.anyOf?.slice(0, 1) ?? [])]) {
    if (ARRAY_FIELDS.has(f)) args[f] = [];
    else if (f === "attrs" || f === "conf") args[f] = {};
    else if (f === "files") args[f] = [{ filename: "a.txt", bytes: Uint8Array.from([97]) }];
    else if (f === "dataType") args[f] = "markdown";
    else args[f] = "20260101120000-abcdefg";
  }
  if (key === "file.putFile") args["file"] = "x";
  return args;
}

/** Calls `client[group][method](args)`. */
export function invokeByKey(client: SiyuanClient, key: string, args: unknown): Promise<unknown> {
  const [group, method] = key.split(".") as [string, string];
  const g = (client as unknown as Record<string, Record<string, (a: unknown) => Promise<unknown>>>)[
    group
  ]!;
  return g[method]!(args);
}
