/**
 * `session-state-kit inspect`, run as the built CLI against real database files: --json matches
 * what the store itself answers, the tables hold the right rows, and the file is never written,
 * also while a live store holds it open in WAL mode.
 */
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS, type ChangesSinceResponse, type Notice, type WatchCursor } from '../../spec/index.js';
import { SCHEMA_VERSION } from '../../src/sqlite/schema.js';
import { SqliteStore, sqliteHandle } from '../../src/sqlite/sqlite-store.js';
import { silentLogger } from '../../src/shared/logger.js';
import { BUSY, BUSY_EVENTS, CHILD_A, CHILD_B, DAY, MANAGER, OLD, OPS, T0, writeFixture } from './fixture.js';
import { fixtureStats } from './fixture-checks.js';
import { fingerprint, parseTable, runCli, tempDir, useBuiltCli, type Run } from './helpers.js';

const cli = useBuiltCli();
const dir = tempDir('inspect');
const db = join(dir, 'state.db');
let store: SqliteStore;
let now = 0;

const run = (...args: string[]): Promise<Run> => runCli(cli.path(), args);
async function json<T>(...args: string[]): Promise<T> {
  const r = await run(...args, '--json');
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as T;
}

beforeAll(() => {
  const f = writeFixture(db);
  store = f.store;
  now = f.clock.now();
  // Checkpoint once, so the notices test can copy a complete main file; later writes go to the WAL again.
  sqliteHandle(store).pragma('wal_checkpoint(FULL)');
});
// The store stays open for the whole file: every read below runs next to a live writer connection.
afterAll(() => store.close());

describe.concurrent('inspect heads', () => {
  it('--json lists every identity with the stateVersion and pruned watermark the store holds (R5, R33)', async () => {
    const heads = await json<{ sessionKey: string; agentId: string; stateVersion: number; prunedMaxSequence: number; retainedEvents: number; earliestAvailableSequence: number }[]>('inspect', db, 'heads');
    const identities = heads.map((h) => `${h.sessionKey}/${h.agentId}`);
    expect(identities).toEqual([`${BUSY}/main`, `${OLD}/main`, `${CHILD_A}/main`, `${CHILD_B}/main`, 'global/main', 'global/ops']);
    for (const h of heads) {
      expect(h.stateVersion).toBe(store.stateVersion(h.sessionKey, h.agentId));
      const all = store.changesSince({ sessionKey: h.sessionKey, agentId: h.agentId, since: 0 });
      expect(h.earliestAvailableSequence).toBe(all.stateChanges.earliestAvailableSequence);
      expect(h.retainedEvents).toBe(all.stateChanges.events.length);
      expect(h.prunedMaxSequence > 0).toBe(all.stateChanges.historyGap);
    }
    const old = heads.find((h) => h.sessionKey === OLD)!;
    expect(old.prunedMaxSequence).toBe(2);
    expect(old.retainedEvents).toBe(1);
  });

  it('prints an aligned table with one row per identity', async () => {
    const r = await run('inspect', db, 'heads');
    expect(r.code).toBe(0);
    const t = parseTable(r.stdout);
    expect(t.header).toEqual(['SESSION', 'AGENT', 'STATE_VERSION', 'PRUNED_MAX', 'EVENTS', 'EARLIEST', 'UPDATED_AT']);
    const old = t.rows.find((row) => row[0] === OLD);
    expect(old?.slice(0, 6)).toEqual([OLD, 'main', String(store.stateVersion(OLD, 'main')), '2', '1', '3']);
    expect(t.rows.map((row) => row[0])).toEqual([BUSY, OLD, CHILD_A, CHILD_B, 'global', 'global']);
    // Aligned: every line has the AGENT column at the same offset.
    const lines = r.stdout.trimEnd().split('\n');
    const at = lines[0]!.indexOf('AGENT');
    for (const line of lines.slice(1)) expect(line.slice(at, at + 4)).toMatch(/^(main|ops )/);
  });
});

