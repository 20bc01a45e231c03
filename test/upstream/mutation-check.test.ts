import { describe, expect, it } from 'vitest';
import { LIMITS, RecordInput } from '../../spec/index.js';
import { assertSchema, isValidationError } from '../../src/core/index.js';
import {
  DEFAULT_MONITOR_CONFIG,
  createLink,
  humanActivityRecord,
  humanDedupeKey,
  isSelfEcho,
  ownEchoSet,
  planCheck,
  resolveMonitorConfig,
  upstreamMissingRecord,
  utf8Encode,
  type Observation,
  type UpstreamLink,
  type UpstreamTurn,
} from '../../src/core/upstream/index.js';
import { T0, continueInput } from './helpers.js';

/** The check state machine (U2, U4, U5, U9), echo keys, UTF-8 and monitor config, against the mutants the mutation run (mutation/) left alive. */

const link = (over: Partial<UpstreamLink> = {}): UpstreamLink => ({ ...createLink(continueInput('/tmp/x.jsonl'), { offset: 0, epoch: 0 }, 7, T0), ...over });
const found = (turns: UpstreamTurn[], over: Partial<Extract<Observation, { status: 'found' }>> = {}): Observation => ({ status: 'found', turns, nextMarker: { offset: 9, epoch: 0 }, position: '0.9', ...over });
const ctx = { now: T0 + 50, ownTexts: [] as string[] };

function recordOf(l: UpstreamLink, o: Observation, c = ctx) {
  const p = planCheck(l, o, c);
  if (p.action !== 'record') throw new Error(`expected a record, got ${JSON.stringify(p)}`);
  return p;
}
function writeOf(l: UpstreamLink, o: Observation, c: Parameters<typeof planCheck>[2] = ctx) {
  const p = planCheck(l, o, c);
  if (p.action !== 'write') throw new Error(`expected a write, got ${p.action}`);
  return p;
}

describe('U5 occurredAt is the newest human turn time', () => {
  it('U5 the newest time wins wherever it is in the burst; turns without a time do not matter', () => {
    const p = recordOf(link(), found([{ text: 'a', occurredAt: 5_000 }, { text: 'b', occurredAt: 9_000 }, { text: 'c' }, { text: 'd', occurredAt: 7_000 }]));
    expect(p.record.occurredAt).toBe(9_000);
    expect(p.record.payload).toEqual({ turns: 4 });
    expect(recordOf(link(), found([{ text: 'a', occurredAt: 9_000 }, { text: 'b', occurredAt: 9_000 }])).record.occurredAt).toBe(9_000);
    expect(recordOf(link(), found([{ text: 'a', occurredAt: 3_000 }, { text: 'b', occurredAt: 1_000 }])).record.occurredAt).toBe(3_000);
  });

  it('U4 U5 an echo newer than every human turn does not set the time', () => {
    const p = recordOf(link(), found([{ text: 'typed', occurredAt: 4_000 }, { text: 'our prompt', occurredAt: 8_000 }]), { ...ctx, ownTexts: ['our prompt'] });
    expect(p.record.occurredAt).toBe(4_000);
    expect(p).toMatchObject({ humanTurns: 1, echoTurns: 1 });
    expect('payload' in p.record).toBe(false);
  });

  it('U5 R6 unusable turn times are skipped: not finite, negative, beyond safe integers; fractions are floored; 0 is a time', () => {
    for (const bad of [Number.NaN, Infinity, -Infinity, -1, -0.5, 2 ** 53, 1e300]) {
      const p = recordOf(link(), found([{ text: 'x', occurredAt: bad }, { text: 'y', occurredAt: 1_000 }]));
      expect(p.record.occurredAt, String(bad)).toBe(1_000);
    }
    expect(recordOf(link(), found([{ text: 'x', occurredAt: 0 }])).record.occurredAt).toBe(0);
    expect(recordOf(link(), found([{ text: 'x', occurredAt: 1_234.9 }])).record.occurredAt).toBe(1_234);
    expect(recordOf(link(), found([{ text: 'x', occurredAt: 2 ** 53 - 1 }])).record.occurredAt).toBe(2 ** 53 - 1);
  });

  it('U5 the source time is the fallback only when no turn has a time; an unusable one is left out', () => {
    expect(recordOf(link(), found([{ text: 'x', occurredAt: 1_000 }], { sourceTime: 9_000 })).record.occurredAt).toBe(1_000);
    expect(recordOf(link(), found([{ text: 'x' }], { sourceTime: 9_000.7 })).record.occurredAt).toBe(9_000);
    for (const bad of [Number.NaN, -5, Infinity]) {
      const p = recordOf(link(), found([{ text: 'x' }], { sourceTime: bad }));
      expect('occurredAt' in p.record, String(bad)).toBe(false);
      assertSchema(RecordInput, p.record);
    }
  });
});

