import { describe, expect, it } from 'vitest';
import type { RecordInput } from '../../spec/index.js';
import { createMemoryStore, type MemoryStore } from '../../src/memory/index.js';
import { PENDING_READS_SQL } from '../../src/sqlite/pending-reads.js';
import { MIGRATIONS } from '../../src/sqlite/schema.js';
import { SQL } from '../../src/sqlite/sql.js';
import type { SqliteStore } from '../../src/sqlite/sqlite-store.js';
import { createSessionTools } from '../../src/tools/index.js';
import { T0 } from '../contract/harness.js';
import { connect, openStore } from './helpers.js';
import { expectPageRefusals } from '../contract/page-refusals.js';

// T4, T12, T15: the SQLite store's keyed page reads. A page is one index search from the cursor:
// no scan, no sort, whatever the file holds; and it pages in the order the other stores page in.
const LEAD = 'agent:main:lead';
const created = (sessionKey: string): RecordInput => ({ sessionKey, agentId: 'main', kind: 'created', actorType: 'system', summary: 'session created' });
const spawn = (child: string, parent: string): RecordInput => ({ sessionKey: child, agentId: 'main', kind: 'child_spawned', actorType: 'agent', actorId: parent, summary: 'child session spawned' });
const byUtf8 = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** Sessions with keys in several scripts (astral ones sort after U+FFxx by code point, before by UTF-16), some spawned by the lead or by its children, one under another agent. */
function inputs(): RecordInput[] {
  const out: RecordInput[] = [created(LEAD), { ...created('global'), agentId: 'other' }, { ...created('agent:other:x'), agentId: 'other' }];
  const keyOf = (i: number) => `agent:main:${['s', '\uff21', '\u{1f600}', 'é'][i % 4]}${i}`;
  for (let i = 0; i < 1200; i++) out.push(i % 7 === 0 ? spawn(keyOf(i), LEAD) : i % 7 === 1 ? spawn(keyOf(i), keyOf(i - 1)) : created(keyOf(i)));
  return out;
}

function fill(store: { recordMany(i: RecordInput[]): unknown }): void {
  const all = inputs();
  for (let i = 0; i < all.length; i += 500) store.recordMany(all.slice(i, i + 500));
}

async function walkTools(store: SqliteStore | MemoryStore, caller?: string): Promise<unknown[]> {
  const tools = createSessionTools({ store, listSessionsPage: (r) => store.sessionsPage(r), ...(caller === undefined ? {} : { caller }) });
  const out: unknown[] = [];
  let cursor: string | undefined;
  do {
    const page = await tools.call('sessions_list', cursor === undefined ? { limit: 37 } : { limit: 37, cursor });
    out.push(...page.result.sessions);
    cursor = page.result.nextCursor;
  } while (cursor !== undefined);
  return out;
}

