import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NEWS_PAYLOAD, parseRoutePayload, ROUTE_EVERYONE, ROUTE_PAYLOAD_MAX_BYTES, routePayload, WAKE_GROUP_DIGITS, wakeGroupOf, watcherRouteHash } from '../../src/core/index.js';

describe('R73 routed wake-ups: the payload', () => {
  it('R73 the routing hash is FNV-1a over UTF-16 code units, 8 lowercase hex digits (published test values)', () => {
    expect(watcherRouteHash('')).toBe('811c9dc5');
    expect(watcherRouteHash('a')).toBe('e40c292c');
    expect(watcherRouteHash('foobar')).toBe('bf9cf968');
    expect(watcherRouteHash('agent:main:main')).toMatch(/^[0-9a-f]{8}$/);
    // A hash below 0x10000000 keeps its leading zero: always 8 digits.
    expect(watcherRouteHash('agent:main:w18')).toBe('0b93cf73');
  });

  it('R73 a payload names each watcher once, sorted; none is "w:", unknown is "*"', () => {
    const a = watcherRouteHash('agent:main:a');
    const b = watcherRouteHash('agent:main:b');
    expect(routePayload(['agent:main:b', 'agent:main:a', 'agent:main:b'])).toBe(`w:${[a, b].sort().join(',')}`);
    expect(routePayload([])).toBe('w:');
    expect(routePayload(ROUTE_EVERYONE)).toBe('*');
    expect(parseRoutePayload('w:')).toEqual(new Set());
  });

  it('R73 past 7,900 bytes the payload is "*"; at the bound it is the list', () => {
    const fits = Math.floor((ROUTE_PAYLOAD_MAX_BYTES - 2 + 1) / 9);
    const keys = (n: number) => Array.from({ length: n * 2 }, (_, i) => `agent:main:w${i}`);
    // Distinct hashes for the first n keys that give them.
    const distinct = (n: number) => {
      const seen = new Map<string, string>();
      for (const k of keys(n)) if (seen.size < n && !seen.has(watcherRouteHash(k))) seen.set(watcherRouteHash(k), k);
      return [...seen.values()];
    };
    const atBound = routePayload(distinct(fits));
    expect(Buffer.byteLength(atBound)).toBeLessThanOrEqual(ROUTE_PAYLOAD_MAX_BYTES);
    expect(atBound.startsWith('w:')).toBe(true);
    expect(routePayload(distinct(fits + 1))).toBe('*');
  });

  it('R73 anything not exactly the routed form means everyone: no payload, "*", cut short, garbled, upper case, spaces', () => {
    for (const p of [undefined, '', '*', 'w:abc', 'w:0123456', 'w:01234567,', 'w:01234567,89ABCDEF', ' w:01234567', 'w:01234567 ', 'x:01234567', 'w:01234567;89abcdef']) {
      expect(parseRoutePayload(p), String(p)).toBe('everyone');
    }
  });

  it('R74 a payload with news routes by its names part; the news form is the names, the commit id and a JSON array', () => {
    expect(parseRoutePayload('w:0b93cf73;x:12;[["a"]]')).toEqual(new Set(['0b93cf73']));
    expect(parseRoutePayload('w:;x:5;[]')).toEqual(new Set());
    for (const p of ['w:0b93cf73;x:', 'w:0b93cf73;x:abc', 'w:0b93cf7;x:1;[]', 'w:0b93cf73;y:1;[]']) expect(parseRoutePayload(p), p).toBe('everyone');
    expect(NEWS_PAYLOAD.exec('w:0b93cf73,811c9dc5;x:18446744073709551615;[["w","t"],\n["u"]]')?.slice(1)).toEqual(['18446744073709551615', '[["w","t"],\n["u"]]']);
    expect(NEWS_PAYLOAD.exec('w:;x:7;[]')?.slice(1)).toEqual(['7', '[]']);
    for (const p of ['w:0b93cf73;x:012;[]', 'w:0b93cf73;x:0;[]', `w:;x:1${'0'.repeat(20)};[]`, 'w:0b93cf73;x:1;', 'w:0b93cf73;x:1;{}', 'w:0b93cf73;x:1', '*', 'x:1;[]']) expect(NEWS_PAYLOAD.exec(p), p).toBeNull();
  });

  it('R73 property: every watcher a payload was made for is named in it, or the payload is everyone', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1, maxLength: 40, unit: 'binary' }), { maxLength: 1200 }), (watchers) => {
        const named = parseRoutePayload(routePayload(watchers));
        if (named === 'everyone') return;
        for (const w of watchers) expect(named.has(watcherRouteHash(w))).toBe(true);
        expect(named.size).toBe(new Set(watchers.map(watcherRouteHash)).size);
      }),
      { numRuns: 200 },
    );
  });
});

describe('R75 wake groups', () => {
  it('R75 a group is the top 12 bits of the routing hash times 0x9e3779b1, as three hex digits', () => {
    // Worked by hand with 64-bit arithmetic: 0x12345678 * 0x9e3779b1 mod 2^32 = 0xf6d..., and so on.
    expect(wakeGroupOf('12345678')).toBe('f6d');
    expect(wakeGroupOf('ffffffff')).toBe('61c');
    expect(wakeGroupOf('811c9dc5')).toBe('46a');
    expect(wakeGroupOf('00000000')).toBe('000');
    expect(WAKE_GROUP_DIGITS).toBe(3);
  });

  it('R75 keys that differ only in their last characters spread over the groups as random ones would', () => {
    // 1,000 keys thrown at random into 4,096 groups fill about 886; FNV-1a's own top 12 bits fill 685 here.
    for (const make of [(i: number) => `agent:main:fleet-w${i}`, (i: number) => `agent:main:subagent:${i.toString(16)}`]) {
      const groups = new Set(Array.from({ length: 1000 }, (_, i) => wakeGroupOf(watcherRouteHash(make(i)))));
      expect(groups.size).toBeGreaterThanOrEqual(850);
    }
  });
});
