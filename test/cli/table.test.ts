import { describe, expect, it } from 'vitest';
import { formatDuration, formatPairs, formatTable, formatTime, printable } from '../../src/cli/table.js';

describe('the inspect table formatter', () => {
  it('aligns columns two spaces apart, numbers to the right, without trailing spaces', () => {
    const rows = [
      { k: 'agent:main:main', n: 5, s: 'yes' },
      { k: 'g', n: 12345, s: '' },
    ];
    const lines = formatTable(
      [
        { header: 'KEY', value: (r: (typeof rows)[number]) => r.k },
        { header: 'N', value: (r) => r.n },
        { header: 'S', value: (r) => r.s },
      ],
      rows,
    );
    expect(lines).toEqual(['KEY                  N  S', 'agent:main:main      5  yes', 'g                12345']);
  });

  it('escapes control characters so a hand-edited file cannot drive the terminal', () => {
    expect(printable('a\u001b[31mred\nx\u0085')).toBe('a\\u001b[31mred\\u000ax\\u0085');
    const [, row] = formatTable([{ header: 'X', value: (r: string) => r }], ['\u0007bell']);
    expect(row).toBe('\\u0007bell');
  });

  it('formats instants, durations and pairs', () => {
    expect(formatTime(Date.UTC(2026, 1, 10, 9, 2, 0, 123))).toBe('2026-02-10T09:02:00Z');
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(40 * 86_400_000 + 2 * 3_600_000 + 5000)).toBe('40d 2h');
    expect(formatDuration(86_400_000 + 30_000)).toBe('1d');
    expect(formatDuration(65_000)).toBe('1m 5s');
    expect(formatDuration(-3_600_000)).toBe('-1h');
    expect(formatPairs([['rows', 50000], ['file', 'x.db']])).toEqual(['FIELD  VALUE', 'rows   50,000', 'file   x.db']);
  });
});
