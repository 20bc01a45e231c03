/**
 * A tiny aligned-table formatter and the value formatting the inspect tables share. Cells are
 * escaped first: a database can hold anything, and a terminal must not receive control sequences
 * from it (R1 and R3 forbid controls in keys and summaries, but a hand-edited file may not obey).
 */

export type Align = 'left' | 'right';

export interface Column<Row> {
  header: string;
  value: (row: Row) => string | number | boolean | undefined;
  align?: Align;
}

// Every control (Cc), format character (Cf: bidi controls incl. U+061C, zero-width characters, the
// BOM, soft hyphen, tags), line or paragraph separator (Zl, Zp) and lone surrogate is shown as an
// escape: a terminal must not act on it, and an operator must see that it is there.
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => {
    const cp = c.codePointAt(0)!;
    return cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, '0')}`;
  });
}

/** Display width in code points (close enough for keys and summaries; wide CJK glyphs may drift). */
function width(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

function cell(value: string | number | boolean | undefined): string {
  if (value === undefined) return '';
  return printable(String(value));
}

/** Rows under an upper-case header, columns two spaces apart; numbers right-aligned by default. No trailing spaces. */
export function formatTable<Row>(columns: readonly Column<Row>[], rows: readonly Row[]): string[] {
  const raw = rows.map((r) => columns.map((c) => c.value(r)));
  const aligns = columns.map((c, i) => c.align ?? (raw.length > 0 && raw.every((r) => typeof r[i] === 'number') ? 'right' : 'left'));
  const text = [columns.map((c) => c.header), ...raw.map((r) => r.map(cell))];
  const widths = columns.map((_, i) => Math.max(...text.map((r) => width(r[i] ?? ''))));
  return text.map((r) =>
    r
      .map((v, i) => {
        const pad = ' '.repeat((widths[i] ?? 0) - width(v));
        return aligns[i] === 'right' ? pad + v : v + pad;
      })
      .join('  ')
      .trimEnd(),
  );
}

/** Two columns, name and value, for one record (stats). */
export function formatPairs(pairs: readonly (readonly [string, string | number])[]): string[] {
  return formatTable<readonly [string, string | number]>(
    [
      { header: 'FIELD', value: (p) => p[0] },
      { header: 'VALUE', value: (p) => (typeof p[1] === 'number' ? p[1].toLocaleString('en-US') : p[1]), align: 'left' },
    ],
    pairs,
  );
}

/** Epoch ms as a short ISO-8601 UTC instant (seconds precision; --json keeps the exact number). */
export function formatTime(ms: number | string): string {
  if (typeof ms !== 'number') return ms; // an integer past 2^53 (inspect shows it as stored)
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return String(ms);
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const UNITS: readonly (readonly [string, number])[] = [
  ['d', 24 * 60 * 60 * 1000],
  ['h', 60 * 60 * 1000],
  ['m', 60 * 1000],
  ['s', 1000],
];

/** A duration in the two largest units ("40d 2h", "3m 5s", "0s"); negative means in the future. */
export function formatDuration(ms: number): string {
  if (ms < 0) return `-${formatDuration(-ms)}`;
  const parts: string[] = [];
  let rest = Math.floor(ms);
  for (const [unit, size] of UNITS) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0 || parts.length > 0) parts.push(`${n}${unit}`);
    if (parts.length === 2) break;
  }
  return parts.length === 0 ? '0s' : parts.filter((p, i) => i === 0 || !p.startsWith('0')).join(' ');
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}
