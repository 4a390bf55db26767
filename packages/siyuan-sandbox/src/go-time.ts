/**
 * Go's `time.Time` as far as SiYuan's templates see it: a wall-clock instant with a fixed zone, Go's
 * layout formatting (`2006 01 02 15 04 05 Jan January Mon Monday PM .000 MST -0700 …`) and parsing
 * (`time.ParseInLocation`), for sprig's `now`, `date`, `toDate`, `dateModify` and `unixEpoch`.
 * Nanoseconds below a millisecond are zero (the sandbox clock counts milliseconds).
 */

/** A Go `time.Time`: epoch milliseconds plus the zone it is shown in. */
export class GoTime {
  constructor(
    /** Milliseconds since 1970-01-01T00:00:00Z (negative before). */
    readonly ms: number,
    /** The zone's offset east of UTC, in seconds. */
    readonly offsetSec: number,
    /** The zone's abbreviation (`UTC`, `CET`); "" prints the numeric offset. */
    readonly zone: string,
    /** Read from the clock (`now`): Go's value has nanoseconds and a monotonic reading here. */
    readonly fromClock = false,
  ) {}
  /** Go's `Time.String`: `2006-01-02 15:04:05.999999999 -0700 MST`. */
  toString(): string {
    return formatGoTime(this, "2006-01-02 15:04:05.999999999 -0700 MST");
  }
}

/** The zone a kernel shows local times in: UTC, or the process's local zone. */
export type LocalZone = (ms: number) => { offsetSec: number; zone: string };

/** UTC as Go names it. */
export const utcZone: LocalZone = () => ({ offsetSec: 0, zone: "UTC" });

/** The process's local zone (what `time.Local` is for a kernel on this machine). */
export const processZone: LocalZone = (ms) => {
  const offsetSec = -new Date(ms).getTimezoneOffset() * 60;
  const name =
    new Intl.DateTimeFormat("en-US", { timeZoneName: "short" })
      .formatToParts(new Date(ms))
      .find((p) => p.type === "timeZoneName")?.value ?? "";
  // Go prints an offset (`+01`) for zones tzdata gives no letters; Intl says `GMT+1` there.
  if (/^(UTC|GMT)$/.test(name)) return { offsetSec, zone: offsetSec === 0 ? "UTC" : "" };
  if (/^GMT[+-]/.test(name)) return { offsetSec, zone: numericZone(offsetSec) };
  return { offsetSec, zone: name };
};

function numericZone(offsetSec: number): string {
  const sign = offsetSec < 0 ? "-" : "+";
  const m = Math.abs(offsetSec) / 60;
  const hh = String(Math.floor(m / 60)).padStart(2, "0");
  return m % 60 === 0 ? `${sign}${hh}` : `${sign}${hh}${String(m % 60).padStart(2, "0")}`;
}

/** `t` shown in `zone` (Go's `t.In(loc)`). */
export function inZone(ms: number, zone: LocalZone): GoTime {
  const z = zone(ms);
  return new GoTime(ms, z.offsetSec, z.zone);
}

/** Go's zero `time.Time` (0001-01-01 00:00:00 UTC). */
export function zeroTime(): GoTime {
  return new GoTime(civilToMs(1, 1, 1, 0, 0, 0, 0), 0, "UTC");
}

function civilToMs(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number) {
  const dt = new Date(0);
  dt.setUTCFullYear(y, mo - 1, d);
  dt.setUTCHours(h, mi, s, ms);
  return dt.getTime();
}

export interface Civil {
  year: number;
  month: number;
  day: number;
  hour: number;
  min: number;
  sec: number;
  ms: number;
  weekday: number;
  yday: number;
}

/** The wall-clock fields of `t` in its zone. */
export function civil(t: GoTime): Civil {
  const d = new Date(t.ms + t.offsetSec * 1000);
  const year = d.getUTCFullYear();
  const start = new Date(0);
  start.setUTCFullYear(year, 0, 1);
  start.setUTCHours(0, 0, 0, 0);
  return {
    year,
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    min: d.getUTCMinutes(),
    sec: d.getUTCSeconds(),
    ms: d.getUTCMilliseconds(),
    weekday: d.getUTCDay(),
    yday: Math.floor((d.getTime() - start.getTime()) / 86_400_000) + 1,
  };
}

