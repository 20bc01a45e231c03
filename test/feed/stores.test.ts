/**
 * The feed and delivery over the real stores (memory handles sharing one state, two SQLite
 * connections to one file), with fake time: changes written through one handle reach the other's
 * feed by the change token, delivery coalesces and acks, and R28's follow-up is delivered in the
 * next window.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Notice, SessionStateStore } from '../../spec/index.js';
import { createNoticeFeed, startDelivery, type PendingSource } from '../../src/feed/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { fakeTimersEachTest } from './fake-source.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { createSqliteStore } from '../../src/sqlite/index.js';
import { TEST_DRIVER } from '../sqlite/helpers.js';

const MAIN = 'agent:main:main';
const SUB = 'agent:main:subagent:helper';
const THREAD = 'agent:main:discord:channel:1:thread:2';
const T = 'agent:main:peer';
const T0 = 1_767_225_600_000;

type Handle = SessionStateStore & PendingSource & { close(): void };
const dir = mkdtempSync(join(tmpdir(), 'ssk-feed-stores-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const kinds: [string, (logger: ReturnType<typeof memoryLogger>) => { reader: Handle; writer: Handle }][] = [
  [
    'memory (two handles on one state)',
    (logger) => {
      const reader = createMemoryStore({ now: () => Date.now(), logger });
      return { reader, writer: reader.openHandle() };
    },
  ],
  [
    'sqlite (two connections to one file)',
    (logger) => {
      const path = join(dir, `s-${Math.random().toString(36).slice(2)}.db`);
      const reader = createSqliteStore({ path, driver: TEST_DRIVER, now: () => Date.now(), logger });
      return { reader, writer: createSqliteStore({ path, driver: TEST_DRIVER, now: () => Date.now(), logger }) };
    },
  ],
];

const settle = async () => {
  for (let i = 0; i < 5; i++) await vi.advanceTimersByTimeAsync(0);
};

fakeTimersEachTest(T0);

describe.each(kinds)('feed and delivery on %s', (_name, open) => {
  it('R67: another handle\'s changes are delivered at once, then coalesced to lastWake + 20,000 ms; the R28 follow-up comes a window later; queue-only watchers are left pending', async () => {
    const logger = memoryLogger();
    const { reader, writer } = open(logger);
    for (const w of [MAIN, SUB, THREAD]) expect(await reader.watch({ watcherSessionKey: w, targetSessionKey: T, agentId: 'main' })).toEqual({ watched: true });
    // The poll path (R62): file events (R70) come in real time, which these fake timers do not order.
    const feed = createNoticeFeed(reader, { pollIntervalMs: 100, logger, watchFiles: false });
    const delivered: { at: number; watcher: string; notices: Notice[] }[] = [];
    const delivery = startDelivery({ store: reader, feed, logger, deliver: (watcher, notices) => void delivered.push({ at: Date.now() - T0, watcher, notices }) });
    await settle();
    const human = () => writer.record({ sessionKey: T, agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram' })!;

    const s1 = (await human())!.sequence;
    await vi.advanceTimersByTimeAsync(100); // the next poll sees the other handle's commit
    await settle();
    expect(delivered.map((d) => [d.at, d.watcher, d.notices.map((n) => n.lastSeenSequence)])).toEqual([[100, MAIN, [0]]]);
    expect(await reader.pendingNotices(MAIN)).toEqual([]);

    await vi.advanceTimersByTimeAsync(900);
    const s2 = (await human())!.sequence; // t = 1,000: pending again, quoting L = s1
    await vi.advanceTimersByTimeAsync(1_000);
    await human(); // t = 2,000: M moves, the notice stays byte-identical (R24)
    await vi.advanceTimersByTimeAsync(20_100 - 2_000 - 1); // t = 20,099: the window ends at 100 + 20,000
    expect(delivered).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await settle();
    expect(delivered.map((d) => [d.at, d.notices.map((n) => n.lastSeenSequence)])).toEqual([
      [100, [0]],
      [20_100, [s1]],
    ]);
    // R28: the ack moved L to the frozen N = s2; M > N re-opened one notice quoting s2, a window later.
    expect((await reader.pendingNotices(MAIN)).map((n) => n.lastSeenSequence)).toEqual([s2]);
    await vi.advanceTimersByTimeAsync(20_000);
    await settle();
    expect(delivered.map((d) => [d.at, d.notices.map((n) => n.lastSeenSequence)]).at(-1)).toEqual([40_100, [s2]]);
    expect(await reader.pendingNotices(MAIN)).toEqual([]);
    // R64, R66: never woken, still pending for their next turn.
    expect(delivered.every((d) => d.watcher === MAIN)).toBe(true);
    expect((await reader.pendingNotices(SUB)).map((n) => n.wake)).toEqual(['next-turn']);
    expect((await reader.pendingNotices(THREAD)).map((n) => n.wake)).toEqual(['immediate']);
    delivery.close();
    feed.close();
    writer.close();
    reader.close();
    expect(logger.entries).toEqual([]);
  });
});
