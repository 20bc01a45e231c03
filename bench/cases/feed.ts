/**
 * feed: the change feed's work after one commit (read + diff + signal, R68), at 1k to 1M pending
 * pairs (W watchers × 10 targets, every pair pending), against a keyed one-row SELECT of the
 * changed cursor on the same file. And the old path at the same sizes: the full `listPending()`
 * diffed against the previous read (what the feed did before R68), for the contrast.
 *
 * Each timed call is one commit's news reaching a listener: untimed before it, a second handle on
 * the same file (another connection, as another process would be) acks one pending pair and
 * records an event on its target, so that pair is pending again with a new L; the timed part is
 * the feed's whole answer to a wake-up (its change token, its read, the grouping per watcher, the
 * signal to that watcher's subscriber), awaited until the subscriber has the pair. The feed is the
 * real `createNoticeFeed` over the store's own `readPending` (or, for the old path, over a source
 * that offers only `listPending`, which the feed diffs itself); the wake-up is the feed's
 * onLocalChange listener, called by the harness instead of a commit of its own handle, so no
 * commit is timed and the poll (an hour) and the file watch (off) never fire on their own. The
 * baseline runs after the same commit, so both sides find their page cache reset by it.
 */
import Database from 'better-sqlite3';
import { createNoticeFeed, type NoticeFeed, type NoticeSignal } from '../../src/feed/index.js';
import type { PendingSource } from '../../spec/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import type { SqliteStore } from '../../src/sqlite/sqlite-store.js';
import { migrate, TABLES } from '../../src/sqlite/schema.js';
import { AGENT, CURSORS, T0, appendInput, assertSamePragmas, countRows, openAdapter, openRaw, type Workspace } from '../lib/fixtures.js';
import { measureInterleavedAsync, type AsyncTaskSpec, type CountBudget } from '../lib/measure.js';
import { makeResult, type CaseResult } from '../lib/report.js';
import { shortCount } from '../plan.js';
import type { BenchGroup, CaseContext } from './context.js';

/** Targets per watcher in every feed fixture: W watchers × 10 targets. */
export const TARGETS_PER_WATCHER = 10;
/** Watchers whose pairs the commits rotate over, spread over the file; each has a subscriber. */
const SUBSCRIBED_WATCHERS = 64;
/** Event sequences start above this, so a re-opened pair's N is above the fixture's L and N. */
const FIRST_SEQUENCE = 1_000;

const SIZES: Record<CaseContext['mode'], number[]> = {
  full: [1_000, 10_000, 100_000, 1_000_000],
  // 1k and 100k: two orders of magnitude are enough to tell flat from linear (the old path is 100x apart).
  smoke: [1_000, 100_000],
};

const BUDGET: Record<CaseContext['mode'], CountBudget> = {
  full: { rounds: 5, iterations: 100, warmupIterations: 20 },
  smoke: { rounds: 3, iterations: 40, warmupIterations: 10 },
};

/**
 * The old path reads everything: fewer calls as it grows (full mode only). At 1M pairs one call
 * took 39 s (2026-12-04), so it runs in two rounds only, without warm-up.
 */
function oldPathPlan(pairs: number): Pick<AsyncTaskSpec, 'iterations' | 'rounds'> {
  if (pairs <= 1_000) return { iterations: 20 };
  if (pairs <= 10_000) return { iterations: 6 };
  if (pairs <= 100_000) return { iterations: 2 };
  return { iterations: 1, rounds: 2 };
}

export const watcherKey = (w: number) => `agent:main:w${w}`;
export const targetKey = (i: number) => `agent:main:t${i}`;

/**
 * Writes `pairs` pending cursors straight into the adapter's schema (made by its own migrate):
 * pair i (1-based) is watcher w((i-1)/10) on target t<i>, with L = 1, N = M = 2, each tagged with
 * its own change sequence i (as if each had become pending in a commit of its own), the feed's
 * counter row at `pairs`, and the events' AUTOINCREMENT started above FIRST_SEQUENCE.
 */
