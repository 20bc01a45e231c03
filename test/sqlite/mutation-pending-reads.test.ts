/**
 * The SQLite store's feed reads (R68) at their edges, in process: a read asked for some watchers
 * returns those watchers' changes and no one else's, and a position the store did not make is
 * refused before anything is read.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/sqlite/sqlite-store.js';
import { silentLogger } from '../../src/shared/logger.js';
import { T0 } from '../contract/harness.js';
import { tempDir } from './helpers.js';

const dir = tempDir('mut-pending-reads');
let fileNo = 0;

function storeWithTwoWatchers(): SqliteStore {
  const s = new SqliteStore({ path: join(dir, `t${fileNo++}.db`), now: () => T0, logger: silentLogger });
  for (const w of ['agent:main:w1', 'agent:main:w2']) s.watch({ watcherSessionKey: w, targetSessionKey: 'agent:main:peer', agentId: 'main' });
  return s;
}

describe('R68 readPending on SQLite', () => {
  it('changes of the watchers asked for only; every watcher\'s when none are named; none when nothing changed', () => {
    const s = storeWithTwoWatchers();
    try {
      const { position } = s.readPending({});
      s.record({ sessionKey: 'agent:main:peer', agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram' });
      const only = s.readPending({ since: position, watchers: ['agent:main:w2'] });
      expect(only.changes.map((c) => c.watcherSessionKey)).toEqual(['agent:main:w2']);
      expect(s.readPending({ since: position, watchers: ['agent:main:nobody'] }).changes).toEqual([]);
      expect(s.readPending({ since: position }).changes.map((c) => c.watcherSessionKey).sort()).toEqual(['agent:main:w1', 'agent:main:w2']);
      expect(s.readPending({ since: only.position, watchers: ['agent:main:w1'] }).changes).toEqual([]);
      expect(Number(only.position)).toBeGreaterThan(Number(position));
      // The snapshot half: every pending pair, or the named watchers' own.
      expect(s.readPending({ snapshot: ['agent:main:w1'] }).snapshot.map((p) => p.watcherSessionKey)).toEqual(['agent:main:w1']);
      expect(s.readPending({ snapshot: 'all' }).snapshot).toHaveLength(2);
    } finally {
      s.close();
    }
  });

  it.each(['', 'abc', '12a', 'a12', '-1', '1.5', '9007199254740993'])('refuses the position %j with a RangeError that quotes it', (position) => {
    const s = storeWithTwoWatchers();
    try {
      expect(() => s.readPending({ since: position })).toThrow(new RangeError(`readPending: not a position of this store: ${JSON.stringify(position)}`));
    } finally {
      s.close();
    }
  });

  it('T15 pendingWatchersPage refuses a limit below 1 or not an integer, and an `after` that is not a key', () => {
    const s = storeWithTwoWatchers();
    try {
      for (const limit of [0, -1, 1.5, Number.NaN]) expect(() => s.pendingWatchersPage({ limit })).toThrow(new RangeError(`pendingWatchersPage: limit must be a positive integer, got ${String(limit)}`));
      expect(() => s.pendingWatchersPage({ limit: 1, after: 5 as unknown as string })).toThrow(new RangeError('pendingWatchersPage: after must be a watcher key'));
      expect(s.pendingWatchersPage({ limit: 1 })).toEqual([]);
    } finally {
      s.close();
    }
  });

  it('a change sequence past 2^53 - 1 (a file no store wrote) is an error naming its column, never a position rounded to another', () => {
    const path = join(dir, `t${fileNo++}.db`);
    const s = new SqliteStore({ path, now: () => T0, logger: silentLogger });
    const other = new Database(path);
    try {
      other.prepare('UPDATE session_state_feed SET change_sequence = ?').run(9007199254740993n);
      expect(() => s.readPending({})).toThrow(/session_state_feed\.change_sequence/);
    } finally {
      other.close();
      s.close();
    }
  });
});
