/**
 * The diff `init --dry-run` prints (PROTOCOL.md T45): hunks of changed lines with three lines of
 * context. Lines common to both ends are set aside first; the rest is Myers' O((N+M)·D) shortest
 * edit script, so a one-entry change in a 12,000-line ~/.claude.json costs a pass over the file,
 * not a table of every line pair. Past MAX_EDITS differences the middle is shown as removed and
 * added whole, which keeps time and memory linear whatever the input.
 */

const CONTEXT = 3;
const MAX_EDITS = 2_000;

type Op = { kind: ' ' | '-' | '+'; text: string };

/** Myers' greedy forward search, keeping each round's frontier to walk the script back. Undefined past `max` edits. */
function myers(a: readonly string[], b: readonly string[], max: number): Op[] | undefined {
  const n = a.length;
  const m = b.length;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) (x++, y++);
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(a, b, trace, d, k);
    }
  }
  return undefined;
}

function backtrack(a: readonly string[], b: readonly string[], trace: Int32Array[], dEnd: number, kEnd: number): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  let k = kEnd;
  for (let d = dEnd; d > 0; d--) {
    // trace[d] holds v before round d, for k from -d-1 to d+1.
    const at = (kk: number) => trace[d]![kk + d + 1]!;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > (down ? prevX : prevX + 1) && y > (down ? prevY + 1 : prevY)) ops.push({ kind: ' ', text: a[--x]! }), y--;
    if (down) ops.push({ kind: '+', text: b[--y]! });
    else ops.push({ kind: '-', text: a[--x]! });
    k = prevK;
  }
  while (x > 0 && y > 0) ops.push({ kind: ' ', text: a[--x]! }), y--;
  return ops.reverse();
}

/** The edit script from `a` to `b`: common ends kept, the middle by Myers or, past MAX_EDITS, replaced whole. */
export function diffLines(a: readonly string[], b: readonly string[], maxEdits = MAX_EDITS): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) (endA--, endB--);
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const middle = myers(midA, midB, Math.min(maxEdits, midA.length + midB.length)) ?? [...midA.map((text) => ({ kind: '-' as const, text })), ...midB.map((text) => ({ kind: '+' as const, text }))];
  return [...a.slice(0, start).map((text) => ({ kind: ' ' as const, text })), ...middle, ...a.slice(endA).map((text) => ({ kind: ' ' as const, text }))];
}

/** A unified-style diff of one file: `--- path`, `+++ path`, then `@@ -l,n +l,n @@` hunks with `  `, `- ` and `+ ` lines. */
export function lineDiff(path: string, before: string | undefined, after: string | undefined): string {
  const split = (t: string) => (t === '' ? [] : t.replace(/\r?\n$/, '').split(/\r?\n/));
  // Undefined on either side: the file is created, or (T63, a plugin file init wrote) removed.
  const ops = diffLines(before === undefined ? [] : split(before), after === undefined ? [] : split(after));
  const out = [`--- ${before === undefined ? '/dev/null' : path}`, `+++ ${after === undefined ? '/dev/null' : path}`];
  const changed = ops.map((o, i) => (o.kind === ' ' ? -1 : i)).filter((i) => i >= 0);
  let i = 0;
  // Line numbers of both sides at ops[scanned], advanced hunk by hunk (one pass over the script).
  let scanned = 0;
  let lineA = 1;
  let lineB = 1;
  while (i < changed.length) {
    // One hunk: changes closer than two contexts apart share it.
    let j = i;
    while (j + 1 < changed.length && changed[j + 1]! - changed[j]! <= 2 * CONTEXT + 1) j++;
    const from = Math.max(0, changed[i]! - CONTEXT);
    const to = Math.min(ops.length, changed[j]! + CONTEXT + 1);
    for (; scanned < from; scanned++) {
      if (ops[scanned]!.kind !== '+') lineA++;
      if (ops[scanned]!.kind !== '-') lineB++;
    }
    const slice = ops.slice(from, to);
    const countA = slice.filter((o) => o.kind !== '+').length;
    const countB = slice.filter((o) => o.kind !== '-').length;
    out.push(`@@ -${countA === 0 ? lineA - 1 : lineA},${countA} +${countB === 0 ? lineB - 1 : lineB},${countB} @@`);
    for (const o of slice) out.push(`${o.kind === ' ' ? ' ' : o.kind} ${o.text}`);
    i = j + 1;
  }
  return out.join('\n');
}