describe('U5 the record and the link after it', () => {
  it('U5 the record: identity, kind, actor, summary, dedupe key from the position, onlyIfWatched; {turns} only for 2 or more', () => {
    const l = link({ catalogId: 'codex' });
    const p = recordOf(l, found([{ text: 'a' }, { text: 'b' }], { position: '4.77' }));
    expect(p.record).toEqual({
      sessionKey: l.sessionKey,
      agentId: l.agentId,
      kind: 'human_direct_message',
      actorType: 'human',
      summary: 'human message via codex',
      payload: { turns: 2 },
      dedupeKey: humanDedupeKey(l, '4.77'),
      onlyIfWatched: true,
    });
    expect(humanActivityRecord(l, 1, '4.77', undefined)).toEqual({
      sessionKey: l.sessionKey,
      agentId: l.agentId,
      kind: 'human_direct_message',
      actorType: 'human',
      summary: 'human message via codex',
      dedupeKey: humanDedupeKey(l, '4.77'),
      onlyIfWatched: true,
    });
    expect(humanActivityRecord(l, 1, 'p', 0)).toMatchObject({ occurredAt: 0 });
  });

  it('U5 U9 recorded: marker advances, streak resets, status ok (with the source note); failed: marker waits, status record-pending', () => {
    const l = link({ missCount: 2, status: 'inconclusive', statusDetail: 'EIO', marker: { offset: 3, epoch: 0 } });
    const p = recordOf(l, found([{ text: 'a' }, { text: 'b' }, { text: 'c' }], { note: 'file rotated; reading from offset 0 (epoch 1)' }));
    expect(p.onRecorded).toEqual({ ...l, marker: { offset: 9, epoch: 0 }, missCount: 0, status: 'ok', statusDetail: 'file rotated; reading from offset 0 (epoch 1)', revision: l.revision + 1, updatedAt: T0 + 50, lastCheckedAt: T0 + 50 });
    expect(p.onFailed).toEqual({
      ...l,
      missCount: 0,
      status: 'record-pending',
      statusDetail: '3 human turn(s) found; record did not succeed (log unavailable, or nobody watches)',
      revision: l.revision + 1,
      updatedAt: T0 + 50,
      lastCheckedAt: T0 + 50,
    });
    expect(p).toMatchObject({ humanTurns: 3, echoTurns: 0 });
    // Without a note the old status note is gone.
    const q = recordOf(l, found([{ text: 'a' }]));
    expect(q.onRecorded).not.toHaveProperty('statusDetail');
  });

  it('U9 a found check with nothing new: ok, the old note cleared, or the source note; a blocked source wins over a note', () => {
    const l = link({ status: 'inconclusive', statusDetail: 'EIO', missCount: 1 });
    const quiet = writeOf(l, found([]));
    expect(quiet).toEqual({ action: 'write', next: { ...l, status: 'ok', missCount: 0, marker: { offset: 9, epoch: 0 }, revision: l.revision + 1, updatedAt: T0 + 50, lastCheckedAt: T0 + 50, statusDetail: undefined }, humanTurns: 0, echoTurns: 0 });
    expect('statusDetail' in quiet.next).toBe(false);
    expect(writeOf(l, found([], { note: 'paging back' })).next).toMatchObject({ status: 'ok', statusDetail: 'paging back' });
    expect(writeOf(l, found([], { note: 'paging back', blocked: 'blocked: x' })).next).toMatchObject({ status: 'blocked', statusDetail: 'blocked: x' });
  });

  it('U4 only echoes: the marker advances with no record, echoes counted', () => {
    const p = writeOf(link(), found([{ text: 'mine' }, { text: ' mine ' }]), { ...ctx, ownTexts: ['mine'] });
    expect(p).toMatchObject({ humanTurns: 0, echoTurns: 2, next: { marker: { offset: 9, epoch: 0 }, status: 'ok' } });
    expect('passedOver' in p).toBe(false);
  });
});

