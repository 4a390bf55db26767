/**
 * Where the CLI finds its kernel and its authority: flags > profile > environment > defaults.
 *
 * Profiles live in one JSON file in the user's config directory (`$SISYPHUS_CONFIG`, else
 * `$XDG_CONFIG_HOME/sisyphus/config.json`, else `~/.config/sisyphus/config.json`), written 0600 in
 * a 0700 directory. A profile never holds a secret: it names the environment variable that holds
 * the SiYuan API token (`tokenEnv`, default `SIYUAN_TOKEN`) and the one that holds the Node
 * authority's bearer (`authTokenEnv`, default `SISYPHUS_AUTH_TOKEN`).
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { CliError } from "./errors.js";
import { EXIT } from "./exit-codes.js";

/** The settings a profile may hold, with their flags and environment variables. */
export const PROFILE_KEYS = {
  siyuanUrl: { flag: "siyuan-url", env: "SIYUAN_URL", default: "http://127.0.0.1:6806" },
  dataDir: { flag: "data-dir", env: "SISYPHUS_DATA_DIR", default: join(homedir(), ".sisyphus") },
  authorityUrl: { flag: "authority-url", env: "SISYPHUS_AUTHORITY_URL", default: undefined },
  tokenEnv: { flag: "token-env", env: undefined, default: "SIYUAN_TOKEN" },
  authTokenEnv: { flag: "auth-token-env", env: undefined, default: "SISYPHUS_AUTH_TOKEN" },
  output: { flag: "output", env: "SISYPHUS_OUTPUT", default: undefined },
} as const;

export type ProfileKey = keyof typeof PROFILE_KEYS;
export type Profile = Partial<Record<ProfileKey, string>>;

/** The config file's shape. */
export interface ConfigFile {
  defaultProfile?: string;
  profiles: Record<string, Profile>;
}

/** Everything a command needs to reach the kernel and the authority. */
export interface Resolved {
  readonly siyuanUrl: string;
  readonly siyuanToken: string | undefined;
  readonly dataDir: string;
  readonly authorityUrl: string | undefined;
  readonly authToken: string | undefined;
  readonly output: "human" | "json" | undefined;
  /** The profile used, if any, and where each value came from (for `config list` and `doctor`). */
  readonly profile: string | undefined;
  readonly sources: Readonly<Record<ProfileKey, "flag" | "profile" | "environment" | "default">>;
}

type Env = Readonly<Record<string, string | undefined>>;

export function configPath(env: Env): string {
  const explicit = env["SISYPHUS_CONFIG"];
  if (explicit !== undefined && explicit !== "") return resolve(explicit);
  const xdg = env["XDG_CONFIG_HOME"];
  const base = xdg !== undefined && xdg !== "" ? xdg : join(env["HOME"] ?? homedir(), ".config");
  return join(base, "sisyphus", "config.json");
}

function invalid(message: string): CliError {
  return new CliError(EXIT.usage, "config_invalid", message);
}

export function readConfigFile(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { profiles: {} };
    throw invalid(`cannot read ${path}: ${(e as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw invalid(`${path} is not JSON`);
  }
  const r = raw as Partial<ConfigFile> | null;
  if (r === null || typeof r !== "object" || Array.isArray(r))
    throw invalid(`${path} is not a JSON object`);
  const profiles = r.profiles ?? {};
  if (typeof profiles !== "object" || profiles === null || Array.isArray(profiles)) {
    throw invalid(`${path}: profiles must be an object`);
  }
  for (const [name, p] of Object.entries(profiles)) {
    for (const [k, v] of Object.entries(p ?? {})) {
      if (!(k in PROFILE_KEYS)) throw invalid(`${path}: profile ${name}: unknown key ${k}`);
      if (typeof v !== "string") throw invalid(`${path}: profile ${name}: ${k} must be a string`);
    }
  }
  return {
    ...(typeof r.defaultProfile === "string" ? { defaultProfile: r.defaultProfile } : {}),
    profiles: profiles as Record<string, Profile>,
  };
}

/** Writes the file atomically, owner-only. */
export function writeConfigFile(path: string, config: ConfigFile): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

/** Checks one value before it is stored or used. */
export function checkValue(key: ProfileKey, value: string): string {
  if (key === "siyuanUrl" || key === "authorityUrl") {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw invalid(`${key}: "${value}" is not a URL like http://127.0.0.1:6806`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw invalid(`${key}: "${value}" must use http or https`);
    }
    return url.toString().replace(/\/+$/, "");
  }
  if (key === "tokenEnv" || key === "authTokenEnv") {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) {
      throw invalid(
        `${key}: "${value}" is not an environment variable name (the token itself is never stored)`,
      );
    }
  }
  if (key === "output" && value !== "human" && value !== "json") {
    throw invalid(`output: "${value}" must be human or json`);
  }
  if (key === "dataDir") return resolve(value);
  return value;
}

/**
 * Resolves the settings. `flags` holds the global flags given (by flag name); the profile is
 * `--profile`, else `SISYPHUS_PROFILE`, else the file's `defaultProfile`; naming a profile that
 * does not exist is an error.
 */
export function resolveConfig(
  flags: Readonly<Record<string, string | undefined>>,
  env: Env,
): Resolved {
  const file = readConfigFile(configPath(env));
  const named = flags["profile"] ?? nonEmpty(env["SISYPHUS_PROFILE"]) ?? file.defaultProfile;
  const profile = named === undefined ? undefined : file.profiles[named];
  if (
    named !== undefined &&
    profile === undefined &&
    (flags["profile"] !== undefined || nonEmpty(env["SISYPHUS_PROFILE"]) !== undefined)
  ) {
    throw invalid(`no profile named "${named}" in ${configPath(env)} (sisyphus config list)`);
  }
  const sources = {} as Record<ProfileKey, "flag" | "profile" | "environment" | "default">;
  const value = (key: ProfileKey): string | undefined => {
    const spec = PROFILE_KEYS[key];
    const fromFlag = flags[spec.flag];
    if (fromFlag !== undefined) {
      sources[key] = "flag";
      return checkValue(key, fromFlag);
    }
    const fromProfile = profile?.[key];
    if (fromProfile !== undefined) {
      sources[key] = "profile";
      return checkValue(key, fromProfile);
    }
    const fromEnv = spec.env === undefined ? undefined : nonEmpty(env[spec.env]);
    if (fromEnv !== undefined) {
      sources[key] = "environment";
      return checkValue(key, fromEnv);
    }
    sources[key] = "default";
    return spec.default;
  };
  const siyuanUrl = value("siyuanUrl") as string;
  const dataDir = value("dataDir") as string;
  const authorityUrl = value("authorityUrl");
  const tokenEnv = value("tokenEnv") as string;
  const authTokenEnv = value("authTokenEnv") as string;
  const output = value("output") as "human" | "json" | undefined;
  return {
    siyuanUrl,
    siyuanToken: nonEmpty(env[tokenEnv]),
    dataDir,
    authorityUrl,
    authToken: nonEmpty(env[authTokenEnv]),
    output,
    profile: profile === undefined ? undefined : named,
    sources,
  };
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === "" ? undefined : v;
}