describe.concurrent('inspect changes', () => {
  const cases: { key: string; agent: string; since: number; limit?: number }[] = [
    { key: CHILD_A, agent: 'main', since: 0 },
    { key: CHILD_A, agent: 'main', since: 6 }, // 7 and 8 follow: an off-by-one drops #7
    { key: OLD, agent: 'main', since: 0 }, // historyGap (R33)
    { key: OLD, agent: 'main', since: 2 },
    { key: BUSY, agent: 'main', since: 0, limit: 5 }, // truncated (R31)
    { key: BUSY, agent: 'main', since: 0, limit: 500 }, // clamped (R30)
    { key: 'global', agent: 'ops', since: 0 },
  ];
  for (const c of cases) {
    it(`--json equals the store's changesSince for ${c.key} since ${c.since}${c.limit ? ` limit ${c.limit}` : ''}`, async () => {
      const args = ['inspect', db, 'changes', c.key, '--agent', c.agent, '--since', String(c.since)];
      if (c.limit !== undefined) args.push('--limit', String(c.limit));
      const got = await json<ChangesSinceResponse>(...args);
      const want = store.changesSince({ sessionKey: c.key, agentId: c.agent, since: c.since, ...(c.limit ? { limit: c.limit } : {}) });
      expect(got).toEqual(JSON.parse(JSON.stringify(want)));
    });
  }

  it('shows historyGap and truncation the way the store reports them', async () => {
    expect((await json<ChangesSinceResponse>('inspect', db, 'changes', OLD, '--since', '0')).stateChanges.historyGap).toBe(true);
    const page = await json<ChangesSinceResponse>('inspect', db, 'changes', BUSY, '--limit', '5');
    expect(page.stateChanges.truncated).toBe(true);
    expect(page.stateChanges.events.map((e) => e.summary)).toEqual(['compacted 0', 'compacted 1', 'compacted 2', 'compacted 3', 'compacted 4']);
    expect((await json<ChangesSinceResponse>('inspect', db, 'changes', BUSY)).stateChanges.events).toHaveLength(Math.min(BUSY_EVENTS, LIMITS.maxChangesPerRead));
  });

  it('takes the agent from an agent-scoped key, or from the only agent using a bare key', async () => {
    const scoped = await json<ChangesSinceResponse>('inspect', db, 'changes', CHILD_A);
    expect(scoped.stateVersion).toBe(store.stateVersion(CHILD_A, 'main'));
    const r = await run('inspect', db, 'changes', 'global');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('several agents (main, ops)');
  });

  it('prints the event table with a header line of the response facts', async () => {
    const r = await run('inspect', db, 'changes', CHILD_A, '--since', '0');
    expect(r.code).toBe(0);
    const [facts, gapLine, blank, ...table] = r.stdout.split('\n');
    const version = store.stateVersion(CHILD_A, 'main');
    expect(facts).toBe(`session ${CHILD_A} (agent main): stateVersion ${version}, changes since 0`);
    expect(gapLine).toMatch(/^historyGap false, truncated false, earliestAvailableSequence \d+$/);
    expect(blank).toBe('');
    const t = parseTable(table.join('\n'));
    expect(t.header).toEqual(['SEQ', 'KIND', 'ACTOR', 'ACTOR_ID', 'OCCURRED_AT', 'SUMMARY', 'PAYLOAD']);
    const events = store.changesSince({ sessionKey: CHILD_A, agentId: 'main', since: 0 }).stateChanges.events;
    expect(t.rows.map((row) => Number(row[0]))).toEqual(events.map((e) => e.sequence));
    expect(t.rows.map((row) => row[1])).toEqual(['child_spawned', 'human_direct_message', 'goal_changed']);
    expect(t.rows[0]).toContain(MANAGER);
    expect(t.rows[2]?.at(-1)).toBe('{"action":"updated"}');
  });
});