describe('T15 SQLite keyed page reads', () => {
  it('T15 a sessions page is one search of the heads\' primary key from the cursor and one key lookup of each row\'s spawn parent (EXPLAIN QUERY PLAN, analyzed file): no scan, no sort', () => {
    const db = connect(':memory:');
    for (const step of MIGRATIONS) step.up(db);
    const head = db.prepare('INSERT INTO session_state_heads (session_key, agent_id, last_sequence, pruned_max_sequence, updated_at) VALUES (?, ?, 1, 0, 0)');
    const parent = db.prepare('INSERT INTO session_spawn_parents (session_key, agent_id, parent) VALUES (?, ?, ?)');
    for (let i = 0; i < 3000; i++) {
      head.run(`agent:main:s${i}`, 'main');
      if (i % 3 === 0) parent.run(`agent:main:s${i}`, 'main', LEAD);
    }
    db.exec('ANALYZE');
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${SQL.sessionsPage}`).all('agent:main:s5', 'main', 101).map((r) => String(r['detail']));
    expect(plan).toEqual(['SEARCH h USING PRIMARY KEY ((session_key,agent_id)>(?,?))', 'SEARCH p USING PRIMARY KEY (session_key=? AND agent_id=?) LEFT-JOIN']);
    db.close();
  });

  it('T15 a page of pending watchers seeks the pending index once per watcher (EXPLAIN QUERY PLAN, analyzed file): no scan of the cursors, no sort', () => {
    const db = connect(':memory:');
    for (const step of MIGRATIONS) step.up(db);
    const cursor = db.prepare(
      "INSERT INTO session_watch_cursors (watcher_session_key, target_session_key, target_agent_id, last_seen, notified, material, provenance, updated_at) VALUES (?, ?, 'main', 0, ?, ?, 'explicit', 0)",
    );
    for (let i = 0; i < 3000; i++) cursor.run(`agent:main:w${i % 300}`, `agent:main:t${i}`, i % 2, i % 2);
    db.exec('ANALYZE');
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${PENDING_READS_SQL.pendingWatchersAfter}`).all('', 1001).map((r) => String(r['detail']));
    const seeks = plan.filter((d) => d.startsWith('SEARCH'));
    expect(seeks).toEqual([
      'SEARCH session_watch_cursors USING COVERING INDEX session_watch_cursors_pending (watcher_session_key>?)',
      'SEARCH session_watch_cursors USING COVERING INDEX session_watch_cursors_pending (watcher_session_key>?)',
    ]);
    // The rest is the recursive query's own plumbing: its one-row start and its queue of keys.
    for (const d of plan) expect(d).toMatch(/^(SEARCH session_watch_cursors USING COVERING INDEX session_watch_cursors_pending|CO-ROUTINE w|SETUP|RECURSIVE STEP|SCAN CONSTANT ROW|SCAN w|(CORRELATED )?SCALAR SUBQUERY \d+)/);
    expect(plan.join()).not.toMatch(/TEMP B-TREE|SCAN session_watch_cursors/);
    db.close();
  });

  it('T4, T12, T15 every page of the SQLite store is the memory store\'s page, in code point order, unbound and under the tree scope', async () => {
    const { store } = openStore({ path: ':memory:' });
    const memory = createMemoryStore({ now: () => T0 });
    try {
      fill(store);
      fill(memory);
      const all = store.sessionsPage({ limit: 10_000 });
      expect(all).toHaveLength(1203);
      expect(all.map((r) => r.sessionKey)).toEqual(all.map((r) => r.sessionKey).sort(byUtf8));
      expect(all).toEqual(memory.sessionsPage({ limit: 10_000 }));
      expect(all.find((r) => r.sessionKey === 'agent:main:\uff211')).toEqual({ sessionKey: 'agent:main:\uff211', agentId: 'main', stateVersion: expect.any(Number), spawnParent: 'agent:main:s0' });
      // Pages of 37 from each position give the same rows as the one big read.
      let after: { sessionKey: string; agentId: string } | undefined;
      const paged: unknown[] = [];
      for (;;) {
        const page = store.sessionsPage(after === undefined ? { limit: 37 } : { after, limit: 37 });
        paged.push(...page);
        if (page.length < 37) break;
        after = page[page.length - 1]!;
      }
      expect(paged).toEqual(all);
      const unbound = await walkTools(store);
      expect(unbound).toEqual(await walkTools(memory));
      expect(unbound).toHaveLength(1203);
      const tree = await walkTools(store, LEAD);
      expect(tree).toEqual(await walkTools(memory, LEAD));
      // The lead, its children (every 7th) and their children (the next one each).
      expect(tree).toHaveLength(1 + 2 * Math.ceil(1200 / 7));
      await expectPageRefusals(store);
      await expectPageRefusals(memory);
    } finally {
      store.close();
    }
  });

  it('T15 pending watchers page by key: each watcher once however many pairs it has pending, in code point order, as the memory store pages them', () => {
    const { store } = openStore({ path: ':memory:' });
    const memory = createMemoryStore({ now: () => T0 });
    try {
      const watchers = Array.from({ length: 90 }, (_, i) => `agent:main:${['w', '\uff21', '\u{1f600}'][i % 3]}${i}`);
      for (const s of [store, memory]) {
        // The first watcher watches 500 targets; each other one, one.
        for (let t = 0; t < 500; t++) s.watch({ watcherSessionKey: watchers[0]!, targetSessionKey: `agent:main:t${t}`, agentId: 'main' });
        for (const w of watchers.slice(1)) s.watch({ watcherSessionKey: w, targetSessionKey: 'agent:main:t0', agentId: 'main' });
        s.watch({ watcherSessionKey: 'agent:main:idle', targetSessionKey: 'agent:main:quiet', agentId: 'main' });
        const turns = Array.from({ length: 500 }, (_, t) => ({ ...created(`agent:main:t${t}`), kind: 'goal_changed' as const, actorType: 'human' as const }));
        s.recordMany(turns.slice(0, 250));
        s.recordMany(turns.slice(250));
      }
      const sorted = [...watchers].sort(byUtf8);
      const walk = (s: SqliteStore | MemoryStore) => {
        const out: string[] = [];
        let after: string | undefined;
        for (;;) {
          const page = s.pendingWatchersPage(after === undefined ? { limit: 7 } : { after, limit: 7 });
          out.push(...page);
          if (page.length < 7) return out;
          after = page[page.length - 1];
        }
      };
      expect(walk(store)).toEqual(sorted);
      expect(walk(memory)).toEqual(sorted);
      expect(store.pendingWatchersPage({ after: sorted[88]!, limit: 5 })).toEqual([sorted[89]]);
      expect(() => store.pendingWatchersPage({ limit: 0 })).toThrow(RangeError);
    } finally {
      store.close();
    }
  });
});
