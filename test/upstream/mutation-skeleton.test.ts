import { describe, expect, it } from 'vitest';
import { DEFAULT_SKELETON_LIMITS, SkeletonParser, type SkeletonLimits } from '../../src/core/upstream/index.js';

/** U6 long-line reader: JSON edge cases, string budgets and escape cuts, against the mutants the mutation run (mutation/) left alive. */

const dec = new TextDecoder();
const decode = (b: Uint8Array) => dec.decode(b);
const enc = new TextEncoder();

/** Feeds `text` one byte at a time (every cut point at once) or whole. */
function parse(text: string, limits: SkeletonLimits = DEFAULT_SKELETON_LIMITS, bytewise = false) {
  const p = new SkeletonParser(decode, limits);
  const b = enc.encode(text);
  if (bytewise) for (let i = 0; i < b.length; i++) p.push(b.subarray(i, i + 1));
  else p.push(b);
  return p;
}
const both = (text: string, limits?: SkeletonLimits) => {
  const a = parse(text, limits).end();
  const b = parse(text, limits, true).end();
  expect(b, `bytewise ${text}`).toEqual(a);
  return a;
};
const small = (over: Partial<SkeletonLimits> = {}): SkeletonLimits => ({ stringBytes: 8, totalBytes: 20, smallString: 4, maxDepth: 32, maxItems: 100, ...over });

describe('U6 the skeleton reads JSON as JSON.parse does', () => {
  it('U6 whitespace of all four JSON kinds between tokens; top-level scalars', () => {
    const text = ' \t\r\n{ \t"a"\r\n:\t[ 1 ,\n2\r] , "b" : { } , "c" : [ ] }\n\t ';
    expect(both(text)).toEqual({ ok: true, value: JSON.parse(text), truncated: false });
    for (const t of ['0', '-0.5e+3', '12', '19', '123', '1e-2', '1e22', '90', 'true', 'false', 'null', '"s"', ' 7 ', '1E2', '3.25', '[9,0]']) expect(both(t), t).toEqual({ ok: true, value: JSON.parse(t), truncated: false });
  });

  it('U6 literals JSON.parse rejects are rejected', () => {
    for (const t of ['01', '1.', '.5', '-', '+1', '1e', '1e+', 'tru', 'nul', 'truex', 'True', 'NaN', 'Infinity', '0x10', '0b1', '0o7', '00', '-01', '1.e5', '1.2.3', '--1', '1e400']) {
      expect(both(t).ok, t).toBe(false);
    }
  });

  it('U6 structure errors are rejected: missing colon or comma, bad closers, stray tokens, trailing garbage', () => {
    for (const t of ['{"a" 1}', '{"a":1 "b":2}', '[1 2]', '{"a":1]', '[1}', '{1:2}', '{"a":}', '[,1]', ':', '}', ']', ',', '{"a"}', '{"a":1}x', '1 2', '"a" "b"', '[1,2]]', 'x', '{"a":tru}', '{"a":1,,"b":2}', '{"a" "b"}', '{"a":1 "b"}', '{:1}', '{"a" 12}', '[01]', '[1.]', '{"a":-}']) {
      expect(both(t).ok, t).toBe(false);
    }
  });

  it('U6 trailing commas are tolerated (a torn writer never produces them; refusing would lose the line)', () => {
    expect(both('[1,]')).toEqual({ ok: true, value: [1], truncated: false });
    expect(both('{"a":1,}')).toEqual({ ok: true, value: { a: 1 }, truncated: false });
  });

  it('U6 an unfinished value is not ok', () => {
    for (const t of ['', ' ', '{', '[', '{"a":1', '"abc', '"ab\\"', '{"a":"x}', '[1,2', '{1', '{"a":1,2', '[{"a":1},{']) expect(both(t).ok, t).toBe(false);
  });

  it('U6 escapes, also split between pieces, decode as JSON.parse does', () => {
    const value = { q: 'say "hi"', b: 'back\\slash\\', u: '\u00e9\u{1f600}', c: 'tab\tnl\n', k: '\\"' };
    const text = JSON.stringify(value);
    expect(both(text)).toEqual({ ok: true, value, truncated: false });
    // An escaped backslash right before the closing quote ends the string.
    expect(both('"a\\\\"')).toEqual({ ok: true, value: 'a\\', truncated: false });
    // Many escapes in one piece stay correct.
    const many = JSON.stringify({ t: '"\\'.repeat(500) });
    expect(both(many).value).toEqual(JSON.parse(many));
  });

  it('U6 once a line is known to be broken, the rest of it is not decoded (bounded work on garbage)', () => {
    let decodes = 0;
    const p = new SkeletonParser((b) => {
      decodes++;
      return dec.decode(b);
    });
    p.push(enc.encode('x"abc","def"'));
    p.push(enc.encode('"ghi"'));
    expect(p.end().ok).toBe(false);
    expect(decodes).toBe(0);
  });

  it('U6 parsed properties are plain data like JSON.parse gives (writable, enumerable, configurable)', () => {
    const v = both('{"type":"user","n":1}').value as Record<string, unknown>;
    for (const k of ['type', 'n']) expect(Object.getOwnPropertyDescriptor(v, k)).toEqual(Object.getOwnPropertyDescriptor(JSON.parse('{"type":"user","n":1}'), k));
  });

  it('U6 a __proto__ key and keys named like Object members are own data', () => {
    const r = both('{"constructor":1,"__proto__":{"x":1},"toString":"s"}');
    expect(Object.keys(r.value as object)).toEqual(['constructor', '__proto__', 'toString']);
    expect(Object.getPrototypeOf(r.value)).toBe(Object.prototype);
  });
});