const LONG_DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const LONG_MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** One element of a Go layout: literal text or a standard chunk (`std`, with `n` fraction digits). */
type Chunk = { lit: string } | { std: string; n?: number };

const isDigitAt = (s: string, i: number): boolean => i < s.length && s[i]! >= "0" && s[i]! <= "9";

/** Splits a Go layout into literals and standard chunks, as Go's `nextStdChunk` recognises them. */
function chunks(layout: string): Chunk[] {
  const out: Chunk[] = [];
  let lit = "";
  const push = (std: string, len: number, n?: number): number => {
    if (lit) out.push({ lit });
    lit = "";
    out.push(n === undefined ? { std } : { std, n });
    return len;
  };
  let i = 0;
  while (i < layout.length) {
    const rest = layout.slice(i);
    const c = layout[i]!;
    let used = 0;
    switch (c) {
      case "J":
        if (rest.startsWith("January")) used = push("January", 7);
        else if (rest.startsWith("Jan")) used = push("Jan", 3);
        break;
      case "M":
        if (rest.startsWith("Monday")) used = push("Monday", 6);
        else if (rest.startsWith("Mon")) used = push("Mon", 3);
        else if (rest.startsWith("MST")) used = push("MST", 3);
        break;
      case "0":
        if (rest.startsWith("002")) used = push("002", 3);
        else if (rest.length >= 2 && rest[1]! >= "1" && rest[1]! <= "6")
          used = push(rest.slice(0, 2), 2);
        break;
      case "1":
        used = rest.startsWith("15") ? push("15", 2) : push("1", 1);
        break;
      case "2":
        used = rest.startsWith("2006") ? push("2006", 4) : push("2", 1);
        break;
      case "_":
        if (rest.startsWith("_2")) {
          if (rest.startsWith("_2006")) {
            lit += "_";
            used = 1 + push("2006", 4);
          } else used = push("_2", 2);
        } else if (rest.startsWith("__2")) used = push("__2", 3);
        break;
      case "3":
      case "4":
      case "5":
        used = push(c, 1);
        break;
      case "P":
        if (rest.startsWith("PM")) used = push("PM", 2);
        break;
      case "p":
        if (rest.startsWith("pm")) used = push("pm", 2);
        break;
      case "-":
      case "Z":
        for (const z of ["070000", "07:00:00", "0700", "07:00", "07"]) {
          if (rest.startsWith(c + z)) {
            used = push(c + z, 1 + z.length);
            break;
          }
        }
        break;
      case ".":
      case ",":
        if (rest[1] === "0" || rest[1] === "9") {
          const ch = rest[1];
          let j = i + 1;
          while (j < layout.length && layout[j] === ch) j++;
          if (!isDigitAt(layout, j)) used = push(`${c}${ch}`, j - i, j - i - 1);
        }
        break;
    }
    if (used === 0) {
      lit += c;
      i++;
    } else i += used;
  }
  if (lit) out.push({ lit });
  return out;
}

const pad = (n: number, w: number): string => String(n).padStart(w, "0");

/** Go's `Time.Format(layout)`. */
export function formatGoTime(t: GoTime, layout: string): string {
  const c = civil(t);
  let s = "";
  for (const ch of chunks(layout)) {
    if ("lit" in ch) {
      s += ch.lit;
      continue;
    }
    const h12 = c.hour % 12 === 0 ? 12 : c.hour % 12;
    switch (ch.std) {
      case "2006":
        s += pad(c.year, 4);
        break;
      case "06":
        s += pad(c.year % 100, 2);
        break;
      case "January":
        s += LONG_MONTHS[c.month - 1];
        break;
      case "Jan":
        s += LONG_MONTHS[c.month - 1]!.slice(0, 3);
        break;
      case "1":
        s += String(c.month);
        break;
      case "01":
        s += pad(c.month, 2);
        break;
      case "Monday":
        s += LONG_DAYS[c.weekday];
        break;
      case "Mon":
        s += LONG_DAYS[c.weekday]!.slice(0, 3);
        break;
      case "2":
        s += String(c.day);
        break;
      case "_2":
        s += String(c.day).padStart(2, " ");
        break;
      case "02":
        s += pad(c.day, 2);
        break;
      case "__2":
        s += String(c.yday).padStart(3, " ");
        break;
      case "002":
        s += pad(c.yday, 3);
        break;
      case "15":
        s += pad(c.hour, 2);
        break;
      case "3":
        s += String(h12);
        break;
      case "03":
        s += pad(h12, 2);
        break;
      case "4":
        s += String(c.min);
        break;
      case "04":
        s += pad(c.min, 2);
        break;
      case "5":
        s += String(c.sec);
        break;
      case "05":
        s += pad(c.sec, 2);
        break;
      case "PM":
        s += c.hour >= 12 ? "PM" : "AM";
        break;
      case "pm":
        s += c.hour >= 12 ? "pm" : "am";
        break;
      case "MST":
        s += t.zone !== "" ? t.zone : formatOffset(t.offsetSec, "-0700");
        break;
      default:
        if (ch.std[0] === "-" || ch.std[0] === "Z") {
          s += ch.std[0] === "Z" && t.offsetSec === 0 ? "Z" : formatOffset(t.offsetSec, ch.std);
        } else if (ch.std[0] === "." || ch.std[0] === ",") {
          s += formatFraction(c.ms, ch.std, ch.n ?? 0);
        }
    }
  }
  return s;
}

