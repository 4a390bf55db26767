/**
 * `sisyphus doctor`: what stands between this terminal and a strict write, checked in order —
 * the kernel answers, the API token is accepted, the settings select an authority, the kernel
 * plugin is installed and running, the selected authority answers — with the versions seen.
 * Exit 0 when a call can go through, 6 otherwise. Never writes anything.
 */

import { SISYPHUS_VERSION } from "@sisyphus/mcp-tools";
import { KERNEL_MCP_PATH, PLUGIN_NAME } from "@sisyphus/mcp-tools/settings";
import {
  kernelAuthorization,
  readAuthorityRecord,
  readLocalCredential,
  readSettings,
  SETTINGS_READ_TIMEOUT_MS,
} from "@sisyphus/node-server/delegation";
import type { Resolved } from "../config.js";
import { EXIT } from "../exit-codes.js";
import { type Io, out, paint } from "../io.js";

interface Check {
  readonly name: string;
  /** `warn`: works, but worth knowing (e.g. the authority will be started on the first call). */
  readonly status: "ok" | "warn" | "fail";
  readonly detail: string;
}

const TIMEOUT_MS = 5_000;

async function fetchJson(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; body: unknown } | { error: string }> {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}

export async function runDoctor(io: Io, config: Resolved): Promise<number> {
  const checks: Check[] = [
    {
      name: "cli",
      status: "ok",
      detail: `sisyphus ${SISYPHUS_VERSION}${config.profile ? `, profile ${config.profile}` : ""}`,
    },
  ];
  const auth = kernelAuthorization(config.siyuanToken);
  const version = await fetchJson(`${config.siyuanUrl}/api/system/version`);
  if ("error" in version || version.status !== 200) {
    checks.push({
      name: "kernel",
      status: "fail",
      detail: `${config.siyuanUrl} does not answer${"error" in version ? ` (${version.error})` : ` (HTTP ${version.status})`}`,
    });
    return report(io, checks);
  }
  const kernelVersion = (version.body as { data?: unknown }).data;
  checks.push({
    name: "kernel",
    status: "ok",
    detail: `${config.siyuanUrl}, SiYuan ${String(kernelVersion)}`,
  });
  const probe = await fetchJson(`${config.siyuanUrl}/api/notebook/lsNotebooks`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: "{}",
  });
  const tokenOk =
    !("error" in probe) && probe.status === 200 && (probe.body as { code?: unknown }).code === 0;
  checks.push(
    tokenOk
      ? {
          name: "token",
          status: "ok",
          detail:
            config.siyuanToken === undefined
              ? "no token needed (no access code set)"
              : "the API token is accepted",
        }
      : {
          name: "token",
          status: "fail",
          detail:
            config.siyuanToken === undefined
              ? "the kernel wants an API token: set SIYUAN_TOKEN (or --token-env)"
              : "the kernel refused the API token",
        },
  );
  if (!tokenOk) return report(io, checks);
  const settings = await readSettings(
    config.siyuanUrl,
    config.siyuanToken,
    SETTINGS_READ_TIMEOUT_MS,
  );
  if (!settings.ok) {
    checks.push({ name: "settings", status: "fail", detail: settings.message });
    return report(io, checks);
  }
  const kind = settings.kind;
  checks.push({
    name: "settings",
    status: "ok",
    detail: `write authority: ${kind === "kernel" ? "the kernel plugin (kernelEndpointEnabled)" : "the Node server"}`,
  });
  const health = await fetchJson(`${config.siyuanUrl}/plugin/private/${PLUGIN_NAME}/health`, {
    headers: auth,
  });
  const pluginRunning = !("error" in health) && health.status === 200;
  const pluginDetail = pluginRunning
    ? `${PLUGIN_NAME} running (epoch ${String((health.body as { epoch?: unknown }).epoch ?? "?")})`
    : !("error" in health) && health.status === 404
      ? `${PLUGIN_NAME} is not installed or not enabled`
      : `${PLUGIN_NAME} is not serving${"error" in health ? "" : ` (HTTP ${health.status})`}`;
  checks.push({
    name: "plugin",
    status: pluginRunning ? "ok" : kind === "kernel" ? "fail" : "warn",
    detail: pluginDetail,
  });
  if (kind === "kernel") {
    checks.push({
      name: "authority",
      status: pluginRunning ? "ok" : "fail",
      detail: pluginRunning
        ? `${config.siyuanUrl}${KERNEL_MCP_PATH}`
        : "the settings select the kernel plugin, which is not serving: strict calls answer write_coordinator_unavailable",
    });
    return report(io, checks);
  }
  checks.push(await nodeAuthority(config));
  return report(io, checks);
}

async function nodeAuthority(config: Resolved): Promise<Check> {
  const record = await readAuthorityRecord(config.dataDir);
  if (record === "untrusted")
    return {
      name: "authority",
      status: "fail",
      detail: `${config.dataDir}/authority.json is not a private file of this user`,
    };
  const url = config.authorityUrl ?? record?.url;
  if (url === undefined) {
    return {
      name: "authority",
      status: "warn",
      detail: `no Node authority serves ${config.dataDir}; the first call starts one in the background`,
    };
  }
  const credential = config.authToken ?? (await readLocalCredential(config.dataDir));
  if (credential === "untrusted" || credential === undefined) {
    return {
      name: "authority",
      status: "fail",
      detail: `no usable credential for ${url} (set SISYPHUS_AUTH_TOKEN or --auth-token-env)`,
    };
  }
  const health = await fetchJson(new URL("/health", url).toString(), {
    headers: { authorization: `Bearer ${credential}` },
  });
  if ("error" in health || health.status !== 200) {
    return {
      name: "authority",
      status: "fail",
      detail: `${url} does not answer${"error" in health ? "" : ` (HTTP ${health.status})`}`,
    };
  }
  return { name: "authority", status: "ok", detail: `Node authority at ${url}` };
}

function report(io: Io, checks: readonly Check[]): number {
  const failed = checks.some((c) => c.status === "fail");
  const exitCode = failed ? EXIT.unavailable : EXIT.ok;
  if (io.json) {
    out(io, JSON.stringify({ exitCode, result: { ok: !failed, checks } }));
    return exitCode;
  }
  const mark = {
    ok: paint(io, "green", "ok  "),
    warn: paint(io, "yellow", "warn"),
    fail: paint(io, "red", "FAIL"),
  };
  for (const c of checks) out(io, `${mark[c.status]}  ${c.name.padEnd(9)} ${c.detail}`);
  return exitCode;
}
