/**
 * The function map of SiYuan 3.7.3's templates (`filesys.BuiltInTemplateFuncs` plus
 * `sql.SQLTemplateFuncs`): sprig v3.3.0's `TxtFuncMap` less `env`, `expandenv`, `getHostByName`,
 * SiYuan's date and text helpers, and the SQL queries. Every name is listed; those the sandbox
 * models have an implementation with the Go signature's parameter kinds, the rest are `null` (the
 * engine refuses them by name when called).
 */
import { createHash } from "node:crypto";
import {
  GoDuration,
  GoEnum,
  GoFloat,
  GoInt64,
  type GoValue,
  goQuote,
  goSprint,
  NO_VALUE,
  NotModelledError,
} from "./go-fmt.js";
import type { TemplateEnv, TemplateFunc } from "./go-template.js";
import {
  civil,
  formatGoDurationSeconds,
  formatGoTime,
  GoTime,
  inZone,
  type LocalZone,
  parseGoDuration,
  parseGoTime,
  utcZone,
  zeroTime,
} from "./go-time.js";

/** cast.ToInt64 (strings parsed with base prefixes, floats truncated, anything else 0). */
function toInt64(v: GoValue): number {
  if (typeof v === "number") return v;
  if (v instanceof GoInt64 || v instanceof GoFloat) return Math.trunc(v.v);
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "string") {
    const s = v.replace(/\.0*$/, "");
    if (/^[+-]?(0[xX][0-9a-fA-F]+|0[oO]?[0-7]+|0[bB][01]+|[1-9]\d*|0)$/.test(s)) {
      const neg = s.startsWith("-");
      const body = s.replace(/^[+-]/, "");
      const n = /^0[0-7]+$/.test(body)
        ? Number.parseInt(body, 8)
        : Number(body.replace(/^0[oO]/, "0o"));
      return neg ? -n : n;
    }
    return 0;
  }
  return 0;
}

function toFloat64(v: GoValue): number {
  if (typeof v === "number") return v;
  if (v instanceof GoInt64 || v instanceof GoFloat) return v.v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "string") {
    const n = Number(v);
    return v.trim() !== "" && !Number.isNaN(n) ? n : 0;
  }
  return 0;
}

/** sprig's `strval`. */
function strval(v: GoValue): string {
  return typeof v === "string" ? v : goSprint([v]);
}

/** sprig's `empty`. */
function empty(v: GoValue): boolean {
  if (v === null || v === NO_VALUE) return true;
  if (typeof v === "string" || Array.isArray(v)) return v.length === 0;
  if (v instanceof Map) return v.size === 0;
  if (typeof v === "boolean") return !v;
  if (typeof v === "number") return v === 0;
  if (v instanceof GoInt64 || v instanceof GoFloat) return v.v === 0;
  return false;
}

function strslice(v: GoValue): string[] {
  if (Array.isArray(v)) return v.filter((x) => x !== null).map(strval);
  if (v === null || v === NO_VALUE) return [];
  return [strval(v)];
}

const i64 = (n: number): GoInt64 => new GoInt64(n);
const f = (
  params: TemplateFunc["params"],
  call: TemplateFunc["call"],
  variadic?: TemplateFunc["variadic"],
) => (variadic ? { params, call, variadic } : { params, call }) as TemplateFunc;

function divide(a: number, b: number, mod: boolean): GoInt64 {
  if (b === 0) throw new Error("runtime error: integer divide by zero");
  return i64(mod ? a % b : Math.trunc(a / b));
}

/** sprig's `dateInZone` argument: a time, or unix seconds; anything else is now. */
function timeArg(v: GoValue, env: TemplateEnv): GoTime {
  if (v instanceof GoTime) return v;
  if (typeof v === "number" || v instanceof GoInt64) return inZone(toInt64(v) * 1000, env.zone);
  return inZone(env.now(), env.zone);
}

function zoneNamed(name: string, env: TemplateEnv): LocalZone {
  if (name === "Local") return env.zone;
  if (name === "" || name === "UTC") return utcZone;
  throw new NotModelledError(`siyuan-sandbox: the time zone [${name}] is not modelled`);
}

