/**
 * R74 on PostgreSQL: a writer's NOTIFY carries the pairs its commit changed and the transaction's
 * id; a feed on another handle hands them out without a read; a payload that would not fit, or
 * that is cut short, garbled or carries a bad row, is R73's names (or nothing the store vouches
 * for), and the feed reads.
 */
import { describe, expect, it } from 'vitest';
import type { WatchCursor } from '../../spec/index.js';
import { parseRoutePayload, ROUTE_PAYLOAD_MAX_BYTES, watcherRouteHash } from '../../src/core/index.js';
import { createNoticeFeed, type NoticeSignal, type PendingSource } from '../../src/feed/index.js';
import { createPostgresStore } from '../../src/postgres/index.js';
import { TABLES } from '../../src/postgres/schema.js';
import { newsPayloadParts, parseWakeNews, positionCovers } from '../../src/postgres/wake-news.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { usePostgres, waitFor } from './server.js';

const pg = usePostgres();
const T0 = Date.UTC(2026, 0, 1);
const A = 'main';

function cursor(watcher: string, target: string, lastSeen: number, notified: number, provenance: WatchCursor['provenance'] = 'explicit'): WatchCursor {
  return { watcherSessionKey: watcher, targetSessionKey: target, targetAgentId: A, lastSeenSequence: lastSeen, notifiedSequence: notified, materialSequence: notified, provenance, updatedAt: T0 };
}


describe('R74 the payload', () => {
  it('R74 carries each changed pair with its state and the transaction id the server writes between the halves', () => {
    const parts = newsPayloadParts([cursor('agent:main:w1', 'agent:main:t', 3, 5), cursor('agent:main:w2', 'agent:main:t', 4, 4, 'spawn')])!;
    const payload = `${parts.head}98765${parts.tail}`;
    expect(parseRoutePayload(payload)).toEqual(new Set([watcherRouteHash('agent:main:w1'), watcherRouteHash('agent:main:w2')]));
    expect(parseWakeNews(payload, TABLES.cursors)).toEqual({
      mark: '98765',
      changes: [
        { watcherSessionKey: 'agent:main:w1', targetSessionKey: 'agent:main:t', targetAgentId: A, lastSeenSequence: 3, wake: 'immediate', pending: true },
        { watcherSessionKey: 'agent:main:w2', targetSessionKey: 'agent:main:t', targetAgentId: A, lastSeenSequence: 4, wake: 'immediate', pending: false },
      ],
    });
  });

  it('R74 a payload that would pass 7,900 bytes with the longest transaction id is not made (counted in UTF-8 bytes)', () => {
    const wide = (n: number, ch: string) => Array.from({ length: n }, (_, i) => cursor(`agent:main:${ch.repeat(40)}${i}`, 'agent:main:t', 1, 2));
    let n = 1;
    while (newsPayloadParts(wide(n + 1, 'é'))) n++;
    const parts = newsPayloadParts(wide(n, 'é'))!;
    const bytes = Buffer.byteLength(`${parts.head}${'9'.repeat(20)}${parts.tail}`);
    expect(bytes).toBeLessThanOrEqual(ROUTE_PAYLOAD_MAX_BYTES);
    // One more does not fit in bytes, though counted in characters (as ASCII) it would.
    expect(newsPayloadParts(wide(n + 1, 'é'))).toBeUndefined();
    expect(newsPayloadParts(wide(n + 1, 'e'))).toBeDefined();
  });

  it('R74 anything but the exact form, or a row a read would refuse, is no news', () => {
    const parts = newsPayloadParts([cursor('agent:main:w1', 'agent:main:t', 3, 5)])!;
    const good = `${parts.head}42${parts.tail}`;
    expect(parseWakeNews(good, TABLES.cursors)).toBeDefined();
    const bad = [
      good.slice(0, -1), // cut short
      `${parts.head}${parts.tail}`, // no transaction id
      `${parts.head}042${parts.tail}`,
      `${parts.head}42;[]`,
      `${parts.head}42;{}`,
      `${parts.head}42;[["agent:main:w1","agent:main:t","main",3,5]]`,
      `${parts.head}42;[["agent:main:w1","agent:main:t","main",5,3,"explicit"]]`, // N < L
      `${parts.head}42;[["agent:main:w1","agent:main:t","main","3",5,"explicit"]]`,
      `${parts.head}42;[["","agent:main:t","main",3,5,"explicit"]]`, // R1 refuses the key
      `${parts.head}42;[["agent:main:w1","agent:main:t","main",3,5,"friend"]]`,
      `${parts.head}42;[["agent:main:w1","agent:main:t","main",3,5,"explicit"],7]`,
      'w:;x:42',
      '*',
      'w:',
      good.replace('w:', 'v:'),
    ];
    for (const p of bad) expect(parseWakeNews(p, TABLES.cursors), p).toBeUndefined();
  });

  it('R74 a position covers a transaction below its xmin, or below its xmax and not in progress', () => {
    const cases: [string, string, boolean][] = [
      ['100:105:101,103', '99', true],
      ['100:105:101,103', '100', true],
      ['100:105:101,103', '101', false],
      ['100:105:101,103', '102', true],
      ['100:105:101,103', '103', false],
      ['100:105:101,103', '104', true],
      ['100:105:101,103', '105', false],
      ['100:100:', '99', true],
      ['100:100:', '100', false],
      ['18446744073709551000:18446744073709551010:', '18446744073709551001', true],
      ['not a snapshot', '1', false],
      ['100:105:', 'x', false],
    ];
    for (const [position, mark, covered] of cases) expect(positionCovers(position, mark), `${position} ${mark}`).toBe(covered);
  });
});

