/**
 * A subset of Go's `text/template` (Go 1.22+) as SiYuan's `/api/template/render` runs it: the lexer
 * and parser with configurable delimiters, `-` trim markers, comments, pipelines, fields, variables,
 * literals, parenthesised pipelines, `if`/`else if`/`else`/`range`/`with`/`end`/`break`/`continue`,
 * Go's truthiness, the builtins (`and or not len index print printf println eq ne lt le gt ge slice`)
 * and the sprig functions in {@link sprigFuncs}. Errors carry Go's own texts (`template: :1: unclosed
 * action`, `template: :1:10: executing "" at <len>: wrong number of args for len: want 1 got 0`).
 * A function in the kernel's map that the sandbox does not model throws {@link NotModelledError}
 * when called; `define`, `template` and `block` throw it when parsed.
 */
import {
  GoFloat,
  GoInt64,
  GoTemplateError,
  type GoValue,
  goPrintf,
  goQuote,
  goSprint,
  goTypeName,
  NO_VALUE,
  NotModelledError,
} from "./go-fmt.js";
import { sprigFuncs } from "./go-template-funcs.js";
import { GoTime, type LocalZone } from "./go-time.js";

export { GoFloat, GoInt64, GoTemplateError, type GoValue, NO_VALUE, NotModelledError };

/** What the functions of a template see (clock and zone for `now` and `date`). */
export interface TemplateEnv {
  /** Epoch milliseconds now. */
  now(): number;
  /** The kernel's local zone. */
  zone: LocalZone;
}

/** A parameter kind of a template function: how Go converts an argument to it. */
export type ParamKind = "any" | "string" | "int" | "bool" | "time" | "float";

/** A template function as reflection sees it: parameter kinds and an implementation. */
export interface TemplateFunc {
  params: readonly ParamKind[];
  /** Kind of the variadic tail, when the function is variadic. */
  variadic?: ParamKind;
  /** Returns the value; throws `Error` for Go's `error calling NAME: …`. */
  call(args: GoValue[], env: TemplateEnv): GoValue;
}

// ---------------------------------------------------------------- lexer

type TokType =
  | "error"
  | "eof"
  | "text"
  | "leftDelim"
  | "rightDelim"
  | "comment"
  | "space"
  | "leftParen"
  | "rightParen"
  | "pipe"
  | "declare"
  | "assign"
  | "char"
  | "field"
  | "variable"
  | "identifier"
  | "string"
  | "rawString"
  | "charConstant"
  | "number"
  | "bool"
  | "dot"
  | "nil"
  | "keyword";

interface Token {
  typ: TokType;
  val: string;
  pos: number;
  line: number;
}

const KEYWORDS = new Set([
  "block",
  "break",
  "continue",
  "define",
  "else",
  "end",
  "if",
  "range",
  "nil",
  "template",
  "with",
]);

const isSpace = (c: string | undefined): boolean =>
  c === " " || c === "\t" || c === "\r" || c === "\n";
const isAlnum = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{Nd}_]/u.test(c);

/** Go's `%q` of an item for `unexpected … in …` messages. */
function tokenString(t: Token): string {
  if (t.typ === "eof") return "EOF";
  if (t.typ === "error") return t.val;
  if (t.typ === "keyword" || t.typ === "dot" || t.typ === "nil") {
    return t.typ === "dot" ? "<.>" : `<${t.val}>`;
  }
  if ([...t.val].length > 10) return `${goQuote([...t.val].slice(0, 10).join(""))}...`;
  return goQuote(t.val);
}