function formatOffset(offsetSec: number, std: string): string {
  const sign = offsetSec < 0 ? "-" : "+";
  const abs = Math.abs(offsetSec);
  const hh = pad(Math.floor(abs / 3600), 2);
  const mm = pad(Math.floor((abs % 3600) / 60), 2);
  const ss = pad(abs % 60, 2);
  const body = std.slice(1);
  if (body === "07") return sign + hh;
  if (body === "0700") return sign + hh + mm;
  if (body === "07:00") return `${sign}${hh}:${mm}`;
  if (body === "070000") return sign + hh + mm + ss;
  return `${sign}${hh}:${mm}:${ss}`;
}

function formatFraction(ms: number, std: string, n: number): string {
  const digits = (pad(ms, 3) + "000000").slice(0, 9).slice(0, n);
  if (std[1] === "0") return std[0] + digits;
  const trimmed = digits.replace(/0+$/, "");
  return trimmed === "" ? "" : std[0] + trimmed;
}

/** Go's `time.ParseInLocation(layout, value, zone)`; null where Go answers an error. */
export function parseGoTime(layout: string, value: string, zone: LocalZone): GoTime | null {
  let v = value;
  let year = 1;
  let month = 1;
  let day = 1;
  let hour = 0;
  let min = 0;
  let sec = 0;
  let ms = 0;
  let pm: boolean | null = null;
  let offset: number | null = null;
  const num = (min: number, max: number): number | null => {
    const m = new RegExp(`^\\d{${min},${max}}`).exec(v);
    if (!m) return null;
    v = v.slice(m[0].length);
    return Number(m[0]);
  };
  const word = (names: readonly string[]): number | null => {
    for (let i = 0; i < names.length; i++) {
      const n = names[i]!;
      if (v.slice(0, n.length).toLowerCase() === n.toLowerCase()) {
        v = v.slice(n.length);
        return i;
      }
    }
    return null;
  };
  for (const ch of chunks(layout)) {
    if ("lit" in ch) {
      if (!v.startsWith(ch.lit)) return null;
      v = v.slice(ch.lit.length);
      continue;
    }
    let got: number | null = 0;
    switch (ch.std) {
      case "2006":
        got = year = num(4, 4) ?? Number.NaN;
        break;
      case "06":
        got = num(2, 2);
        if (got !== null) year = got >= 69 ? 1900 + got : 2000 + got;
        break;
      case "January":
        got = word(LONG_MONTHS);
        if (got !== null) month = got + 1;
        break;
      case "Jan":
        got = word(LONG_MONTHS.map((m) => m.slice(0, 3)));
        if (got !== null) month = got + 1;
        break;
      case "1":
      case "01":
        got = month = num(ch.std === "01" ? 2 : 1, 2) ?? Number.NaN;
        break;
      case "Monday":
        got = word(LONG_DAYS);
        break;
      case "Mon":
        got = word(LONG_DAYS.map((d) => d.slice(0, 3)));
        break;
      case "2":
      case "_2":
      case "02":
        if (ch.std === "_2" && v.startsWith(" ")) v = v.slice(1);
        got = day = num(ch.std === "02" ? 2 : 1, 2) ?? Number.NaN;
        break;
      case "15":
        got = hour = num(1, 2) ?? Number.NaN;
        break;
      case "3":
      case "03":
        got = hour = num(ch.std === "03" ? 2 : 1, 2) ?? Number.NaN;
        if (hour > 12) return null;
        break;
      case "4":
      case "04":
        got = min = num(ch.std === "04" ? 2 : 1, 2) ?? Number.NaN;
        break;
      case "5":
      case "05": {
        got = sec = num(ch.std === "05" ? 2 : 1, 2) ?? Number.NaN;
        // Go accepts a fraction after seconds even where the layout has none.
        const f = /^[.,](\d+)/.exec(v);
        if (f && !layout.includes(".0") && !layout.includes(".9")) {
          ms = Number(f[1]!.padEnd(3, "0").slice(0, 3));
          v = v.slice(f[0].length);
        }
        break;
      }
      case "PM":
      case "pm": {
        const p = v.slice(0, 2).toUpperCase();
        if (p !== "AM" && p !== "PM") return null;
        pm = p === "PM";
        v = v.slice(2);
        break;
      }
      case "MST": {
        const m = /^(UTC|GMT|[A-Z]{3,5})/.exec(v);
        if (!m) return null;
        if (m[1] === "UTC" || m[1] === "GMT") offset = 0;
        v = v.slice(m[0].length);
        break;
      }
      default:
        if (ch.std[0] === "Z" && v.startsWith("Z")) {
          offset = 0;
          v = v.slice(1);
        } else if (ch.std[0] === "-" || ch.std[0] === "Z") {
          const m = /^([+-])(\d\d)(?::?(\d\d))?(?::?(\d\d))?/.exec(v);
          if (!m) return null;
          offset =
            (m[1] === "-" ? -1 : 1) *
            (Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0));
          v = v.slice(m[0].length);
        } else {
          const m = /^[.,](\d+)/.exec(v);
          if (m) {
            ms = Number(m[1]!.padEnd(3, "0").slice(0, 3));
            v = v.slice(m[0].length);
          } else if (ch.std[1] === "0") return null;
        }
    }
    if (got === null || Number.isNaN(got)) return null;
  }
  if (v !== "") return null;
  if (pm !== null) {
    if (pm && hour < 12) hour += 12;
    if (!pm && hour === 12) hour = 0;
  }
  if (month < 1 || month > 12 || hour > 23 || min > 59 || sec > 59) return null;
  const dim = new Date(Date.UTC(2000, month, 0)).getUTCDate();
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day < 1 || day > (month === 2 ? (leap ? 29 : 28) : dim)) return null;
  const wall = civilToMs(year, month, day, hour, min, sec, ms);
  if (offset !== null) return new GoTime(wall - offset * 1000, offset, offset === 0 ? "UTC" : "");
  // A local wall time: find the offset the zone has at that instant.
  let guess = wall - zone(wall).offsetSec * 1000;
  guess = wall - zone(guess).offsetSec * 1000;
  return inZone(guess, zone);
}

