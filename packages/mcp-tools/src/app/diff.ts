/**
 * The diffs the write preview shows: a word diff of a block's content (removed and inserted runs
 * kept apart, so a person sees exactly what goes and what comes) and the moved items of a reorder.
 * Plain longest-common-subsequence, bounded: past {@link MAX_DIFF_CELLS} table cells the changed
 * middle is shown as one removal and one insertion rather than spending unbounded time.
 */

/** One run of a content diff. */
export interface DiffOp {
  readonly op: "eq" | "del" | "ins";
  readonly text: string;
}

/** Table cells (tokens before × tokens after) one LCS may use: about 1 MB of 4-byte counts. */
export const MAX_DIFF_CELLS = 262_144;

/** Words and the whitespace between them, so a diff never splits a word. */
function tokens(text: string): string[] {
  return text.match(/\s+|[^\s]+/g) ?? [];
}

/** The indices of a longest common subsequence of `a` and `b` (pairs `[i, j]`, in order). */
function lcsPairs<T>(a: readonly T[], b: readonly T[]): Array<[number, number]> {
  const n = a.length;
  const m = b.length;
  const table = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * (m + 1) + j] =
        a[i] === b[j]
          ? (table[(i + 1) * (m + 1) + j + 1] as number) + 1
          : Math.max(table[(i + 1) * (m + 1) + j] as number, table[i * (m + 1) + j + 1] as number);
    }
  }
  const pairs: Array<[number, number]> = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      pairs.push([i, j]);
      i++;
      j++;
    } else if ((table[(i + 1) * (m + 1) + j] as number) >= (table[i * (m + 1) + j + 1] as number)) {
      i++;
    } else {
      j++;
    }
  }
  return pairs;
}

function push(ops: DiffOp[], op: DiffOp["op"], text: string): void {
  if (text === "") return;
  const last = ops[ops.length - 1];
  if (last !== undefined && last.op === op) ops[ops.length - 1] = { op, text: last.text + text };
  else ops.push({ op, text });
}

/**
 * Joins the changes around a whitespace-only equal run into one removal and one insertion, so
 * "b c" → "x y" reads as one replaced phrase rather than two words split by an unchanged space.
 */
function joinChanges(ops: readonly DiffOp[]): DiffOp[] {
  const out: DiffOp[] = [];
  let del = "";
  let ins = "";
  for (const [i, o] of ops.entries()) {
    const between =
      o.op === "eq" &&
      /^\s+$/.test(o.text) &&
      ops[i - 1] !== undefined &&
      ops[i - 1]?.op !== "eq" &&
      ops[i + 1] !== undefined &&
      ops[i + 1]?.op !== "eq";
    if (o.op === "del" || between) del += o.text;
    if (o.op === "ins" || between) ins += o.text;
    if (o.op === "eq" && !between) {
      push(out, "del", del);
      push(out, "ins", ins);
      del = "";
      ins = "";
      push(out, "eq", o.text);
    }
  }
  push(out, "del", del);
  push(out, "ins", ins);
  return out;
}

/** The word diff of `before` → `after`: equal, removed and inserted runs, adjacent runs merged. */
export function diffWords(before: string, after: string): DiffOp[] {
  const a = tokens(before);
  const b = tokens(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const ops: DiffOp[] = [];
  push(ops, "eq", a.slice(0, head).join(""));
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  if ((midA.length + 1) * (midB.length + 1) > MAX_DIFF_CELLS) {
    push(ops, "del", midA.join(""));
    push(ops, "ins", midB.join(""));
  } else {
    let i = 0;
    let j = 0;
    for (const [pi, pj] of [
      ...lcsPairs(midA, midB),
      [midA.length, midB.length] as [number, number],
    ]) {
      push(ops, "del", midA.slice(i, pi).join(""));
      push(ops, "ins", midB.slice(j, pj).join(""));
      if (pi < midA.length) push(ops, "eq", midA[pi] as string);
      i = pi + 1;
      j = pj + 1;
    }
  }
  push(ops, "eq", a.slice(a.length - tail).join(""));
  return joinChanges(ops);
}

/**
 * The items a reorder moves: those outside a longest run kept in the same relative order (the
 * fewest items a person would drag to get from `before` to `after`).
 */
export function movedItems(before: readonly string[], after: readonly string[]): Set<string> {
  const kept = new Set<string>();
  if ((before.length + 1) * (after.length + 1) <= MAX_DIFF_CELLS) {
    for (const [i] of lcsPairs(before, after)) kept.add(before[i] as string);
  }
  return new Set(after.filter((id) => !kept.has(id)));
}

/** A content diff as text for hosts without Apps: `[-removed-]` and `{+inserted+}` inline. */
export function diffText(ops: readonly DiffOp[]): string {
  return ops
    .map((o) => (o.op === "eq" ? o.text : o.op === "del" ? `[-${o.text}-]` : `{+${o.text}+}`))
    .join("");
}