function lex(input: string, left: string, right: string): Token[] {
  const out: Token[] = [];
  let pos = 0;
  let start = 0;
  let line = 1;
  let startLine = 1;
  let parenDepth = 0;
  const emit = (typ: TokType, val = input.slice(start, pos)): void => {
    out.push({ typ, val, pos: start, line: startLine });
    start = pos;
    startLine = line;
  };
  const advance = (n: number): void => {
    for (let i = 0; i < n; i++) if (input[pos + i] === "\n") line++;
    pos += n;
  };
  const ignore = (): void => {
    start = pos;
    startLine = line;
  };
  const fail = (msg: string): Token[] => {
    out.push({ typ: "error", val: msg, pos: start, line: startLine });
    return out;
  };
  const atRightDelim = (): { delim: boolean; trim: boolean } => {
    if (input.startsWith(` -${right}`, pos) || input.startsWith(`\t-${right}`, pos)) {
      return { delim: true, trim: true };
    }
    if (input.startsWith(`\n-${right}`, pos) || input.startsWith(`\r-${right}`, pos)) {
      return { delim: true, trim: true };
    }
    return { delim: input.startsWith(right, pos), trim: false };
  };
  const atTerminator = (): boolean => {
    const c = input[pos];
    if (c === undefined || isSpace(c) || ".,|:()".includes(c)) return true;
    return input.startsWith(right, pos);
  };

  for (;;) {
    // text up to the next left delimiter
    const x = input.indexOf(left, pos);
    if (x < 0) {
      advance(input.length - pos);
      if (pos > start) emit("text");
      out.push({ typ: "eof", val: "", pos, line });
      return out;
    }
    const trimBefore =
      input.startsWith("-", x + left.length) && isSpace(input[x + left.length + 1]);
    advance(x - pos);
    let textEnd = pos;
    if (trimBefore) while (textEnd > start && isSpace(input[textEnd - 1])) textEnd--;
    if (textEnd > start) {
      out.push({ typ: "text", val: input.slice(start, textEnd), pos: start, line: startLine });
    }
    ignore();
    // left delimiter
    advance(left.length + (trimBefore ? 2 : 0));
    if (input.startsWith("/*", pos)) {
      // comment
      ignore();
      const end = input.indexOf("*/", pos + 2);
      if (end < 0) return fail("unclosed comment");
      advance(end + 2 - pos);
      const { delim, trim } = atRightDelim();
      if (!delim) return fail("comment ends before closing delimiter");
      advance((trim ? 2 : 0) + right.length);
      if (trim) while (isSpace(input[pos])) advance(1);
      ignore();
      continue;
    }
    out.push({ typ: "leftDelim", val: left, pos: start, line: startLine });
    ignore();
    // inside the action
    for (;;) {
      const { delim, trim } = atRightDelim();
      if (delim) {
        if (parenDepth !== 0) return fail("unclosed left paren");
        if (trim) {
          advance(1);
          emit("space");
          advance(1);
          ignore();
        }
        advance(right.length);
        emit("rightDelim");
        if (trim) {
          while (isSpace(input[pos])) advance(1);
          ignore();
        }
        break;
      }
      const c = input[pos];
      if (c === undefined) return fail("unclosed action");
      if (isSpace(c)) {
        while (isSpace(input[pos]) && !atRightDelim().trim) advance(1);
        emit("space");
        continue;
      }
      advance(1);
      if (c === "=") emit("assign");
      else if (c === ":") {
        if (input[pos] !== "=") return fail("expected :=");
        advance(1);
        emit("declare");
      } else if (c === "|") emit("pipe");
      else if (c === '"') {
        for (;;) {
          const d = input[pos];
          if (d === "\\") {
            advance(1);
            const e = input[pos];
            if (e !== undefined && e !== "\n") {
              advance(1);
              continue;
            }
            return fail("unterminated quoted string");
          }
          if (d === undefined || d === "\n") return fail("unterminated quoted string");
          advance(1);
          if (d === '"') break;
        }
        emit("string");
      } else if (c === "`") {
        const end = input.indexOf("`", pos);
        if (end < 0) return fail("unterminated raw quoted string");
        advance(end + 1 - pos);
        emit("rawString");
      } else if (c === "'") {
        for (;;) {
          const d = input[pos];
          if (d === "\\") {
            advance(2);
            continue;
          }
          if (d === undefined || d === "\n") return fail("unterminated character constant");
          advance(1);
          if (d === "'") break;
        }
        emit("charConstant");
      } else if (c === "$" || (c === "." && !/[0-9]/.test(input[pos] ?? ""))) {
        if (atTerminator()) {
          emit(c === "$" ? "variable" : "dot");
          continue;
        }
        while (isAlnum(input[pos])) advance(1);
        if (!atTerminator()) return fail(`bad character ${goRuneU(input[pos] ?? "")}`);
        emit(c === "$" ? "variable" : "field");
      } else if (c === "." || c === "+" || c === "-" || /[0-9]/.test(c)) {
        const m = /^[+-]?(0[xX][0-9a-fA-F_]+|(?:\d[\d_]*)?(?:\.\d*)?(?:[eE][+-]?\d+)?)i?/.exec(
          input.slice(pos - 1),
        );
        advance((m?.[0].length ?? 1) - 1);
        if (isAlnum(input[pos]) || m?.[0] === "+" || m?.[0] === "-") {
          return fail(`bad number syntax: ${goQuote(input.slice(start, pos + 1))}`);
        }
        emit("number");
      } else if (isAlnum(c)) {
        while (isAlnum(input[pos])) advance(1);
        if (!atTerminator()) return fail(`bad character ${goRuneU(input[pos] ?? "")}`);
        const word = input.slice(start, pos);
        if (KEYWORDS.has(word)) emit(word === "nil" ? "nil" : "keyword");
        else if (word === "true" || word === "false") emit("bool");
        else emit("identifier");
      } else if (c === "(") {
        emit("leftParen");
        parenDepth++;
      } else if (c === ")") {
        emit("rightParen");
        parenDepth--;
        if (parenDepth < 0) return fail("unexpected right paren");
      } else if (c.charCodeAt(0) < 128 && c.charCodeAt(0) >= 32) emit("char");
      else return fail(`unrecognized character in action: ${goRuneU(c)}`);
    }
  }
}

function goRuneU(c: string): string {
  const cp = c.codePointAt(0) ?? 0;
  return `U+${cp.toString(16).toUpperCase().padStart(4, "0")} '${c}'`;
}

// ---------------------------------------------------------------- nodes

type Node =
  | { k: "text"; text: string }
  | { k: "action"; pos: number; line: number; pipe: Pipe }
  | {
      k: "if" | "with" | "range";
      pos: number;
      line: number;
      pipe: Pipe;
      list: Node[];
      elseList: Node[] | null;
    }
  | { k: "break" | "continue"; pos: number; line: number };

