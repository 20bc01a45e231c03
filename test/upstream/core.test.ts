import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LIMITS, RecordInput } from '../../spec/index.js';
import { assertSchema, isValidationError } from '../../src/core/index.js';
import {
  ambiguousKeys,
  createLink,
  humanDedupeKey,
  isSelfEcho,
  missingDedupeKey,
  normalizeUserText,
  ownEchoSet,
  planCheck,
  refreshLink,
  resolveMonitorConfig,
  sameSource,
  sha256Hex,
  validateContinueInput,
  type Observation,
  type UpstreamLink,
} from '../../src/core/upstream/index.js';
import { A, T0, TARGET, continueInput } from './helpers.js';

function link(over: Partial<UpstreamLink> = {}): UpstreamLink {
  return { ...createLink(continueInput('/tmp/x.jsonl'), { offset: 0, epoch: 0 }, 7, T0), ...over };
}

const found = (texts: string[], over: Partial<Extract<Observation, { status: 'found' }>> = {}): Observation => ({
  status: 'found',
  turns: texts.map((text, i) => ({ text, occurredAt: T0 - 1000 + i })),
  nextMarker: { offset: 100, epoch: 0 },
  position: '0.100',
  ...over,
});

function throwsField(fn: () => unknown, field: string): void {
  try {
    fn();
  } catch (error) {
    expect(isValidationError(error), String(error)).toBe(true);
    expect((error as { field: string }).field).toBe(field);
    return;
  }
  throw new Error(`expected ValidationError on ${field}`);
}

describe('sha256 (pure, for dedupe keys)', () => {
  it('matches node:crypto on fixed and arbitrary strings', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (s) => {
        expect(sha256Hex(s)).toBe(createHash('sha256').update(s, 'utf8').digest('hex'));
      }),
      { numRuns: 200 },
    );
    for (const n of [55, 56, 63, 64, 65, 119, 120, 1000]) expect(sha256Hex('x'.repeat(n))).toBe(createHash('sha256').update('x'.repeat(n)).digest('hex'));
  });
});

describe('U4 normalization and self-echo', () => {
  it('trims, folds whitespace runs (incl. newlines, tabs, NBSP) to one space, applies NFC, keeps case', () => {
    expect(normalizeUserText('  exact \t\n  decorated   prompt ')).toBe('exact decorated prompt');
    expect(normalizeUserText('a\u00a0\u2003b')).toBe('a b');
    expect(normalizeUserText('Cafe\u0301')).toBe('Caf\u00e9');
    expect(normalizeUserText('Hello')).not.toBe(normalizeUserText('hello'));
    expect(normalizeUserText(' \n\t ')).toBe('');
  });

  it('an upstream text equal to one of the last 10 own messages (normalized) is an echo; older or case-changed is not', () => {
    const own = Array.from({ length: 12 }, (_, i) => `message ${i}`);
    const set = ownEchoSet(own);
    expect(set.size).toBe(LIMITS.selfEchoWindow);
    expect(isSelfEcho('message   11', set)).toBe(true);
    expect(isSelfEcho('message 2', set)).toBe(true);
    expect(isSelfEcho('message 1', set)).toBe(false); // 11th newest: outside the window
    expect(isSelfEcho('Message 11', set)).toBe(false);
    expect(isSelfEcho('', ownEchoSet(['', '  ']))).toBe(false);
  });
});

