/**
 * The Go text/template engine against answers of a real SiYuan 3.7.3 (`/api/template/render`,
 * kernel-probes `template.render.*`): each expected text below is what that kernel printed.
 */
import { describe, expect, it } from "vitest";
import { goPrintf } from "./go-fmt.js";
import {
  executeTemplate,
  GoTemplateError,
  NotModelledError,
  parseTemplate,
} from "./go-template.js";
import { formatGoTime, GoTime, parseGoTime, utcZone } from "./go-time.js";

const NOW = Date.UTC(2026, 11, 3, 7, 0, 0);
const DATA = { title: "Doc one", id: "20261203073148-aaaaaaa", name: "", alias: "" };
const run = (text: string, data: Record<string, string> = DATA): string =>
  executeTemplate(text, data, {
    left: ".action{",
    right: "}",
    env: { now: () => NOW, zone: utcZone },
  });
const failure = (text: string): string => {
  try {
    return `no error: ${run(text)}`;
  } catch (e) {
    return `${(e as Error).name}: ${(e as Error).message}`;
  }
};

describe("text/template: actions", () => {
  it("fields, missing keys, pipelines, comments and trim markers", () => {
    expect(run("a .action{.title} .action{.nope}")).toBe("a Doc one <no value>");
    expect(run('a .action{ .title | upper } .action{- " x " -} y .action{/* c */} z')).toBe(
      "a DOC ONE x y  z",
    );
    expect(run("a\n  .action{- .title -}  \nb")).toBe("aDoc oneb");
  });

  it("if / else if / else, with, range with index and else, break, range over an int", () => {
    expect(
      run('.action{if eq .title "nope"}A.action{else if .id}B.action{else}C.action{end}'),
    ).toBe("B");
    expect(run(".action{with .alias}A.action{else}noalias.action{end}")).toBe("noalias");
    expect(run(".action{with .title}[.action{.}].action{end}")).toBe("[Doc one]");
    expect(
      run(
        ".action{range $i, $v := list 1 2 3}[.action{$i}=.action{$v}].action{else}none.action{end}",
      ),
    ).toBe("[0=1][1=2][2=3]");
    expect(run(".action{range list}x.action{else}empty.action{end}")).toBe("empty");
    expect(
      run(
        ".action{range $v := list 1 2 3 4}.action{if eq $v 3}.action{break}.action{end}.action{$v}.action{end}",
      ),
    ).toBe("12");
    expect(run(".action{range 3}.action{.}.action{end}")).toBe("012");
  });

  it("variables: declare, assign, $ and a variable with spaces around it", () => {
    expect(
      run('.action{$t := "x"}.action{$t = "y"}.action{$t} .action{ $t } .action{$.title}'),
    ).toBe("y y Doc one");
    expect(run('.action{$x := "one"}.action{$x = printf "%s-%s" $x "two"}.action{$x}')).toBe(
      "one-two",
    );
  });

  it("builtins: and/or give an operand, comparisons, len counts bytes, index, print spacing", () => {
    expect(run('.action{eq 1 1 2} .action{and 1 0 2} .action{or 0 "" 3} .action{not ""}')).toBe(
      "true 0 3 true",
    );
    expect(run('.action{lt 1 2} .action{le "b" "a"} .action{ne 1 2}')).toBe("true false true");
    expect(run('.action{len "é"} .action{index (list "a" "b") 1}')).toBe("2 b");
    expect(run('.action{print "a" 1 2 "b" true}')).toBe("a1 2btrue");
    expect(run('.action{println "x" 1}')).toBe("x 1\n");
  });
});