function listArg(name: string, v: GoValue): GoValue[] {
  if (Array.isArray(v)) return v;
  throw new Error(`Cannot find ${name} on type ${kindName(v)}`);
}

function kindName(v: GoValue): string {
  if (typeof v === "string") return "string";
  if (typeof v === "number" || v instanceof GoInt64) return typeof v === "number" ? "int" : "int64";
  if (typeof v === "boolean") return "bool";
  if (v instanceof GoFloat) return "float64";
  if (v instanceof Map) return "map";
  return "struct";
}

/** Go's `strings.ToUpper`/`ToLower`: rune by rune, a rune without a one-rune mapping kept (`ß`). */
function mapRunes(s: string, fn: (c: string) => string): string {
  let out = "";
  for (const ch of s) {
    const m = fn(ch);
    out += [...m].length === 1 ? m : ch;
  }
  return out;
}

/** Go's `strings.Title`: the first letter of each word upper-cased. */
function title(s: string): string {
  let prev = " ";
  let out = "";
  for (const ch of s) {
    const sep = !/[\p{L}\p{N}_]/u.test(prev);
    out += sep ? mapRunes(ch, (c) => c.toUpperCase()) : ch;
    prev = ch;
  }
  return out;
}

/** ISO 8601 year and week of a wall date. */
function isoWeek(t: GoTime): [number, number] {
  const c = civil(t);
  const d = new Date(Date.UTC(2000, c.month - 1, c.day));
  d.setUTCFullYear(c.year);
  const wd = (c.weekday + 6) % 7; // Monday 0
  d.setUTCDate(d.getUTCDate() - wd + 3); // the Thursday of this week
  const year = d.getUTCFullYear();
  const jan1 = new Date(0);
  jan1.setUTCFullYear(year, 0, 1);
  return [year, 1 + Math.floor((d.getTime() - jan1.getTime()) / 86_400_000 / 7)];
}

