/**
 * R23-R27b: notice construction edges through the core's public functions: the text per L when
 * one maker serves several L, wake per watcher and provenance, R26 order over astral keys,
 * ackTargets merging, the R23b link template's limits and placeholder substitution, and the
 * grammar's refusals.
 */
import { describe, expect, it } from 'vitest';
import {
  ValidationError,
  ackTargets,
  compareNotices,
  encodeContextKey,
  makeNotice,
  noticeLinkUrl,
  noticeMaker,
  noticeOf,
  noticeText,
  noticeTextWithLink,
  parseNoticeText,
  pendingNoticesOf,
  pendingPairOf,
  validateNoticeLinkTemplate,
  wakeFor,
  withNoticeLink,
  withNoticeLinks,
} from '../../src/core/index.js';
import type { WatchCursor } from '../../spec/index.js';

const W = 'agent:main:main';
const T = 'agent:main:peer';

function cursor(extra: Partial<WatchCursor> = {}): WatchCursor {
  return {
    watcherSessionKey: W,
    targetSessionKey: T,
    targetAgentId: 'main',
    lastSeenSequence: 3,
    notifiedSequence: 5,
    materialSequence: 6,
    provenance: 'explicit',
    updatedAt: 0,
    ...extra,
  };
}

describe('R23, R24 notice construction', () => {
  it('R23: one maker quotes each call\'s own L, also when L goes back to an earlier value', () => {
    const make = noticeMaker(T, 'main');
    for (const L of [1, 2, 2, 1, 0, 7]) {
      const n = make(W, L);
      expect(n).toEqual(makeNotice(W, T, 'main', L));
      expect(parseNoticeText(n.text)).toEqual({ targetSessionKey: T, lastSeenSequence: L });
    }
  });

  it('R23, R24: a notice carries its identity, the quoted L, the context key and the text', () => {
    expect(makeNotice(W, T, 'main', 4)).toEqual({
      watcherSessionKey: W,
      targetSessionKey: T,
      targetAgentId: 'main',
      lastSeenSequence: 4,
      contextKey: encodeContextKey('main', T),
      wake: 'immediate',
      text: noticeText(T, 4),
    });
    expect(noticeOf(cursor())).toEqual(makeNotice(W, T, 'main', 3));
  });

  it('R25: ambient cursors and sub-agent watchers are next-turn; main watchers of explicit and spawn cursors are immediate', () => {
    expect(wakeFor(W)).toBe('immediate');
    expect(wakeFor(W, 'explicit')).toBe('immediate');
    expect(wakeFor(W, 'spawn')).toBe('immediate');
    expect(wakeFor(W, 'ambient')).toBe('next-turn');
    expect(wakeFor('agent:main:subagent:x', 'explicit')).toBe('next-turn');
    expect(noticeOf(cursor({ provenance: 'ambient' })).wake).toBe('next-turn');
    expect(makeNotice(W, T, 'main', 1, undefined, 'ambient').wake).toBe('next-turn');
    expect(noticeMaker(T, 'main')(W, 1, 'ambient').wake).toBe('next-turn');
  });

  it('R25, R60: the feed\'s pair of a cursor has its identity, L and wake, and nothing else', () => {
    expect(pendingPairOf(cursor())).toEqual({ watcherSessionKey: W, targetSessionKey: T, targetAgentId: 'main', lastSeenSequence: 3, wake: 'immediate' });
    expect(pendingPairOf(cursor({ provenance: 'ambient' })).wake).toBe('next-turn');
  });
});

describe('R26 order and R20 pending', () => {
  it('R20, R26: only cursors with N > L are notices, ordered by target key then agent in code-unit order', () => {
    const cursors = [
      cursor({ targetSessionKey: 'agent:b:x', targetAgentId: 'b' }),
      cursor({ targetSessionKey: 'global', targetAgentId: 'z' }),
      cursor({ targetSessionKey: 'global', targetAgentId: 'a' }),
      cursor({ targetSessionKey: 'agent:a:\uff5e', targetAgentId: 'a' }), // U+FF5E sorts after an astral key by code units
      cursor({ targetSessionKey: 'agent:a:\u{1f600}', targetAgentId: 'a' }),
      cursor({ targetSessionKey: 'agent:a:idle', targetAgentId: 'a', lastSeenSequence: 5, notifiedSequence: 5 }),
    ];
    expect(pendingNoticesOf(cursors).map((n) => [n.targetSessionKey, n.targetAgentId])).toEqual([
      ['agent:a:\u{1f600}', 'a'],
      ['agent:a:\uff5e', 'a'],
      ['agent:b:x', 'b'],
      ['global', 'a'],
      ['global', 'z'],
    ]);
    expect(pendingNoticesOf([])).toEqual([]);
  });

  it('R26: compareNotices is a total order: equal pairs compare 0, and the sign flips with the arguments', () => {
    const a = { targetSessionKey: 'k', targetAgentId: 'a' };
    const b = { targetSessionKey: 'k', targetAgentId: 'b' };
    const c = { targetSessionKey: 'l', targetAgentId: 'a' };
    expect(compareNotices(a, { ...a })).toBe(0);
    expect(compareNotices(a, b)).toBeLessThan(0);
    expect(compareNotices(b, a)).toBeGreaterThan(0);
    expect(compareNotices(b, c)).toBeLessThan(0);
    expect(compareNotices(c, b)).toBeGreaterThan(0);
  });
});