describe("text/template: Go's error texts", () => {
  it("parse errors", () => {
    expect(failure("a .action{.title")).toBe("GoTemplateError: template: :1: unclosed action");
    expect(failure("a .action{foo}")).toBe(
      'GoTemplateError: template: :1: function "foo" not defined',
    );
    expect(failure("a .action{$x}")).toBe('GoTemplateError: template: :1: undefined variable "$x"');
    expect(failure("a .action{if .id}x")).toBe("GoTemplateError: template: :1: unexpected EOF");
    expect(failure("a .action{end}")).toBe("GoTemplateError: template: :1: unexpected {{end}}");
    expect(failure('a .action{"open}')).toBe(
      "GoTemplateError: template: :1: unterminated quoted string",
    );
  });

  it("execution errors with line, byte column and the node", () => {
    expect(failure("a .action{len}")).toBe(
      'GoTemplateError: template: :1:10: executing "" at <len>: wrong number of args for len: want 1 got 0',
    );
    expect(failure("a .action{index .title 99}")).toBe(
      'GoTemplateError: template: :1:10: executing "" at <index .title 99>: error calling index: index out of range: 99',
    );
    expect(failure("a .action{div 1 0}")).toBe(
      'GoTemplateError: template: :1:10: executing "" at <div 1 0>: error calling div: runtime error: integer divide by zero',
    );
    expect(failure("a .action{1 2}")).toBe(
      `GoTemplateError: template: :1:10: executing "" at <1>: can't give argument to non-function 1`,
    );
    expect(failure("line one\nline .action{upper}")).toBe(
      'GoTemplateError: template: :2:13: executing "" at <upper>: wrong number of args for upper: want 1 got 0',
    );
    expect(failure('a .action{repeat "x" 2}')).toBe(
      'GoTemplateError: template: :1:17: executing "" at <"x">: expected integer; found "x"',
    );
  });

  it("a function of the kernel's map the sandbox does not model is refused by name", () => {
    expect(failure('a .action{queryBlocks "select 1"}')).toBe(
      "NotModelledError: siyuan-sandbox: template function [queryBlocks] is not modelled",
    );
    // an untaken branch does not call it
    expect(run('.action{if false}.action{queryBlocks "x"}.action{end}ok')).toBe("ok");
    expect(() => run(".action{nosuch}")).toThrow(GoTemplateError);
  });

  it("define, template and block; an undefined template; recursion past the sandbox's depth", () => {
    expect(run('.action{define "x"}y.action{end}')).toBe("");
    expect(
      run('.action{define "x"}[.action{.}|.action{$}].action{end}.action{template "x" .title}'),
    ).toBe("[Doc one|Doc one]");
    expect(run('.action{block "b" .id}<.action{len .}>.action{end}')).toBe("<22>");
    expect(failure('.action{template "x"}')).toBe(
      'GoTemplateError: template: :1:17: executing "" at <{{template "x"}}>: template "x" not defined',
    );
    expect(failure('.action{define "x"}.action{len}.action{end}.action{template "x"}')).toBe(
      'GoTemplateError: template: :1:27: executing "x" at <len>: wrong number of args for len: want 1 got 0',
    );
    expect(
      failure('.action{define "r"}.action{template "r"}.action{end}.action{template "r"}'),
    ).toMatch(/^NotModelledError: siyuan-sandbox: templates nested deeper than 1000/);
    const tpl = parseTemplate('{{define "x"}}a{{end}}b', {
      left: "{{",
      right: "}}",
      funcs: new Set(),
    });
    expect([...tpl.defs.keys()]).toEqual(["x"]);
  });
});

