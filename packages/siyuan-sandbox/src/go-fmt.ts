/**
 * Go values as templates hold them, and Go's `fmt` for them: `Sprint` (`print`, actions),
 * `Sprintf` (`printf`: verbs `%v %s %d %q %f %e %g %x %X %o %b %c %t %T %%`, flags `- + 0 space #`,
 * width and precision, `%!d(string=x)` for a wrong verb, `%!s(MISSING)`, `%!(EXTRA …)`).
 */
import { GoTime } from "./go-time.js";

/** Go's `template.ExecError` or parse error: `message` is what `err.Error()` prints. */
export class GoTemplateError extends Error {
  override readonly name = "GoTemplateError";
}

/** A construct or function the sandbox does not model (the kernel would run it). */
export class NotModelledError extends Error {
  override readonly name = "NotModelledError";
}

/** Go's `float64` (a bare JS number is Go's `int`). */
export class GoFloat {
  constructor(readonly v: number) {}
}

/** Go's `int64` (what sprig's arithmetic answers). */
export class GoInt64 {
  constructor(readonly v: number) {}
}

/** A named integer type that prints as a name: `time.Month` (`March`), `time.Weekday` (`Monday`). */
export class GoEnum extends GoInt64 {
  constructor(
    v: number,
    readonly label: string,
    readonly typeName: string,
  ) {
    super(v);
  }
}

/** Go's `time.Duration` (an int64 of nanoseconds), held in milliseconds: the sandbox clock's unit. */
export class GoDuration extends GoInt64 {
  constructor(readonly ms: number) {
    super(ms * 1e6);
  }
  /** Go's `Duration.String`: `1h2m3.5s`, `500ms`, `0s`. */
  override toString(): string {
    if (this.ms === 0) return "0s";
    const neg = this.ms < 0;
    const abs = Math.abs(this.ms);
    const trim = (n: number, digits: number): string => n.toFixed(digits).replace(/\.?0+$/, "");
    let out: string;
    if (abs < 1000) out = `${trim(abs, 6)}ms`;
    else {
      const h = Math.floor(abs / 3_600_000);
      const m = Math.floor((abs % 3_600_000) / 60_000);
      const sec = (abs % 60_000) / 1000;
      out = `${h > 0 ? `${h}h` : ""}${h > 0 || m > 0 ? `${m}m` : ""}${trim(sec, 3)}s`;
    }
    return (neg ? "-" : "") + out;
  }
}

/** Go's invalid `reflect.Value` (a missing map key): prints `<no value>`. */
export const NO_VALUE: unique symbol = Symbol("no value");

/** A value a template computes with. */
export type GoValue =
  | string
  | number
  | boolean
  | null
  | GoFloat
  | GoInt64
  | GoTime
  | GoValue[]
  | Map<string, GoValue>
  | typeof NO_VALUE;

/** Maps that are Go's `map[string]string` (the template's data model; the rest are `map[string]interface {}`). */
export const STRING_MAPS: WeakSet<Map<string, GoValue>> = new WeakSet();

/** Go's type name of a value (`%T`, error texts). */
export function goTypeName(v: GoValue): string {
  if (v === null || v === NO_VALUE) return "<nil>";
  if (typeof v === "string") return "string";
  if (typeof v === "number") return "int";
  if (typeof v === "boolean") return "bool";
  if (v instanceof GoFloat) return "float64";
  if (v instanceof GoEnum) return v.typeName;
  if (v instanceof GoDuration) return "time.Duration";
  if (v instanceof GoInt64) return "int64";
  if (v instanceof GoTime) return "time.Time";
  if (Array.isArray(v)) return "[]interface {}";
  return STRING_MAPS.has(v) ? "map[string]string" : "map[string]interface {}";
}

