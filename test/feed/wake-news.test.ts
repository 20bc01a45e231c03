/**
 * R74: a wake that carries its commit's news is handed out without a read, once, never behind a
 * read's older state, and a read from the feed's position still follows within newsConfirmMs, so
 * a wake that never came, came garbled or came out of order costs that delay, never the notice.
 */
import { describe, expect, it, vi } from 'vitest';
import { createNoticeFeed, type NoticeSignal, type PairChange, type PendingRead, type PendingReadRequest, type PendingSource, type WakeNews } from '../../src/feed/index.js';
import { fakeTimersEachTest } from './fake-source.js';
import { memoryLogger } from '../../src/shared/logger.js';

const A = 'agent:main:a';
const B = 'agent:main:b';
const T = 'agent:main:target';
const U = 'agent:main:other';

const settle = fakeTimersEachTest();

function change(watcher: string, target: string, lastSeen: number, pending = true): PairChange {
  return { watcherSessionKey: watcher, targetSessionKey: target, targetAgentId: 'main', lastSeenSequence: lastSeen, wake: 'immediate', pending };
}
const keyOf = (c: PairChange) => `${c.watcherSessionKey}|${c.targetSessionKey}|${c.targetAgentId}`;

/**
 * A push-only source with a commit log: commit k changes some pairs; a position is the number of
 * commits a read saw; a read's snapshot is taken when it starts (a gate holds its answer back);
 * a wake's news is `news:<k>` (commit k's pairs), which `positionCovers` judges by k.
 */
class LogSource {
  readonly commits: PairChange[][] = [];
  reads: PendingReadRequest[] = [];
  gate: Promise<void> | undefined;
  private readonly pushers = new Set<(payload?: string) => void>();

  commit(...pairs: PairChange[]): number {
    this.commits.push(pairs);
    return this.commits.length;
  }

  push(payload?: string): void {
    for (const p of [...this.pushers]) p(payload);
  }

  state(upTo: number): Map<string, PairChange> {
    const m = new Map<string, PairChange>();
    for (const c of this.commits.slice(0, upTo).flat()) m.set(keyOf(c), c);
    return m;
  }

  readonly source: PendingSource = {
    readPending: async (request): Promise<PendingRead> => {
      this.reads.push(request);
      const at = this.commits.length;
      const since = request.since === undefined ? undefined : Number(request.since);
      const now = this.state(at);
      const changed = new Set(since === undefined ? [] : this.commits.slice(since, at).flat().map(keyOf));
      const changes = [...changed].map((k) => now.get(k)!);
      const wanted = request.snapshot;
      const snapshot = [...now.values()]
        .filter((c) => c.pending && (wanted === 'all' || (wanted !== undefined && wanted.includes(c.watcherSessionKey))))
        .map(({ pending: _p, ...pair }) => pair);
      if (this.gate) await this.gate;
      return { position: String(at), changes, snapshot };
    },
    onLocalChange: () => () => {},
    subscribeRemote: async (l) => {
      this.pushers.add(l);
      return () => this.pushers.delete(l);
    },
    wakeNews: (payload): WakeNews | undefined => {
      const m = /^news:(\d+)$/.exec(payload);
      const pairs = m ? this.commits[Number(m[1]) - 1] : undefined;
      return pairs ? { mark: m![1]!, changes: pairs.map((c) => ({ ...c })) } : undefined;
    },
    positionCovers: (position, mark) => Number(mark) <= Number(position),
  };
}

async function subscribed(log: LogSource, options: { watcher?: string; newsConfirmMs?: number } = {}) {
  const feed = createNoticeFeed(log.source, { logger: memoryLogger(), pollIntervalMs: 100, ...(options.newsConfirmMs === undefined ? {} : { newsConfirmMs: options.newsConfirmMs }) });
  const got: NoticeSignal[] = [];
  feed.subscribe((s) => void got.push(s), options.watcher === undefined ? {} : { watcherSessionKey: options.watcher });
  await settle();
  return { feed, got };
}

const lastSeens = (got: readonly NoticeSignal[]) => got.map((s) => s.changed.map((p) => `${p.watcherSessionKey}:${p.lastSeenSequence}`).join(','));

