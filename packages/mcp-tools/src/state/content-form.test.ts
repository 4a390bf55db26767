import { describe, expect, it } from "vitest";
import {
  canonicalForm,
  childrenOf,
  formOfDom,
  formOfMarkdown,
  placementOf,
  sameContent,
} from "./content-form.js";

const md = (s: string) => formOfMarkdown(s);

describe("formOfDom", () => {
  it("reads the contract's protyle paragraph as its Markdown", () => {
    const dom =
      '<div data-node-id="20260101120000-abc1234" data-node-index="1" data-type="NodeParagraph" class="p" updated="20260101120000">' +
      '<div contenteditable="true" spellcheck="false">foo <span data-type="strong">bar</span> <span data-type="em">baz</span> ' +
      '<span data-type="block-ref" data-subtype="s" data-id="20260101115900-ref0001">anchor</span></div>' +
      '<div class="protyle-attr" contenteditable="false">\u200b</div></div>';
    const kramdown =
      'foo **bar** *baz* ((20260101115900-ref0001 "anchor"))\n{: id="20260101120000-abc1234" updated="20260101120000"}';
    expect(canonicalForm(formOfDom(dom))).toBe(canonicalForm(md(kramdown)));
    expect(formOfDom(dom)[0]?.id).toBe("20260101120000-abc1234");
  });

  it("keeps several marks on one span, heading levels and task states", () => {
    const span =
      '<div data-type="NodeParagraph"><div contenteditable="true"><span data-type="strong em">x</span></div></div>';
    expect(canonicalForm(formOfDom(span))).toBe(canonicalForm(md("***x***")));
    const h3 =
      '<div data-subtype="h3" data-type="NodeHeading" class="h3"><div contenteditable="true">t</div></div>';
    expect(canonicalForm(formOfDom(h3))).toBe(canonicalForm(md("### t")));
    expect(canonicalForm(formOfDom(h3))).not.toBe(canonicalForm(md("## t")));
    const done =
      '<div data-subtype="t" data-type="NodeList" class="list"><div data-marker="*" data-subtype="t" data-type="NodeListItem" class="li protyle-task--done">' +
      '<div class="protyle-action protyle-action--task"><svg><use xlink:href="#iconCheck"></use></svg></div>' +
      '<div data-type="NodeParagraph" class="p"><div contenteditable="true">x</div></div></div></div>';
    expect(canonicalForm(formOfDom(done))).toBe(canonicalForm(md("* [X] x")));
    expect(canonicalForm(formOfDom(done))).not.toBe(canonicalForm(md("* [ ] x")));
    // 3.7.3 also writes the box as `data-task` (kernel-probes template.render.*): not an attribute
    const open =
      '<div data-subtype="t" data-type="NodeList" class="list"><div data-marker="*" data-subtype="t" data-task=" " data-type="NodeListItem" class="li">' +
      '<div data-type="NodeParagraph" class="p"><div contenteditable="true">x</div></div></div></div>';
    const compare = { ownAttrs: "compare" } as const;
    expect(canonicalForm(formOfDom(open), compare)).toBe(canonicalForm(md("* [ ] x"), compare));
  });

  it("reads inline HTML alone as one paragraph", () => {
    expect(canonicalForm(formOfDom('a <span data-type="code">b</span>'))).toBe(
      canonicalForm(md("a `b`")),
    );
  });
});

describe("formOfMarkdown", () => {
  it("does not compare a dynamic reference's text (the kernel keeps it current)", () => {
    const ref = "20260101115900-ref0001";
    expect(sameContent(md(`((${ref} 'old'))`), md(`((${ref} 'new'))`))).toBe(true);
    expect(sameContent(md(`((${ref} "old"))`), md(`((${ref} "new"))`))).toBe(false);
  });

  it("equates the kernel's empty paragraph (its IAL alone) with no content", () => {
    expect(canonicalForm(md('{: id="20260101120000-abc1234"}'))).toBe(canonicalForm(md("")));
    expect(canonicalForm(md("* \n"))).toBe(canonicalForm(md('* {: id="20260101120000-abc1234"}')));
  });

  it("follows CommonMark where the kernel does: lazy lines, setext headings, intraword _", () => {
    expect(canonicalForm(md("* a\nb"))).toBe(canonicalForm(md("* a\n  b")));
    expect(canonicalForm(md("a\n===="))).toBe(canonicalForm(md("# a")));
    expect(canonicalForm(md("a\n---"))).toBe(canonicalForm(md("## a")));
    expect(canonicalForm(md("snake_case_name"))).toBe(canonicalForm(md("snake\\_case\\_name")));
    expect(canonicalForm(md("alpha\n2. beta"))).not.toBe(canonicalForm(md("alpha\n\n2. beta")));
  });

  it("starts a new list where items change between task and plain, as Lute does", () => {
    // SiYuan 3.7.3 keeps `- a\n- [ ] b\n- c` as three lists, `1. [ ] x\n2. y` as two
    const kinds = (m: string) => md(m).map((b) => [b.type, b.list, b.children?.length]);
    expect(kinds("- a\n- [ ] b\n- c")).toEqual([
      ["list", "u", 1],
      ["list", "t", 1],
      ["list", "u", 1],
    ]);
    expect(kinds("1. [ ] x\n2. y")).toEqual([
      ["list", "t", 1],
      ["list", "o", 1],
    ]);
    expect(kinds("- [ ] a\n- [X] b")).toEqual([["list", "t", 2]]);
  });

  it("treats a one-item list as the list item it replaces, whatever its bullet", () => {
    const item = { listItem: true, ownAttrs: "ignore" } as const;
    expect(canonicalForm(md("* x"), item)).toBe(canonicalForm(md("1. x"), item));
    expect(canonicalForm(md("* x"), item)).not.toBe(canonicalForm(md("* [ ] x"), item));
    expect(canonicalForm(md("* x"), item)).not.toBe(canonicalForm(md("* **x**"), item));
  });
});

describe("placementOf and childrenOf", () => {
  const doc = [
    "first",
    '{: id="20260101120000-aaaaaaa"}',
    "",
    '* {: id="20260101120000-bbbbbbb"}item',
    '  {: id="20260101120000-ccccccc"}',
    '* {: id="20260101120000-ddddddd"}next',
    '  {: id="20260101120000-eeeeeee"}',
    '{: id="20260101120000-fffffff"}',
  ].join("\n");

  it("finds nested blocks and their siblings by ID", () => {
    const tree = md(doc);
    const at = placementOf(tree, "20260101120000-bbbbbbb");
    expect(at?.index).toBe(0);
    expect(at?.siblings[1]?.id).toBe("20260101120000-ddddddd");
    expect(placementOf(tree, "20260101120000-fffffff")?.index).toBe(1);
    expect(childrenOf(tree, "20260101120000-ddddddd")?.[0]?.id).toBe("20260101120000-eeeeeee");
    expect(childrenOf(tree, "DOC", "DOC")).toBe(tree);
    expect(placementOf(tree, "20260101120000-zzzzzzz")).toBeUndefined();
  });
});
