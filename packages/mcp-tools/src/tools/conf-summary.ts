/**
 * system.conf: a read-only summary of SiYuan's configuration, by an allow-list. The kernel's
 * `getConf` answers everything, secrets included (the API token, `cookieKey`, the access code, sync
 * and AI keys, publish accounts) and host paths (`export.pandocParams`, `serverAddrs`); only the
 * fields named here leave the process, and only when they are strings, numbers or booleans.
 */

/**
 * The configuration fields `system.conf` answers, as dot paths into the kernel's `conf`. Adding a
 * field here publishes it: it must hold no secret, no host path and no address.
 */
export const CONF_SUMMARY_FIELDS = [
  "system.kernelVersion",
  "system.os",
  "system.container",
  "lang",
  "readonly",
  "appearance.mode",
  "fileTree.sort",
  "fileTree.maxListCount",
  "fileTree.createDocAtTop",
  "search.limit",
  "search.caseSensitive",
  "editor.readOnly",
  "editor.historyRetentionDays",
  "editor.generateHistoryInterval",
  "editor.blockRefDynamicAnchorTextMaxLen",
  "sync.enabled",
] as const;

type Scalar = string | number | boolean;
const isScalar = (v: unknown): v is Scalar =>
  typeof v === "string" || typeof v === "number" || typeof v === "boolean";

/**
 * The allow-listed fields of `conf`, nested as in the kernel's (`{fileTree: {sort: 6}, lang: …}`);
 * a field the kernel lacks, or holds as anything but a scalar, is left out.
 */
export function confSummary(conf: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const path of CONF_SUMMARY_FIELDS) {
    const keys = path.split(".");
    let v: unknown = conf;
    for (const k of keys) {
      v = v !== null && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined;
    }
    if (!isScalar(v)) continue;
    let at = out;
    for (const k of keys.slice(0, -1)) {
      at[k] ??= {};
      at = at[k] as Record<string, unknown>;
    }
    at[keys[keys.length - 1] as string] = v;
  }
  return out;
}
