/** The content form's shape: blocks of typed inline runs. */

/** One run of inline text with the marks that apply to all of it. */
export interface InlineRun {
  readonly text: string;
  /** Mark names, sorted: strong em s mark code tag u kbd sup sub a ref math img. */
  readonly marks: readonly string[];
  /** A link's href, an image's source, or a block reference `"<id> s|d"`. */
  readonly target?: string;
}

/** One block of the form. */
export interface FormBlock {
  /** `p`, `h`, `list`, `li`, `code`, `math`, `quote`, `super`, `hr`, `html`, `table`, `embed`. */
  readonly type: string;
  /** The block's ID when its IAL names one (never compared). */
  readonly id?: string;
  /** IAL attributes other than `id`, `updated`, `created`. */
  readonly attrs: Readonly<Record<string, string>>;
  /** Heading level 1–6. */
  readonly level?: number;
  /** List kind of a list: `u` bullets, `o` ordered, `t` tasks. */
  readonly list?: "u" | "o" | "t";
  /** A list item's task box: absent for a plain item. */
  readonly checked?: boolean;
  /** Raw text of code, math, HTML, table and embed blocks; info string of code in `lang`. */
  readonly text?: string;
  readonly lang?: string;
  /** Inline content of paragraphs and headings. */
  readonly inline?: readonly InlineRun[];
  /** Span IALs (`**x**{: style="…"}`), normalised. */
  readonly spans?: readonly string[];
  readonly children?: readonly FormBlock[];
}
