/**
 * R9, R18, R35 with real storage failures, no mocks: a read-only file, a write lock held by another
 * connection and by another process, a full disk (max_page_count), and tables another connection
 * dropped. Writes log and return undefined / false / [], reads log and degrade, nothing is enqueued
 * for a write that did not commit, and bad input still throws.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isValidationError } from '../../src/core/index.js';
import { A, CHILD, COORD, DAY, PARENT, PEER, T0, human, spawn as spawnEvent } from '../contract/harness.js';
import { bundleFixture, bundleFixtureForAnyUser } from './bundle.js';
import { connect, openStore, scalar, tempDir } from './helpers.js';

const dir = tempDir('fail');
let fileNo = 0;
const freshPath = () => join(dir, `f${fileNo++}.db`);
const codes = (entries: { message: string; details?: Record<string, unknown> }[]) => entries.map((e) => [e.message.replace('sqlite store: ', ''), e.details?.['code']]);

function expectValidation(fn: () => unknown): void {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(isValidationError(thrown), String(thrown)).toBe(true);
}

// Children run on this same runtime (process.execPath) and inherit SSK_SQLITE_DRIVER, so they use the test driver.
let readonlyChild: string;
let readonlyChildDir: string;
let writerChild: string;
let lockHolder: string;
beforeAll(async () => {
  // The read-only child runs as another user: its bundle and driver live outside the checkout.
  let ro: { file: string; dir: string };
  [ro, writerChild, lockHolder] = await Promise.all([bundleFixtureForAnyUser('readonly-child'), bundleFixture('writer-child'), bundleFixture('lock-holder')]);
  [readonlyChild, readonlyChildDir] = [ro.file, ro.dir];
});
afterAll(() => {
  for (const f of [writerChild, lockHolder]) rmSync(f, { force: true });
  rmSync(readonlyChildDir, { recursive: true, force: true });
});

describe('sqlite failures: the read-only child runs anywhere', () => {
  it('R9: the child as another user needs no permission above the checkout (bundle and driver in a 0755 temp dir)', () => {
    const checkout = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
    expect(readonlyChild.startsWith(checkout + sep)).toBe(false);
    // Every directory from / down to the bundle lets others traverse it.
    let d = dirname(readonlyChild);
    for (;;) {
      expect(statSync(d).mode & 0o001, `${d} is not traversable by others`).toBe(0o001);
      const up = dirname(d);
      if (up === d) break;
      d = up;
    }
  });
});

describe('sqlite failures: read-only file', () => {
  const roDir = mkdtempSync(join(tmpdir(), 'ssk-ro-'));
  afterAll(() => rmSync(roDir, { recursive: true, force: true }));

  it('reads work, pending notices included; record, watch and drain log SQLITE_READONLY and write nothing', () => {
    const path = join(roDir, 'state.db');
    const { store } = openStore({ path });
    store.record(spawnEvent());
    store.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A });
    const e = store.record(human())!;
    store.close();
    const before = readFileSync(path);
    // The file may be read, not written. As root, permissions do not bind us, so the child runs as
    // "nobody"; the directory is world-writable so SQLite can create its -shm for reading.
    chmodSync(path, 0o444);
    chmodSync(roDir, 0o777);
    const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    const r = spawnSync(process.execPath, [readonlyChild, path, String(T0 + 1000)], { encoding: 'utf8', ...asNobody });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out).toEqual({
      // R20, R29: opening writes nothing (nothing to prune) and the pending notice is read from the
      // file; the drain cannot ack on a read-only file, so it stays pending (R9 table).
      pendingAtOpen: [1],
      stateVersion: e.sequence,
      changes: [1, e.sequence],
      record: null,
      watch: { watched: false },
      drained: [],
      pendingAfterDrain: [1],
      stateVersionAfter: e.sequence,
      logs: [
        { message: 'sqlite store: record failed', code: 'SQLITE_READONLY' },
        { message: 'sqlite store: watch failed', code: 'SQLITE_READONLY' },
        { message: 'sqlite store: drainNotices failed', code: 'SQLITE_READONLY' },
      ],
    });
    expect(readFileSync(path).equals(before)).toBe(true);
  });
});

describe('sqlite failures: locks', () => {
  it('R29 opening a file while another connection holds the write lock changes no cursor and loses no notice', () => {
    const path = freshPath();
    const first = openStore({ path });
    first.store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A });
    const a = first.store.record(human(PEER))!;
    const b = first.store.record(human(PEER))!;
    first.store.close();

    const other = connect(path);
    other.exec('BEGIN IMMEDIATE');
    const { store, logger } = openStore({ path, busyTimeoutMs: 30 });
    expect(store.pendingNotices(COORD).map((n) => n.lastSeenSequence)).toEqual([0]);
    expect(store.drainNotices(COORD)).toEqual([]); // cannot ack under the lock: stays pending (R9)
    expect(codes(logger.entries)).toEqual([['drainNotices failed', 'SQLITE_BUSY']]); // opening itself wrote nothing
    other.exec('ROLLBACK');
    other.close();

    // N stayed frozen at a, so the ack owes exactly one follow-up for b (R28), as without a reopen.
    expect(store.drainNotices(COORD).map((n) => n.lastSeenSequence)).toEqual([0]);
    expect(store.drainNotices(COORD).map((n) => n.lastSeenSequence)).toEqual([a.sequence]);
    expect(store.drainNotices(COORD)).toEqual([]);
    expect(b.sequence).toBeGreaterThan(a.sequence);
    store.close();
  });

  it('isWatched answers from cursors and throws (never false) when it cannot read', () => {
    const path = freshPath();
    const { store } = openStore({ path });
    expect(store.isWatched(PEER, A)).toBe(false);
    store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A });
    expect(store.isWatched(PEER, A)).toBe(true);
    const other = connect(path);
    other.exec('DROP TABLE session_watch_cursors');
    other.close();
    expect(() => store.isWatched(PEER, A)).toThrow();
    store.close();
  });

  it('R35 a payload that does not parse is dropped from that one event, logged, and the page still reads', () => {
    const path = freshPath();
    const { store, logger } = openStore({ path });
    const a = store.record({ sessionKey: CHILD, agentId: A, kind: 'run_failed', actorType: 'system', summary: 'child run failed', payload: { outcome: 'error' } })!;
    const b = store.record(human())!;
    const other = connect(path);
    other.prepare('UPDATE session_state_events SET payload_json = ? WHERE sequence = ?').run('{torn', a.sequence);
    other.close();
    const page = store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 }).stateChanges.events;
    expect(page.map((e) => [e.sequence, e.payload])).toEqual([[a.sequence, undefined], [b.sequence, undefined]]);
    expect(logger.entries.map((e) => [e.message, e.details?.['sequence']])).toContainEqual(['sqlite store: dropped an unreadable payload', a.sequence]);
    store.close();
  });

  it('a write lock held by another connection: writes log SQLITE_BUSY and change nothing; reads still work', () => {
    const path = freshPath();
    const { store, logger, clock } = openStore({ path, busyTimeoutMs: 30, retentionMs: DAY });
    store.record(spawnEvent());
    const e = store.record(human())!;
    const pending = store.pendingNotices(PARENT);
    expect(pending).toHaveLength(1);

    const other = connect(path);
    other.exec('BEGIN IMMEDIATE');
    expect(store.record(human(CHILD, { watchers: [COORD] }))).toBeUndefined();
    expect(store.pendingNotices(COORD)).toEqual([]); // R18: nothing enqueued for the failed write
    expect(store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A })).toEqual({ watched: false });
    expect(store.drainNotices(PARENT)).toEqual([]);
    expect(store.ackNotices(PARENT, pending)).toEqual([]);
    expect(store.unwatch({ watcherSessionKey: PARENT, targetSessionKey: CHILD, agentId: A })).toEqual({ unwatched: false });
    expect(store.pendingNotices(PARENT)).toEqual(pending); // not acked, so still pending: nothing lost
    store.resetSession(PARENT);
    expect(store.pendingNotices(PARENT)).toEqual(pending);
    store.deleteSession(CHILD, A);
    clock.advance(2 * DAY);
    store.prune();
    // WAL: readers are not blocked by a writer.
    expect(store.stateVersion(CHILD, A)).toBe(e.sequence);
    expect(store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 }).stateChanges.events).toHaveLength(2);
    // R9: bad input still throws, storage trouble or not.
    expectValidation(() => store.record(human(CHILD, { summary: 'two\nlines' })));
    expect(codes(logger.entries)).toEqual([
      ['record failed', 'SQLITE_BUSY'],
      ['watch failed', 'SQLITE_BUSY'],
      ['drainNotices failed', 'SQLITE_BUSY'],
      ['ackNotices failed', 'SQLITE_BUSY'],
      ['unwatch failed', 'SQLITE_BUSY'],
      ['resetSession failed', 'SQLITE_BUSY'],
      ['deleteSession failed', 'SQLITE_BUSY'],
      ['prune failed', 'SQLITE_BUSY'],
    ]);

    other.exec('ROLLBACK');
    other.close();
    clock.set(T0);
    expect(store.drainNotices(PARENT)).toEqual(pending);
    expect(store.record(human())!.sequence).toBeGreaterThan(e.sequence);
    expect(store.pendingNotices(PARENT)).toHaveLength(1);
    store.close();
  });

  it('a write lock held by another process: record logs and returns undefined, then works once it is released', async () => {
    const path = freshPath();
    const { store, logger } = openStore({ path, busyTimeoutMs: 40 });
    store.record(human());
    const holder = spawn(process.execPath, [lockHolder, path], { stdio: ['pipe', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    expect(store.record(human())).toBeUndefined();
    expect(codes(logger.entries)).toEqual([['record failed', 'SQLITE_BUSY']]);
    holder.stdin.end();
    await new Promise((resolve) => holder.once('exit', resolve));
    expect(store.record(human())?.sequence).toBe(2);
    store.close();
  });

  it('two processes write one file at once: with the default busy timeout every record lands, sequences stay global', async () => {
    const path = freshPath();
    const { store, logger } = openStore({ path });
    const WATCHER = 'agent:main:observer';
    const child = spawn(process.execPath, [writerChild, path, '300', 'agent:main:child-proc', WATCHER], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => (out += d));
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    const mine: number[] = [];
    for (let i = 0; i < 300; i++) mine.push(store.record(human('agent:main:parent-proc', { watchers: [WATCHER] }))!.sequence);
    await new Promise((resolve) => child.once('exit', resolve));
    const theirs = (JSON.parse(out.split('\n')[1]!) as { sequences: (number | null)[]; logs: number }).sequences;
    expect(theirs.every((s) => typeof s === 'number')).toBe(true);
    expect(logger.entries).toEqual([]);
    const all = [...mine, ...(theirs as number[])];
    expect(new Set(all).size).toBe(600);
    expect(mine).toEqual([...mine].sort((a, b) => a - b));
    expect(theirs).toEqual([...(theirs as number[])].sort((a, b) => a - b));
    expect(store.eventCount()).toBe(600);
    expect(store.stateVersion('agent:main:child-proc', A)).toBe(Math.max(...(theirs as number[])));
    // R26: the child's notice is this process's too, at once (durable cursors, no restart needed),
    // and a restart changes nothing (R29).
    const both = store.pendingNotices(WATCHER);
    expect(both.map((n) => n.targetSessionKey)).toEqual(['agent:main:child-proc', 'agent:main:parent-proc']);
    store.restart();
    expect(store.pendingNotices(WATCHER)).toEqual(both);
    store.close();
  });
});

describe('sqlite failures: disk full', () => {
  it('PRAGMA max_page_count: the write that does not fit logs SQLITE_FULL and leaves head, count and queue consistent', () => {
    const path = freshPath();
    const { store, db, logger } = openStore({ path });
    store.record(spawnEvent());
    db.pragma(`max_page_count = ${scalar(db, 'PRAGMA page_count') + 2}`);
    let last: number | undefined;
    let failed = false;
    for (let i = 0; i < 5000 && !failed; i++) {
      const e = store.record(human(CHILD, { watchers: [`agent:main:w${i}`] }));
      if (e === undefined) failed = true;
      else last = e.sequence;
    }
    expect(failed).toBe(true);
    expect(last).toBeGreaterThan(1);
    expect(codes(logger.entries)).toEqual([['record failed', 'SQLITE_FULL']]);
    expect(store.stateVersion(CHILD, A)).toBe(last);
    expect(store.eventCount()).toBe(last); // every committed event, and no row of the failed one
    // Exactly the committed producer watchers were told, the failed one was not.
    const told = scalar(db, 'SELECT count(*) FROM session_watch_cursors WHERE watcher_session_key LIKE ?', 'agent:main:w%');
    expect(told).toBe(last! - 1);
    expect(store.pendingNotices(`agent:main:w${told}`)).toEqual([]);
    expect(store.pendingNotices(`agent:main:w${told - 1}`)).toHaveLength(1);
    db.pragma('max_page_count = 1073741823');
    expect(store.record(human())!.sequence).toBeGreaterThan(last!);
    store.close();
  });
});

describe('sqlite failures: reads', () => {
  it('R35 tables dropped by another connection: reads log and degrade to 0 / empty, writes log and return undefined', () => {
    const path = freshPath();
    const { store, logger } = openStore({ path });
    store.record(human());
    const other = connect(path);
    other.exec('DROP TABLE session_state_heads');
    other.exec('DROP TABLE session_state_events');
    other.close();
    expect(store.stateVersion(CHILD, A)).toBe(0);
    expect(store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 })).toEqual({
      stateVersion: 0,
      stateChanges: { events: [], historyGap: false, truncated: false, earliestAvailableSequence: 0 },
    });
    expect(store.record(human())).toBeUndefined();
    expectValidation(() => store.changesSince({ sessionKey: CHILD, agentId: A, since: -1 }));
    expect(logger.entries.map((e) => e.message)).toEqual([
      'sqlite store: stateVersion failed',
      'sqlite store: changesSince failed',
      'sqlite store: record failed',
    ]);
    for (const e of logger.entries) expect(String(e.details?.['error'])).toMatch(/no such table/);
    store.close();
  });
});
