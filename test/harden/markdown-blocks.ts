/**
 * The TypeScript blocks of a Markdown page, shared by the packaging checks and the fresh-clone one.
 * In a file of its own: a test file importing another test file registers that file's tests again.
 */

/** The README's ```ts blocks, with whether they may be run (`ts no-run` marks compile-only ones). */
export function readmeBlocks(markdown: string): { code: string; run: boolean; line: number }[] {
  const out: { code: string; run: boolean; line: number }[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(ts|typescript)(\s+.*)?$/.exec(lines[i]!);
    if (!open) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end] !== '```') end++;
    out.push({ code: lines.slice(start, end).join('\n'), run: !/\bno-run\b/.test(open[2] ?? ''), line: start });
    i = end;
  }
  return out;
}