export function buildFeedFile(path: string, pairs: number): void {
  const db = new Database(path);
  try {
    migrate(db, path);
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -262144');
    db.transaction(() => {
      // The CTE's anchor row would insert one pair even for none.
      if (pairs > 0) db.prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) ` +
          `INSERT INTO ${CURSORS} (watcher_session_key, target_session_key, target_agent_id, last_seen, notified, material, provenance, updated_at, folded, changed) ` +
          `SELECT 'agent:main:w' || ((i - 1) / ${TARGETS_PER_WATCHER}), 'agent:main:t' || i, '${AGENT}', 1, 2, 2, 'explicit', ?, 0, i FROM n`,
      ).run(pairs, T0);
      db.prepare(`UPDATE ${TABLES.feed.name} SET change_sequence = ? WHERE id = 1`).run(pairs);
      db.prepare("INSERT OR REPLACE INTO sqlite_sequence (name, seq) VALUES (?, ?)").run(TABLES.events.name, FIRST_SEQUENCE);
    }).immediate();
    db.pragma('journal_mode = WAL');
  } finally {
    db.close();
  }
}

/** The pairs the commits re-open, in turn: `subscribed` watchers spread evenly over the file, each of their targets. */
export function rotation(pairs: number, subscribed: number = SUBSCRIBED_WATCHERS): { watcher: string; target: string }[] {
  const watchers = pairs / TARGETS_PER_WATCHER;
  const k = Math.min(subscribed, watchers);
  const picked = Array.from({ length: k }, (_, m) => Math.floor((m * watchers) / k));
  const out: { watcher: string; target: string }[] = [];
  for (let t = 0; t < TARGETS_PER_WATCHER; t++) for (const w of picked) out.push({ watcher: watcherKey(w), target: targetKey(w * TARGETS_PER_WATCHER + t + 1) });
  return out;
}

/** One commit's news for `watcher`: ack its pending pair on `target`, then record on the target (two commits by `writer`). */
export function reopen(writer: SqliteStore, watcher: string, target: string): void {
  const notice = writer.pendingNotices(watcher).find((n) => n.targetSessionKey === target);
  if (!notice) throw new Error(`no pending notice of ${watcher} on ${target}`);
  if (writer.ackNotices(watcher, [notice]).length !== 1) throw new Error('ack acked nothing');
  if (writer.record(appendInput(target)) === undefined) throw new Error('record stored nothing');
}

/**
 * A feed over `source` with a subscriber per watcher in `watchers`, woken only by the harness
 * (`wake`); `next(target)` resolves when a signal carrying that target arrived.
 */
export async function harnessFeed(
  store: SqliteStore,
  kind: 'changes' | 'listing',
  watchers: readonly string[],
): Promise<{ feed: NoticeFeed; wake: () => void; next: (target: string) => Promise<void>; logs: () => number; signals: () => number }> {
  let wakeUp: (() => void) | undefined;
  const source: PendingSource = {
    ...(kind === 'changes' ? { readPending: (r) => store.readPending(r) } : { listPending: () => store.listPending() }),
    changeToken: () => store.changeToken(),
    onLocalChange: (listener) => {
      wakeUp = listener;
      return () => (wakeUp = undefined);
    },
  };
  const logger = memoryLogger();
  const feed = createNoticeFeed(source, { pollIntervalMs: 3_600_000, watchFiles: false, logger });
  let waitingFor: string | undefined;
  let resolveWait: (() => void) | undefined;
  let signals = 0;
  let served = 0;
  let allServed: (() => void) | undefined;
  const onSignal = (s: NoticeSignal) => {
    signals++;
    if (waitingFor !== undefined && s.changed.some((p) => p.targetSessionKey === waitingFor)) {
      waitingFor = undefined;
      resolveWait?.();
    }
  };
  const servedAll = new Promise<void>((r) => (allServed = r));
  for (const w of watchers) {
    let first = true;
    feed.subscribe(
      (s) => {
        if (first) {
          first = false;
          if (++served === watchers.length) allServed?.();
        }
        onSignal(s);
      },
      { watcherSessionKey: w },
    );
  }
  // Every subscribed watcher has pending pairs, so each gets its first signal from the snapshot (R61).
  await withTimeout(servedAll, 600_000, 'the feed never served its subscribers their snapshot');
  return {
    feed,
    wake: () => {
      if (!wakeUp) throw new Error('the feed is not listening');
      wakeUp();
    },
    next: (target) =>
      new Promise<void>((resolve) => {
        waitingFor = target;
        resolveWait = resolve;
      }),
    logs: () => logger.entries.length,
    signals: () => signals,
  };
}

/** A hang (no signal ever) fails the case instead of stalling the run; one timer per wait, not per call. */
async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(what)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** One watchdog for a whole measurement: fails a wait that takes longer than `ms`. */
export function watchdog(ms: number) {
  let since: number | undefined;
  let reject: ((e: Error) => void) | undefined;
  const timer = setInterval(() => {
    if (since !== undefined && performance.now() - since > ms) reject?.(new Error(`no signal within ${ms} ms`));
  }, 1000);
  return {
    /** `p` raced against the watchdog; the race costs one promise, no timer. */
    guard<T>(p: Promise<T>): Promise<T> {
      since = performance.now();
      return Promise.race([p, new Promise<never>((_, r) => (reject = r))]).finally(() => (since = undefined));
    },
    stop: () => clearInterval(timer),
  };
}

export const feedGroup: BenchGroup = {
  group: 'feed',
  async run(ctx: CaseContext): Promise<CaseResult[]> {
    const results: CaseResult[] = [];
    const smallest = SIZES[ctx.mode][0]!;
    for (const pairs of SIZES[ctx.mode]) results.push(...(await measureSize(ctx, ctx.ws, pairs, smallest)));
    return results;
  },
};

async function measureSize(ctx: CaseContext, ws: Workspace, pairs: number, smallest: number): Promise<CaseResult[]> {
  const s = shortCount(pairs);
  const path = ws.file(`feed-${s}`);
  ctx.progress(`feed ${s}: bulk-loading ${s} pending pairs`);
  buildFeedFile(path, pairs);
  const writer = openAdapter(path);
  const reader = openAdapter(path);
  const oldReader = ctx.mode === 'full' ? openAdapter(path) : undefined;
  const raw = openRaw(path);
  const dog = watchdog(600_000);
  const feeds: NoticeFeed[] = [];
  try {
    assertSamePragmas(reader, raw);
    if (countRows(raw, CURSORS) !== pairs) throw new Error('cursor load failed');
    const turn = rotation(pairs);
    const watchers = [...new Set(turn.map((p) => p.watcher))];
    ctx.progress(`feed ${s}: subscribing ${watchers.length} watchers`);
    const fresh = await harnessFeed(reader, 'changes', watchers);
    feeds.push(fresh.feed);
    const old = oldReader ? await harnessFeed(oldReader, 'listing', watchers) : undefined;
    if (old) feeds.push(old.feed);
    const keyed = raw.prepare(`SELECT last_seen, notified, provenance FROM ${CURSORS} WHERE watcher_session_key = ? AND target_session_key = ? AND target_agent_id = ?`);

    let n = 0;
    let pair = turn[0]!;
    const commit = () => {
      pair = turn[n++ % turn.length]!;
      reopen(writer, pair.watcher, pair.target);
    };
    let row: { last_seen: number; notified: number } | undefined;
    const viaFeed = (h: Awaited<ReturnType<typeof harnessFeed>>) => async () => {
      const got = h.next(pair.target);
      h.wake();
      await dog.guard(got);
    };
    // Catch-up before each round: the other tasks' commits are this feed's news too; read them untimed.
    const catchUp = (h: Awaited<ReturnType<typeof harnessFeed>>) => async () => {
      commit();
      const got = h.next(pair.target);
      h.wake();
      await dog.guard(got);
    };
    const tasks: AsyncTaskSpec[] = [
      { name: 'feed', beforeEach: commit, fn: viaFeed(fresh), beforeRound: catchUp(fresh) },
      {
        name: 'keyed',
        beforeEach: commit,
        fn: () => {
          row = keyed.get(pair.watcher, pair.target, AGENT) as typeof row;
        },
        afterEach: () => {
          if (!row || !(row.notified > row.last_seen)) throw new Error('keyed read: the re-opened pair is not pending');
        },
      },
    ];
    // No catch-up for the old path: it reads everything whatever it missed, and each read is seconds at 1M.
    if (old) tasks.push({ name: 'old', beforeEach: commit, fn: viaFeed(old), ...oldPathPlan(pairs) });
    const got = await measureInterleavedAsync(tasks, BUDGET[ctx.mode], (m) => ctx.progress(`feed ${s}: ${m}`));
    if (fresh.logs() > 0 || (old?.logs() ?? 0) > 0) throw new Error('a feed logged a failure during the benchmark');

    const size = `${s} pending pairs (${shortCount(pairs / TARGETS_PER_WATCHER)} watchers × ${TARGETS_PER_WATCHER})`;
    const common = { group: 'feed', size, unit: 'commit', unitsPerOp: 1 };
    const out: CaseResult[] = [
      makeResult({ ...common, id: `feed/keyed-read@${s}`, label: 'raw keyed one-row SELECT of the changed cursor (baseline)', latency: got.get('keyed')! }),
      makeResult({ ...common, id: `feed/sqlite@${s}`, label: 'readPending(since) + news per watcher + signal', latency: got.get('feed')!, baselineId: `feed/keyed-read@${s}` }),
    ];
    if (pairs !== smallest) {
      out.push(makeResult({ ...common, id: `feed/sqlite-flat@${s}`, label: 'the same, against itself at the smallest size', latency: got.get('feed')!, baselineId: `feed/sqlite@${shortCount(smallest)}` }));
    }
    if (old) {
      out.push(
        makeResult({ ...common, id: `feed/old-listing@${s}`, label: 'old path: listPending() + full diff + signal', latency: got.get('old')!, baselineId: `feed/keyed-read@${s}` }),
        makeResult({ ...common, id: `feed/old-vs-feed@${s}`, label: 'old path against the feed', latency: got.get('old')!, baselineId: `feed/sqlite@${s}` }),
      );
    }
    return out;
  } finally {
    dog.stop();
    for (const f of feeds) f.close();
    writer.close();
    reader.close();
    oldReader?.close();
    raw.close();
    ws.remove(path);
  }
}
