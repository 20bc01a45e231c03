import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SKELETON_LIMITS, SkeletonParser, classifyClaudeEntry } from '../../src/core/upstream/index.js';

const decoder = new TextDecoder();
const decode = (b: Uint8Array) => decoder.decode(b);
const enc = new TextEncoder();

function parseInPieces(text: string, cuts: number[], limits = DEFAULT_SKELETON_LIMITS) {
  const bytes = enc.encode(text);
  const p = new SkeletonParser(decode, limits);
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  let at = 0;
  for (const c of points) {
    p.push(bytes.subarray(at, c));
    at = c;
  }
  p.push(bytes.subarray(at));
  return p;
}

describe('U6 long-line reader (bounded JSON skeleton)', () => {
  it('U6 equals JSON.parse on any JSON with short strings, however the bytes are cut', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.array(fc.nat(), { maxLength: 12 }), (value, cuts) => {
        const text = JSON.stringify(value);
        const r = parseInPieces(text, cuts).end();
        expect(r.ok).toBe(true);
        expect(r.truncated).toBe(false);
        expect(r.value).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it('U6 a __proto__ key stays an own property (no inherited isMeta or type), as with JSON.parse', () => {
    const text = '{"type":"user","__proto__":{"isMeta":true,"isSidechain":true},"message":{"role":"user","content":"hi"}}';
    const r = parseInPieces(text, [5]).end();
    expect(Object.getPrototypeOf(r.value)).toBe(Object.prototype);
    expect(classifyClaudeEntry(r.value)).toEqual(classifyClaudeEntry(JSON.parse(text)));
    expect(classifyClaudeEntry(r.value)).toMatchObject({ human: true });
  });

  it('U6 rejects what JSON.parse rejects (torn or trailing input)', () => {
    for (const bad of ['{"a":', '{"a" 1}', '[1,2', '{"a":1}}', 'tru', '{"a":"x}', '"abc']) {
      expect(parseInPieces(bad, [2]).end().ok, bad).toBe(false);
    }
  });

  it('U6 a 20 MiB line keeps its small fields and a bounded amount of text, and classifies like the whole record', () => {
    const record = {
      type: 'user',
      message: { role: 'user', content: [{ type: 'text', text: 'look at this' }, { type: 'image', source: { type: 'base64', data: 'QUJD'.repeat(5 * 1024 * 1024) } }] },
      timestamp: '2026-01-01T00:00:00.000Z',
      origin: { kind: 'human' },
      promptSource: 'typed',
    };
    const text = JSON.stringify(record);
    expect(text.length).toBeGreaterThan(20 * 1024 * 1024);
    const p = parseInPieces(text, Array.from({ length: 40 }, (_, i) => i * 524_288 + 7));
    expect(p.retainedBytes()).toBeLessThanOrEqual(DEFAULT_SKELETON_LIMITS.totalBytes + DEFAULT_SKELETON_LIMITS.stringBytes);
    const r = p.end();
    expect(r).toMatchObject({ ok: true, truncated: true });
    expect(classifyClaudeEntry(r.value)).toEqual(classifyClaudeEntry(record));
    // A huge typed text is cut but stays a prefix of the original.
    const long = JSON.stringify({ type: 'user', message: { role: 'user', content: `pasted: ${'é'.repeat(3 * 1024 * 1024)}` } });
    const cut = parseInPieces(long, [1000, 1_000_001]).end();
    const got = (cut.value as { message: { content: string } }).message.content;
    expect(cut.truncated).toBe(true);
    expect(got.length).toBeGreaterThan(1000);
    expect(`pasted: ${'é'.repeat(3 * 1024 * 1024)}`.startsWith(got.replace(/\uFFFD$/u, ''))).toBe(true);
  });
});
