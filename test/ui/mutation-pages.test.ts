/**
 * The live view's page logic on its own (R82-R84), held by exact values: the byte budget's edge,
 * a page's next key, the activity buckets, the clipping of each shown string, a payload too long
 * to parse, a cursor's notice, the timeline's gap, and the same pages read from a SQLite file
 * through its read model.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { StateEvent, WatchCursor } from '../../spec/index.js';
import { createSqliteStore } from '../../src/sqlite/index.js';
import { CLIP_MARK, MINUTE_MS, SHOWN, bucketize, clip, eventView, pageOf, sessionView, withinBudget, type SessionRow } from '../../src/ui/source.js';
import { SqliteUiSource } from '../../src/ui/sqlite-source.js';
import { cursorPage, cursorView, timelineOf } from '../../src/ui/store-source.js';
import type { EventRow } from '../../src/shared/rows.js';
import { TEAM_T0, expectTeamPages, writeTeam } from './team-pages.js';

const T0 = 1_767_225_600_000;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('R82: the byte budget and the page key', () => {
  const row = (n: number) => ({ n, pad: 'x'.repeat(8) }); // JSON: {"n":1,"pad":"xxxxxxxx"} = 24 bytes, + 1 each
  const size = Buffer.byteLength(JSON.stringify(row(1))) + 1;

  it('rows fit while their bytes (JSON plus one each) are at most the budget; the first row always fits', () => {
    const rows = [row(1), row(2), row(3)];
    expect(withinBudget(rows, 3 * size)).toEqual({ rows, cut: false });
    expect(withinBudget(rows, 3 * size - 1)).toEqual({ rows: rows.slice(0, 2), cut: true });
    expect(withinBudget(rows, 2 * size)).toEqual({ rows: rows.slice(0, 2), cut: true });
    expect(withinBudget(rows, 1)).toEqual({ rows: rows.slice(0, 1), cut: true });
    expect(withinBudget([], 1)).toEqual({ rows: [], cut: false });
    // A copy, not the caller's array.
    const all = withinBudget(rows);
    expect(all.rows).not.toBe(rows);
  });

  it('a page names its last row as the next key only when more rows exist or it was cut', () => {
    const key = (r: { n: number }) => r.n;
    expect(pageOf([row(1), row(2)], false, key)).toEqual({ rows: [row(1), row(2)] });
    expect(pageOf([row(1), row(2)], true, key)).toEqual({ rows: [row(1), row(2)], next: 2 });
    expect(pageOf([], true, key)).toEqual({ rows: [] });
    const big = Array.from({ length: 3 }, (_, n) => ({ n, pad: 'y'.repeat(600_000) }));
    const cut = pageOf(big, false, key);
    expect(cut.rows).toHaveLength(1);
    expect(cut).toMatchObject({ next: 0, byteLimited: true });
  });
});

describe('R85: activity buckets', () => {
  it('one bucket per minute ending at the given one, filled by actor type; other types and minutes outside are dropped', () => {
    const end = 100 * MINUTE_MS;
    const b = bucketize(end, 3, [
      { minute: end, actorType: 'human', count: 2 },
      { minute: end, actorType: 'agent', count: 5 },
      { minute: end - MINUTE_MS, actorType: 'system', count: 1 },
      { minute: end - 2 * MINUTE_MS, actorType: 'human', count: 4 },
      { minute: end - 2 * MINUTE_MS, actorType: 'human', count: 1 },
      { minute: end - 3 * MINUTE_MS, actorType: 'human', count: 9 },
      { minute: end + MINUTE_MS, actorType: 'agent', count: 9 },
      { minute: end, actorType: 'robot', count: 9 },
    ]);
    expect(b).toEqual([
      { minute: end - 2 * MINUTE_MS, human: 5, agent: 0, system: 0 },
      { minute: end - MINUTE_MS, human: 0, agent: 0, system: 1 },
      { minute: end, human: 2, agent: 5, system: 0 },
    ]);
    expect(bucketize(end, 1, [])).toEqual([{ minute: end, human: 0, agent: 0, system: 0 }]);
  });
});

describe('R82, R84: what each shown string becomes', () => {
  const long = (n: number) => 'k'.repeat(n);

  it('a session row: key, agent, actor id, kind and actor type clipped to their lengths, the rest as is', () => {
    const row: SessionRow = {
      sessionKey: `agent:main:${long(SHOWN.key)}`,
      agentId: long(SHOWN.agentId + 3),
      stateVersion: 4,
      prunedMaxSequence: 1,
      earliestAvailableSequence: 2,
      updatedAt: T0,
      lastActorId: `agent:main:${long(SHOWN.key)}`,
      lastKind: long(SHOWN.name + 1),
      lastActorType: long(SHOWN.name + 2) as never,
    };
    const v = sessionView(row);
    expect(v.sessionKey).toBe(clip(row.sessionKey, SHOWN.key));
    expect(v.sessionKey.endsWith(CLIP_MARK)).toBe(true);
    expect(v.agentId).toBe(long(SHOWN.agentId) + CLIP_MARK);
    expect(v.lastActorId!.endsWith(CLIP_MARK)).toBe(true);
    expect(v.lastKind).toBe(long(SHOWN.name) + CLIP_MARK);
    expect(v.lastActorType).toBe(long(SHOWN.name) + CLIP_MARK);
    expect(v).toMatchObject({ stateVersion: 4, prunedMaxSequence: 1, earliestAvailableSequence: 2, updatedAt: T0 });
    const plain = sessionView({ sessionKey: 'agent:main:a', agentId: 'main', stateVersion: 0, prunedMaxSequence: 0, earliestAvailableSequence: 0, updatedAt: 0 });
    expect(plain).toEqual({ sessionKey: 'agent:main:a', agentId: 'main', stateVersion: 0, prunedMaxSequence: 0, earliestAvailableSequence: 0, updatedAt: 0 });
  });

  it('an event: a payload longer than shown is never parsed, only shown clipped; one that fits is decoded', () => {
    const decoded: (string | null)[] = [];
    const decode = (r: { payload_json: string | null }): StateEvent => {
      decoded.push(r.payload_json);
      return { sequence: 1, sessionKey: 'agent:main:a', agentId: 'main', kind: 'human_direct_message', actorType: 'human', occurredAt: T0, recordedAt: T0, summary: 's', ...(r.payload_json ? { payload: JSON.parse(r.payload_json) as never } : {}) } as StateEvent;
    };
    const longPayload = JSON.stringify({ channel: 'x'.repeat(SHOWN.payload + 5) });
    const v = eventView({ payload_json: longPayload }, decode);
    expect(decoded).toEqual([null]);
    expect(v.payloadClipped).toBe(clip(longPayload, SHOWN.payload));
    expect(v.payloadClipped!.endsWith(CLIP_MARK)).toBe(true);
    expect(v.payload).toBeUndefined();
    decoded.length = 0;
    const fits = JSON.stringify({ channel: 'telegram' });
    const w = eventView({ payload_json: fits }, decode);
    expect(decoded).toEqual([fits]);
    expect(w.payloadClipped).toBeUndefined();
    expect(w.payload).toEqual({ channel: 'telegram' });
    // Exactly SHOWN.payload code points is not longer than shown.
    const exact = 'p'.repeat(SHOWN.payload);
    const seen: (string | null)[] = [];
    expect(eventView({ payload_json: exact }, (r) => (seen.push(r.payload_json), decode({ payload_json: null }))).payloadClipped).toBeUndefined();
    expect(seen).toEqual([exact]);
    // Longer in UTF-16 units than shown, but not in code points: still not longer than shown.
    const astral = '\u{1F600}'.repeat(SHOWN.payload);
    seen.length = 0;
    expect(eventView({ payload_json: astral }, (r) => (seen.push(r.payload_json), decode({ payload_json: null }))).payloadClipped).toBeUndefined();
    expect(seen).toEqual([astral]);
  });

  it('a cursor: pending with its notice text and context key, or not pending with neither; its wake from lane and provenance', () => {
    const c: WatchCursor = { watcherSessionKey: 'agent:main:lead', targetSessionKey: 'agent:main:worker', targetAgentId: 'main', lastSeenSequence: 2, notifiedSequence: 5, materialSequence: 5, provenance: 'explicit', updatedAt: T0 };
    const pending = cursorView(c);
    expect(pending).toMatchObject({ pending: true, wake: 'immediate' });
    expect(pending.noticeText).toContain('agent:main:worker');
    expect(pending.noticeText).toContain('2');
    expect(pending.contextKey).toBeDefined();
    const quiet = cursorView({ ...c, notifiedSequence: 2 });
    expect(quiet).toMatchObject({ pending: false });
    expect(quiet.noticeText).toBeUndefined();
    expect(quiet.contextKey).toBeUndefined();
    expect(cursorView({ ...c, watcherSessionKey: 'agent:main:subagent:x' }).wake).toBe('next-turn');
    const page = cursorPage([c, { ...c, targetSessionKey: 'agent:main:w2' }, { ...c, targetSessionKey: 'agent:main:w3' }], 2);
    expect(page.rows.map((r) => r.targetSessionKey)).toEqual(['agent:main:worker', 'agent:main:w2']);
    expect(page.next).toEqual({ targetAgentId: 'main', targetSessionKey: 'agent:main:w2', watcherSessionKey: 'agent:main:lead' });
    expect(cursorPage([c], 2).next).toBeUndefined();
  });

  it('a timeline: the gap only on the page that reaches the oldest retained event, and only when history was pruned', () => {
    const head: SessionRow = { sessionKey: 'agent:main:a', agentId: 'main', stateVersion: 9, prunedMaxSequence: 4, earliestAvailableSequence: 5, updatedAt: T0 };
    const ev = (sequence: number): EventRow =>
      ({ sequence, dedupe_key: null, session_key: 'agent:main:a', agent_id: 'main', session_id: null, kind: 'human_direct_message', actor_type: 'human', actor_id: null, run_id: null, occurred_at: T0, recorded_at: T0, summary: 's', payload_json: null }) as EventRow;
    const decode = (r: EventRow): StateEvent => ({ sequence: Number(r.sequence), sessionKey: r.session_key, agentId: r.agent_id, kind: 'human_direct_message', actorType: 'human', occurredAt: T0, recordedAt: T0, summary: 's' }) as StateEvent;
    const first = timelineOf(head, [ev(9), ev(8), ev(7)], 2, decode);
    expect(first.events.map((e) => e.sequence)).toEqual([9, 8]);
    expect(first.next).toBe(8);
    expect(first.gap).toBeUndefined();
    const last = timelineOf(head, [ev(6), ev(5)], 2, decode);
    expect(last.next).toBeUndefined();
    expect(last.gap).toEqual({ prunedMaxSequence: 4, earliestAvailableSequence: 5 });
    expect(timelineOf({ ...head, prunedMaxSequence: 0 }, [ev(1)], 2, decode).gap).toBeUndefined();
    expect(last.head).toEqual(head);
  });
});

describe('R81-R85 read from a SQLite file through its read model', () => {
  it('sessions, a timeline, the watches and the activity of a small team, page by page', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ssk-ui-pages-'));
    dirs.push(dir);
    const path = join(dir, 'team.db');
    let now = TEAM_T0;
    const store = createSqliteStore({ path, now: () => now });
    now = await writeTeam(store, { advance: (ms) => void (now += ms), now: () => now });
    store.close();
    const source = SqliteUiSource.open(path);
    try {
      await expectTeamPages(source, now);
      expect(source.label).toBe(path);
    } finally {
      await source.close();
    }
  });

  it('the pending pairs, the open mode, and nothing read after close', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ssk-ui-pages-'));
    dirs.push(dir);
    const path = join(dir, 'team.db');
    const store = createSqliteStore({ path, now: () => T0 });
    await store.watch({ watcherSessionKey: 'agent:main:lead', targetSessionKey: 'agent:main:worker', agentId: 'main' });
    await store.record({ sessionKey: 'agent:main:worker', agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'hi' });
    store.close();
    const source = SqliteUiSource.open(path);
    expect(source.openMode).toBe('shared');
    expect((await source.listPending()).map((p) => [p.watcherSessionKey, p.targetSessionKey, p.lastSeenSequence])).toEqual([['agent:main:lead', 'agent:main:worker', 0]]);
    await source.close();
    await expect(source.sessions({ limit: 1 })).rejects.toThrow();
  });
});