const MODELLED: Record<string, TemplateFunc> = {
  // dates
  now: f([], (_a, env) => {
    const t = inZone(env.now(), env.zone);
    return new GoTime(t.ms, t.offsetSec, t.zone, true);
  }),
  date: f(["string", "any"], ([fmt, d], env) =>
    formatGoTime(inZone(timeArg(d!, env).ms, env.zone), fmt as string),
  ),
  dateInZone: f(["string", "any", "string"], ([fmt, d, z], env) =>
    formatGoTime(inZone(timeArg(d!, env).ms, zoneNamed(z as string, env)), fmt as string),
  ),
  htmlDate: f(["any"], ([d], env) =>
    formatGoTime(inZone(timeArg(d!, env).ms, env.zone), "2006-01-02"),
  ),
  toDate: f(
    ["string", "string"],
    ([fmt, s], env) => parseGoTime(fmt as string, s as string, env.zone) ?? zeroTime(),
  ),
  unixEpoch: f(["time"], ([t]) => String(Math.floor((t as GoTime).ms / 1000))),
  dateModify: f(["string", "time"], ([d, t]) => {
    const ms = parseGoDuration(d as string);
    const tt = t as GoTime;
    return ms === null ? tt : new GoTime(tt.ms + ms, tt.offsetSec, tt.zone, tt.fromClock);
  }),
  duration: f(["any"], ([s]) => {
    let n = 0;
    if (typeof s === "string") n = /^[+-]?\d+$/.test(s) ? Number(s) : 0;
    else if (s instanceof GoInt64) n = s.v;
    return formatGoDurationSeconds(n);
  }),
  ago: f(["any"], ([d], env) =>
    formatGoDurationSeconds(Math.round((env.now() - timeArg(d!, env).ms) / 1000)),
  ),
  Weekday: f(["time"], ([t]) => civil(t as GoTime).weekday),
  WeekdayCN: f(["time"], ([t]) => "日一二三四五六"[civil(t as GoTime).weekday]!),
  WeekdayCN2: f(["time"], ([t]) => "天一二三四五六"[civil(t as GoTime).weekday]!),
  ISOWeek: f(["time"], ([t]) => isoWeek(t as GoTime)[1]),
  ISOYear: f(["time"], ([t]) => isoWeek(t as GoTime)[0]),
  ISOWeekDate: f(["int", "time"], ([d, t]) => {
    const tt = t as GoTime;
    const wd = civil(tt).weekday || 7;
    return addDate(tt, 0, 0, 1 - wd + (d as number) - 1);
  }),
  ISOMonth: f(["time"], ([t]) => {
    const tt = t as GoTime;
    const wd = civil(tt).weekday || 7;
    return civil(addDate(tt, 0, 0, 4 - wd)).month;
  }),
  // strings
  upper: f(["string"], ([s]) => mapRunes(s as string, (c) => c.toUpperCase())),
  lower: f(["string"], ([s]) => mapRunes(s as string, (c) => c.toLowerCase())),
  title: f(["string"], ([s]) => title(s as string)),
  trim: f(["string"], ([s]) => (s as string).trim()),
  trimPrefix: f(["string", "string"], ([a, b]) =>
    (b as string).startsWith(a as string)
      ? (b as string).slice((a as string).length)
      : (b as string),
  ),
  trimSuffix: f(["string", "string"], ([a, b]) =>
    (a as string) !== "" && (b as string).endsWith(a as string)
      ? (b as string).slice(0, -(a as string).length)
      : (b as string),
  ),
  nospace: f(["string"], ([s]) => (s as string).replace(/\s/gu, "")),
  replace: f(["string", "string", "string"], ([o, n, s]) =>
    (s as string).split(o as string).join(n as string),
  ),
  repeat: f(["int", "string"], ([c, s]) => {
    if ((c as number) < 0) throw new Error("strings: negative Repeat count");
    return (s as string).repeat(c as number);
  }),
  contains: f(["string", "string"], ([sub, s]) => (s as string).includes(sub as string)),
  hasPrefix: f(["string", "string"], ([p, s]) => (s as string).startsWith(p as string)),
  hasSuffix: f(["string", "string"], ([p, s]) => (s as string).endsWith(p as string)),
  quote: f(
    [],
    (vs) =>
      vs
        .filter((v) => v !== null)
        .map((v) => goQuote(strval(v)))
        .join(" "),
    "any",
  ),
  squote: f(
    [],
    (vs) =>
      vs
        .filter((v) => v !== null)
        .map((v) => `'${strval(v)}'`)
        .join(" "),
    "any",
  ),
  cat: f(
    [],
    (vs) =>
      vs
        .filter((v) => v !== null)
        .map(strval)
        .join(" "),
    "any",
  ),
  indent: f(["int", "string"], ([n, s]) => {
    const pad = " ".repeat(Math.max(0, n as number));
    return pad + (s as string).split("\n").join(`\n${pad}`);
  }),
  nindent: f(["int", "string"], ([n, s]) => {
    const pad = " ".repeat(Math.max(0, n as number));
    return `\n${pad}${(s as string).split("\n").join(`\n${pad}`)}`;
  }),
  trunc: f(["int", "string"], ([c, s]) => {
    const b = Buffer.from(s as string);
    const n = c as number;
    if (n < 0 && b.length + n > 0) return b.subarray(b.length + n).toString();
    if (n >= 0 && b.length > n) return b.subarray(0, n).toString();
    return s as string;
  }),
  abbrev: f(["int", "string"], ([w, s]) => {
    const width = w as number;
    const str = s as string;
    if (width < 4 || Buffer.byteLength(str) <= width) return str;
    return `${Buffer.from(str)
      .subarray(0, width - 3)
      .toString()}...`;
  }),
  plural: f(["string", "string", "int"], ([one, many, n]) => ((n as number) === 1 ? one! : many!)),
  toString: f(["any"], ([v]) => strval(v!)),
  atoi: f(["string"], ([s]) => (/^[+-]?\d+$/.test(s as string) ? Number(s) : 0)),
  int: f(["any"], ([v]) => toInt64(v!)),
  int64: f(["any"], ([v]) => i64(toInt64(v!))),
  float64: f(["any"], ([v]) => new GoFloat(toFloat64(v!))),
  split: f(["string", "string"], ([sep, s]) => {
    const m = new Map<string, GoValue>();
    for (const [i, p] of (s as string).split(sep as string).entries()) m.set(`_${i}`, p);
    return m;
  }),
  splitList: f(["string", "string"], ([sep, s]) => (s as string).split(sep as string)),
  join: f(["string", "any"], ([sep, v]) => strslice(v!).join(sep as string)),
  b64enc: f(["string"], ([s]) => Buffer.from(s as string).toString("base64")),
  sha256sum: f(["string"], ([s]) =>
    createHash("sha256")
      .update(s as string)
      .digest("hex"),
  ),
  // numbers
  add1: f(["any"], ([v]) => i64(toInt64(v!) + 1)),
  add: f([], (vs) => i64(vs.reduce<number>((a, v) => a + toInt64(v), 0)), "any"),
  sub: f(["any", "any"], ([a, b]) => i64(toInt64(a!) - toInt64(b!))),
  mul: f(
    ["any"],
    ([a, ...vs]) => i64(vs.reduce<number>((p, v) => p * toInt64(v), toInt64(a!))),
    "any",
  ),
  div: f(["any", "any"], ([a, b]) => divide(toInt64(a!), toInt64(b!), false)),
  mod: f(["any", "any"], ([a, b]) => divide(toInt64(a!), toInt64(b!), true)),
  max: f(["any"], ([a, ...vs]) => i64(Math.max(toInt64(a!), ...vs.map(toInt64))), "any"),
  min: f(["any"], ([a, ...vs]) => i64(Math.min(toInt64(a!), ...vs.map(toInt64))), "any"),
  until: f(["int"], ([n]) => {
    const c = n as number;
    const out: number[] = [];
    for (let i = 0; c >= 0 ? i < c : i > c; i += c >= 0 ? 1 : -1) out.push(i);
    return out;
  }),
  // values and lists
  default: f(
    ["any"],
    ([d, ...given]) => (given.length === 0 || empty(given[0]!) ? d! : given[0]!),
    "any",
  ),
  empty: f(["any"], ([v]) => empty(v!)),
  coalesce: f([], (vs) => vs.find((v) => !empty(v)) ?? null, "any"),
  ternary: f(["any", "any", "bool"], ([a, b, c]) => (c ? a! : b!)),
  list: f([], (vs) => [...vs], "any"),
  first: f(["any"], ([l]) => listArg("first", l!)[0] ?? null),
  last: f(["any"], ([l]) => {
    const a = listArg("last", l!);
    return a[a.length - 1] ?? null;
  }),
  has: f(
    ["any", "any"],
    ([needle, l]) =>
      Array.isArray(l) &&
      l.some((x) => goSprint([x]) === goSprint([needle!]) && typeof x === typeof needle),
  ),
  append: f(["any", "any"], ([l, v]) => {
    if (!Array.isArray(l)) throw new Error(`Cannot push on type ${kindName(l!)}`);
    return [...l, v!];
  }),
  reverse: f(["any"], ([l]) => {
    if (!Array.isArray(l)) throw new Error(`Cannot find reverse on type ${kindName(l!)}`);
    return [...l].reverse();
  }),
  slice: f(
    ["any"],
    ([l, ...idx]) => {
      if (!Array.isArray(l)) {
        throw new Error(`list should be type of slice or array but ${kindName(l ?? null)}`);
      }
      if (l.length === 0) return null;
      const start = idx.length > 0 ? toInt64(idx[0] ?? null) : 0;
      const end = idx.length > 1 ? toInt64(idx[1] ?? null) : l.length;
      if (start < 0 || end < start || end > l.length) {
        throw new Error("reflect.Value.Slice: slice index out of bounds");
      }
      return l.slice(start, end);
    },
    "any",
  ),
  dict: f(
    [],
    (vs) => {
      const m = new Map<string, GoValue>();
      for (let i = 0; i < vs.length; i += 2) m.set(strval(vs[i]!), vs[i + 1] ?? "");
      return m;
    },
    "any",
  ),
  get: f(["any", "string"], ([m, k]) =>
    m instanceof Map && m.has(k as string) ? (m.get(k as string) as GoValue) : "",
  ),
  hasKey: f(["any", "string"], ([m, k]) => m instanceof Map && m.has(k as string)),
};