/** Go's `time.ParseDuration`, in milliseconds; null where Go answers an error. */
export function parseGoDuration(s: string): number | null {
  if (s === "0") return 0;
  const m = /^([+-]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/.exec(s);
  if (!m) return null;
  const unit: Record<string, number> = {
    ns: 1e-6,
    us: 1e-3,
    µs: 1e-3,
    μs: 1e-3,
    ms: 1,
    s: 1000,
    m: 60_000,
    h: 3_600_000,
  };
  let total = 0;
  for (const part of s
    .slice(m[1]!.length)
    .matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) {
    total += Number(part[1]) * (unit[part[2]!] ?? 0);
  }
  return m[1] === "-" ? -total : total;
}

/** Go's `Duration.String` of whole seconds (`1h2m3s`, `0s`). */
export function formatGoDurationSeconds(sec: number): string {
  if (sec === 0) return "0s";
  const neg = sec < 0;
  let a = Math.abs(sec);
  const h = Math.floor(a / 3600);
  a -= h * 3600;
  const m = Math.floor(a / 60);
  const s = a - m * 60;
  let out = "";
  if (h > 0) out += `${h}h`;
  if (h > 0 || m > 0) out += `${m}m`;
  out += `${s}s`;
  return (neg ? "-" : "") + out;
}