describe('R74 news in the wake', () => {
  it('R74 a wake with news is handed out without a read, only to the subscribers of its watchers', async () => {
    const log = new LogSource();
    const { feed, got } = await subscribed(log, { watcher: A });
    const reads = log.reads.length;
    const k = log.commit(change(A, T, 1), change(B, T, 2));
    log.push(`news:${k}`);
    await settle();
    expect(log.reads.length).toBe(reads);
    expect(lastSeens(got)).toEqual([`${A}:1`]);
    feed.close();
  });

  it('R74 news of a commit the position has seen is no news; news the source does not vouch for reads', async () => {
    const log = new LogSource();
    const k = log.commit(change(A, T, 1));
    const { feed, got } = await subscribed(log, { watcher: A });
    expect(lastSeens(got)).toEqual([`${A}:1`]); // R61: the snapshot
    const reads = log.reads.length;
    log.push(`news:${k}`);
    await settle();
    expect(log.reads.length).toBe(reads);
    expect(got).toHaveLength(1);
    log.commit(change(A, T, 3));
    log.push('news:99'); // the source cannot vouch for it: read
    await settle();
    expect(log.reads.length).toBe(reads + 1);
    expect(lastSeens(got)).toEqual([`${A}:1`, `${A}:3`]);
    feed.close();
  });

  it('R74 a read after news does not hand the same state out again, and hands out a newer one', async () => {
    const log = new LogSource();
    const { feed, got } = await subscribed(log, { watcher: A });
    log.push(`news:${log.commit(change(A, T, 1))}`);
    await settle();
    log.push(`news:${log.commit(change(A, U, 5))}`);
    await settle();
    expect(lastSeens(got)).toEqual([`${A}:1`, `${A}:5`]);
    log.commit(change(A, T, 7));
    log.push(); // a reconnect: read from the position, which saw none of the three commits
    await settle();
    expect(log.reads.at(-1)!.since).toBe('0');
    expect(lastSeens(got)).toEqual([`${A}:1`, `${A}:5`, `${A}:7`]);
    feed.close();
  });

  it('R74 a read whose snapshot predates the news does not hand out its older state after the news', async () => {
    const log = new LogSource();
    const { feed, got } = await subscribed(log, { watcher: A });
    log.commit(change(A, T, 1));
    let open!: () => void;
    log.gate = new Promise((r) => (open = r));
    log.push(); // a read starts; its snapshot sees commit 1
    await settle();
    log.push(`news:${log.commit(change(A, T, 2))}`); // commit 2's news arrives during that read
    await settle();
    expect(lastSeens(got)).toEqual([`${A}:2`]);
    log.gate = undefined;
    open();
    await settle();
    // The read saw only commit 1 (L=1): older than the news, so not handed out.
    expect(lastSeens(got)).toEqual([`${A}:2`]);
    log.push(); // the next read sees commit 2, which the news gave already
    await settle();
    expect(lastSeens(got)).toEqual([`${A}:2`]);
    feed.close();
  });

  it('R74 R61 while a subscriber waits for its snapshot, news reads instead', async () => {
    const log = new LogSource();
    const { feed, got } = await subscribed(log, { watcher: A });
    let open!: () => void;
    log.gate = new Promise((r) => (open = r));
    const late: NoticeSignal[] = [];
    feed.subscribe((s) => void late.push(s), { watcherSessionKey: A });
    await settle();
    const reads = log.reads.length;
    log.push(`news:${log.commit(change(A, T, 4))}`);
    await settle();
    expect(got).toEqual([]);
    log.gate = undefined;
    open();
    await settle();
    expect(log.reads.length).toBeGreaterThan(reads);
    expect(lastSeens(got)).toEqual([`${A}:4`]);
    expect(lastSeens(late)).toEqual([`${A}:4`]);
    feed.close();
  });

  it('R74 a wake that never came is found by the read that follows news within newsConfirmMs', async () => {
    const log = new LogSource();
    const { feed, got } = await subscribed(log, { watcher: A, newsConfirmMs: 1_000 });
    log.commit(change(A, U, 3)); // its wake is lost
    log.push(`news:${log.commit(change(A, T, 1))}`);
    await settle();
    expect(lastSeens(got)).toEqual([`${A}:1`]);
    const reads = log.reads.length;
    await vi.advanceTimersByTimeAsync(900);
    expect(log.reads.length).toBe(reads);
    await vi.advanceTimersByTimeAsync(200);
    expect(log.reads.length).toBe(reads + 1);
    expect(lastSeens(got)).toEqual([`${A}:1`, `${A}:3`]);
    // Nothing handed out and not yet read: no more confirming reads.
    await vi.advanceTimersByTimeAsync(5_000);
    expect(log.reads.length).toBe(reads + 1);
    feed.close();
  });

  it('R74 news out of order (a broker that reorders; PostgreSQL does not) is put right by the confirming read', async () => {
    const log = new LogSource();
    const { feed, got } = await subscribed(log, { watcher: A, newsConfirmMs: 500 });
    const first = log.commit(change(A, T, 1));
    const second = log.commit(change(A, T, 2));
    log.push(`news:${second}`);
    log.push(`news:${first}`);
    await settle();
    expect(lastSeens(got)).toEqual([`${A}:2`, `${A}:1`]);
    await vi.advanceTimersByTimeAsync(600);
    // The read's state (L=2) differs from what the late news left: handed out again, now right.
    expect(lastSeens(got)).toEqual([`${A}:2`, `${A}:1`, `${A}:2`]);
    feed.close();
  });

  it('R74 a source without wakeNews, or whose check throws, reads on every wake as R73 says', async () => {
    const log = new LogSource();
    const { wakeNews: _w, ...plain } = log.source;
    const feed = createNoticeFeed(plain, { logger: memoryLogger() });
    const got: NoticeSignal[] = [];
    feed.subscribe((s) => void got.push(s), { watcherSessionKey: A });
    await settle();
    let reads = log.reads.length;
    log.push(`news:${log.commit(change(A, T, 1))}`);
    await settle();
    expect(log.reads.length).toBe(reads + 1);
    feed.close();
    const logger = memoryLogger();
    const throwing = createNoticeFeed(
      {
        ...log.source,
        positionCovers: () => {
          throw new Error('no such snapshot');
        },
      },
      { logger },
    );
    throwing.subscribe(() => {}, { watcherSessionKey: A });
    await settle();
    reads = log.reads.length;
    log.push(`news:${log.commit(change(A, T, 2))}`);
    await settle();
    expect(log.reads.length).toBe(reads + 1);
    expect(logger.entries.some((r) => r.message.includes('news a wake carries'))).toBe(true);
    throwing.close();
  });

  it('R74 a source with only one of wakeNews and positionCovers reads on every wake, with nothing to warn about', async () => {
    for (const drop of ['wakeNews', 'positionCovers'] as const) {
      const log = new LogSource();
      const { [drop]: _gone, ...half } = log.source;
      const logger = memoryLogger();
      const feed = createNoticeFeed(half, { logger });
      feed.subscribe(() => {}, { watcherSessionKey: A });
      await settle();
      const reads = log.reads.length;
      log.push(`news:${log.commit(change(A, T, 1))}`);
      await settle();
      expect(log.reads.length, drop).toBe(reads + 1);
      expect(logger.entries, drop).toEqual([]);
      feed.close();
    }
  });

  it('R74 after a failed read, and for news the source does not vouch for, a wake reads without a warning', async () => {
    const log = new LogSource();
    const logger = memoryLogger();
    const feed = createNoticeFeed(log.source, { logger, pollIntervalMs: 3_600_000 });
    feed.subscribe(() => {}, { watcherSessionKey: A });
    await settle();
    const read = log.source.readPending!;
    let fail = true;
    log.source.readPending = (r) => (fail ? ((fail = false), Promise.reject(new Error('connection reset'))) : read(r));
    log.push(); // this read fails: the feed must read again before trusting news
    await settle();
    const reads = log.reads.length;
    log.push(`news:${log.commit(change(A, T, 1))}`);
    await settle();
    expect(log.reads.length).toBe(reads + 1);
    log.push('news:404');
    await settle();
    expect(log.reads.length).toBe(reads + 2);
    expect(logger.entries.filter((e) => e.level === 'warn')).toEqual([]);
    feed.close();
  });

  it('R74 with 10,000 pairs handed out and not yet read, the next wake reads', async () => {
    const log = new LogSource();
    const { feed } = await subscribed(log, { watcher: A });
    const many = Array.from({ length: 10_000 }, (_, i) => change(A, `agent:main:t${i}`, 1));
    log.push(`news:${log.commit(...many)}`);
    await settle();
    const reads = log.reads.length;
    log.push(`news:${log.commit(change(A, T, 2))}`);
    await settle();
    expect(log.reads.length).toBe(reads + 1);
    feed.close();
  });

  it('R74 newsConfirmMs must be an integer from 1 to 3,600,000', () => {
    const log = new LogSource();
    for (const bad of [0, -1, 1.5, 3_600_001, Number.NaN, '10' as unknown as number]) {
      expect(() => createNoticeFeed(log.source, { newsConfirmMs: bad }), String(bad)).toThrow(/newsConfirmMs/);
    }
    expect(() => createNoticeFeed(log.source, { newsConfirmMs: 1 }).close()).not.toThrow();
    expect(() => createNoticeFeed(log.source, { newsConfirmMs: 3_600_000 }).close()).not.toThrow();
  });
});