/** Go's `strconv.Quote`. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\x07") out += "\\a";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (ch === "\v") out += "\\v";
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, "0")}`;
    else if (cp === 0xfffd) out += "\\ufffd";
    else if (/[\p{C}\p{Z}]/u.test(ch) && ch !== " ") {
      out +=
        cp > 0xffff
          ? `\\U${cp.toString(16).padStart(8, "0")}`
          : `\\u${cp.toString(16).padStart(4, "0")}`;
    } else out += ch;
  }
  return `${out}"`;
}

/** Go's `%v` of a float64 (`strconv.FormatFloat(f, 'g', -1, 64)` with Go's exponent form). */
export function formatFloatV(f: number): string {
  if (Number.isNaN(f)) return "NaN";
  if (!Number.isFinite(f)) return f > 0 ? "+Inf" : "-Inf";
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  // strconv's shortest %g: an exponent below -4 or from 6 up is written in e-notation
  const exp = Number(f.toExponential().split("e")[1]);
  if (exp < -4 || exp >= 6) {
    const [m, e] = f.toExponential().split("e");
    const n = Number(e);
    return `${m}e${n < 0 ? "-" : "+"}${String(Math.abs(n)).padStart(2, "0")}`;
  }
  return String(f);
}

/** `%v` of one value. */
function fmtV(v: GoValue, top = true): string {
  if (v === NO_VALUE) return "<no value>";
  if (v === null) return "<nil>";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (v instanceof GoFloat) return formatFloatV(v.v);
  if (v instanceof GoEnum) return v.label;
  if (v instanceof GoDuration) return v.toString();
  if (v instanceof GoInt64) return String(v.v);
  if (v instanceof GoTime) {
    // Go prints `now` with nanoseconds and `m=+…`, which the sandbox's clock does not have
    if (v.fromClock) {
      throw new NotModelledError(
        "siyuan-sandbox: printing the time now gives is not modelled (use date)",
      );
    }
    return v.toString();
  }
  if (Array.isArray(v)) return `[${v.map((x) => fmtV(x, false)).join(" ")}]`;
  const keys = [...v.keys()].sort();
  void top;
  return `map[${keys.map((k) => `${k}:${fmtV(v.get(k) as GoValue, false)}`).join(" ")}]`;
}

/** Go's `fmt.Sprint`: a space between operands when neither is a string. */
export function goSprint(vs: readonly GoValue[]): string {
  let out = "";
  vs.forEach((v, i) => {
    if (i > 0 && typeof v !== "string" && typeof vs[i - 1] !== "string") out += " ";
    out += fmtV(v);
  });
  return out;
}

interface Spec {
  minus: boolean;
  plus: boolean;
  zero: boolean;
  space: boolean;
  sharp: boolean;
  width: number | null;
  prec: number | null;
}

function padTo(s: string, spec: Spec, numeric: boolean): string {
  if (spec.width === null || [...s].length >= spec.width) return s;
  const n = spec.width - [...s].length;
  if (spec.minus) return s + " ".repeat(n);
  if (spec.zero && numeric) {
    const sign = /^[+-]/.test(s) ? s[0] : "";
    return sign + "0".repeat(n) + s.slice(sign!.length);
  }
  return " ".repeat(n) + s;
}

const intOf = (v: GoValue): number | null =>
  typeof v === "number" ? v : v instanceof GoInt64 ? v.v : null;

function signed(s: string, neg: boolean, spec: Spec): string {
  if (neg) return `-${s}`;
  if (spec.plus) return `+${s}`;
  if (spec.space) return ` ${s}`;
  return s;
}

function bad(verb: string, v: GoValue): string {
  if (v === null || v === NO_VALUE) return `%!${verb}(<nil>)`;
  return `%!${verb}(${goTypeName(v)}=${fmtV(v)})`;
}

