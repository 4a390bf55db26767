/**
 * Probes of `/api/template/render` (a template file run as Go `text/template` with delimiters
 * `.action{` `}` on the block's `{title, id, name, alias}`, the result parsed as Kramdown and
 * answered as editor DOM with fresh IDs) and of `/api/system/getWorkspaceInfo`, which the product
 * calls first to learn the absolute path the render call takes. Times are fixed (`toDate`), never
 * `now`, so the recordings compare byte for byte after normalisation.
 */
import type { ProbeContext } from "../probe.js";
import { data, probe, UNKNOWN_ID, utf8 } from "./kit.js";

const RENDER = "/api/template/render";

/** The workspace's absolute path (quiet), aliased to `<workspace>` from now on. */
async function workspaceDir(ctx: ProbeContext): Promise<string> {
  const info = await ctx.quiet<{ workspaceDir: string }>("/api/system/getWorkspaceInfo", {});
  ctx.alias(info.workspaceDir, "<workspace>");
  return info.workspaceDir;
}

/** Writes `data/templates/<name>` (quiet). */
async function putTemplate(ctx: ProbeContext, name: string, text: string): Promise<void> {
  await ctx.quietRaw({
    path: "/api/file/putFile",
    form: [
      { name: "path", value: `/data/templates/${name}` },
      { name: "file", filename: name, bytes: utf8(text) },
    ],
  });
}

async function removeTemplates(ctx: ProbeContext, names: readonly string[]): Promise<void> {
  // the template search's probe, later, lists every template: leave none behind
  for (const name of names) {
    await ctx.quiet("/api/file/removeFile", { path: `/data/templates/${name}` });
  }
}

/** Renders each template in turn for `id` (recorded), one file per case. */
async function renderEach(
  ctx: ProbeContext,
  id: string,
  cases: ReadonlyArray<readonly [label: string, text: string]>,
): Promise<void> {
  const dir = await workspaceDir(ctx);
  const names: string[] = [];
  for (const [k, [label, text]] of cases.entries()) {
    const name = `zprobe-render-${k}.md`;
    names.push(name);
    await putTemplate(ctx, name, text);
    await ctx.post(label, RENDER, { id, path: `${dir}/data/templates/${name}`, preview: true });
  }
  await removeTemplates(ctx, names);
}