describe('R27b ackTargets', () => {
  it('R27b: entries for one pair merge (every L kept, in order); distinct pairs stay apart; foreign keys name nothing', () => {
    const k1 = encodeContextKey('main', T);
    const k2 = encodeContextKey('other', T);
    expect(
      ackTargets([
        { contextKey: k1, lastSeenSequence: 3 },
        { contextKey: 'session-state:zz:zz', lastSeenSequence: 3 },
        { contextKey: k2, lastSeenSequence: 1 },
        { contextKey: k1.toUpperCase(), lastSeenSequence: 5 },
      ]),
    ).toEqual([
      { targetSessionKey: T, targetAgentId: 'main', lastSeen: [3, 5] },
      { targetSessionKey: T, targetAgentId: 'other', lastSeen: [1] },
    ]);
    expect(ackTargets([])).toEqual([]);
  });
});

describe('R23b notice link', () => {
  it('R23b: every placeholder is replaced, percent-encoded, and a key holding a placeholder\'s text is not substituted again', () => {
    const template = 'https://ui.example/{agentId}/s/{sessionKey}?a={agentId}&k={sessionKey}';
    expect(noticeLinkUrl(template, 'main', 'agent:main:{agentId} x')).toBe(
      'https://ui.example/main/s/agent%3Amain%3A%7BagentId%7D%20x?a=main&k=agent%3Amain%3A%7BagentId%7D%20x',
    );
    expect(noticeLinkUrl('https://ui.example/', 'main', T)).toBe('https://ui.example/');
  });

  it('R23b: with a template the text carries the link and still parses to (target, L); without one the notice is unchanged', () => {
    const n = makeNotice(W, T, 'main', 2);
    expect(withNoticeLink(n, undefined)).toBe(n);
    const linked = withNoticeLink(n, 'https://ui.example/{sessionKey}');
    expect({ ...linked, text: n.text }).toEqual(n);
    expect(linked.text).toBe(noticeTextWithLink(T, 'main', 2, 'https://ui.example/{sessionKey}'));
    expect(parseNoticeText(linked.text)).toEqual({ targetSessionKey: T, lastSeenSequence: 2, link: `https://ui.example/${encodeURIComponent(T)}` });
  });

  it('R23b: withNoticeLinks links every notice of a list as withNoticeLink does; without a template it hands back the list itself', () => {
    const list = [makeNotice(W, T, 'main', 2), makeNotice(W, 'agent:main:other', 'main', 5)];
    expect(withNoticeLinks(list, undefined)).toBe(list);
    const template = 'https://ui.example/{agentId}/{sessionKey}';
    expect(withNoticeLinks(list, template)).toEqual(list.map((n) => withNoticeLink(n, template)));
    expect(withNoticeLinks(list, template)[1]!.text).not.toBe(list[1]!.text);
  });

  it('R23b: a template is an absolute http(s) URL of printable ASCII, at most 1024 characters, or a ValidationError on the given field', () => {
    for (const ok of ['http://x', 'https://ui.example/{agentId}/{sessionKey}', `https://x/${'a'.repeat(1024 - 'https://x/'.length)}`, 'https://x/~!$%&()*+,;=?@[]^{|}']) {
      expect(() => validateNoticeLinkTemplate(ok), ok).not.toThrow();
    }
    const refusal = (value: unknown, field?: string) => {
      try {
        validateNoticeLinkTemplate(value, field);
      } catch (caught) {
        expect(caught).toBeInstanceOf(ValidationError);
        const error = caught as ValidationError;
        // The message names the field and then says what is wrong.
        expect(error.message.startsWith(`${error.field}: `)).toBe(true);
        expect(error.message.length).toBeGreaterThan(error.field.length + 2);
        return { field: error.field, code: error.code };
      }
      return undefined;
    };
    expect(refusal(`https://x/${'a'.repeat(1025 - 'https://x/'.length)}`)).toEqual({ field: 'noticeLink', code: 'format' });
    for (const bad of ['', 'http://', 'ftp://x', 'x https://y', 'https:/x', 'HTTPS://x', 'https://a b', 'https://x/\u00e9', 'https://x/\n', 'https://x/<', 'https://x/>', 'https://x/"', 'https://x/\\', 'https://x/`']) {
      expect(refusal(bad), JSON.stringify(bad)).toEqual({ field: 'noticeLink', code: 'format' });
    }
    expect(refusal(5)).toEqual({ field: 'noticeLink', code: 'type' });
    expect(refusal(undefined, 'options.noticeLink')).toEqual({ field: 'options.noticeLink', code: 'type' });
    expect(refusal('ftp://x', 'link')).toEqual({ field: 'link', code: 'format' });
  });
});

describe('R23 grammar refusals', () => {
  it('R23: a line whose two keys differ, whose L has a leading zero or is past 2^53-1, or that has extra text is not a notice', () => {
    const good = noticeText(T, 12);
    expect(parseNoticeText(good)).toEqual({ targetSessionKey: T, lastSeenSequence: 12 });
    expect('link' in parseNoticeText(good)!).toBe(false); // no link field at all without a link
    expect(parseNoticeText(noticeText(T, 0))).toEqual({ targetSessionKey: T, lastSeenSequence: 0 });
    expect(parseNoticeText(noticeText(T, Number.MAX_SAFE_INTEGER))).toEqual({ targetSessionKey: T, lastSeenSequence: Number.MAX_SAFE_INTEGER });
    expect(parseNoticeText(good.replace(`sessionKey "${T}"`, 'sessionKey "agent:main:other"'))).toBeUndefined();
    expect(parseNoticeText(good.replace('changesSince 12', 'changesSince 012'))).toBeUndefined();
    expect(parseNoticeText(good.replace('changesSince 12', 'changesSince 9007199254740992'))).toBeUndefined();
    expect(parseNoticeText(`${good} `)).toBeUndefined();
    expect(parseNoticeText(` ${good}`)).toBeUndefined();
    expect(parseNoticeText('')).toBeUndefined();
  });
});