function fmtOne(verb: string, v: GoValue, spec: Spec): string {
  const n = intOf(v);
  const f = v instanceof GoFloat ? v.v : null;
  // a fmt.Stringer prints its String() for %v and %s
  const stringer = v instanceof GoTime || v instanceof GoEnum || v instanceof GoDuration;
  if (stringer && (verb === "v" || verb === "s")) return padTo(fmtV(v), spec, false);
  switch (verb) {
    case "v":
      if (n !== null || f !== null)
        return padTo(signed(fmtV(v).replace(/^-/, ""), (n ?? f ?? 0) < 0, spec), spec, true);
      return padTo(fmtV(v), spec, false);
    case "s":
      if (typeof v === "string")
        return padTo(spec.prec === null ? v : [...v].slice(0, spec.prec).join(""), spec, false);
      if (v instanceof GoTime || Array.isArray(v) || v instanceof Map)
        return padTo(fmtV(v), spec, false);
      return bad(verb, v);
    case "q":
      if (typeof v === "string")
        return padTo(spec.sharp && !v.includes("`") ? `\`${v}\`` : goQuote(v), spec, false);
      if (n !== null) return padTo(`'${String.fromCodePoint(n)}'`, spec, false);
      return bad(verb, v);
    case "t":
      return typeof v === "boolean" ? padTo(String(v), spec, false) : bad(verb, v);
    case "T":
      return padTo(goTypeName(v), spec, false);
    case "c":
      return n !== null ? padTo(String.fromCodePoint(n), spec, false) : bad(verb, v);
    case "d":
    case "b":
    case "o":
    case "x":
    case "X": {
      if (n === null) {
        if (typeof v === "string" && (verb === "x" || verb === "X")) {
          const hex = Buffer.from(v).toString("hex");
          return padTo(verb === "X" ? hex.toUpperCase() : hex, spec, false);
        }
        return bad(verb, v);
      }
      const base = { d: 10, b: 2, o: 8, x: 16, X: 16 }[verb];
      let digits = Math.abs(n).toString(base);
      if (verb === "X") digits = digits.toUpperCase();
      if (spec.prec !== null) digits = digits.padStart(spec.prec, "0");
      if (spec.sharp) digits = ({ b: "", d: "", o: "0", x: "0x", X: "0X" }[verb] ?? "") + digits;
      return padTo(signed(digits, n < 0, spec), spec, spec.prec === null);
    }
    case "f":
    case "F":
    case "e":
    case "E":
    case "g":
    case "G": {
      const x = f ?? null;
      if (x === null) return bad(verb, v);
      const p = spec.prec;
      let s: string;
      if (verb === "f" || verb === "F") s = Math.abs(x).toFixed(p ?? 6);
      else if (verb === "e" || verb === "E") {
        const [m, e] = Math.abs(x)
          .toExponential(p ?? 6)
          .split("e");
        const k = Number(e);
        s = `${m}e${k < 0 ? "-" : "+"}${String(Math.abs(k)).padStart(2, "0")}`;
        if (verb === "E") s = s.toUpperCase();
      } else {
        s =
          p === null ? formatFloatV(Math.abs(x)) : formatFloatV(Number(Math.abs(x).toPrecision(p)));
        if (verb === "G") s = s.toUpperCase();
      }
      return padTo(signed(s, x < 0 || Object.is(x, -0), spec), spec, true);
    }
  }
  return bad(verb, v);
}

/** Go's `fmt.Sprintf`. */
export function goPrintf(format: string, args: readonly GoValue[]): string {
  let out = "";
  let argi = 0;
  let i = 0;
  while (i < format.length) {
    const c = format[i]!;
    if (c !== "%") {
      out += c;
      i++;
      continue;
    }
    i++;
    const spec: Spec = {
      minus: false,
      plus: false,
      zero: false,
      space: false,
      sharp: false,
      width: null,
      prec: null,
    };
    for (; i < format.length; i++) {
      const fl = format[i];
      if (fl === "-") spec.minus = true;
      else if (fl === "+") spec.plus = true;
      else if (fl === "0") spec.zero = true;
      else if (fl === " ") spec.space = true;
      else if (fl === "#") spec.sharp = true;
      else break;
    }
    const num = (): number | null => {
      if (format[i] === "*") {
        i++;
        const a = intOf(args[argi++] ?? null);
        return a;
      }
      const m = /^\d+/.exec(format.slice(i));
      if (!m) return null;
      i += m[0].length;
      return Number(m[0]);
    };
    spec.width = num();
    if (format[i] === ".") {
      i++;
      spec.prec = num() ?? 0;
    }
    const verb = format[i];
    if (verb === undefined) {
      out += "%!(NOVERB)";
      break;
    }
    i++;
    if (verb === "%") {
      out += "%";
      continue;
    }
    if (argi >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    out += fmtOne(verb, args[argi++] ?? null, spec);
  }
  if (argi < args.length) {
    out += `%!(EXTRA ${args
      .slice(argi)
      .map((a) => `${goTypeName(a)}=${fmtV(a)}`)
      .join(", ")})`;
  }
  return out;
}