describe('U1/U3 links', () => {
  it('validates Continue input and names the bad field', () => {
    throwsField(() => validateContinueInput({ ...continueInput('/x'), catalogId: 'bad id' }), 'catalogId');
    throwsField(() => validateContinueInput({ ...continueInput('/x'), agentId: 'other' }), 'agentId');
    throwsField(() => validateContinueInput({ ...continueInput('/x'), sessionKey: 'agent:main:\ud800' }), 'sessionKey');
    throwsField(() => validateContinueInput({ ...continueInput('/x'), ref: { filePath: Number.NaN } }), 'ref.filePath');
    throwsField(() => validateContinueInput({ ...continueInput('/x'), extra: 1 } as never), 'extra');
    expect(validateContinueInput(continueInput('/x')).sessionKey).toBe(TARGET);
  });

  it('a same-source Continue keeps marker and serial, starts a new generation and a fresh streak', () => {
    const l = link({ missCount: 2, status: 'missing', marker: { offset: 55, epoch: 0 } });
    expect(sameSource(l, continueInput('/tmp/x.jsonl'))).toBe(true);
    expect(sameSource(l, continueInput('/tmp/y.jsonl'))).toBe(false);
    expect(sameSource(l, continueInput('/tmp/x.jsonl', { threadId: 'other' }))).toBe(false);
    const r = refreshLink(l, continueInput('/tmp/x.jsonl'), T0 + 5);
    expect(r).toMatchObject({ serial: 7, generation: 2, revision: l.revision + 1, missCount: 0, status: 'new', marker: { offset: 55, epoch: 0 }, updatedAt: T0 + 5 });
    expect(missingDedupeKey(r)).not.toBe(missingDedupeKey(l));
    expect(humanDedupeKey(r, '0.9')).toBe(humanDedupeKey(l, '0.9'));
  });

  it('dedupe keys are short, control-free and separate incarnations', () => {
    const long = link({ sessionKey: `agent:main:${'k'.repeat(500)}` });
    const key = humanDedupeKey(long, 'some position with spaces and\u0000nul'.repeat(10));
    expect(key.length).toBeLessThanOrEqual(LIMITS.keyMaxLength);
    expect(key).toMatch(/^upstream:[0-9a-f]{16}:7:h[0-9a-f]{32}$/);
    expect(humanDedupeKey(link(), '3.120')).toMatch(/^upstream:[0-9a-f]{16}:7:3\.120$/);
    expect(humanDedupeKey(link({ serial: 8 }), '3.120')).not.toBe(humanDedupeKey(link(), '3.120'));
  });

  it('one owner agent per key: a key linked under two agents is ambiguous', () => {
    expect([...ambiguousKeys([{ sessionKey: 'global', agentId: 'a' }, { sessionKey: 'global', agentId: 'b' }, { sessionKey: TARGET, agentId: A }])]).toEqual(['global']);
  });

  it('monitor config rejects bad intervals with the field name', () => {
    throwsField(() => resolveMonitorConfig({ intervalMs: 0 }), 'intervalMs');
    throwsField(() => resolveMonitorConfig({ checkTimeoutMs: 1.5 }), 'checkTimeoutMs');
    expect(resolveMonitorConfig({ intervalMs: 5 }).intervalMs).toBe(5);
  });
});