interface Pipe {
  pos: number;
  isAssign: boolean;
  decl: string[];
  cmds: Cmd[];
}
interface Cmd {
  pos: number;
  args: Arg[];
}
type Arg =
  | { k: "field"; pos: number; ident: string[] }
  | { k: "variable"; pos: number; ident: string[] }
  | { k: "identifier"; pos: number; name: string }
  | { k: "dot"; pos: number }
  | { k: "nil"; pos: number }
  | { k: "bool"; pos: number; value: boolean }
  | { k: "number"; pos: number; text: string; value: GoValue }
  | { k: "string"; pos: number; quoted: string; text: string }
  | { k: "pipe"; pos: number; pipe: Pipe }
  | { k: "chain"; pos: number; node: Arg; field: string[] };

function argString(a: Arg): string {
  switch (a.k) {
    case "field":
      return `.${a.ident.join(".")}`;
    case "variable":
      return a.ident.join(".");
    case "identifier":
      return a.name;
    case "dot":
      return ".";
    case "nil":
      return "nil";
    case "bool":
      return String(a.value);
    case "number":
      return a.text;
    case "string":
      return a.quoted;
    case "pipe":
      return `(${pipeString(a.pipe)})`;
    case "chain":
      return `${argString(a.node)}.${a.field.join(".")}`;
  }
}
const cmdString = (c: Cmd): string =>
  c.args.map((a) => (a.k === "pipe" ? `(${pipeString(a.pipe)})` : argString(a))).join(" ");
function pipeString(p: Pipe): string {
  const decl = p.decl.length ? `${p.decl.join(", ")} ${p.isAssign ? "=" : ":="} ` : "";
  return decl + p.cmds.map(cmdString).join(" | ");
}

// ---------------------------------------------------------------- parser

/** A parsed template. */
export interface ParsedTemplate {
  readonly text: string;
  readonly root: Node[];
}