describe.concurrent('inspect cursors', () => {
  it('--json holds exactly the store\'s cursors, each with pending = N > L (R20)', async () => {
    const cursors = await json<(WatchCursor & { pending: boolean })[]>('inspect', db, 'cursors');
    expect(cursors.map((c) => `${c.watcherSessionKey}>${c.targetSessionKey}/${c.targetAgentId}`)).toEqual([
      `${MANAGER}>${CHILD_A}/main`,
      `${MANAGER}>${CHILD_B}/main`,
      `${OPS}>global/ops`,
    ]);
    for (const c of cursors) {
      const { pending, ...cursor } = c;
      expect(cursor).toEqual(store.cursor(c.watcherSessionKey, c.targetSessionKey, c.targetAgentId));
      expect(pending).toBe(c.notifiedSequence > c.lastSeenSequence);
    }
    expect(cursors.map((c) => c.pending)).toEqual([true, false, true]);
    expect(cursors.map((c) => c.provenance)).toEqual(['spawn', 'spawn', 'explicit']);
  });

  it('filters by watcher and by target, in a table', async () => {
    const byWatcher = parseTable((await run('inspect', db, 'cursors', '--watcher', MANAGER)).stdout);
    expect(byWatcher.header).toEqual(['WATCHER', 'TARGET', 'AGENT', 'LAST_SEEN', 'NOTIFIED', 'MATERIAL', 'PENDING', 'PROVENANCE', 'UPDATED_AT']);
    const a = store.cursor(MANAGER, CHILD_A, 'main')!;
    expect(byWatcher.rows.map((r) => r.slice(0, 8))).toEqual([
      [MANAGER, CHILD_A, 'main', String(a.lastSeenSequence), String(a.notifiedSequence), String(a.materialSequence), 'yes', 'spawn'],
      expect.arrayContaining([MANAGER, CHILD_B, 'no']),
    ]);
    const byTarget = parseTable((await run('inspect', db, 'cursors', '--target', 'global')).stdout);
    expect(byTarget.rows.map((r) => r[0])).toEqual([OPS]);
    expect(byTarget.rows[0]?.[8]).toBe(new Date(store.cursor(OPS, 'global', 'ops')!.updatedAt).toISOString().replace('.000Z', 'Z'));
  });
});

describe.concurrent('inspect notices', () => {
  it('R26 lists exactly the notices a store opened on the file has pending, with their text (R23)', async () => {
    // The oracle: a second store opened on a copy of the file (R29: opening changes no cursor).
    const copy = join(dir, 'restart-copy.db');
    copyFileSync(db, copy);
    const restarted = new SqliteStore({ path: copy, now: () => now, logger: silentLogger });
    try {
      for (const watcher of [MANAGER, OPS]) {
        const got = await json<Notice[]>('inspect', db, 'notices', watcher);
        expect(got.length).toBeGreaterThan(0);
        expect(got).toEqual(restarted.pendingNotices(watcher));
      }
    } finally {
      restarted.close();
    }
  });

  it('prints the exact notice lines after a table of their targets', async () => {
    const r = await run('inspect', db, 'notices', MANAGER);
    expect(r.code).toBe(0);
    const a = store.cursor(MANAGER, CHILD_A, 'main')!;
    const line = `Session "${CHILD_A}" changed (other actor). Reconcile before acting: session_status sessionKey "${CHILD_A}" changesSince ${a.lastSeenSequence}.`;
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toBe(line);
    expect(lines.filter((l) => l.startsWith('Session "'))).toEqual([line]); // the settled pair on B is not there
    expect(parseTable(lines.slice(0, 2).join('\n')).rows[0]?.slice(0, 4)).toEqual([CHILD_A, 'main', String(a.lastSeenSequence), 'immediate']);
  });

  it('says so when a known watcher has nothing pending', async () => {
    const r = await run('inspect', db, 'notices', CHILD_B);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`(no pending notices for ${CHILD_B})\n`);
  });
});