describe('R74 over PostgreSQL', () => {
  it('R74 a commit on one handle reaches a feed on another without a read; a wake too big for news reads', async () => {
    const schema = pg.schema();
    const a = await createPostgresStore({ now: () => T0, connectionString: pg.url(), schema, logger: pg.log });
    const b = await createPostgresStore({ now: () => T0, connectionString: pg.url(), schema, logger: pg.log });
    const W = 'agent:main:lead';
    let reads = 0;
    const source: PendingSource = {
      readPending: (r) => (reads++, b.readPending(r)),
      onLocalChange: (l) => b.onLocalChange(l),
      subscribeRemote: (l) => b.subscribeRemote(l),
      wakeNews: (p) => b.wakeNews(p),
      positionCovers: (p, m) => b.positionCovers(p, m),
    };
    const payloads: string[] = [];
    const stopTap = await b.subscribeRemote((p) => void (p !== undefined && payloads.push(p)));
    const feed = createNoticeFeed(source, { pollIntervalMs: 3_600_000, logger: memoryLogger() });
    const signals: NoticeSignal[] = [];
    feed.subscribe((s) => void signals.push(s), { watcherSessionKey: W });
    await waitFor('the listening connection', () => b.listenerPid !== undefined && reads > 0);
    await a.watch({ watcherSessionKey: W, targetSessionKey: 'agent:main:peer-1', agentId: A });
    await new Promise((r) => setTimeout(r, 200));
    const before = reads;
    await a.record({ sessionKey: 'agent:main:peer-1', agentId: A, kind: 'human_direct_message', actorType: 'human', summary: 'typed by a person' });
    await waitFor('a signal for the notice', () => signals.some((s) => s.changed.some((p) => p.targetSessionKey === 'agent:main:peer-1')));
    expect(reads).toBe(before);
    const news = b.wakeNews(payloads.at(-1)!);
    expect(news?.changes.map((c) => [c.watcherSessionKey, c.targetSessionKey, c.pending])).toEqual([[W, 'agent:main:peer-1', true]]);
    // A read made now has seen that transaction.
    const now = await b.readPending({});
    expect(b.positionCovers(now.position, news!.mark)).toBe(true);

    // Sixty watchers with long keys on one target: their states do not fit, so the wake names them and the feed reads.
    const target = 'agent:main:peer-2';
    const many = Array.from({ length: 60 }, (_, i) => `agent:main:${'w'.repeat(150)}${i}`);
    for (const w of [W, ...many]) await a.watch({ watcherSessionKey: w, targetSessionKey: target, agentId: A });
    await new Promise((r) => setTimeout(r, 300));
    const beforeBig = reads;
    const seen = payloads.length;
    await a.record({ sessionKey: target, agentId: A, kind: 'human_direct_message', actorType: 'human', summary: 'typed by a person' });
    await waitFor('a signal for the second notice', () => signals.some((s) => s.changed.some((p) => p.targetSessionKey === target)));
    expect(reads).toBeGreaterThan(beforeBig);
    const big = payloads.slice(seen).find((p) => p.startsWith('w:') && p.split(',').length >= 61);
    expect(big, payloads.slice(seen).join('\n')).toMatch(/^w:[0-9a-f,]+$/);
    expect(b.wakeNews(big!)).toBeUndefined();
    stopTap();
    feed.close();
    await a.close();
    await b.close();
  });
});