/** Parses `text` as Go's `template.New("").Delims(left, right).Funcs(funcs).Parse(text)` does. */
export function parseTemplate(
  text: string,
  opts: { left: string; right: string; funcs: ReadonlySet<string> },
): ParsedTemplate {
  const toks = lex(text, opts.left, opts.right);
  let i = 0;
  let last: Token = toks[0] ?? { typ: "eof", val: "", pos: 0, line: 1 };
  let vars = ["$"];
  let rangeDepth = 0;
  let actionLine = 0;
  const fail = (msg: string): never => {
    throw new GoTemplateError(`template: :${last.line}: ${msg}`);
  };
  const next = (): Token => {
    last = toks[Math.min(i, toks.length - 1)]!;
    i++;
    return last;
  };
  const backup = (): void => {
    i--;
  };
  const peek = (): Token => toks[Math.min(i, toks.length - 1)]!;
  const nextNonSpace = (): Token => {
    let t = next();
    while (t.typ === "space") t = next();
    return t;
  };
  const peekNonSpace = (): Token => {
    const t = nextNonSpace();
    backup();
    return t;
  };
  const unexpected = (t: Token, context: string): never => {
    if (t.typ === "error") {
      let extra = "";
      if (actionLine !== 0 && actionLine !== t.line) {
        extra = ` in action started at :${actionLine}`;
        if (t.val.endsWith(" action")) extra = extra.slice(" in action".length);
      }
      return fail(`${t.val}${extra}`);
    }
    return fail(`unexpected ${tokenString(t)} in ${context}`);
  };
  const expect = (typ: TokType, context: string): Token => {
    const t = nextNonSpace();
    if (t.typ !== typ) unexpected(t, context);
    return t;
  };

  type Ctl = { k: "end" } | { k: "else"; pos: number; line: number };

  const itemList = (): { list: Node[]; end: Ctl } => {
    const list: Node[] = [];
    while (peekNonSpace().typ !== "eof") {
      const n = textOrAction();
      if ("k" in n && (n.k === "end" || n.k === "else")) return { list, end: n as Ctl };
      list.push(n as Node);
    }
    return fail("unexpected EOF");
  };

  const textOrAction = (): Node | Ctl => {
    const t = nextNonSpace();
    if (t.typ === "text") return { k: "text", text: t.val };
    if (t.typ === "leftDelim") {
      actionLine = t.line;
      try {
        return action();
      } finally {
        actionLine = 0;
      }
    }
    return unexpected(t, "input");
  };

  const action = (): Node | Ctl => {
    const t = nextNonSpace();
    if (t.typ === "keyword") {
      switch (t.val) {
        case "end":
          expect("rightDelim", "end");
          return { k: "end" };
        case "else":
          return elseControl(t);
        case "if":
        case "with":
        case "range":
          return control(t.val, t);
        case "break":
        case "continue":
          if (rangeDepth === 0) fail(`{{${t.val}}} outside {{range}}`);
          expect("rightDelim", t.val);
          return { k: t.val, pos: t.pos, line: t.line };
        default:
          throw new NotModelledError(
            `siyuan-sandbox: the template action [${t.val}] is not modelled`,
          );
      }
    }
    backup();
    const p = peek();
    return { k: "action", pos: p.pos, line: p.line, pipe: pipeline("command", "rightDelim") };
  };

  const elseControl = (t: Token): Ctl => {
    const p = peekNonSpace();
    if (p.typ === "keyword" && (p.val === "if" || p.val === "with")) {
      // `else if` / `else with`: the if is parsed by the caller.
      return { k: "else", pos: t.pos, line: t.line };
    }
    expect("rightDelim", "else");
    return { k: "else", pos: t.pos, line: t.line };
  };

  const control = (kind: "if" | "with" | "range", t: Token): Node => {
    const saved = vars.length;
    const pipe = pipeline(kind, "rightDelim");
    if (kind === "range") rangeDepth++;
    const { list, end } = itemList();
    if (kind === "range") rangeDepth--;
    let elseList: Node[] | null = null;
    if (end.k === "else") {
      const p = peekNonSpace();
      if ((kind === "if" || kind === "with") && p.typ === "keyword" && p.val === kind) {
        // `{{else if}}` is `{{else}}{{if}}…{{end}}{{end}}` sharing the one end.
        next();
        elseList = [control(kind, p)];
      } else if (p.typ === "keyword" && (p.val === "if" || p.val === "with")) {
        fail(`expected end; found ${p.val}`);
      } else {
        const r = itemList();
        if (r.end.k !== "end") fail("expected end; found {{else}}");
        elseList = r.list;
      }
    }
    vars = vars.slice(0, saved);
    return { k: kind, pos: t.pos, line: t.line, pipe, list, elseList };
  };

  const pipeline = (context: string, end: TokType): Pipe => {
    const pipe: Pipe = { pos: peekNonSpace().pos, isAssign: false, decl: [], cmds: [] };
    // declarations: `$x :=`, `$x =`, and `$i, $v :=` in a range
    while (peekNonSpace().typ === "variable") {
      const at = i;
      const v = next();
      const n = peekNonSpace();
      if (n.typ === "assign" || n.typ === "declare") {
        pipe.isAssign = n.typ === "assign";
        nextNonSpace();
        pipe.decl.push(v.val);
        vars.push(v.val);
        break;
      }
      if (n.typ === "char" && n.val === ",") {
        nextNonSpace();
        pipe.decl.push(v.val);
        vars.push(v.val);
        if (context === "range" && pipe.decl.length < 2) {
          const p = peekNonSpace();
          if (p.typ === "variable" || p.typ === "rightDelim" || p.typ === "rightParen") continue;
          fail("range can only initialize variables");
        }
        fail(`too many declarations in ${context}`);
      }
      // not a declaration: the variable is the pipeline's first operand
      i = at;
      break;
    }
    for (;;) {
      const t = nextNonSpace();
      if (t.typ === end) {
        if (pipe.cmds.length === 0) fail(`missing value for ${context}`);
        pipe.cmds.slice(1).forEach((c, k) => {
          const a = c.args[0];
          if (a && ["bool", "dot", "nil", "number", "string"].includes(a.k)) {
            fail(`non executable command in pipeline stage ${k + 2}`);
          }
        });
        return pipe;
      }
      if (
        [
          "bool",
          "charConstant",
          "dot",
          "field",
          "identifier",
          "number",
          "nil",
          "rawString",
          "string",
          "variable",
          "leftParen",
        ].includes(t.typ)
      ) {
        backup();
        pipe.cmds.push(command());
      } else unexpected(t, context);
    }
  };

  const command = (): Cmd => {
    const cmd: Cmd = { pos: peekNonSpace().pos, args: [] };
    for (;;) {
      peekNonSpace();
      const a = operand();
      if (a) cmd.args.push(a);
      const t = next();
      if (t.typ === "space") continue;
      if (t.typ === "rightDelim" || t.typ === "rightParen") backup();
      else if (t.typ !== "pipe") unexpected(t, "operand");
      break;
    }
    if (cmd.args.length === 0) fail("empty command");
    return cmd;
  };

  const operand = (): Arg | null => {
    const node = term();
    if (!node) return null;
    if (peek().typ !== "field") return node;
    const fields: string[] = [];
    while (peek().typ === "field") fields.push(next().val.slice(1));
    switch (node.k) {
      case "field":
        return { k: "field", pos: node.pos, ident: [...node.ident, ...fields] };
      case "variable":
        return { k: "variable", pos: node.pos, ident: [...node.ident, ...fields] };
      case "bool":
      case "string":
      case "number":
      case "nil":
      case "dot":
        return fail(`unexpected . after term ${goQuote(argString(node))}`);
      default:
        return { k: "chain", pos: node.pos, node, field: fields };
    }
  };

  const term = (): Arg | null => {
    const t = nextNonSpace();
    switch (t.typ) {
      case "identifier":
        if (!opts.funcs.has(t.val) && !BUILTIN_NAMES.has(t.val)) {
          fail(`function ${goQuote(t.val)} not defined`);
        }
        return { k: "identifier", pos: t.pos, name: t.val };
      case "dot":
        return { k: "dot", pos: t.pos };
      case "nil":
        return { k: "nil", pos: t.pos };
      case "variable": {
        const parts = t.val.split(".");
        if (!vars.includes(parts[0]!)) fail(`undefined variable ${goQuote(parts[0]!)}`);
        return { k: "variable", pos: t.pos, ident: parts };
      }
      case "field":
        return { k: "field", pos: t.pos, ident: [t.val.slice(1)] };
      case "bool":
        return { k: "bool", pos: t.pos, value: t.val === "true" };
      case "charConstant":
      case "number":
        return numberNode(t);
      case "leftParen":
        return { k: "pipe", pos: t.pos, pipe: pipeline("parenthesized pipeline", "rightParen") };
      case "string":
      case "rawString":
        return { k: "string", pos: t.pos, quoted: t.val, text: unquote(t) };
    }
    backup();
    return null;
  };

  const numberNode = (t: Token): Arg => {
    if (t.typ === "charConstant") {
      const ch = unquoteChar(t.val.slice(1, -1));
      return { k: "number", pos: t.pos, text: t.val, value: ch.codePointAt(0) ?? 0 };
    }
    const clean = t.val.replace(/_/g, "");
    if (/i$/.test(clean))
      throw new NotModelledError("siyuan-sandbox: complex numbers are not modelled");
    const isFloat = /[.eE]/.test(clean) && !/^[+-]?0[xX]/.test(clean);
    const n = Number(clean);
    if (Number.isNaN(n)) fail(`illegal number syntax: ${goQuote(t.val)}`);
    return {
      k: "number",
      pos: t.pos,
      text: t.val,
      value: isFloat ? new GoFloat(n) : n,
    };
  };

  const root: Node[] = [];
  while (peek().typ !== "eof") {
    const n = textOrAction();
    if ("k" in n && n.k === "end") fail("unexpected {{end}}");
    if ("k" in n && n.k === "else") fail("unexpected {{else}}");
    root.push(n as Node);
  }
  return { text, root };
}