const LONG_MONTHS =
  "January February March April May June July August September October November December".split(
    " ",
  );
const LONG_DAYS = "Sunday Monday Tuesday Wednesday Thursday Friday Saturday".split(" ");

/** `t` moved by whole calendar days, months and years on its wall clock (Go's `AddDate`). */
function addDate(t: GoTime, years: number, months: number, days: number): GoTime {
  const d = new Date(t.ms + t.offsetSec * 1000);
  d.setUTCFullYear(d.getUTCFullYear() + years, d.getUTCMonth() + months, d.getUTCDate() + days);
  return new GoTime(d.getTime() - t.offsetSec * 1000, t.offsetSec, t.zone, t.fromClock);
}

const day = (t: GoTime) => civil(t);

/** Methods of the values a template meets, by Go type: those modelled, with their signatures. */
export const METHODS: Readonly<Record<string, Readonly<Record<string, TemplateFunc>>>> = {
  "time.Time": {
    Format: f(["string"], ([l], _e, r) => formatGoTime(r as GoTime, l as string)),
    String: f([], (_a, _e, r) => (r as GoTime).toString()),
    Year: f([], (_a, _e, r) => day(r as GoTime).year),
    Month: f([], (_a, _e, r) => {
      const m = day(r as GoTime).month;
      return new GoEnum(m, LONG_MONTHS[m - 1] ?? "", "time.Month");
    }),
    Day: f([], (_a, _e, r) => day(r as GoTime).day),
    Hour: f([], (_a, _e, r) => day(r as GoTime).hour),
    Minute: f([], (_a, _e, r) => day(r as GoTime).min),
    Second: f([], (_a, _e, r) => day(r as GoTime).sec),
    Nanosecond: f([], (_a, _e, r) => day(r as GoTime).ms * 1e6),
    YearDay: f([], (_a, _e, r) => day(r as GoTime).yday),
    Weekday: f([], (_a, _e, r) => {
      const w = day(r as GoTime).weekday;
      return new GoEnum(w, LONG_DAYS[w] ?? "", "time.Weekday");
    }),
    Unix: f([], (_a, _e, r) => i64(Math.floor((r as GoTime).ms / 1000))),
    UnixMilli: f([], (_a, _e, r) => i64((r as GoTime).ms)),
    IsZero: f([], (_a, _e, r) => (r as GoTime).ms === zeroTime().ms),
    Before: f(["time"], ([u], _e, r) => (r as GoTime).ms < (u as GoTime).ms),
    After: f(["time"], ([u], _e, r) => (r as GoTime).ms > (u as GoTime).ms),
    Equal: f(["time"], ([u], _e, r) => (r as GoTime).ms === (u as GoTime).ms),
    Sub: f(["time"], ([u], _e, r) => new GoDuration((r as GoTime).ms - (u as GoTime).ms)),
    Add: f(["duration"], ([d], _e, r) => {
      const t = r as GoTime;
      return new GoTime(t.ms + (d as GoDuration).ms, t.offsetSec, t.zone, t.fromClock);
    }),
    AddDate: f(["int", "int", "int"], ([y, m, d], _e, r) =>
      addDate(r as GoTime, y as number, m as number, d as number),
    ),
    UTC: f([], (_a, _e, r) => {
      const t = r as GoTime;
      return new GoTime(t.ms, 0, "UTC", t.fromClock);
    }),
    Local: f([], (_a, env, r) => {
      const t = inZone((r as GoTime).ms, env.zone);
      return new GoTime(t.ms, t.offsetSec, t.zone, (r as GoTime).fromClock);
    }),
  },
  "time.Duration": {
    Hours: f([], (_a, _e, r) => new GoFloat((r as GoDuration).ms / 3_600_000)),
    Minutes: f([], (_a, _e, r) => new GoFloat((r as GoDuration).ms / 60_000)),
    Seconds: f([], (_a, _e, r) => new GoFloat((r as GoDuration).ms / 1000)),
    Milliseconds: f([], (_a, _e, r) => i64(Math.trunc((r as GoDuration).ms))),
    String: f([], (_a, _e, r) => (r as GoDuration).toString()),
  },
  "time.Month": { String: f([], (_a, _e, r) => (r as GoEnum).label) },
  "time.Weekday": { String: f([], (_a, _e, r) => (r as GoEnum).label) },
};

