/** The content form written back as Markdown parses to the same form (what history.get relies on). */
import { describe, expect, it } from "vitest";
import { canonicalForm, formOfMarkdown, markdownOfForm } from "./content-form.js";

const key = (md: string) => canonicalForm(formOfMarkdown(md), { ownAttrs: "compare" });

describe("markdownOfForm", () => {
  it.each([
    ["headings and marks", "## Title\n\nsome **bold**, *em*, ~~gone~~, ==hi== and `code`"],
    ["ordered lists", "1. one\n2. two"],
    ["task lists", "* [ ] open\n* [X] done"],
    ["nested lists", "* a\n  * nested\n* b"],
    [
      "quote, code, math, rule",
      "> quoted\n>\n> two\n\n```js\nlet x = 1;\n```\n\n$$\nx^2\n$$\n\n---",
    ],
    ["a block's attributes", 'tagged\n{: custom-x="y"}'],
    ["a code block holding a fence", "````md\n```js\nx\n```\n````"],
    ["links and refs", "see [site](https://example.com) and ((20200101000000-abcdefg 'ref'))"],
  ])("%s", (_name, md) => {
    const written = markdownOfForm(formOfMarkdown(md));
    expect(key(written)).toBe(key(md));
  });

  it("says what it writes: a form that changes spells it differently", () => {
    expect(markdownOfForm(formOfMarkdown("- a\n- b"))).toBe("* a\n* b");
  });

  it("keeps lists in a row apart by alternating their bullets", () => {
    const form = formOfMarkdown("* [ ] task\n\n- plain\n\n* more\n\n1. one\n\n1) two");
    expect(form.map((b) => b.list)).toEqual(["t", "u", "u", "o", "o"]);
    const written = markdownOfForm(form);
    expect(written).toBe("* [ ] task\n\n- plain\n\n* more\n\n1) one\n\n1. two");
    expect(key(written)).toBe(key("* [ ] task\n\n- plain\n\n* more\n\n1. one\n\n1) two"));
  });
});