function unquoteChar(s: string): string {
  return unquote({ typ: "string", val: `"${s}"`, pos: 0, line: 0 });
}

function unquote(t: Token): string {
  if (t.typ === "rawString") return t.val.slice(1, -1).replace(/\r/g, "");
  const body = t.val.slice(1, -1);
  return body.replace(
    /\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{3}|.)/g,
    (_m, e: string) => {
      const simple: Record<string, string> = {
        n: "\n",
        t: "\t",
        r: "\r",
        a: "\x07",
        b: "\b",
        f: "\f",
        v: "\v",
        "\\": "\\",
        '"': '"',
        "'": "'",
      };
      if (e in simple) return simple[e]!;
      if (/^[xuU]/.test(e)) return String.fromCodePoint(Number.parseInt(e.slice(1), 16));
      if (/^[0-7]{3}$/.test(e)) return String.fromCodePoint(Number.parseInt(e, 8));
      return e;
    },
  );
}

// ---------------------------------------------------------------- execution

/** Go's builtin function names (a sprig function of the same name wins, as `Funcs` does). */
const BUILTIN_NAMES: ReadonlySet<string> = new Set([
  "and",
  "or",
  "not",
  "len",
  "index",
  "slice",
  "print",
  "printf",
  "println",
  "eq",
  "ne",
  "lt",
  "le",
  "gt",
  "ge",
  "call",
  "html",
  "js",
  "urlquery",
]);

class Break {}
class Continue {}

class Exec {
  out = "";
  vars: Array<[string, GoValue]> = [];
  constructor(
    readonly tpl: ParsedTemplate,
    readonly funcs: Readonly<Record<string, TemplateFunc | null>>,
    readonly env: TemplateEnv,
  ) {}

  fail(pos: number, node: string, msg: string): never {
    const before = this.tpl.text.slice(0, pos);
    const nl = before.lastIndexOf("\n");
    const line = 1 + (before.match(/\n/g)?.length ?? 0);
    const col = nl < 0 ? Buffer.byteLength(before) : Buffer.byteLength(before.slice(nl + 1));
    throw new GoTemplateError(`template: :${line}:${col}: executing "" at <${node}>: ${msg}`);
  }

  walkList(list: Node[], dot: GoValue): void {
    for (const n of list) this.walk(n, dot);
  }

  walk(n: Node, dot: GoValue): void {
    switch (n.k) {
      case "text":
        this.out += n.text;
        return;
      case "action": {
        const v = this.evalPipe(dot, n.pipe);
        if (n.pipe.decl.length === 0) this.out += printValue(v);
        return;
      }
      case "if":
      case "with": {
        const mark = this.vars.length;
        const v = this.evalPipe(dot, n.pipe);
        if (truth(v)) this.walkList(n.list, n.k === "with" ? v : dot);
        else if (n.elseList) this.walkList(n.elseList, dot);
        this.vars.length = mark;
        return;
      }
      case "range":
        this.range(n, dot);
        return;
      case "break":
        throw new Break();
      case "continue":
        throw new Continue();
    }
  }