/** Go's method names of those types (a name here but not in {@link METHODS} is refused by name). */
export const GO_METHOD_NAMES: Readonly<Record<string, ReadonlySet<string>>> = {
  "time.Time": new Set(
    "Add AddDate After AppendFormat Before Clock Compare Date Day Equal Format GoString GobDecode GobEncode Hour ISOWeek In IsDST IsZero Local Location MarshalBinary MarshalJSON MarshalText Minute Month Nanosecond Round Second String Sub Truncate UTC Unix UnixMicro UnixMilli UnixNano UnmarshalBinary UnmarshalJSON UnmarshalText Weekday Year YearDay Zone ZoneBounds".split(
      " ",
    ),
  ),
  "time.Duration": new Set(
    "Abs Hours Microseconds Milliseconds Minutes Nanoseconds Round Seconds String Truncate".split(
      " ",
    ),
  ),
  "time.Month": new Set(["String"]),
  "time.Weekday": new Set(["String"]),
};

/** Every function name of the kernel's map (sprig's, SiYuan's, SQL's), in no particular order. */
const KERNEL_NAMES = [
  // sprig v3.3.0 genericMap less env, expandenv, getHostByName
  ..."hello ago date date_in_zone date_modify dateInZone dateModify duration durationRound htmlDate htmlDateInZone must_date_modify mustDateModify mustToDate now toDate unixEpoch abbrev abbrevboth trunc trim upper lower title untitle substr repeat trimall trimAll trimSuffix trimPrefix nospace initials randAlphaNum randAlpha randAscii randNumeric swapcase shuffle snakecase camelcase kebabcase wrap wrapWith contains hasPrefix hasSuffix quote squote cat indent nindent replace plural sha1sum sha256sum sha512sum adler32sum toString atoi int64 int float64 seq toDecimal split splitList splitn toStrings until untilStep add1 add sub div mod mul randInt add1f addf subf divf mulf biggest max min maxf minf ceil floor round join sortAlpha default empty coalesce all any compact mustCompact fromJson toJson toPrettyJson toRawJson mustFromJson mustToJson mustToPrettyJson mustToRawJson ternary deepCopy mustDeepCopy typeOf typeIs typeIsLike kindOf kindIs deepEqual base dir clean ext isAbs osBase osClean osDir osExt osIsAbs b64enc b64dec b32enc b32dec tuple list dict get set unset hasKey pluck keys pick omit merge mergeOverwrite mustMerge mustMergeOverwrite values append mustAppend prepend mustPrepend first mustFirst rest mustRest last mustLast initial mustInitial reverse mustReverse uniq mustUniq without mustWithout has mustHas slice mustSlice concat dig chunk mustChunk bcrypt htpasswd genPrivateKey derivePassword buildCustomCert genCA genCAWithKey genSelfSignedCert genSelfSignedCertWithKey genSignedCert genSignedCertWithKey encryptAES decryptAES randBytes uuidv4 semver semverCompare fail regexMatch mustRegexMatch regexFindAll mustRegexFindAll regexFind mustRegexFind regexReplaceAll mustRegexReplaceAll regexReplaceAllLiteral mustRegexReplaceAllLiteral regexSplit mustRegexSplit regexQuoteMeta urlParse urlJoin".split(
    " ",
  ),
  // SiYuan's (kernel/filesys/template.go) and the SQL ones (kernel/sql/database.go)
  ..."Weekday WeekdayCN WeekdayCN2 ISOWeek ISOYear ISOMonth ISOWeekDate pow powf log logf parseTime FormatFloat getHPathByID statBlock runeCount wordCount markdown2text markdown2content countif queryBlocks getBlock querySpans querySQL".split(
    " ",
  ),
];

/** The kernel's template functions: an implementation, or null where the sandbox does not model it. */
export const sprigFuncs: Readonly<Record<string, TemplateFunc | null>> = Object.fromEntries(
  KERNEL_NAMES.map((n) => [n, MODELLED[n] ?? null]),
);