export const templateProbes = [
  probe(
    "template.render.workspace",
    "getWorkspaceInfo: the workspace's absolute path and the kernel version, with or without a body",
    ["/api/system/getWorkspaceInfo"],
    async (ctx) => {
      await workspaceDir(ctx);
      await ctx.post("empty body", "/api/system/getWorkspaceInfo", {});
      await ctx.post("other fields", "/api/system/getWorkspaceInfo", { x: 1 });
    },
  ),
  probe(
    "template.render.kramdown",
    "render: a plain Kramdown template (heading, paragraph marks, lists, task list, quote, code blocks, an empty one, a diagram, a math block, a rule with an IAL, an alias) as block DOM with fresh IDs and updated; an empty template; preview left out",
    [RENDER],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Render doc", "body");
      const dir = await workspaceDir(ctx);
      const text = [
        "# Head",
        "",
        "para **b** *i* `code` ~~s~~ ==m== [link](http://example.com) end",
        "",
        "- one",
        "- two",
        "",
        "1. first",
        "2. second",
        "",
        "- [ ] open",
        "- [x] done",
        "",
        "> quoted",
        "",
        "```js",
        "let x = 1 < 2;",
        "```",
        "",
        "```",
        "plain",
        "```",
        "",
        "```",
        "```",
        "",
        "```mermaid",
        "graph TD",
        "```",
        "",
        "$$",
        "x^2",
        "$$",
        "",
        "---",
        '{: name="rule"}',
        "",
        "## Sub",
        '{: alias="al"}',
        "",
      ].join("\n");
      await putTemplate(ctx, "zprobe-kramdown.md", text);
      await putTemplate(ctx, "zprobe-empty.md", "");
      const path = (n: string) => `${dir}/data/templates/${n}`;
      await ctx.post("preview", RENDER, {
        id: doc,
        path: path("zprobe-kramdown.md"),
        preview: true,
      });
      await ctx.post("no preview field", RENDER, { id: doc, path: path("zprobe-kramdown.md") });
      await ctx.post("empty template", RENDER, {
        id: doc,
        path: path("zprobe-empty.md"),
        preview: true,
      });
      await removeTemplates(ctx, ["zprobe-kramdown.md", "zprobe-empty.md"]);
    },
  ),
  probe(
    "template.render.data",
    "render: .title .id .name .alias of a document and of a named, aliased paragraph (title is the name there); a missing key prints <no value>; name and alias HTML-unescaped",
    [RENDER],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Data doc", "first para");
      await ctx.quiet("/api/attr/setBlockAttrs", {
        id: doc,
        attrs: { name: "docname", alias: "d1,d2" },
      });
      const rows = await ctx.quiet<Array<{ id: string }>>("/api/query/sql", {
        stmt: `SELECT id FROM blocks WHERE root_id = '${doc}' AND type = 'p'`,
      });
      const para = rows[0]?.id ?? "";
      await ctx.quiet("/api/attr/setBlockAttrs", {
        id: para,
        attrs: { name: "pname", alias: "pa" },
      });
      const tpl =
        "t=.action{.title} i=.action{.id} n=.action{.name} a=.action{.alias} x=.action{.nope}";
      await renderEach(ctx, doc, [["document", tpl]]);
      await renderEach(ctx, para, [["paragraph", tpl]]);
      // name and alias are HTML-unescaped, a title is not
      const odd = await ctx.doc(nb, "/T & <x> 'q'", "x");
      await ctx.quiet("/api/attr/setBlockAttrs", {
        id: odd,
        attrs: { name: 'n<1> "q" &amp; &#65;', alias: "a,b & c" },
      });
      await renderEach(ctx, odd, [
        [
          "escapes",
          '.action{len .title} .action{len .name} .action{len .alias} .action{replace "&" "AMP" .name}',
        ],
      ]);
    },
  ),
  probe(
    "template.render.actions",
    "render: if/else if/else, range with index and else, with, variables, break, comments and trim markers, builtins (printf verbs, print, len, index, eq, lt, and, or, not), sprig string, list and number functions",
    [RENDER],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Actions doc", "x");
      await renderEach(ctx, doc, [
        [
          "if and else",
          '.action{if eq .title "nope"}A.action{else if .id}B.action{else}C.action{end} .action{if not .name}no name.action{end} .action{with .alias}has.action{else}no alias.action{end}',
        ],
        [
          "range",
          '.action{range $i, $v := list "a" "b" "c"}[.action{$i}:.action{$v}].action{end} .action{range list}x.action{else}empty.action{end} .action{range $i, $v := list 1 2 3 4}.action{if eq $v 3}.action{break}.action{end}.action{$v}.action{end} .action{range 3}.action{.}.action{end}',
        ],
        [
          "variables, comments and trim",
          '.action{$x := "one"}.action{$x = printf "%s-%s" $x "two"}.action{$x}   .action{- /* gone */ -}   |.action{$.title}| .action{- " t " -} |',
        ],
        [
          "printf",
          '.action{printf "%d|%5d|%-4d|%03d|%x|%X|%o|%b|%c" 42 42 7 5 255 255 8 5 65} .action{printf "%s|%q|%v|%8.3f|%.2f|%e|%g|%t|%T" "s" "q" .title 3.14159 2.5 1234.5678 0.000012 true 1} .action{printf "%d %s" "x"} .action{printf "%%|%v" (list 1 "a")}',
        ],
        [
          "builtins",
          '.action{len .title} .action{index (list "a" "b") 1} .action{print "a" 1 2 "b" true} .action{lt 1 2} .action{le "b" "a"} .action{ne 1 2} .action{and 1 "" 2} .action{or 0 "" "z"} .action{not ""} .action{eq 2 1 2} .action{println "x" 1}',
        ],
        [
          "sprig strings",
          '.action{upper "ab"} .action{lower "AB"} .action{title "hello wide world"} [.action{trim "  t  "}] .action{trimPrefix "pre" "prefix"} .action{trimSuffix "fix" "prefix"} .action{replace "a" "o" "banana"} .action{repeat 3 "ab"} .action{contains "an" "banana"} .action{hasPrefix "ba" "banana"} .action{hasSuffix "na" "banana"} .action{nospace "a b\\tc"} .action{trunc 3 "abcdef"} .action{trunc -2 "abcdef"} .action{abbrev 5 "abcdefgh"} .action{quote "q" 1} .action{squote "s"} .action{cat "a" 1 "b"} .action{indent 2 "x"} .action{plural "one" "many" 2} .action{"piped" | upper | repeat 2}',
        ],
        [
          "sprig values and lists",
          '.action{default "dflt" ""} .action{default "dflt" "given"} .action{empty ""} .action{empty 0} .action{coalesce "" 0 "c"} .action{ternary "yes" "no" true} .action{join "," (list "a" 1 "b")} .action{splitList "," "a,b,c"} .action{list 1 "a" 2.5} .action{toString 12} .action{atoi "42"} .action{int "7"} .action{first (list 9 8)} .action{last (list 9 8)} .action{$m := dict "k" "v"}.action{get $m "k"} .action{(split "," "x,y")._1}',
        ],
        [
          "define, template, block",
          '.action{define "x"}[.action{.}|.action{$}].action{end}.action{template "x" .title} .action{block "b" .id}<.action{len .}>.action{end} .action{define "n"}.action{.}.action{end}.action{template "n"}',
        ],
        [
          "missing values",
          '.action{.nope.deeper} .action{$x := .nope}.action{$x} .action{print .nope} .action{printf "%s" .nope} .action{index . "nope"}| .action{eq .nope "x"} .action{not .nope} .action{and .nope 1}',
        ],
        [
          "literals",
          ".action{3.0} .action{1e2} .action{0.1} .action{-0.5} .action{123456.7} .action{1234567.0} .action{0x1F} .action{0b101} .action{0o17} .action{017} .action{1_000} .action{'a'} .action{true} .action{`raw`}",
        ],
        [
          "sprig numbers",
          ".action{add 1 2 3} .action{sub 10 4} .action{mul 2 3 4} .action{div 7 2} .action{mod 7 3} .action{add1 9} .action{max 3 9 1} .action{min 3 9 1} .action{add 1.9 1} .action{until 3}",
        ],
      ]);
    },
  ),
  probe(
    "template.render.dates",
    "render: sprig dates of a fixed time (toDate, date with Go layouts, dateInZone UTC, htmlDate, dateModify, unixEpoch, duration), SiYuan's Weekday, WeekdayCN, ISOWeek, ISOWeekDate, ISOMonth, and methods of times and durations",
    [RENDER],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Dates doc", "x");
      const t = '(toDate "2006-01-02 15:04:05" "2026-03-04 21:07:09")';
      await renderEach(ctx, doc, [
        [
          "layouts",
          `.action{date "Monday, Jan 2 2006" ${t}} | .action{date "Mon January _2 '06 3:4:5 PM pm" ${t}} | .action{date "15h04m05s .000 .999 MST -0700 -07:00 Z07:00 002 __2" ${t}}`,
        ],
        [
          "methods",
          `.action{$t := ${t}}.action{$t.Year} .action{$t.Month} .action{$t.Weekday} .action{printf "%d %v" $t.Month $t.Month} .action{add $t.Weekday 1} .action{($t.AddDate 0 1 30).Format "Jan 2 2006"} .action{$t.Sub (toDate "2006-01-02" "2026-03-04")} .action{ $days := (div ($t.Sub (toDate "2006-01-02" "2020-02-19")).Hours 24) }.action{$days} .action{$t | ISOWeekDate 1 | date "Jan 2"} .action{ISOMonth $t} .action{$t.Unix} .action{$t.Before $t}`,
        ],
        [
          "functions",
          `.action{${t} | date "Jan 2 15:04"} | .action{dateInZone "Jan 2 15:04 MST" ${t} "UTC"} | .action{htmlDate ${t}} | .action{date "Jan 2 15:04" (dateModify "-1h30m" ${t})} | .action{unixEpoch ${t}} | .action{duration "5400"} | .action{duration 90} | .action{Weekday ${t}} .action{WeekdayCN ${t}} .action{ISOWeek ${t}} | .action{toDate "2006-01-02" "nonsense" | date "2006 Jan 2"} | .action{date "Jan 2 2006" 0}`,
        ],
      ]);
    },
  ),
  probe(
    "template.render.errors",
    "render: parse and execution errors in Language(44)'s words, HTML-escaped (unclosed action, unexpected EOF and end, undefined function and variable, wrong argument count, index out of range, division by zero, a non-function with arguments, an unterminated string, a later line)",
    [RENDER],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Errors doc", "x");
      await renderEach(ctx, doc, [
        ["unclosed action", "a .action{.title"],
        ["unexpected EOF", "a .action{if .id}x"],
        ["unexpected end", "a .action{end}"],
        ["undefined function", "a .action{nosuchfunc 1}"],
        ["undefined variable", "a .action{$nope}"],
        ["wrong arg count", "a .action{len}"],
        ["index out of range", "a .action{index .title 99}"],
        ["division by zero", "a .action{div 1 0}"],
        ["non-function", "a .action{1 2}"],
        ["unterminated string", 'a .action{"open}'],
        ["second line", "line one\nline .action{upper}"],
        ["wrong type", 'a .action{repeat "x" 2}'],
        ["int64 for int", 'a .action{repeat (add 1 1) "x"}'],
        ["incompatible comparison", 'a .action{eq 1 "1"}'],
        ["field of a string", "a .action{.title.x}"],
        ["len of a missing key", "a .action{len .nope}"],
        ["undefined template", 'a .action{template "x"}'],
        [
          "error inside a template",
          'a .action{define "x"}.action{len}.action{end}.action{template "x"}',
        ],
        ["bad number", "a .action{3-}"],
        ["too few for variadic", "a .action{and}"],
        ["method without its argument", 'a .action{(toDate "2006" "2026").Sub}'],
        ["no such method", 'a .action{(toDate "2006" "2026").Nope}'],
      ]);
    },
  ),
  probe(
    "template.render.arguments",
    "render: a bad ID, an unknown ID, a path outside the workspace, a relative path, the workspace itself, a missing file, a directory, missing or mistyped fields",
    [RENDER],
    async (ctx) => {
      const nb = await ctx.notebook();
      const doc = await ctx.doc(nb, "/Args doc", "x");
      const dir = await workspaceDir(ctx);
      await putTemplate(ctx, "zprobe-args.md", "ok");
      const path = `${dir}/data/templates/zprobe-args.md`;
      await ctx.post("bad id", RENDER, { id: "bad", path });
      await ctx.post("unknown id", RENDER, { id: UNKNOWN_ID, path });
      await ctx.post("outside", RENDER, { id: doc, path: "/etc/passwd" });
      await ctx.post("relative", RENDER, { id: doc, path: "data/templates/zprobe-args.md" });
      await ctx.post("the workspace", RENDER, { id: doc, path: dir });
      await ctx.post("missing file", RENDER, {
        id: doc,
        path: `${dir}/data/templates/zprobe-none.md`,
      });
      await ctx.post("a directory", RENDER, { id: doc, path: `${dir}/data/templates` });
      await ctx.post("no id", RENDER, { path });
      await ctx.post("no path", RENDER, { id: doc });
      await ctx.post("id not a string", RENDER, { id: 1, path });
      await ctx.post("preview not a bool", RENDER, { id: doc, path, preview: 1 });
      const ok = await ctx.post("good", RENDER, { id: doc, path, preview: true });
      ctx.note("good answers the path as sent", data<{ path: string }>(ok).path === path);
      await removeTemplates(ctx, ["zprobe-args.md"]);
    },
  ),
];
