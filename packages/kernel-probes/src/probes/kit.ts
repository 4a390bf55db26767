/** Small helpers the probe files share: reading envelopes and transactions, building probes. */
import type { ProbeAnswer } from "../http.js";
import { type Probe, type ProbeContext, ProbeError } from "../probe.js";

/** The envelope of a JSON answer. */
export interface Envelope<T = unknown> {
  code: number;
  msg: string;
  data: T;
}

/** The envelope of an answer; throws when the body is not one. */
export function env<T = unknown>(a: ProbeAnswer): Envelope<T> {
  const j = a.json as Partial<Envelope<T>> | undefined;
  if (j === undefined || typeof j.code !== "number") {
    throw new ProbeError(`not an envelope: HTTP ${a.status} ${a.text.slice(0, 200)}`);
  }
  return j as Envelope<T>;
}

/** `data` of a code-0 answer; throws otherwise. */
export function data<T = unknown>(a: ProbeAnswer): T {
  const e = env<T>(a);
  if (e.code !== 0) throw new ProbeError(`code ${e.code}: ${e.msg}`);
  return e.data;
}

/** The first new block ID of a block-write transaction reply (`data[0].doOperations[0].id`). */
export function txId(a: ProbeAnswer): string {
  const d = data<Array<{ doOperations: Array<{ id: string }> | null }>>(a);
  const id = d?.[0]?.doOperations?.[0]?.id;
  if (typeof id !== "string" || id === "") throw new ProbeError("no block ID in the transaction");
  return id;
}

/** A child block as `getChildBlocks` lists it. */
export interface ChildBlock {
  id: string;
  type: string;
  subType?: string;
}

/** Direct children of a block (quiet). */
export function children(ctx: ProbeContext, id: string): Promise<ChildBlock[]> {
  return ctx.quiet<ChildBlock[]>("/api/block/getChildBlocks", { id });
}

/** The kramdown of a block (quiet). */
export async function kramdown(ctx: ProbeContext, id: string): Promise<string> {
  return (await ctx.quiet<{ kramdown: string }>("/api/block/getBlockKramdown", { id })).kramdown;
}

/** The nth child of a block (quiet); throws when there is none. */
export async function childAt(ctx: ProbeContext, id: string, n: number): Promise<ChildBlock> {
  const c = (await children(ctx, id))[n];
  if (!c) throw new ProbeError(`block ${id} has no child ${n}`);
  return c;
}

/** A well-formed node ID that no kernel will ever have created. */
export const UNKNOWN_ID = "20200101000000-zzzzzzz";

/** Builds a probe (keeps the probe files short). */
export function probe(
  id: string,
  title: string,
  endpoints: readonly string[],
  run: (ctx: ProbeContext) => Promise<void>,
): Probe {
  return { id, title, endpoints, run };
}

/** UTF-8 bytes of a string. */
export const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Keeps only the listed keys of each object in an array (data projections). */
export function pick<T extends Record<string, unknown>>(
  rows: readonly T[],
  keys: readonly string[],
): Array<Record<string, unknown>> {
  return rows.map((r) => Object.fromEntries(keys.filter((k) => k in r).map((k) => [k, r[k]])));
}
