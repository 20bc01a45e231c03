/**
 * R62 across real OS processes: a child process commits a human turn to a shared SQLite file and
 * the parent's feed (polling PRAGMA data_version) signals the watcher within a bounded number of
 * polls; delivery in the parent acks what it delivered in the durable cursor the child wrote.
 * Bounded by counting polls, not wall-clock, so a loaded machine cannot fail it.
 */
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNoticeFeed, startDelivery, type NoticeSignal, type PendingReadRequest, type PendingSource } from '../../src/feed/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { createSqliteStore, type SqliteStore } from '../../src/sqlite/index.js';
import { bundleEntry } from '../sqlite/bundle.js';
import { TEST_DRIVER } from '../sqlite/helpers.js';

const W = 'agent:main:main';
const ROUNDS = 8;
const POLL_MS = 25;

let dir: string;
let childScript: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ssk-feed-'));
  childScript = await bundleEntry(join(import.meta.dirname, 'fixtures', 'recorder-child.ts'), 'feed-recorder-child');
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(childScript, { force: true });
});

type Reply = { ready?: true; sequence?: number | null; committedAt?: number; logs?: number };

/** A forked child with a request/reply helper over IPC. */
async function startChild(path: string) {
  const proc: ChildProcess = fork(childScript, [path], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { ...process.env, SSK_SQLITE_DRIVER: TEST_DRIVER as string } });
  const replies: Reply[] = [];
  let waiter: (() => void) | undefined;
  proc.on('message', (m: Reply) => {
    replies.push(m);
    waiter?.();
  });
  const next = () =>
    new Promise<Reply>((resolve, reject) => {
      const take = () => {
        const r = replies.shift();
        if (r) {
          waiter = undefined;
          resolve(r);
        } else waiter = take;
      };
      proc.once('exit', (code) => reject(new Error(`child exited (${code})`)));
      take();
    });
  expect(await next()).toEqual({ ready: true });
  return {
    record: async (target: string, watcher?: string) => {
      proc.send(watcher ? { op: 'record', target, watcher } : { op: 'record', target });
      return next();
    },
    stop: () =>
      new Promise<void>((resolve) => {
        proc.once('exit', () => resolve());
        proc.send({ op: 'exit' });
      }),
  };
}

/** Counts the feed's polls, so latency is judged in polls, not milliseconds. */
function counted(store: SqliteStore): PendingSource & { polls: number } {
  const src = {
    polls: 0,
    readPending: (request: PendingReadRequest) => store.readPending(request),
    changeToken: () => {
      src.polls++;
      return store.changeToken();
    },
    onLocalChange: (l: () => void) => store.onLocalChange(l),
  };
  return src;
}