describe("fmt and sprig", () => {
  it("printf verbs, flags and Go's bad-verb texts", () => {
    expect(run('.action{printf "%d|%s|%v|%q|%5.2f|%x" 42 "s" .name "q" 3.14159 255}')).toBe(
      '42|s||"q"| 3.14|ff',
    );
    expect(goPrintf("%d|%5d|%-4d|%03d|%X|%o|%b|%c", [42, 42, 7, 5, 255, 8, 5, 65])).toBe(
      "42|   42|7   |005|FF|10|101|A",
    );
    expect(run('.action{printf "%e|%g|%t|%T" 1234.5678 0.000012 true 1}')).toBe(
      "1.234568e+03|1.2e-05|true|int",
    );
    expect(run('.action{printf "%d %s" "x"} .action{printf "%%|%v" (list 1 "a")}')).toBe(
      "%!d(string=x) %!s(MISSING) %|[1 a]",
    );
  });

  it("strings", () => {
    expect(
      run(
        '.action{title "hello wide world"} .action{trimPrefix "pre" "prefix"} .action{trimSuffix "fix" "prefix"} .action{replace "a" "o" "banana"} .action{repeat 3 "ab"} .action{nospace "a b\\tc"} .action{trunc 3 "abcdef"} .action{trunc -2 "abcdef"} .action{abbrev 5 "abcdefgh"} .action{quote "q" 1} .action{squote "s"} .action{cat "a" 1 "b"} .action{plural "one" "many" 2} .action{"piped" | upper | repeat 2}',
      ),
    ).toBe(
      `Hello Wide World fix pre bonono ababab abc abc ef ab... "q" "1" 's' a 1 b many PIPEDPIPED`,
    );
  });

  it("values, lists and int64 arithmetic", () => {
    expect(
      run(
        '.action{default "dflt" ""} .action{coalesce "" 0 "c"} .action{ternary "yes" "no" true} .action{join "," (list "a" 1 "b")} .action{splitList "," "a,b,c"} .action{list 1 "a" 2.5} .action{atoi "42"} .action{(split "," "x,y")._1}',
      ),
    ).toBe("dflt c yes a,1,b [a b c] [1 a 2.5] 42 y");
    expect(
      run(
        ".action{add 1 2 3} .action{sub 10 4} .action{mul 2 3 4} .action{div 7 2} .action{mod 7 3} .action{add1 9} .action{max 3 9 1} .action{min 3 9 1} .action{add 1.9 1} .action{until 3}",
      ),
    ).toBe("6 6 24 3 1 10 9 1 2 [0 1 2]");
  });

  it("dates: Go layouts of a parsed time, in the kernel's zone", () => {
    const t = '(toDate "2006-01-02 15:04:05" "2026-03-04 21:07:09")';
    expect(run(`.action{date "Monday, Jan 2 2006" ${t}}`)).toBe("Wednesday, Mar 4 2026");
    expect(run(`.action{date "Mon January _2 '06 3:4:5 PM pm" ${t}}`)).toBe(
      "Wed March  4 '26 9:7:9 PM pm",
    );
    expect(run(`.action{date "15h04m05s .000 .999 MST -0700 -07:00 Z07:00 002 __2" ${t}}`)).toBe(
      "21h07m09s .000  UTC +0000 +00:00 Z 063  63",
    );
    expect(
      run(
        `.action{date "Jan 2 15:04" (dateModify "-1h30m" ${t})} .action{unixEpoch ${t}} .action{duration "5400"} .action{duration 90} .action{Weekday ${t}} .action{WeekdayCN ${t}} .action{ISOWeek ${t}}`,
      ),
    ).toBe("Mar 4 19:37 1772658429 1h30m0s 0s 3 三 10");
    expect(
      run(
        '.action{toDate "2006-01-02" "nonsense" | date "2006 Jan 2"} .action{date "Jan 2 2006" 0}',
      ),
    ).toBe("0001 Jan 1 Jan 1 1970");
    expect(run('.action{now | date "2006-01-02 15:04"}')).toBe("2026-12-03 07:00");
    expect(() => run(".action{now}")).toThrow(NotModelledError);
  });

  it("methods of times and durations, as SiYuan's guide uses them", () => {
    const t = '(toDate "2006-01-02 15:04" "2026-03-04 21:07")';
    expect(
      run(
        `.action{ $before := (div (${t}.Sub (toDate "2006-01-02" "2020-02-19")).Hours 24) }.action{ $before }`,
      ),
    ).toBe("2205");
    expect(
      run(
        `.action{$t := ${t}}.action{$t.Year} .action{$t.Month} .action{$t.Weekday} .action{printf "%d %v" $t.Month $t.Month} .action{add $t.Weekday 1} .action{($t.AddDate 0 1 30).Format "2006-01-02"}`,
      ),
    ).toBe("2026 March Wednesday 3 March 4 2026-05-04");
    expect(run(`.action{$b := ${t}}.action{$b.Sub (toDate "2006-01-02" "2026-03-04")}`)).toBe(
      "21h7m0s",
    );
    expect(run(`.action{toDate "2006-01-02" "2026-03-04" | ISOWeekDate 4 | date "Jan 2"}`)).toBe(
      "Mar 5",
    );
    expect(failure(`.action{${t}.Sub}`)).toBe(
      // Go's error names the node it last evaluated: toDate's last argument
      'GoTemplateError: template: :1:35: executing "" at <"2026-03-04 21:07">: wrong number of args for Sub: want 1 got 0',
    );
    expect(failure(`.action{${t}.Round 1}`)).toBe(
      "NotModelledError: siyuan-sandbox: the method [time.Time.Round] is not modelled",
    );
  });

  it("a time prints as Go's Time.String and parses with an offset", () => {
    const t = parseGoTime("2006-01-02T15:04:05Z07:00", "2026-03-04T21:07:09+01:00", utcZone);
    expect(t).not.toBeNull();
    expect(formatGoTime(t as GoTime, "15:04 -0700")).toBe("21:07 +0100");
    expect(new GoTime(Date.UTC(2026, 2, 4, 1, 2, 3, 400), 0, "UTC").toString()).toBe(
      "2026-03-04 01:02:03.4 +0000 UTC",
    );
  });
});