  range(n: Extract<Node, { list: Node[] }>, dot: GoValue): void {
    const mark = this.vars.length;
    const v = this.evalPipe(dot, { ...n.pipe, decl: [] });
    const items: Array<[GoValue, GoValue]> = [];
    if (Array.isArray(v)) for (const [i, x] of v.entries()) items.push([i, x]);
    else if (v instanceof Map) {
      for (const k of [...v.keys()].sort()) items.push([k, v.get(k) as GoValue]);
    } else if (typeof v === "number" || v instanceof GoInt64) {
      const count = typeof v === "number" ? v : v.v;
      for (let i = 0; i < count; i++) items.push([i, i]);
    } else if (v === null || v === NO_VALUE) {
      /* nothing to range over */
    } else {
      this.fail(n.pipe.pos, pipeString(n.pipe), `range can't iterate over ${printValue(v)}`);
    }
    if (items.length === 0) {
      if (n.elseList) this.walkList(n.elseList, dot);
      this.vars.length = mark;
      return;
    }
    for (const [k, x] of items) {
      const [a, b] = n.pipe.decl;
      if (n.pipe.decl.length === 1 && a) this.setVar(a, x, n.pipe.isAssign);
      if (n.pipe.decl.length === 2 && a && b) {
        this.setVar(a, k, n.pipe.isAssign);
        this.setVar(b, x, n.pipe.isAssign);
      }
      const inner = this.vars.length;
      try {
        this.walkList(n.list, x);
      } catch (e) {
        if (e instanceof Break) break;
        if (!(e instanceof Continue)) throw e;
      } finally {
        this.vars.length = inner;
      }
    }
    this.vars.length = mark;
  }

  setVar(name: string, v: GoValue, assign: boolean): void {
    if (assign) {
      for (let i = this.vars.length - 1; i >= 0; i--) {
        if (this.vars[i]![0] === name) {
          this.vars[i]![1] = v;
          return;
        }
      }
    }
    this.vars.push([name, v]);
  }

  getVar(name: string): GoValue {
    if (name === "$") return this.vars[0]![1];
    for (let i = this.vars.length - 1; i >= 0; i--)
      if (this.vars[i]![0] === name) return this.vars[i]![1];
    return NO_VALUE;
  }

  evalPipe(dot: GoValue, p: Pipe): GoValue {
    let v: GoValue | undefined;
    for (const c of p.cmds) v = this.evalCmd(dot, c, v);
    const out = v ?? NO_VALUE;
    for (const d of p.decl) this.setVar(d, out, p.isAssign);
    return out;
  }

  evalCmd(dot: GoValue, c: Cmd, final: GoValue | undefined): GoValue {
    const first = c.args[0]!;
    switch (first.k) {
      case "field":
        return this.evalFields(dot, dot, first.ident, first, c, final);
      case "variable": {
        const v = this.getVar(first.ident[0]!);
        if (first.ident.length === 1) {
          this.notAFunction(c, final, first);
          return v;
        }
        return this.evalFields(dot, v, first.ident.slice(1), first, c, final);
      }
      case "chain": {
        const base = this.evalArgAny(dot, first.node);
        return this.evalFields(dot, base, first.field, first, c, final);
      }
      case "identifier":
        return this.evalFunction(dot, first, c, final);
      case "pipe":
        this.notAFunction(c, final, first);
        return this.evalPipe(dot, first.pipe);
    }
    this.notAFunction(c, final, first);
    switch (first.k) {
      case "bool":
        return first.value;
      case "dot":
        return dot;
      case "nil":
        return this.fail(first.pos, "nil", "nil is not a command");
      case "number":
        return first.value;
      case "string":
        return first.text;
    }
  }

  notAFunction(c: Cmd, final: GoValue | undefined, at: Arg): void {
    if (c.args.length > 1 || final !== undefined) {
      this.fail(at.pos, argString(at), `can't give argument to non-function ${argString(at)}`);
    }
  }

  evalFields(
    _dot: GoValue,
    recv: GoValue,
    ident: string[],
    at: Arg,
    c: Cmd,
    final: GoValue | undefined,
  ): GoValue {
    let v = recv;
    ident.forEach((name, k) => {
      const hasArgs = k === ident.length - 1 && (c.args.length > 1 || final !== undefined);
      if (v instanceof Map) {
        if (hasArgs) this.fail(at.pos, argString(at), `${name} is not a method but has arguments`);
        v = v.has(name) ? (v.get(name) as GoValue) : NO_VALUE;
        return;
      }
      if (v === null || v === NO_VALUE) {
        this.fail(at.pos, argString(at), `nil pointer evaluating ${goTypeName(v)}.${name}`);
      }
      this.fail(at.pos, argString(at), `can't evaluate field ${name} in type ${goTypeName(v)}`);
    });
    return v;
  }

  evalFunction(
    dot: GoValue,
    id: Extract<Arg, { k: "identifier" }>,
    c: Cmd,
    final: GoValue | undefined,
  ): GoValue {
    const name = id.name;
    const args = c.args.slice(1);
    if (name in this.funcs) {
      const f = this.funcs[name];
      if (!f)
        throw new NotModelledError(`siyuan-sandbox: template function [${name}] is not modelled`);
      return this.callFunc(dot, f, name, id, c, args, final);
    }
    return this.builtin(dot, name, id, c, args, final);
  }