/** Waits (real time, generous) until the condition holds. */
async function waitFor(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

function nextSignal(feed: ReturnType<typeof createNoticeFeed>, watcher: string) {
  const got: NoticeSignal[] = [];
  let resolve!: (s: NoticeSignal) => void;
  const first = new Promise<NoticeSignal>((r) => (resolve = r));
  const off = feed.subscribe(
    (s) => {
      got.push(s);
      resolve(s);
    },
    { watcherSessionKey: watcher },
  );
  return { first, off, got };
}

describe('feed across two processes (SQLite)', () => {
  it('R62: a human turn committed by another process is signalled to the watcher within two polls, every round (and R61 for one raised before subscribing)', async () => {
    const path = join(dir, 'shared.db');
    const logger = memoryLogger();
    const store = createSqliteStore({ path, driver: TEST_DRIVER, now: () => Date.now(), logger });
    const child = await startChild(path);
    try {
      // R61: raised by the child before the parent listens.
      const early = await child.record('agent:main:peer-0', W);
      expect(early.sequence).toBeGreaterThan(0);
      const src = counted(store);
      const feed = createNoticeFeed(src, { pollIntervalMs: POLL_MS, logger });
      const initial = nextSignal(feed, W);
      const s0 = await initial.first;
      expect(s0.changed.map((p) => [p.targetSessionKey, p.lastSeenSequence, p.wake])).toEqual([['agent:main:peer-0', 0, 'immediate']]);
      initial.off();

      // One long-lived subscription: after its initial signal, only polls can signal (this
      // process writes nothing), so the count of polls is the latency.
      const seen: (NoticeSignal & { polls: number })[] = [];
      const live = nextSignal(feed, W);
      await live.first;
      const off = feed.subscribe((s) => void seen.push({ ...s, polls: src.polls }), { watcherSessionKey: W });
      await waitFor(() => seen.length === 1); // its own initial signal
      live.off();
      for (let round = 1; round <= ROUNDS; round++) {
        const target = `agent:main:peer-${round}`;
        const reply = await child.record(target, W);
        // Counted once the commit is known to be done (the signal may even come before the reply).
        const pollsAtCommit = src.polls;
        expect(reply.sequence).toBeGreaterThan(0);
        await waitFor(() => seen.some((s) => s.changed.some((p) => p.targetSessionKey === target)));
        const signal = seen.at(-1)!;
        // The first poll after the commit sees data_version change; allow one more for a poll
        // already in flight when the commit landed.
        expect(signal.polls - pollsAtCommit, `round ${round}: polls between commit and signal`).toBeLessThanOrEqual(2);
        expect(signal.changed.find((p) => p.targetSessionKey === target)).toMatchObject({ watcherSessionKey: W, lastSeenSequence: 0, wake: 'immediate' });
        expect(signal.changed).toHaveLength(1); // R60: the news only; the whole pending set is pendingNotices
      }
      expect(seen).toHaveLength(ROUNDS + 1); // one signal per commit, none repeated
      off();
      expect(store.pendingNotices(W)).toHaveLength(ROUNDS + 1); // read from durable state written by the child
      feed.close();
      expect(logger.entries).toEqual([]);
    } finally {
      await child.stop();
      store.close();
    }
  });

  it('R70: with the poll an hour apart, the -wal file\'s change events alone bring every commit of another process to the watcher', async () => {
    const path = join(dir, 'watched.db');
    const logger = memoryLogger();
    const store = createSqliteStore({ path, driver: TEST_DRIVER, now: () => Date.now(), logger });
    const child = await startChild(path);
    try {
      const feed = createNoticeFeed(store, { pollIntervalMs: 3_600_000, logger });
      const seen: NoticeSignal[] = [];
      const off = feed.subscribe((s) => void seen.push(s), { watcherSessionKey: W });
      await new Promise((r) => setTimeout(r, 50)); // the first read (nothing pending) is done
      for (let round = 0; round < ROUNDS; round++) {
        const target = `agent:main:file-${round}`;
        const reply = await child.record(target, W);
        expect(reply.sequence).toBeGreaterThan(0);
        // No poll can come within the wait (an hour); only the file event reads the commit.
        await waitFor(() => seen.some((s) => s.changed.some((p) => p.targetSessionKey === target)));
      }
      expect(seen.map((s) => s.changed.map((p) => p.targetSessionKey))).toEqual(Array.from({ length: ROUNDS }, (_, i) => [`agent:main:file-${i}`]));
      off();
      feed.close();
      expect(logger.entries).toEqual([]);
    } finally {
      await child.stop();
      store.close();
    }
  });

  it('R70: a store opened through a symlink watches the real file\'s -wal, so the file events still bring another process\'s commits (the poll an hour apart)', async () => {
    // The file lives in a directory of its own; the store opens it through a link elsewhere.
    // SQLite resolves the link and writes the WAL beside the real file, never beside the link.
    const realDir = join(dir, 'real');
    mkdirSync(realDir, { recursive: true });
    const real = join(realDir, 'state.db');
    createSqliteStore({ path: real, driver: TEST_DRIVER, now: () => Date.now(), logger: memoryLogger() }).close();
    const link = join(dir, 'link.db');
    symlinkSync(real, link);
    const logger = memoryLogger();
    const store = createSqliteStore({ path: link, driver: TEST_DRIVER, now: () => Date.now(), logger });
    const child = await startChild(link);
    try {
      // The default file watcher, observed: each event it passes on is counted.
      const events: string[] = [];
      const feed = createNoticeFeed(store, {
        pollIntervalMs: 3_600_000,
        logger,
        watchFiles: (path, onChange) => {
          const w = watch(path, { persistent: false }, (event) => {
            events.push(path);
            onChange(event === 'rename' ? 'rename' : 'change');
          });
          w.on('error', () => w.close());
          return () => w.close();
        },
      });
      const seen: NoticeSignal[] = [];
      const off = feed.subscribe((s) => void seen.push(s), { watcherSessionKey: W });
      await new Promise((r) => setTimeout(r, 50)); // the first read (nothing pending) is done
      for (let round = 0; round < 3; round++) {
        const target = `agent:main:linked-${round}`;
        expect((await child.record(target, W)).sequence).toBeGreaterThan(0);
        // No poll comes within the wait (an hour) and this process writes nothing: only a file event reads the commit.
        await waitFor(() => seen.some((s) => s.changed.some((p) => p.targetSessionKey === target)), 15_000);
      }
      expect(events.length).toBeGreaterThan(0);
      expect(new Set(events)).toEqual(new Set([`${realpathSync(real)}-wal`]));
      expect(store.changeFiles()).toEqual([`${realpathSync(real)}-wal`]);
      off();
      feed.close();
      expect(logger.entries).toEqual([]);
    } finally {
      await child.stop();
      store.close();
    }
  });

  it('R67: delivery in this process acks, in the shared file, exactly what it delivered of the notices another process raised', async () => {
    const path = join(dir, 'deliver.db');
    const logger = memoryLogger();
    const store = createSqliteStore({ path, driver: TEST_DRIVER, now: () => Date.now(), logger });
    const child = await startChild(path);
    try {
      const feed = createNoticeFeed(store, { pollIntervalMs: POLL_MS, logger });
      const delivered: string[] = [];
      // coalesceMs 0: every signal delivers at once, so the test does not wait out 20 s windows
      // (R65 is model-tested with fake time).
      const delivery = startDelivery({
        store,
        feed,
        logger,
        wake: { coalesceMs: 0 },
        deliver: (_w, notices) => void delivered.push(...notices.map((n) => `${n.targetSessionKey}@${n.lastSeenSequence}`)),
      });
      const a = await child.record('agent:main:a', W);
      await child.record('agent:main:b', W);
      await child.record('agent:main:c', W);
      await waitFor(() => delivered.length >= 3);
      await delivery.idle();
      expect([...delivered].sort()).toEqual(['agent:main:a@0', 'agent:main:b@0', 'agent:main:c@0']);
      expect(store.pendingNotices(W)).toEqual([]); // acked in durable state
      // The ack moved L to the frozen N (R27b): the child's next turn on a quotes a's first sequence.
      await child.record('agent:main:a', W);
      await waitFor(() => delivered.length >= 4);
      await delivery.idle();
      expect(delivered[3]).toBe(`agent:main:a@${a.sequence}`);
      expect(store.pendingNotices(W)).toEqual([]);
      delivery.close();
      feed.close();
      expect(logger.entries).toEqual([]);
    } finally {
      await child.stop();
      store.close();
    }
  });
});

describe('feed timers in a real process', () => {
  it('R62: a subscribed feed, its poll timer and a pending delivery retry never keep a process alive', async () => {
    const script = await bundleEntry(join(import.meta.dirname, 'fixtures', 'idle-feed.ts'), 'feed-idle-child');
    try {
      const r = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 30_000 });
      expect(r.signal).toBeNull(); // not killed by the timeout: it exited on its own
      expect(r.status).toBe(0);
      expect(r.stdout).toBe('subscribed\n');
    } finally {
      rmSync(script, { force: true });
    }
  });
});
