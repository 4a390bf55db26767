/**
 * The language level of SiYuan 3.7.3's kernel-plugin runtime (goja 065cd970, contract §6
 * "Language level"): `kernel.js` is parsed as a classic script before it runs, and syntax goja
 * rejects at compile time, or silently mistranslates, refuses the whole file.
 */
import { type Node, parse } from "acorn";

/** Why a script is refused. `kind` says whether goja itself fails or would mistranslate. */
export interface LanguageViolation {
  /** `compile`: goja fails to compile the file too; `mistranslated`: goja would run it wrongly. */
  kind: "compile" | "mistranslated";
  /** What is wrong, e.g. "Async generators are not supported yet". */
  message: string;
  /** 1-based line and 0-based column of the offending node (or of the parse error). */
  line: number;
  column: number;
}

type AnyNode = Node & Record<string, unknown>;

/** True when a regex pattern has a `\p{…}`/`\P{…}` escape (an even run of backslashes before it). */
export function hasPropertyEscape(pattern: string): boolean {
  return /(^|[^\\])(\\\\)*\\[pP]\{/.test(pattern);
}

/** True when a regex pattern has a named group `(?<name>` (not a lookbehind `(?<=`/`(?<!`). */
export function hasNamedGroup(pattern: string): boolean {
  return /(^|[^\\])(\\\\)*\(\?<(?![=!])/.test(pattern);
}

/** The first goja-level violation in a regex (literal or constructor arguments), or null. */
export function regexViolation(
  pattern: string,
  flags: string,
): Omit<LanguageViolation, "line" | "column"> | null {
  if (/[dv]/.test(flags)) {
    return {
      kind: "compile",
      message: `Invalid flags supplied to RegExp constructor '${flags}'`,
    };
  }
  // without u/v, `\p{L}` is an identity escape in V8 too ("p{L}"): no difference
  if (/[uv]/.test(flags) && hasPropertyEscape(pattern)) {
    return {
      kind: "mistranslated",
      message: `regexp /${pattern}/${flags} uses a \\p{…} escape: goja drops the backslash and matches the literal text`,
    };
  }
  if (hasNamedGroup(pattern)) {
    return {
      kind: "mistranslated",
      message: `regexp /${pattern}/${flags} uses a named group: goja gives matches no .groups and $<name> does not substitute`,
    };
  }
  return null;
}

function lineCol(source: string, offset: number): { line: number; column: number } {
  let line = 1;
  let last = -1;
  for (let i = 0; i < offset && i < source.length; i++) {
    if (source.charCodeAt(i) === 10) {
      line++;
      last = i;
    }
  }
  return { line, column: offset - last - 1 };
}

function visit(node: unknown, fn: (n: AnyNode) => void): void {
  if (Array.isArray(node)) {
    for (const c of node) visit(c, fn);
    return;
  }
  if (!node || typeof node !== "object" || typeof (node as AnyNode).type !== "string") return;
  fn(node as AnyNode);
  for (const [k, v] of Object.entries(node)) {
    if (k === "loc" || k === "regex") continue;
    if (v && typeof v === "object") visit(v, fn);
  }
}

/**
 * Parses `source` as goja would take it (a classic script) and returns the first construct goja
 * lacks or mistranslates, or null when the script is at goja's level. Parse errors (import/export,
 * decorators, top-level await, any V8 syntax error) are `compile` violations.
 */
export function checkLanguageLevel(source: string): LanguageViolation | null {
  let ast: Node;
  try {
    ast = parse(source, {
      ecmaVersion: "latest",
      sourceType: "script",
      allowHashBang: true,
      allowAwaitOutsideFunction: false,
    });
  } catch (e) {
    const err = e as SyntaxError & { pos?: number; loc?: { line: number; column: number } };
    const loc = err.loc ?? { line: 1, column: 0 };
    return {
      kind: "compile",
      message: `SyntaxError: ${err.message.replace(/ \(\d+:\d+\)$/, "")}`,
      ...loc,
    };
  }
  let found: LanguageViolation | null = null;
  visit(ast, (n) => {
    if (found) return;
    const at = (message: string, kind: LanguageViolation["kind"] = "compile") => {
      found = { kind, message, ...lineCol(source, n.start) };
    };
    switch (n.type) {
      case "FunctionDeclaration":
      case "FunctionExpression":
        if (n.async && n.generator) at("SyntaxError: Async generators are not supported yet");
        break;
      case "ForOfStatement":
        if (n.await) at("SyntaxError: Unexpected token await (for await is not supported)");
        break;
      case "ImportExpression":
        at("SyntaxError: dynamic import() is not supported");
        break;
      case "MetaProperty":
        if ((n.meta as AnyNode).name === "import") at("SyntaxError: import.meta is not supported");
        break;
      case "VariableDeclaration":
        if (n.kind === "using" || n.kind === "await using") {
          at(`SyntaxError: '${n.kind}' declarations are not supported`);
        }
        break;
      case "Literal": {
        const re = n.regex as { pattern: string; flags: string } | undefined;
        if (re) {
          const v = regexViolation(re.pattern, re.flags);
          if (v) at(v.kind === "compile" ? `SyntaxError: ${v.message}` : v.message, v.kind);
        }
        break;
      }
    }
  });
  return found;
}
