/**
 * The authority this invocation talks to, chosen the way every Sisyphus runtime chooses it: the
 * plugin's settings (`kernelEndpointEnabled`, read through the kernel's file API) select the
 * kernel plugin's `/mcp` on the SiYuan port, otherwise the Node HTTP authority of the data
 * directory (the running one `authority.json` names, an explicit `--authority-url`, or one started
 * in the background as a stdio process would). Never a fallback from one to the other.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
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

/**
 * The `sisyphus-server` launcher of the installed Node server, started as a background authority.
 * Found through the package's `package.json` export, which resolves alike from the CommonJS
 * program and from the sources (`import.meta.url` is the bundle's own file there: tsup's shim).
 */
function serverLauncher(): string {
  const manifest = createRequire(import.meta.url).resolve("@sisyphus/node-server/package.json");
  return join(dirname(manifest), "dist", "bin.cjs");
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
  const token = config.siyuanToken;
  // The Node link is made ready while the kernel answers the settings read (its module loaded,
  // `authority.json` and the credential read; nothing started or sent): most calls go to it, and
  // the wait was a tenth of a read's time. The settings still choose; a kernel choice drops it.
  const nodeLink = AuthorityLink.open({
    ...(onTransfer === undefined ? {} : { onTransfer }),
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
  }).then((link) => {
    link.prefetch();
    return link;
  });
  nodeLink.catch(() => undefined); // awaited below only when the settings choose it
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
  return { kind: "node-http", link: await nodeLink };
}