describe('U5 Decision: nobody watches', () => {
  it('U5 U9 a note stays when nothing was passed over; passed-over turns replace it with the count', () => {
    const l = link();
    const noted = writeOf(l, found([], { note: 'paging back' }), { ...ctx, watched: false });
    expect(noted).toMatchObject({ passedOver: 0, echoTurns: 0, next: { status: 'unwatched', statusDetail: 'paging back' } });
    const one = writeOf(l, found([{ text: 'x' }], { note: 'paging back' }), { ...ctx, watched: false });
    expect(one.next).toMatchObject({ status: 'unwatched', statusDetail: 'nobody watches: 1 human turn(s) passed over, not recorded', marker: { offset: 9, epoch: 0 } });
  });

  it('U5 U6 a blocked source stays blocked with its reason, even with passed-over turns', () => {
    const p = writeOf(link(), found([{ text: 'x' }, { text: 'y' }], { blocked: 'blocked: line exceeds 1 MiB at offset 5' }), { ...ctx, watched: false });
    expect(p).toMatchObject({ passedOver: 2, humanTurns: 0, next: { status: 'blocked', statusDetail: 'blocked: line exceeds 1 MiB at offset 5', marker: { offset: 9, epoch: 0 } } });
  });
});

describe('U2 misses at their exact bounds', () => {
  it('U2 U9 first miss: 1/3, marker kept; an inconclusive check keeps everything and says why', () => {
    const l = link({ marker: { offset: 4, epoch: 0 }, statusDetail: 'old' });
    expect(writeOf(l, { status: 'missing', detail: 'ENOENT' })).toEqual({
      action: 'write',
      next: { ...l, missCount: 1, status: 'missing', statusDetail: 'source not found (1/3)', revision: l.revision + 1, updatedAt: T0 + 50, lastCheckedAt: T0 + 50 },
      humanTurns: 0,
      echoTurns: 0,
    });
    expect(writeOf({ ...l, missCount: 2 }, { status: 'inconclusive', detail: 'timeout' }).next).toEqual({
      ...l,
      missCount: 2,
      status: 'inconclusive',
      statusDetail: 'timeout',
      revision: l.revision + 1,
      updatedAt: T0 + 50,
      lastCheckedAt: T0 + 50,
    });
  });

  it('U2 the limit-th miss records upstream_missing; a failed record holds at limit - 1 with the marker', () => {
    const l = link({ missCount: LIMITS.upstreamMissLimit - 1, marker: { offset: 4, epoch: 0 } });
    const p = recordOf(l, { status: 'missing' });
    expect(p.record).toEqual(upstreamMissingRecord(l));
    expect(p.onRecorded).toBeNull();
    expect(p.onFailed).toEqual({
      ...l,
      missCount: 2,
      status: 'missing',
      statusDetail: 'source not found (3/3); upstream_missing not recorded yet',
      revision: l.revision + 1,
      updatedAt: T0 + 50,
      lastCheckedAt: T0 + 50,
    });
    expect(p).toMatchObject({ humanTurns: 0, echoTurns: 0 });
  });

  it('U2 a stored miss count above the limit (corrupt state) still records once, never counts on', () => {
    const p = recordOf(link({ missCount: 7 }), { status: 'missing' });
    expect(p.record.kind).toBe('upstream_missing');
    expect(p.onFailed.missCount).toBe(LIMITS.upstreamMissLimit - 1);
  });
});

