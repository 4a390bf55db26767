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
  GoDuration,
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
  STRING_MAPS,
} from "./go-fmt.js";
import { GO_METHOD_NAMES, METHODS, sprigFuncs } from "./go-template-funcs.js";
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
export type ParamKind = "any" | "string" | "int" | "bool" | "time" | "duration" | "float" | "value";

/** A template function as reflection sees it: parameter kinds and an implementation. */
export interface TemplateFunc {
  params: readonly ParamKind[];
  /** Kind of the variadic tail, when the function is variadic. */
  variadic?: ParamKind;
  /** Returns the value; throws `Error` for Go's `error calling NAME: …`. `recv`: a method's receiver. */
  call(args: GoValue[], env: TemplateEnv, recv?: GoValue): GoValue;
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
        // Go's scanNumber; a sign after a number starts the imaginary part of a complex constant
        const scan = (): boolean => {
          const m =
            /^[+-]?(0[xX][0-9a-fA-F_]*|0[bB][01_]*|0[oO][0-7_]*|(?:\d[\d_]*)?(?:\.\d*)?(?:[eE][+-]?\d+)?)i?/.exec(
              input.slice(pos),
            );
          advance(m?.[0].length ?? 0);
          if (isAlnum(input[pos])) {
            advance(1);
            return false;
          }
          return true;
        };
        pos--;
        if (!scan()) return fail(`bad number syntax: ${goQuote(input.slice(start, pos))}`);
        if (input[pos] === "+" || input[pos] === "-") {
          if (!scan() || input[pos - 1] !== "i") {
            return fail(`bad number syntax: ${goQuote(input.slice(start, pos))}`);
          }
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
        parenDepth--;
        if (parenDepth < 0) return fail("unexpected right paren");
        emit("rightParen");
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
  | { k: "break" | "continue"; pos: number; line: number }
  | { k: "template"; pos: number; name: string; pipe: Pipe | null };

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
  /** Templates named by `define` and `block`. */
  readonly defs: ReadonlyMap<string, Node[]>;
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
        case "template":
          return templateControl();
        case "block":
          return blockControl();
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
    // Go gives a chained field or variable the position of its first chained field
    const chainPos = peek().pos;
    const fields: string[] = [];
    while (peek().typ === "field") fields.push(next().val.slice(1));
    switch (node.k) {
      case "field":
        return { k: "field", pos: chainPos, ident: [...node.ident, ...fields] };
      case "variable":
        return { k: "variable", pos: chainPos, ident: [...node.ident, ...fields] };
      case "bool":
      case "string":
      case "number":
      case "nil":
      case "dot":
        return fail(`unexpected . after term ${goQuote(argString(node))}`);
      default:
        return { k: "chain", pos: chainPos, node, field: fields };
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
    // Go reads a leading 0 as octal
    const n = /^[+-]?0[0-7]+$/.test(clean)
      ? Number.parseInt(clean, 8)
      : /^[+-]0[xXbBoO]/.test(clean)
        ? -Number(clean.slice(1)) * (clean[0] === "-" ? 1 : -1)
        : Number(clean);
    if (Number.isNaN(n)) fail(`illegal number syntax: ${goQuote(t.val)}`);
    return {
      k: "number",
      pos: t.pos,
      text: t.val,
      value: isFloat ? new GoFloat(n) : n,
    };
  };

  const templateName = (token: Token, context: string): string =>
    token.typ === "string" || token.typ === "rawString"
      ? unquote(token)
      : unexpected(token, context);

  // {{template "name" [pipeline]}}
  const templateControl = (): Node => {
    const context = "template clause";
    const token = nextNonSpace();
    const name = templateName(token, context);
    let pipe: Pipe | null = null;
    if (nextNonSpace().typ !== "rightDelim") {
      backup();
      pipe = pipeline(context, "rightDelim");
    }
    return { k: "template", pos: token.pos, name, pipe };
  };

  /** A `define` body (or a `block`'s) with its own variables. */
  const definition = (name: string, context: string): void => {
    const saved = vars;
    vars = ["$"];
    const { list, end } = itemList();
    if (end.k !== "end") fail(`unexpected {{else}} in ${context}`);
    vars = saved;
    // as text/template's AddParseTree: an empty body does not replace an earlier definition
    if (!defs.has(name) || list.some((n) => n.k !== "text" || n.text.trim() !== "")) {
      defs.set(name, list);
    }
  };

  // {{block "name" pipeline}} T {{end}}: define "name" as T, then {{template "name" pipeline}}
  const blockControl = (): Node => {
    const context = "block clause";
    const token = nextNonSpace();
    const name = templateName(token, context);
    const pipe = pipeline(context, "rightDelim");
    definition(name, context);
    return { k: "template", pos: token.pos, name, pipe };
  };

  const defs = new Map<string, Node[]>();
  const root: Node[] = [];
  while (peek().typ !== "eof") {
    // {{define "name"}} T {{end}} at the top level
    if (peek().typ === "leftDelim") {
      const at = i;
      next();
      if (nextNonSpace().val === "define" && last.typ === "keyword") {
        const context = "define clause";
        const token = nextNonSpace();
        const name = templateName(token, context);
        expect("rightDelim", context);
        definition(name, context);
        continue;
      }
      i = at;
    }
    const n = textOrAction();
    if ("k" in n && n.k === "end") fail("unexpected {{end}}");
    if ("k" in n && n.k === "else") fail("unexpected {{else}}");
    root.push(n as Node);
  }
  return { text, root, defs };
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

/** How deep `{{template}}` calls may nest here (Go allows 100000; this stack would not). */
const MAX_TEMPLATE_DEPTH = 1000;

class Break {}
class Continue {}

/** A node of the parsed template that Go's `s.at` can point at: where it starts and how it prints. */
interface At {
  pos: number;
  str: string;
}

const atArg = (a: Arg): At => ({ pos: a.pos, str: argString(a) });

/** The builtins as Go declares them: fixed parameter count, variadic or not. */
const BUILTIN_ARITY: Readonly<Record<string, { fixed: number; variadic: boolean }>> = {
  and: { fixed: 1, variadic: true },
  or: { fixed: 1, variadic: true },
  not: { fixed: 1, variadic: false },
  len: { fixed: 1, variadic: false },
  index: { fixed: 1, variadic: true },
  print: { fixed: 0, variadic: true },
  printf: { fixed: 1, variadic: true },
  println: { fixed: 0, variadic: true },
  eq: { fixed: 1, variadic: true },
  ne: { fixed: 2, variadic: false },
  lt: { fixed: 2, variadic: false },
  le: { fixed: 2, variadic: false },
  gt: { fixed: 2, variadic: false },
  ge: { fixed: 2, variadic: false },
};

/** Go's `text/template` executor (`exec.go`), with its `s.at` bookkeeping for error positions. */
class Exec {
  out = "";
  vars: Array<[string, GoValue]> = [];
  private at: At = { pos: 0, str: "" };
  /** The template being executed (`""` is the file itself). */
  private name = "";
  private depth = 0;
  constructor(
    readonly tpl: ParsedTemplate,
    readonly funcs: Readonly<Record<string, TemplateFunc | null>>,
    readonly env: TemplateEnv,
  ) {}

  private setAt(at: At): void {
    this.at = at;
  }

  /** Go's `s.errorf`: `template: :LINE:COL: executing "" at <NODE>: MSG` of the current node. */
  fail(msg: string): never {
    const before = this.tpl.text.slice(0, this.at.pos);
    const nl = before.lastIndexOf("\n");
    const line = 1 + (before.match(/\n/g)?.length ?? 0);
    const col = nl < 0 ? Buffer.byteLength(before) : Buffer.byteLength(before.slice(nl + 1));
    throw new GoTemplateError(
      `template: :${line}:${col}: executing ${goQuote(this.name)} at <${this.at.str}>: ${msg}`,
    );
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
      case "template":
        this.walkTemplate(n, dot);
        return;
    }
  }

  /** `{{template "name" pipeline}}`: the named template on the pipeline's value, with its own `$`. */
  walkTemplate(n: Extract<Node, { k: "template" }>, dot: GoValue): void {
    const str = `{{template ${goQuote(n.name)}${n.pipe ? ` ${pipeString(n.pipe)}` : ""}}}`;
    this.setAt({ pos: n.pos, str });
    const body = this.tpl.defs.get(n.name);
    if (!body) this.fail(`template ${goQuote(n.name)} not defined`);
    if (this.depth >= MAX_TEMPLATE_DEPTH) {
      throw new NotModelledError(
        `siyuan-sandbox: templates nested deeper than ${MAX_TEMPLATE_DEPTH} are not modelled`,
      );
    }
    const value = n.pipe ? this.evalPipe(dot, n.pipe) : NO_VALUE;
    const saved = { vars: this.vars, name: this.name };
    this.vars = [["$", value]];
    this.name = n.name;
    this.depth++;
    try {
      this.walkList(body as Node[], value);
    } finally {
      this.depth--;
      this.vars = saved.vars;
      this.name = saved.name;
    }
  }

  range(n: Extract<Node, { list: Node[] }>, dot: GoValue): void {
    this.setAt({ pos: n.pos, str: `{{range ${pipeString(n.pipe)}}}` });
    const mark = this.vars.length;
    const v = this.evalPipe(dot, { ...n.pipe, decl: [] });
    const items: Array<[GoValue, GoValue]> = [];
    if (Array.isArray(v)) for (const [i, x] of v.entries()) items.push([i, x]);
    else if (v instanceof Map) {
      for (const k of [...v.keys()].sort()) items.push([k, v.get(k) as GoValue]);
    } else if (typeof v === "number" || v instanceof GoInt64) {
      const count = typeof v === "number" ? v : v.v;
      for (let i = 0; i < count; i++) items.push([i, i]);
    } else if (v !== null && v !== NO_VALUE) {
      this.fail(`range can't iterate over ${printValue(v)}`);
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
    for (let i = this.vars.length - 1; i >= 0; i--) {
      if (this.vars[i]![0] === name) return this.vars[i]![1];
    }
    return this.fail(`undefined variable: ${name}`);
  }

  evalPipe(dot: GoValue, p: Pipe): GoValue {
    this.setAt({ pos: p.pos, str: pipeString(p) });
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
        this.setAt(atArg(first));
        return this.evalFieldChain(dot, first.ident, c.args, final, dot, c);
      case "chain": {
        this.setAt(atArg(first));
        const base = this.evalArg(dot, first.node, "any");
        return this.evalFieldChain(base, first.field, c.args, final, dot, c);
      }
      case "variable": {
        this.setAt(atArg(first));
        const v = this.getVar(first.ident[0]!);
        if (first.ident.length === 1) {
          this.notAFunction(c.args, final);
          return v;
        }
        return this.evalFieldChain(v, first.ident.slice(1), c.args, final, dot, c);
      }
      case "identifier":
        return this.evalFunction(dot, first, c, c.args, final);
      case "pipe":
        this.notAFunction(c.args, final);
        return this.evalPipe(dot, first.pipe);
    }
    this.setAt(atArg(first));
    this.notAFunction(c.args, final);
    switch (first.k) {
      case "bool":
        return first.value;
      case "dot":
        return dot;
      case "nil":
        return this.fail("nil is not a command");
      case "number":
        return first.value;
      case "string":
        return first.text;
    }
  }

  notAFunction(args: Arg[], final: GoValue | undefined): void {
    if (args.length > 1 || final !== undefined) {
      this.fail(`can't give argument to non-function ${argString(args[0]!)}`);
    }
  }

  /** Go's `evalFieldChain`: each name looked up in turn (map keys; anything else has no fields). */
  evalFieldChain(
    recv: GoValue,
    ident: string[],
    args: Arg[],
    final: GoValue | undefined,
    dot: GoValue = NO_VALUE,
    cmd?: Cmd,
  ): GoValue {
    let v = recv;
    for (const [k, name] of ident.entries()) {
      if (v === NO_VALUE) return NO_VALUE;
      const hasArgs = k === ident.length - 1 && (args.length > 1 || final !== undefined);
      if (v instanceof Map) {
        if (hasArgs) this.fail(`${name} is not a method but has arguments`);
        v = v.has(name) ? (v.get(name) as GoValue) : NO_VALUE;
        continue;
      }
      if (v === null) this.fail(`nil pointer evaluating interface {}.${name}`);
      const type = goTypeName(v);
      const method = METHODS[type]?.[name];
      if (method) {
        // a method: the command's arguments go to the last one of the chain
        const recv = v;
        const bound: TemplateFunc = {
          ...method,
          call: (vals, env) => method.call(vals, env, recv),
        };
        const last = k === ident.length - 1;
        v = this.callFunc(
          dot,
          bound,
          name,
          cmd ?? { pos: this.at.pos, args: [] },
          last ? args.slice(1) : [],
          last ? final : undefined,
        );
        continue;
      }
      if (GO_METHOD_NAMES[type]?.has(name)) {
        throw new NotModelledError(`siyuan-sandbox: the method [${type}.${name}] is not modelled`);
      }
      this.fail(`can't evaluate field ${name} in type ${type}`);
    }
    return v;
  }

  evalFunction(
    dot: GoValue,
    id: Extract<Arg, { k: "identifier" }>,
    c: Cmd,
    args: Arg[],
    final: GoValue | undefined,
  ): GoValue {
    this.setAt(atArg(id));
    const name = id.name;
    if (name in this.funcs) {
      const f = this.funcs[name];
      if (!f)
        throw new NotModelledError(`siyuan-sandbox: template function [${name}] is not modelled`);
      return this.callFunc(dot, f, name, c, args.slice(1), final);
    }
    return this.builtin(dot, name, c, args.slice(1), final);
  }

  /** Go's arity check of `evalCall`. */
  checkArity(
    name: string,
    fixed: number,
    variadic: boolean,
    args: Arg[],
    final: GoValue | undefined,
  ) {
    const numIn = args.length + (final !== undefined ? 1 : 0);
    if (variadic && numIn < fixed) {
      this.fail(`wrong number of args for ${name}: want at least ${fixed} got ${args.length}`);
    }
    if (!variadic && numIn !== fixed) {
      this.fail(`wrong number of args for ${name}: want ${fixed} got ${numIn}`);
    }
  }

  callFunc(
    dot: GoValue,
    f: TemplateFunc,
    name: string,
    c: Cmd,
    args: Arg[],
    final: GoValue | undefined,
  ): GoValue {
    const fixed = f.params.length;
    this.checkArity(name, fixed, f.variadic !== undefined, args, final);
    const vals: GoValue[] = [];
    for (const [k, a] of args.entries()) {
      vals.push(this.evalArg(dot, a, f.params[k] ?? f.variadic ?? "any"));
    }
    if (final !== undefined) {
      vals.push(this.validateType(final, f.params[args.length] ?? f.variadic ?? "any"));
    }
    try {
      return f.call(vals, this.env);
    } catch (e) {
      if (e instanceof NotModelledError || e instanceof GoTemplateError) throw e;
      this.setAt({ pos: c.pos, str: cmdString(c) });
      return this.fail(`error calling ${name}: ${(e as Error).message}`);
    }
  }

  /** Go's `evalArg` for a parameter of `kind`. */
  evalArg(dot: GoValue, a: Arg, kind: ParamKind): GoValue {
    this.setAt(atArg(a));
    switch (a.k) {
      case "dot":
        return this.validateType(dot, kind);
      case "nil":
        if (kind === "any" || kind === "value") return null;
        return this.fail(`cannot assign nil to ${GO_KIND[kind]}`);
      case "field":
        return this.validateType(
          this.evalFieldChain(dot, a.ident, [a], undefined, dot, { pos: a.pos, args: [a] }),
          kind,
        );
      case "variable": {
        const v = this.getVar(a.ident[0]!);
        const r =
          a.ident.length === 1
            ? v
            : this.evalFieldChain(v, a.ident.slice(1), [a], undefined, dot, {
                pos: a.pos,
                args: [a],
              });
        return this.validateType(r, kind);
      }
      case "pipe":
        return this.validateType(this.evalPipe(dot, a.pipe), kind);
      case "identifier":
        return this.validateType(
          this.evalFunction(dot, a, { pos: a.pos, args: [a] }, [a], undefined),
          kind,
        );
      case "chain": {
        this.setAt(atArg(a));
        const base = this.evalArg(dot, a.node, "any");
        return this.validateType(
          this.evalFieldChain(base, a.field, [a], undefined, dot, { pos: a.pos, args: [a] }),
          kind,
        );
      }
    }
    // a literal
    switch (kind) {
      case "any":
      case "value":
        return a.k === "bool" ? a.value : a.k === "number" ? a.value : a.text;
      case "bool":
        if (a.k === "bool") return a.value;
        return this.fail(`expected bool; found ${argString(a)}`);
      case "string":
        if (a.k === "string") return a.text;
        return this.fail(`expected string; found ${argString(a)}`);
      case "int":
        if (a.k === "number" && typeof a.value === "number") return a.value;
        return this.fail(`expected integer; found ${argString(a)}`);
      case "float":
        if (a.k === "number")
          return new GoFloat(typeof a.value === "number" ? a.value : (a.value as GoFloat).v);
        return this.fail(`expected float; found ${argString(a)}`);
      case "time":
        return this.fail(`can't handle ${argString(a)} for arg of type time.Time`);
      case "duration":
        // an integer constant converts to nanoseconds
        if (a.k === "number" && typeof a.value === "number") return new GoDuration(a.value / 1e6);
        return this.fail(`expected integer; found ${argString(a)}`);
    }
  }

  /** Go's `validateType`: a computed value for a parameter of `kind`. */
  validateType(v: GoValue, kind: ParamKind): GoValue {
    // a builtin's reflect.Value parameter takes even the invalid value
    if (kind === "value") return v;
    if (v === NO_VALUE) {
      if (kind === "any") return null;
      return this.fail(`invalid value; expected ${GO_KIND[kind]}`);
    }
    if (kind === "any") return v;
    const fits =
      (kind === "string" && typeof v === "string") ||
      (kind === "bool" && typeof v === "boolean") ||
      (kind === "int" && typeof v === "number") ||
      (kind === "float" && v instanceof GoFloat) ||
      (kind === "time" && isTime(v)) ||
      (kind === "duration" && v instanceof GoDuration);
    if (!fits) this.fail(`wrong type for value; expected ${GO_KIND[kind]}; got ${goTypeName(v)}`);
    return v;
  }

  builtin(dot: GoValue, name: string, c: Cmd, args: Arg[], final: GoValue | undefined): GoValue {
    const arity = BUILTIN_ARITY[name];
    if (!arity)
      throw new NotModelledError(`siyuan-sandbox: template function [${name}] is not modelled`);
    this.checkArity(name, arity.fixed, arity.variadic, args, final);
    if (name === "and" || name === "or") {
      // short-circuit: an operand is evaluated only when needed
      let v: GoValue = NO_VALUE;
      for (const a of args) {
        v = this.evalArg(dot, a, "value");
        if (truth(v) === (name === "or")) return v;
      }
      return final !== undefined ? final : v;
    }
    // print, printf and println take interface{} (an invalid value becomes nil); the others reflect.Value
    const printing = name === "print" || name === "printf" || name === "println";
    const kinds: ParamKind[] = name === "printf" ? ["string"] : [];
    const vals = args.map((a, k) => this.evalArg(dot, a, kinds[k] ?? (printing ? "any" : "value")));
    if (final !== undefined) vals.push(final);
    try {
      return callBuiltin(name, vals);
    } catch (e) {
      if (!(e instanceof BuiltinError)) throw e;
      this.setAt({ pos: c.pos, str: cmdString(c) });
      return this.fail(`error calling ${name}: ${e.message}`);
    }
  }
}

class BuiltinError extends Error {}

/** Go's builtins on evaluated arguments; a `BuiltinError` is Go's returned error. */
function callBuiltin(name: string, vals: GoValue[]): GoValue {
  const err = (msg: string): never => {
    throw new BuiltinError(msg);
  };
  const [a, b] = vals;
  switch (name) {
    case "not":
      return !truth(a ?? null);
    case "len":
      if (typeof a === "string") return Buffer.byteLength(a);
      if (Array.isArray(a)) return a.length;
      if (a instanceof Map) return a.size;
      if (a === NO_VALUE) return err("reflect: call of reflect.Value.Type on zero Value");
      if (a === null || a === undefined) return err("len of nil pointer");
      return err(`len of type ${goTypeName(a)}`);
    case "index": {
      let v: GoValue = a ?? null;
      for (const i of vals.slice(1)) {
        if (Array.isArray(v) || typeof v === "string") {
          const n = toIndex(i);
          if (n === null) return err(`cannot index slice/array with type ${goTypeName(i ?? null)}`);
          const len = typeof v === "string" ? Buffer.byteLength(v) : v.length;
          if (n < 0 || n >= len) return err(`index out of range: ${n}`);
          v = typeof v === "string" ? (Buffer.from(v)[n] ?? 0) : (v[n] ?? null);
        } else if (v instanceof Map) {
          v = v.has(String(i)) ? (v.get(String(i)) as GoValue) : mapZero(v);
        } else if (v === null || v === NO_VALUE) return err("index of untyped nil");
        else return err(`can't index item of type ${goTypeName(v)}`);
      }
      return v;
    }
    case "print":
      return goSprint(vals);
    case "println":
      return `${vals.map((v) => goSprint([v])).join(" ")}\n`;
    case "printf":
      return goPrintf(a as string, vals.slice(1));
    case "eq": {
      if (vals.length < 2) return err("missing argument for comparison");
      for (const x of vals.slice(1)) if (equal(a ?? null, x, err)) return true;
      return false;
    }
    case "ne":
      return !equal(a ?? null, b ?? null, err);
    case "lt":
      return less(a ?? null, b ?? null, err);
    case "le":
      return less(a ?? null, b ?? null, err) || equal(a ?? null, b ?? null, err);
    case "gt":
      return !(less(a ?? null, b ?? null, err) || equal(a ?? null, b ?? null, err));
    case "ge":
      return !less(a ?? null, b ?? null, err);
  }
  return err(`unknown builtin ${name}`);
}

type Kind = "bool" | "int" | "float" | "string" | null;

function basicKind(v: GoValue): Kind {
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number" || v instanceof GoInt64) return "int";
  if (v instanceof GoFloat) return "float";
  if (typeof v === "string") return "string";
  return null;
}

const valid = (v: GoValue): boolean => v !== NO_VALUE;
const numOf = (v: GoValue): number => (typeof v === "number" ? v : (v as GoInt64 | GoFloat).v);

/** Go's `eq` of two operands. */
function equal(a: GoValue, b: GoValue, err: (m: string) => never): boolean {
  const k1 = basicKind(a);
  const k2 = basicKind(b);
  if (k1 !== k2) {
    if (valid(a) && valid(b) && a !== null && b !== null) {
      return err(`incompatible types for comparison: ${goTypeName(a)} and ${goTypeName(b)}`);
    }
    return false;
  }
  if (k1 === "int" || k1 === "float") return numOf(a) === numOf(b);
  if (k1 !== null) return a === b;
  if (a === null || b === null || a === NO_VALUE || b === NO_VALUE) {
    return (a === null || a === NO_VALUE) === (b === null || b === NO_VALUE);
  }
  return err(`non-comparable type ${goSprint([b])}: ${goTypeName(b)}`);
}

/** Go's `lt` of two operands. */
function less(a: GoValue, b: GoValue, err: (m: string) => never): boolean {
  const k1 = basicKind(a);
  const k2 = basicKind(b);
  if (k1 === null || k2 === null) return err("invalid type for comparison");
  if (k1 !== k2)
    return err(`incompatible types for comparison: ${goTypeName(a)} and ${goTypeName(b)}`);
  if (k1 === "bool") return err("invalid type for comparison");
  if (k1 === "string") return (a as string) < (b as string);
  return numOf(a) < numOf(b);
}

const GO_KIND: Record<ParamKind, string> = {
  any: "interface {}",
  string: "string",
  int: "int",
  bool: "bool",
  time: "time.Time",
  duration: "time.Duration",
  float: "float64",
  value: "reflect.Value",
};

const isTime = (v: GoValue): v is GoTime => v instanceof GoTime;

/** `index` of a missing key: the zero value of the map's element type. */
function mapZero(m: Map<string, GoValue>): GoValue {
  return STRING_MAPS.has(m) ? "" : null;
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
  STRING_MAPS.add(m);
  const exec = new Exec(tpl, funcs, opts.env);
  exec.vars.push(["$", m]);
  exec.walkList(tpl.root, m);
  return exec.out;
}
