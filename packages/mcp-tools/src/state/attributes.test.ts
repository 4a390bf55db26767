import { describe, expect, it } from "vitest";
import { normalizeAttrs, normalizeDom, normalizeKramdown } from "./attributes.js";

describe("normalizeKramdown", () => {
  it("sorts IAL pairs and drops timestamps", () => {
    const a = 'foo **bar**\n{: id="20260101120000-abc1234" updated="20260101120000" custom-x="1"}';
    const b = 'foo **bar**\n{: custom-x="1" updated="20260202120000" id="20260101120000-abc1234"}';
    expect(normalizeKramdown(a)).toBe(normalizeKramdown(b));
    expect(normalizeKramdown(a)).toBe('foo **bar**\n{: custom-x="1" id="20260101120000-abc1234"}');
  });

  it("keeps inline content changes visible", () => {
    const base = 'foo **bar**\n{: id="20260101120000-abc1234"}';
    expect(normalizeKramdown(base)).not.toBe(normalizeKramdown(base.replace("**bar**", "*bar*")));
    const refS = '((20260101115900-ref0001 "anchor"))';
    const refD = "((20260101115900-ref0001 'anchor'))";
    expect(normalizeKramdown(refS)).not.toBe(normalizeKramdown(refD));
  });

  it("keeps an attribute value change visible", () => {
    expect(normalizeKramdown('{: custom-x="1"}')).not.toBe(normalizeKramdown('{: custom-x="2"}'));
  });

  it("normalises list-item IALs written after the marker", () => {
    const a = '* {: id="20260101120000-abc1234" updated="1"}item';
    const b = '* {: updated="2" id="20260101120000-abc1234"}item';
    expect(normalizeKramdown(a)).toBe(normalizeKramdown(b));
  });
});

describe("normalizeDom", () => {
  const dom = (attrs: string, inner: string) =>
    `<div ${attrs}><div contenteditable="true" spellcheck="false">${inner}</div></div>`;

  it("ignores attribute order, updated and data-node-index", () => {
    const a = dom(
      'data-node-id="X" data-node-index="1" data-type="NodeParagraph" class="p" updated="1"',
      "t",
    );
    const b = dom('class="p" data-type="NodeParagraph" updated="2" data-node-id="X"', "t");
    expect(normalizeDom(a)).toBe(normalizeDom(b));
  });

  it("sees strong, em and block-ref subtype changes", () => {
    const strong = '<span data-type="strong">bar</span>';
    const em = '<span data-type="em">bar</span>';
    expect(normalizeDom(strong)).not.toBe(normalizeDom(em));
    const refS = '<span data-type="block-ref" data-subtype="s" data-id="R">a</span>';
    const refD = '<span data-type="block-ref" data-subtype="d" data-id="R">a</span>';
    expect(normalizeDom(refS)).not.toBe(normalizeDom(refD));
  });

  it("sees custom attribute changes on the block", () => {
    expect(normalizeDom('<div custom-a="1">')).not.toBe(normalizeDom('<div custom-a="2">'));
  });
});

describe("normalizeAttrs", () => {
  it("drops updated and created only", () => {
    expect(normalizeAttrs({ id: "X", updated: "1", created: "2", "custom-a": "b" })).toEqual({
      id: "X",
      "custom-a": "b",
    });
  });
});