describe('U4 echo keys at their bounds', () => {
  it('U4 the window is the newest `window` own messages, 10 by default', () => {
    const own = Array.from({ length: 5 }, (_, i) => `m${i}`);
    expect([...ownEchoSet(own, 2)]).toEqual(['t:m3', 't:m4']);
    expect([...ownEchoSet(own, 10)]).toHaveLength(5);
    expect([...ownEchoSet(own, 0)]).toEqual([]);
    expect(ownEchoSet(Array.from({ length: 11 }, (_, i) => `m${i}`)).has('t:m0')).toBe(false);
    expect(ownEchoSet(Array.from({ length: 10 }, (_, i) => `m${i}`)).has('t:m0')).toBe(true);
  });

  it('U4 an image-only own message is keyed by its image count; an empty one has no key', () => {
    const set = ownEchoSet([{ text: ' ', images: 2 }, { text: '', images: 0 }, { text: '' }, '', { text: 'cap', images: 1 }]);
    expect([...set].sort()).toEqual(['i:2', 't:cap']);
    expect(isSelfEcho({ text: '', images: 2 }, set)).toBe(true);
    expect(isSelfEcho({ text: '', images: 1 }, set)).toBe(false);
    expect(isSelfEcho({ text: '', images: 0 }, set)).toBe(false);
    expect(isSelfEcho({ text: '' }, set)).toBe(false);
    // With text, the text is the key, whatever the image count.
    expect(isSelfEcho({ text: 'cap', images: 3 }, set)).toBe(true);
    expect(isSelfEcho({ text: 'cap' }, set)).toBe(true);
    expect(isSelfEcho('cap', set)).toBe(true);
  });

  it('U4 a cut text is an echo by prefix only when it is at least 1,024 characters', () => {
    const own = `${'w'.repeat(2000)} end`;
    const set = ownEchoSet([own]);
    expect(isSelfEcho({ text: 'w'.repeat(1024), truncated: true }, set)).toBe(true);
    expect(isSelfEcho({ text: 'w'.repeat(1023), truncated: true }, set)).toBe(false);
    expect(isSelfEcho({ text: 'w'.repeat(1022), truncated: true }, set)).toBe(false);
    // Not cut: a prefix is a different text.
    expect(isSelfEcho({ text: 'w'.repeat(1500) }, set)).toBe(false);
    // Cut, long, but not a prefix of ours.
    expect(isSelfEcho({ text: 'v'.repeat(1500), truncated: true }, set)).toBe(false);
    // A cut turn with no key (no text, no images) is never an echo.
    expect(isSelfEcho({ text: ' ', truncated: true }, set)).toBe(false);
    // A cut image-only turn is compared by count only.
    expect(isSelfEcho({ text: '', images: 1, truncated: true }, ownEchoSet([{ text: '', images: 12 }]))).toBe(false);
  });
});

describe('UTF-8 for dedupe keys', () => {
  it('U5 encodes every length class at its bounds like TextEncoder; lone surrogates become U+FFFD', () => {
    const te = new TextEncoder();
    for (const s of ['\u0000', '\u007f', '\u0080', '\u07ff', '\u0800', '\ud7ff', '\ue000', '\uffff', '\u{10000}', '\u{10ffff}', 'a\ud800b', '\udc00', '\ud83d', 'x\udfff\ud800y']) {
      expect([...utf8Encode(s)], JSON.stringify(s)).toEqual([...te.encode(s)]);
    }
  });
});

describe('U8 monitor config', () => {
  const rejects = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      expect(isValidationError(e)).toBe(true);
      return e as { field: string; code: string; message: string };
    }
    throw new Error('expected a ValidationError');
  };

  it('U8 defaults: 60 s interval, first tick after 15 s, 45 s check timeout', () => {
    expect(resolveMonitorConfig()).toEqual({ intervalMs: 60_000, firstDelayMs: 15_000, checkTimeoutMs: 45_000 });
    expect(resolveMonitorConfig({})).toEqual(DEFAULT_MONITOR_CONFIG);
    expect(resolveMonitorConfig({ intervalMs: undefined })).toEqual(DEFAULT_MONITOR_CONFIG);
  });

  it('U8 firstDelayMs may be 0; the others must be at least 1; each must be a safe integer', () => {
    expect(resolveMonitorConfig({ firstDelayMs: 0, intervalMs: 1, checkTimeoutMs: 1 })).toEqual({ firstDelayMs: 0, intervalMs: 1, checkTimeoutMs: 1 });
    expect(rejects(() => resolveMonitorConfig({ firstDelayMs: -1 }))).toMatchObject({ field: 'firstDelayMs', code: 'range', message: 'firstDelayMs: must be an integer >= 0' });
    expect(rejects(() => resolveMonitorConfig({ checkTimeoutMs: 0 }))).toMatchObject({ field: 'checkTimeoutMs', code: 'range', message: 'checkTimeoutMs: must be an integer >= 1' });
    expect(rejects(() => resolveMonitorConfig({ intervalMs: '5' as never }))).toMatchObject({ field: 'intervalMs', code: 'range' });
    expect(rejects(() => resolveMonitorConfig({ intervalMs: 2 ** 53 }))).toMatchObject({ field: 'intervalMs' });
    expect(rejects(() => resolveMonitorConfig({ firstDelayMs: 0.5 }))).toMatchObject({ field: 'firstDelayMs' });
    // The defaults are not changed by a resolved config.
    const c = resolveMonitorConfig({ intervalMs: 5 });
    c.firstDelayMs = 1;
    expect(DEFAULT_MONITOR_CONFIG.firstDelayMs).toBe(15_000);
  });
});
