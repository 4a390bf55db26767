/**
 * `sisyphus config`: the profiles file. `path`, `list`, `get KEY`, `set KEY VALUE`, `unset KEY`
 * (in `--profile NAME`, default `default`), `use NAME` (the default profile). Keys are the
 * profile keys of `config.ts`; a token is never stored, only the name of its variable.
 */

import {
  type ConfigFile,
  checkValue,
  configPath,
  PROFILE_KEYS,
  type ProfileKey,
  type Resolved,
  readConfigFile,
  resolveConfig,
  writeConfigFile,
} from "../config.js";
import { CliError } from "../errors.js";
import { EXIT } from "../exit-codes.js";
import { type Io, out, table } from "../io.js";

type Env = Readonly<Record<string, string | undefined>>;

function keyOf(raw: string | undefined): ProfileKey {
  const key = Object.keys(PROFILE_KEYS).find(
    (k) => k === raw || PROFILE_KEYS[k as ProfileKey].flag === raw,
  );
  if (key === undefined) {
    throw new CliError(
      EXIT.usage,
      "usage",
      `unknown key "${raw ?? ""}"; keys: ${Object.keys(PROFILE_KEYS).join(", ")}`,
    );
  }
  return key as ProfileKey;
}

export function runConfig(
  io: Io,
  env: Env,
  flags: Readonly<Record<string, string | undefined>>,
  words: readonly string[],
): number {
  const [sub, a, b] = words;
  const path = configPath(env);
  const profileName = flags["profile"] ?? "default";
  const emit = (result: unknown, lines: string[]) => {
    if (io.json) out(io, JSON.stringify({ exitCode: 0, result }));
    else for (const l of lines) out(io, l);
    return 0;
  };
  switch (sub) {
    case "path":
      return emit({ path }, [path]);
    case "list": {
      const file = readConfigFile(path);
      const resolved: Resolved = resolveConfig(flags, env);
      const rows = (Object.keys(PROFILE_KEYS) as ProfileKey[]).map((k) => {
        const v =
          k === "tokenEnv" || k === "authTokenEnv"
            ? undefined
            : (resolved as unknown as Record<string, unknown>)[k];
        return [
          k,
          v === undefined ? shownValue(k, resolved, file) : String(v),
          resolved.sources[k],
        ];
      });
      return emit(
        {
          path,
          defaultProfile: file.defaultProfile ?? null,
          profiles: file.profiles,
          effective: Object.fromEntries(rows.map((r) => [r[0], { value: r[1], source: r[2] }])),
        },
        [
          `config file: ${path}`,
          `profiles: ${Object.keys(file.profiles).join(", ") || "(none)"}${file.defaultProfile ? ` (default: ${file.defaultProfile})` : ""}`,
          `in effect${resolved.profile ? ` (profile ${resolved.profile})` : ""}:`,
          ...table(rows).map((l) => `  ${l}`),
        ],
      );
    }
    case "get": {
      const key = keyOf(a);
      const v = readConfigFile(path).profiles[profileName]?.[key];
      return emit({ profile: profileName, key, value: v ?? null }, [v ?? ""]);
    }
    case "set":
    case "unset": {
      const key = keyOf(a);
      if (sub === "set" && b === undefined)
        throw new CliError(EXIT.usage, "usage", "sisyphus config set KEY VALUE");
      const file: ConfigFile = readConfigFile(path);
      const profile = { ...(file.profiles[profileName] ?? {}) };
      if (sub === "set") profile[key] = checkValue(key, b as string);
      else delete profile[key];
      writeConfigFile(path, { ...file, profiles: { ...file.profiles, [profileName]: profile } });
      return emit({ profile: profileName, key, value: profile[key] ?? null }, [
        `${profileName}.${key} ${sub === "set" ? `= ${profile[key]}` : "removed"}`,
      ]);
    }
    case "use": {
      if (a === undefined) throw new CliError(EXIT.usage, "usage", "sisyphus config use PROFILE");
      const file = readConfigFile(path);
      if (file.profiles[a] === undefined)
        throw new CliError(EXIT.usage, "config_invalid", `no profile named "${a}"`);
      writeConfigFile(path, { ...file, defaultProfile: a });
      return emit({ defaultProfile: a }, [`default profile: ${a}`]);
    }
    default:
      throw new CliError(
        EXIT.usage,
        "usage",
        "sisyphus config path|list|get KEY|set KEY VALUE|unset KEY|use PROFILE [--profile NAME]",
      );
  }
}

/** Token variables are shown by name with whether they are set, never their value. */
function shownValue(key: ProfileKey, resolved: Resolved, file: ConfigFile): string {
  if (key === "tokenEnv")
    return `${file.profiles[resolved.profile ?? ""]?.tokenEnv ?? PROFILE_KEYS.tokenEnv.default} (${resolved.siyuanToken === undefined ? "not set" : "set"})`;
  if (key === "authTokenEnv")
    return `${file.profiles[resolved.profile ?? ""]?.authTokenEnv ?? PROFILE_KEYS.authTokenEnv.default} (${resolved.authToken === undefined ? "not set" : "set"})`;
  return "";
}