describe.concurrent('inspect stats', () => {
  it('--json counts what is in the file', async () => {
    const s = await json<Record<string, unknown>>('inspect', db, 'stats', '--now', String(now + DAY));
    const handle = sqliteHandle(store);
    const count = (sql: string) => Number((handle.prepare(sql).raw().get() as unknown[])[0]);
    const rows = count('SELECT count(*) FROM session_state_events');
    // The printed JSON says what the read model says (fixture-checks.ts), the oldest retained event
    // being OLD's third one, recorded 31 days after T0.
    expect(s).toMatchObject({
      schemaVersion: SCHEMA_VERSION,
      highestSequence: count("SELECT seq FROM sqlite_sequence WHERE name = 'session_state_events'"),
      ...fixtureStats(now, rows),
    });
    expect(s.fileBytes).toBe(fingerprint(db).size);
  });

  it('honours --max-rows and --retention-days, and prints a two-column table', async () => {
    const s = await json<{ rows: number; rowsUntilCap: number; eventsPastRetention: number; cursorsPastRetention: number }>(
      'inspect', db, 'stats', '--max-rows', '10', '--retention-days', '1', '--now', String(now + 2 * DAY),
    );
    expect(s.rowsUntilCap).toBe(0);
    expect(s.eventsPastRetention).toBe(s.rows);
    expect(s.cursorsPastRetention).toBe(3);
    const t = parseTable((await run('inspect', db, 'stats', '--now', new Date(now + DAY).toISOString())).stdout);
    expect(t.header).toEqual(['FIELD', 'VALUE']);
    const field = (name: string) => t.rows.find((r) => r[0] === name)?.[1];
    expect(field('pending pairs')).toBe('2');
    expect(field('sessions')).toBe('6');
    expect(field('oldest event')).toBe(`#3 at ${new Date(T0 + 31 * DAY).toISOString().replace('.000Z', 'Z')}, 1d 0h old`.replace(' 0h', ''));
  });
});

describe('inspect never writes', () => {
  it('leaves the file\'s bytes and mtime unchanged, closed or held open by a writer', async () => {
    const file = join(dir, 'untouched.db');
    const f = writeFixture(file);
    f.store.close(); // a clean close checkpoints: everything is in the main file
    const before = fingerprint(file);
    const all = [
      ['heads'], ['changes', CHILD_A], ['changes', OLD, '--since', '0'], ['cursors'], ['cursors', '--watcher', MANAGER],
      ['notices', MANAGER], ['stats'],
    ];
    const runs = await Promise.all(all.flatMap((args) => [[], ['--json']].map((extra) => run('inspect', file, ...args, ...extra))));
    expect(runs.map((r) => r.code)).toEqual(runs.map(() => 0));
    expect(fingerprint(file)).toEqual(before);
    // SQLite may create the WAL side files a reader needs for locking; it never puts a frame in them.
    if (existsSync(`${file}-wal`)) expect(fingerprint(`${file}-wal`).size).toBe(0);
  });

  it('reads a live store\'s committed WAL content and leaves both files as they were', async () => {
    // `store` (this process) has written since its open: those commits live in the WAL.
    const handle = sqliteHandle(store);
    expect(String(handle.pragma('journal_mode', { simple: true }))).toBe('wal');
    store.record({ sessionKey: CHILD_B, agentId: 'main', kind: 'goal_changed', actorType: 'human', summary: 'goal updated' });
    const version = store.stateVersion(CHILD_B, 'main');
    const main = fingerprint(db);
    const wal = fingerprint(`${db}-wal`);
    expect(wal.size).toBeGreaterThan(0);
    expect((await json<ChangesSinceResponse>('inspect', db, 'changes', CHILD_B)).stateVersion).toBe(version);
    expect((await json<Notice[]>('inspect', db, 'notices', MANAGER)).map((n) => n.targetSessionKey)).toEqual([CHILD_A, CHILD_B]);
    expect(fingerprint(db)).toEqual(main);
    expect(fingerprint(`${db}-wal`)).toEqual(wal);
  });

  it('is not blocked by a writer holding an open write transaction, and does not see its uncommitted rows', async () => {
    const handle = sqliteHandle(store);
    const version = store.stateVersion(CHILD_B, 'main');
    handle.exec('BEGIN IMMEDIATE');
    try {
      handle.prepare('UPDATE session_state_heads SET last_sequence = 999999 WHERE session_key = ?').run(CHILD_B);
      const started = Date.now();
      const heads = await json<{ sessionKey: string; stateVersion: number }[]>('inspect', db, 'heads');
      expect(heads.find((h) => h.sessionKey === CHILD_B)?.stateVersion).toBe(version);
      // Well under the 5 s busy timeout: WAL readers never wait for the writer.
      expect(Date.now() - started).toBeLessThan(4000);
    } finally {
      handle.exec('ROLLBACK');
    }
  });
});