  callFunc(
    dot: GoValue,
    f: TemplateFunc,
    name: string,
    id: Arg,
    c: Cmd,
    args: Arg[],
    final: GoValue | undefined,
  ): GoValue {
    const numIn = args.length + (final !== undefined ? 1 : 0);
    const fixed = f.params.length;
    if (numIn < fixed || (!f.variadic && numIn !== fixed)) {
      const want = fixed + (f.variadic ? 1 : 0);
      this.fail(id.pos, name, `wrong number of args for ${name}: want ${want} got ${numIn}`);
    }
    const vals: GoValue[] = [];
    args.forEach((a, k) => {
      const kind = f.params[k] ?? f.variadic ?? "any";
      vals.push(this.evalArg(dot, a, kind));
    });
    if (final !== undefined) {
      const kind = f.params[args.length] ?? f.variadic ?? "any";
      vals.push(this.convert(final, kind, id));
    }
    try {
      return f.call(vals, this.env);
    } catch (e) {
      if (e instanceof NotModelledError || e instanceof GoTemplateError) throw e;
      return this.fail(c.pos, cmdString(c), `error calling ${name}: ${(e as Error).message}`);
    }
  }

  /** Evaluates an argument for a parameter of `kind` (Go's `evalArg`). */
  evalArg(dot: GoValue, a: Arg, kind: ParamKind): GoValue {
    switch (a.k) {
      case "dot":
      case "nil":
      case "field":
      case "variable":
      case "pipe":
      case "identifier":
      case "chain": {
        if (a.k === "nil") {
          if (kind === "any") return null;
          this.fail(a.pos, "nil", `cannot assign nil to ${GO_KIND[kind]}`);
        }
        const v = this.evalArgAny(dot, a);
        return this.convert(v, kind, a);
      }
    }
    if (kind === "any") return this.evalArgAny(dot, a);
    const lit = this.evalArgAny(dot, a);
    const ok =
      (kind === "string" && a.k === "string") ||
      (kind === "bool" && a.k === "bool") ||
      (kind === "int" && a.k === "number" && typeof lit === "number") ||
      (kind === "float" && a.k === "number");
    if (!ok) {
      const what = { string: "string", bool: "bool", int: "integer", float: "float", time: "" }[
        kind
      ];
      if (kind === "time") {
        this.fail(a.pos, argString(a), `can't handle ${argString(a)} for arg of type time.Time`);
      }
      this.fail(a.pos, argString(a), `expected ${what}; found ${argString(a)}`);
    }
    return kind === "float" && typeof lit === "number" ? new GoFloat(lit) : lit;
  }

  convert(v: GoValue, kind: ParamKind, at: Arg): GoValue {
    if (kind === "any") return v;
    if (v === NO_VALUE) {
      this.fail(at.pos, argString(at), `invalid value; expected ${GO_KIND[kind]}`);
    }
    const fits =
      (kind === "string" && typeof v === "string") ||
      (kind === "bool" && typeof v === "boolean") ||
      (kind === "int" && typeof v === "number") ||
      (kind === "float" && v instanceof GoFloat) ||
      (kind === "time" && isTime(v));
    if (!fits) {
      this.fail(
        at.pos,
        argString(at),
        `wrong type for value; expected ${GO_KIND[kind]}; got ${goTypeName(v)}`,
      );
    }
    return v;
  }

  evalArgAny(dot: GoValue, a: Arg): GoValue {
    switch (a.k) {
      case "dot":
        return dot;
      case "nil":
        return null;
      case "bool":
        return a.value;
      case "number":
        return a.value;
      case "string":
        return a.text;
      case "field":
        return this.evalFields(dot, dot, a.ident, a, { pos: a.pos, args: [a] }, undefined);
      case "variable": {
        const v = this.getVar(a.ident[0]!);
        return a.ident.length === 1
          ? v
          : this.evalFields(dot, v, a.ident.slice(1), a, { pos: a.pos, args: [a] }, undefined);
      }
      case "pipe":
        return this.evalPipe(dot, a.pipe);
      case "identifier":
        return this.evalFunction(dot, a, { pos: a.pos, args: [a] }, undefined);
      case "chain":
        return this.evalFields(
          dot,
          this.evalArgAny(dot, a.node),
          a.field,
          a,
          { pos: a.pos, args: [a] },
          undefined,
        );
    }
  }