describe('U6 bounds: strings, total budget, depth and items', () => {
  it('U6 a string longer than stringBytes is cut to it and the result is marked truncated', () => {
    const r = both('{"a":"0123456789","b":"xy"}', small());
    expect(r).toEqual({ ok: true, value: { a: '01234567', b: 'xy' }, truncated: true });
    expect(both('{"a":"01234567"}', small())).toEqual({ ok: true, value: { a: '01234567' }, truncated: false });
  });

  it('U6 past the total budget strings keep smallString bytes; keys count against it too', () => {
    // "k1": 2 + "aaaaaaaa": 8 + "k2": 2 + "bbbbbbbb": 8 = 20 = totalBytes, then only 4 per string.
    const r = both('{"k1":"aaaaaaaa","k2":"bbbbbbbb","k3":"cccccccc"}', small());
    expect(r).toEqual({ ok: true, value: { k1: 'aaaaaaaa', k2: 'bbbbbbbb', k3: 'cccc' }, truncated: true });
    // Room left is below a whole string but above smallString: that room is kept.
    const s = both('{"k1":"aaaaaaaa","k2":"bbbb","k3":"cccccccc"}', small());
    // 16 bytes held, then "k3" (2) leaves 2, below smallString: the value keeps 4.
    expect(s.value).toEqual({ k1: 'aaaaaaaa', k2: 'bbbb', k3: 'cccc' });
    const t = both('{"k1":"aaaaaaaa","k":"ccccccccc"}', small({ totalBytes: 17 }));
    // 11 held, 6 left: between smallString (4) and stringBytes (8), so 6 are kept.
    expect(t.value).toEqual({ k1: 'aaaaaaaa', k: 'cccccc' });
  });

  it('U6 retainedBytes counts the string bytes held, including a string still being read', () => {
    const p = new SkeletonParser(decode, small());
    expect(p.retainedBytes()).toBe(0);
    p.push(enc.encode('{"ab":"xyz'));
    expect(p.retainedBytes()).toBe(5);
    p.push(enc.encode('w","c":1}'));
    expect(p.retainedBytes()).toBe(7);
    expect(p.end()).toEqual({ ok: true, value: { ab: 'xyzw', c: 1 }, truncated: false });
  });

  it('U4 U6 a cut inside an escape drops the unfinished escape, never a finished one', () => {
    const lim = small({ stringBytes: 6, smallString: 6, totalBytes: 1000 });
    // Cut after `abcde\` : the lone backslash goes.
    expect(both('"abcde\\"fgh"', lim)).toEqual({ ok: true, value: 'abcde', truncated: true });
    // Cut after `ab\u00` : the partial \u escape goes.
    expect(both('"ab\\u00e9zz"', lim)).toEqual({ ok: true, value: 'ab', truncated: true });
    // Cut after `abc\u` : the bare \u goes.
    expect(both('"abc\\u00e9zz"', lim)).toEqual({ ok: true, value: 'abc', truncated: true });
    // Cut after `abcd\\\\`: an escaped backslash (two bytes) is finished; it stays.
    expect(both('"abcd\\\\zzz"', lim)).toEqual({ ok: true, value: 'abcd\\', truncated: true });
    // Cut after `ab\\\\\\` (5 bytes): a finished escaped backslash, then an unfinished one: only the last goes.
    expect(both('"ab\\\\\\nzz"', { ...lim, stringBytes: 5, smallString: 5 })).toEqual({ ok: true, value: 'ab\\', truncated: true });
    // Cut after `ab\\\\` (two finished escaped backslashes): both stay.
    expect(both('"ab\\\\\\\\zz"', lim)).toEqual({ ok: true, value: 'ab\\\\', truncated: true });
    // A finished \uXXXX escape at the cut stays.
    expect(both('"\\u00e9zzzz"', lim)).toEqual({ ok: true, value: '\u00e9', truncated: true });
  });

  it('U6 a cut string that is still not valid JSON text is kept raw rather than lost', () => {
    // A raw control character inside a string is not valid JSON; the skeleton keeps the bytes.
    const r = both('{"a":"x\u0001y"}');
    expect(r.ok).toBe(true);
    expect((r.value as { a: string }).a).toBe('x\u0001y');
  });

  it('U6 values deeper than maxDepth are parsed but not kept', () => {
    const lim = small({ maxDepth: 2, totalBytes: 1000, stringBytes: 100 });
    const r = both('{"a":{"b":{"c":1,"d":"x"},"e":[1,[2]]},"f":2}', lim);
    const v = r.value as { a: { b: Record<string, unknown>; e: unknown[] }; f: number };
    expect(r).toMatchObject({ ok: true, truncated: true });
    expect(v.f).toBe(2);
    expect(v.a.e).toEqual([1, undefined]);
    expect(v.a.b).not.toHaveProperty('c');
    expect(v.a.b).not.toHaveProperty('d');
    // Strings below the depth limit cost no budget.
    const p = parse('{"a":{"b":{"c":"xxxxxxxxxx"}}}', lim);
    expect(p.retainedBytes()).toBe(2);
    expect(p.end().ok).toBe(true);
    // Members of an object that is not kept are read past, not stored.
    const m = both('{"a":{"b":{"c":1,"d":"x"}},"e":2}', small({ maxDepth: 1 }));
    const mv = m.value as { a: Record<string, unknown>; e: number };
    expect(m).toMatchObject({ ok: true, truncated: true });
    expect(mv.e).toBe(2);
    expect(Object.values(mv.a)).toEqual([undefined]);
    // A container opened at most maxDepth levels down is kept.
    expect(both('[[[1]]]', small({ maxDepth: 2 }))).toEqual({ ok: true, value: [[[1]]], truncated: false });
    expect(both('[[[1]]]', small({ maxDepth: 1 }))).toEqual({ ok: true, value: [[undefined]], truncated: false });
  });

  it('U6 arrays keep maxItems elements; more are dropped and marked truncated', () => {
    expect(both('[1,2,3]', small({ maxItems: 3 }))).toEqual({ ok: true, value: [1, 2, 3], truncated: false });
    expect(both('[1,2,3,4]', small({ maxItems: 3 }))).toEqual({ ok: true, value: [1, 2, 3], truncated: true });
  });

  it('U6 a literal longer than 64 characters is not kept whole (numbers that long are not transcript fields)', () => {
    const digits = '1'.repeat(70);
    const r = both(`{"n":${digits},"t":"user"}`);
    expect(r.ok).toBe(true);
    // The reader keeps 64 characters of a literal (its memory bound); the fields after it are intact.
    expect(r.value).toEqual({ n: Number('1'.repeat(64)), t: 'user' });
    expect(both(`[${'2'.repeat(64)}]`).value).toEqual([Number('2'.repeat(64))]);
  });
});
