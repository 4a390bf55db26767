/**
 * The authority this invocation talks to, chosen the way every Sisyphus runtime chooses it: the
 * plugin's settings (`kernelEndpointEnabled`, read through the kernel's file API) select the
 * kernel plugin's `/mcp` on the SiYuan port, otherwise the Node HTTP authority of the data
 * directory (the running one `authority.json` names, an explicit `--authority-url`, or one started
 * in the background as a stdio process would). Never a fallback from one to the other.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type AuthorityKind,
  AuthorityLink,
  DEFAULT_BACKGROUND_IDLE_STOP_MS,
  type OnTransfer,
  readSettings,
  SETTINGS_READ_TIMEOUT_MS,
} from "@sisyphus/node-server/delegation";
import type { Resolved } from "./config.js";
import { CliError } from "./errors.js";
import { EXIT } from "./exit-codes.js";

export interface Authority {
  readonly kind: AuthorityKind;
  readonly link: AuthorityLink;
}

/** The `sisyphus-server` launcher of the installed Node server, started as a background authority. */
function serverLauncher(): string {
  const entry = fileURLToPath(import.meta.resolve("@sisyphus/node-server"));
  return join(dirname(entry), "bin.cjs");
}

/**
 * Reads the settings and opens the link to the selected authority.
 * @throws CliError (exit 6) when the kernel cannot be asked or the settings are unusable.
 */
export async function openAuthority(
  config: Resolved,
  autostart: boolean,
  onTransfer?: OnTransfer,
): Promise<Authority> {
  const read = await readSettings(config.siyuanUrl, config.siyuanToken, SETTINGS_READ_TIMEOUT_MS);
  if (!read.ok) {
    const code =
      read.reason === "unreachable"
        ? "kernel_unreachable"
        : read.reason === "unauthorized"
          ? "kernel_unauthorized"
          : "settings_invalid";
    throw new CliError(
      EXIT.unavailable,
      code,
      `Cannot choose the write authority: ${read.message}. Nothing was sent (sisyphus doctor).`,
    );
  }
  const token = config.siyuanToken;
  if (read.kind === "kernel") {
    return {
      kind: "kernel",
      link: await AuthorityLink.open({
        ...(onTransfer === undefined ? {} : { onTransfer }),
        kernel: {
          siyuanUrl: config.siyuanUrl,
          ...(token === undefined ? {} : { siyuanToken: token }),
        },
      }),
    };
  }
  return {
    kind: "node-http",
    link: await AuthorityLink.open({
      dataDir: config.dataDir,
      siyuanUrl: config.siyuanUrl,
      ...(config.authorityUrl === undefined ? {} : { authorityUrl: config.authorityUrl }),
      ...(config.authToken === undefined ? {} : { authToken: config.authToken }),
      ...(autostart && config.authorityUrl === undefined
        ? {
            autostart: {
              launcher: serverLauncher,
              siyuanUrl: config.siyuanUrl,
              ...(token === undefined ? {} : { siyuanToken: token }),
              strict: true,
              idleStopMs: DEFAULT_BACKGROUND_IDLE_STOP_MS,
            },
          }
        : {}),
    }),
  };
}