  builtin(
    dot: GoValue,
    name: string,
    id: Arg,
    c: Cmd,
    args: Arg[],
    final: GoValue | undefined,
  ): GoValue {
    const numIn = args.length + (final !== undefined ? 1 : 0);
    const want = (n: number, variadic = false): void => {
      if (numIn < n || (!variadic && numIn !== n)) {
        this.fail(
          id.pos,
          name,
          `wrong number of args for ${name}: want ${n + (variadic ? 1 : 0)} got ${numIn}`,
        );
      }
    };
    const all = (): GoValue[] => {
      const vs = args.map((a) => this.evalArgAny(dot, a));
      if (final !== undefined) vs.push(final);
      return vs;
    };
    const err = (msg: string): never =>
      this.fail(c.pos, cmdString(c), `error calling ${name}: ${msg}`);
    switch (name) {
      case "and":
      case "or": {
        want(1, true);
        let v: GoValue = NO_VALUE;
        for (const a of args) {
          v = this.evalArgAny(dot, a);
          if (truth(v) === (name === "or")) return v;
        }
        if (final !== undefined) v = final;
        return v;
      }
      case "not":
        want(1);
        return !truth(all()[0] ?? null);
      case "len": {
        want(1);
        const v = all()[0] ?? null;
        if (typeof v === "string") return Buffer.byteLength(v);
        if (Array.isArray(v)) return v.length;
        if (v instanceof Map) return v.size;
        return err(`len of type ${goTypeName(v)}`);
      }
      case "index": {
        want(1, true);
        const [item, ...idx] = all();
        let v = item ?? null;
        for (const i of idx) {
          if (Array.isArray(v) || typeof v === "string") {
            const n = toIndex(i);
            if (n === null) err(`cannot index slice/array with type ${goTypeName(i ?? null)}`);
            const len = typeof v === "string" ? Buffer.byteLength(v) : v.length;
            if (n! < 0 || n! >= len) err(`index out of range: ${n}`);
            v = typeof v === "string" ? (Buffer.from(v)[n!] ?? 0) : (v[n!] ?? null);
          } else if (v instanceof Map) {
            v = v.has(String(i)) ? (v.get(String(i)) as GoValue) : mapZero(v);
          } else if (v === null || v === NO_VALUE) err("index of untyped nil");
          else err(`can't index item of type ${goTypeName(v)}`);
        }
        return v;
      }
      case "print":
        return goSprint(all());
      case "println":
        return `${all().map(printValue).join(" ")}\n`;
      case "printf": {
        want(1, true);
        const vs = all();
        if (typeof vs[0] !== "string") {
          this.fail(
            args[0]!.pos,
            argString(args[0]!),
            `expected string; found ${argString(args[0]!)}`,
          );
        }
        return goPrintf(vs[0] as string, vs.slice(1));
      }
      case "eq": {
        want(1, true);
        const [a, ...rest] = all();
        if (rest.length === 0) err("missing argument for comparison");
        for (const b of rest) {
          const r = compare(a ?? null, b);
          if (r === "incompatible") err("incompatible types for comparison");
          if (r === 0) return true;
        }
        return false;
      }
      case "ne":
      case "lt":
      case "le":
      case "gt":
      case "ge": {
        want(2);
        const [a, b] = all();
        const r = compare(a ?? null, b ?? null);
        if (r === "incompatible") err("incompatible types for comparison");
        if (name === "ne") return r !== 0;
        if (r === "unordered") err("invalid type for comparison");
        const n = r as number;
        return name === "lt" ? n < 0 : name === "le" ? n <= 0 : name === "gt" ? n > 0 : n >= 0;
      }
      default:
        throw new NotModelledError(`siyuan-sandbox: template function [${name}] is not modelled`);
    }
  }
}

const GO_KIND: Record<ParamKind, string> = {
  any: "interface {}",
  string: "string",
  int: "int",
  bool: "bool",
  time: "time.Time",
  float: "float64",
};

const isTime = (v: GoValue): v is GoTime => v instanceof GoTime;

function mapZero(m: Map<string, unknown>): GoValue {
  return (m as Map<string, unknown> & { zero?: GoValue }).zero ?? NO_VALUE;
}

function toIndex(i: GoValue | undefined): number | null {
  if (typeof i === "number") return i;
  if (i instanceof GoInt64) return i.v;
  return null;
}

/** Go's truth of a value (`if`, `with`, `and`, `or`, `not`). */
export function truth(v: GoValue): boolean {
  if (v === NO_VALUE || v === null || v === undefined) return false;
  if (typeof v === "boolean") return v;
  if (typeof v === "number") return v !== 0;
  if (typeof v === "string") return v !== "";
  if (v instanceof GoInt64 || v instanceof GoFloat) return v.v !== 0;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof Map) return v.size > 0;
  return true;
}

/** `eq`/`lt` of Go's basic kinds: negative, 0, positive; or why they cannot compare. */
function compare(a: GoValue, b: GoValue): number | "incompatible" | "unordered" {
  const num = (x: GoValue): { n: number; f: boolean } | null =>
    typeof x === "number"
      ? { n: x, f: false }
      : x instanceof GoInt64
        ? { n: x.v, f: false }
        : x instanceof GoFloat
          ? { n: x.v, f: true }
          : null;
  const na = num(a);
  const nb = num(b);
  if (na && nb) {
    if (na.f !== nb.f) return "incompatible";
    return na.n - nb.n;
  }
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "boolean" && typeof b === "boolean") return a === b ? 0 : "unordered";
  if (a === null && b === null) return 0;
  if (typeof a !== typeof b || na || nb) return "incompatible";
  return a === b ? 0 : "unordered";
}

/** What an action prints for a value (`<no value>` for a missing key). */
export function printValue(v: GoValue): string {
  if (v === NO_VALUE) return "<no value>";
  return goSprint([v]);
}

/**
 * Parses and runs `text` with delimiters `left`/`right` on `data` (Go's map[string]string), with
 * the functions of {@link sprigFuncs}. Throws {@link GoTemplateError} with Go's text, or
 * {@link NotModelledError}.
 */
export function executeTemplate(
  text: string,
  data: Record<string, string>,
  opts: { left: string; right: string; env: TemplateEnv },
): string {
  const funcs = sprigFuncs;
  const tpl = parseTemplate(text, {
    left: opts.left,
    right: opts.right,
    funcs: new Set(Object.keys(funcs)),
  });
  const m = new Map<string, GoValue>(Object.entries(data));
  (m as Map<string, GoValue> & { zero?: GoValue }).zero = "";
  const exec = new Exec(tpl, funcs, opts.env);
  exec.vars.push(["$", m]);
  exec.walkList(tpl.root, m);
  return exec.out;
}