describe('planCheck (U2, U4, U5)', () => {
  it('U5 human turns become one record: actor human, channel in the summary, payload {turns} only when > 1 (production shape), upstream time, onlyIfWatched', () => {
    const l = link();
    const one = planCheck(l, found(['hello']), { now: T0, ownTexts: [] });
    expect(one.action).toBe('record');
    if (one.action !== 'record') return;
    assertSchema(RecordInput, one.record);
    expect(one.record).toMatchObject({ kind: 'human_direct_message', actorType: 'human', summary: 'human message via claude', occurredAt: T0 - 1000, onlyIfWatched: true });
    expect('payload' in one.record).toBe(false);
    expect(one.onRecorded?.marker).toEqual({ offset: 100, epoch: 0 });
    expect(one.onFailed.marker).toEqual(l.marker);
    expect(one.onFailed.status).toBe('record-pending');

    const three = planCheck(l, found(['a', 'b', 'c']), { now: T0, ownTexts: [] });
    expect(three.action === 'record' && three.record.payload).toEqual({ turns: 3 });
    expect(three.action === 'record' && three.record.occurredAt).toBe(T0 - 998);
  });

  it('U5 occurredAt falls back to the source time, and is left out when unusable', () => {
    const noTimes: Observation = { status: 'found', turns: [{ text: 'x' }], nextMarker: {}, position: 'p', sourceTime: T0 - 5.7 };
    const p = planCheck(link(), noTimes, { now: T0, ownTexts: [] });
    expect(p.action === 'record' && p.record.occurredAt).toBe(T0 - 6);
    const neg = planCheck(link(), { status: 'found', turns: [{ text: 'x', occurredAt: -5 }], nextMarker: {}, position: 'p' }, { now: T0, ownTexts: [] });
    expect(neg.action === 'record' && 'occurredAt' in neg.record).toBe(false);
    if (neg.action === 'record') assertSchema(RecordInput, neg.record);
  });

  it('U4 echoes of own messages advance the marker with no record', () => {
    const p = planCheck(link(), found(['  please   continue ']), { now: T0, ownTexts: ['please continue'] });
    expect(p).toMatchObject({ action: 'write', humanTurns: 0, echoTurns: 1 });
    expect(p.action === 'write' && p.next.marker).toEqual({ offset: 100, epoch: 0 });
    const mixed = planCheck(link(), found(['please continue', 'a real person']), { now: T0, ownTexts: ['please continue'] });
    expect(mixed.action === 'record' && 'payload' in mixed.record).toBe(false);
  });

  it('U2 misses count to the limit, inconclusive neither counts nor resets, found resets', () => {
    let l = link();
    const step = (o: Observation) => {
      const p = planCheck(l, o, { now: T0, ownTexts: [] });
      if (p.action === 'write') l = p.next;
      return p;
    };
    step({ status: 'missing' });
    step({ status: 'inconclusive', detail: 'EIO' });
    expect(l.missCount).toBe(1);
    step({ status: 'missing' });
    expect(l).toMatchObject({ missCount: 2, status: 'missing', statusDetail: 'source not found (2/3)' });
    step(found([]));
    expect(l.missCount).toBe(0);
    step({ status: 'missing' });
    step({ status: 'missing' });
    const third = step({ status: 'missing' });
    expect(third.action).toBe('record');
    if (third.action !== 'record') return;
    assertSchema(RecordInput, third.record);
    expect(third.record).toMatchObject({ kind: 'upstream_missing', actorType: 'system', summary: 'upstream missing via claude', payload: { channel: 'claude' }, dedupeKey: missingDedupeKey(l) });
    expect('onlyIfWatched' in third.record).toBe(false);
    expect(third.onRecorded).toBeNull();
    expect(third.onFailed.missCount).toBe(LIMITS.upstreamMissLimit - 1);
    expect(third.onFailed.marker).toEqual(l.marker);
  });

  it('every plan bumps the revision (the CAS token) and records the check time', () => {
    const l = link();
    for (const o of [found([]), { status: 'missing' } as const, { status: 'inconclusive', detail: 'x' } as const]) {
      const p = planCheck(l, o, { now: T0 + 9, ownTexts: [] });
      const next = p.action === 'write' ? p.next : p.onFailed;
      expect(next.revision).toBe(l.revision + 1);
      expect(next.lastCheckedAt).toBe(T0 + 9);
    }
  });

  it('U5 Decision: with nobody watching, found activity is passed over: marker advances, nothing recorded, status unwatched', () => {
    const l = link({ missCount: 2, status: 'missing' });
    const p = planCheck(l, found(['typed while nobody watched', 'and again', 'an echo']), { now: T0 + 3, ownTexts: ['an echo'], watched: false });
    expect(p.action).toBe('write');
    if (p.action !== 'write') return;
    expect(p).toMatchObject({ humanTurns: 0, echoTurns: 1, passedOver: 2 });
    expect(p.next).toMatchObject({ marker: { offset: 100, epoch: 0 }, missCount: 0, status: 'unwatched', statusDetail: 'nobody watches: 2 human turn(s) passed over, not recorded', lastCheckedAt: T0 + 3 });
    // Nothing new: still unwatched, no detail.
    const idle = planCheck(l, found([]), { now: T0 + 4, ownTexts: [], watched: false });
    expect(idle.action === 'write' && idle.next).toMatchObject({ status: 'unwatched', marker: { offset: 100, epoch: 0 } });
    expect(idle.action === 'write' && 'statusDetail' in idle.next).toBe(false);
    // watched true or omitted (cannot tell): the record path, marker waits for it.
    for (const watched of [true, undefined]) {
      const r = planCheck(l, found(['x']), { now: T0, ownTexts: [], ...(watched !== undefined && { watched }) });
      expect(r.action).toBe('record');
      expect(r.action === 'record' && r.onFailed.marker).toEqual(l.marker);
    }
  });

  it('U2 U5 watch state does not change missing or inconclusive checks; a blocked cursor stays blocked', () => {
    const l = link({ missCount: 2, status: 'missing' });
    const third = planCheck(l, { status: 'missing' }, { now: T0, ownTexts: [], watched: false });
    expect(third.action === 'record' && third.record.kind).toBe('upstream_missing');
    expect(third.action === 'record' && third.onRecorded).toBeNull();
    const inc = planCheck(l, { status: 'inconclusive', detail: 'x' }, { now: T0, ownTexts: [], watched: false });
    expect(inc.action === 'write' && inc.next).toMatchObject({ missCount: 2, status: 'inconclusive', marker: l.marker });
    const blocked = planCheck(l, found([], { blocked: 'blocked: line exceeds 1 MiB at offset 5' }), { now: T0, ownTexts: [], watched: false });
    expect(blocked.action === 'write' && blocked.next).toMatchObject({ status: 'blocked', statusDetail: 'blocked: line exceeds 1 MiB at offset 5', missCount: 0 });
  });

  it('a blocked source is found (resets misses) and says why', () => {
    const p = planCheck(link({ missCount: 2 }), found([], { blocked: 'blocked: line exceeds 1 MiB at offset 5' }), { now: T0, ownTexts: [] });
    expect(p.action === 'write' && p.next).toMatchObject({ missCount: 0, status: 'blocked', statusDetail: 'blocked: line exceeds 1 MiB at offset 5' });
  });
});
