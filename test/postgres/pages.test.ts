import { describe, expect, it } from 'vitest';
import type { RecordInput } from '../../spec/index.js';
import { createMemoryStore, type MemoryStore } from '../../src/memory/index.js';
import { createPostgresStore, type PostgresStore } from '../../src/postgres/index.js';
import { statements } from '../../src/postgres/sql.js';
import { createSessionTools } from '../../src/tools/index.js';
import { usePostgres } from './server.js';

// T4, T12, T15 on PostgreSQL: keyed page reads walk an index from the cursor (no sequential scan,
// no sort) and page in the order the other stores page in (COLLATE "C": code point order).
const pg = usePostgres();
const T0 = Date.UTC(2026, 0, 1);
const LEAD = 'agent:main:lead';
const created = (sessionKey: string): RecordInput => ({ sessionKey, agentId: 'main', kind: 'created', actorType: 'system', summary: 'session created' });
const spawn = (child: string, parent: string): RecordInput => ({ sessionKey: child, agentId: 'main', kind: 'child_spawned', actorType: 'agent', actorId: parent, summary: 'child session spawned' });
const byUtf8 = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

function inputs(): RecordInput[] {
  const out: RecordInput[] = [created(LEAD), { ...created('global'), agentId: 'other' }, { ...created('agent:other:x'), agentId: 'other' }];
  const keyOf = (i: number) => `agent:main:${['s', '\uff21', '\u{1f600}', 'é'][i % 4]}${i}`;
  for (let i = 0; i < 600; i++) out.push(i % 7 === 0 ? spawn(keyOf(i), LEAD) : i % 7 === 1 ? spawn(keyOf(i), keyOf(i - 1)) : created(keyOf(i)));
  return out;
}

async function walkTools(store: PostgresStore | MemoryStore, caller?: string): Promise<unknown[]> {
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

describe('T15 PostgreSQL keyed page reads', () => {
  it('T15 a sessions page and a page of pending watchers are index scans from the cursor (EXPLAIN, analyzed tables): no sequential scan, no sort', async () => {
    const store = await createPostgresStore({ now: () => T0, connectionString: pg.url(), schema: pg.schema(), logger: pg.log });
    try {
      const s = `"${store.schema}"`;
      const admin = await pg.admin();
      await admin.query(`INSERT INTO ${s}.session_state_heads (session_key, agent_id, last_sequence, pruned_max_sequence, updated_at) SELECT 'agent:main:s' || g, 'main', 1, 0, 0 FROM generate_series(1, 20000) g`);
      await admin.query(`INSERT INTO ${s}.session_spawn_parents (session_key, agent_id, parent) SELECT 'agent:main:s' || g, 'main', 'agent:main:lead' FROM generate_series(1, 20000, 3) g`);
      await admin.query(
        `INSERT INTO ${s}.session_watch_cursors (watcher_session_key, target_session_key, target_agent_id, last_seen, notified, material, provenance, updated_at) ` +
          `SELECT 'agent:main:w' || (g % 2000), 'agent:main:t' || g, 'main', 0, g % 2, g % 2, 'explicit', 0 FROM generate_series(1, 20000) g`,
      );
      await admin.query(`ANALYZE ${s}.session_state_heads; ANALYZE ${s}.session_spawn_parents; ANALYZE ${s}.session_watch_cursors`);
      const sql = statements(store.schema);
      const explain = async (text: string, values: unknown[]) => ((await admin.query(`EXPLAIN (COSTS OFF) ${text}`, values)).rows as { 'QUERY PLAN': string }[]).map((r) => r['QUERY PLAN']).join('\n');
      const sessions = await explain(sql.sessionsPage, ['agent:main:s5', 'main', 101]);
      expect(sessions).toMatch(/Index (Only )?Scan using session_state_heads_pkey on session_state_heads h/);
      expect(sessions).toMatch(/Index Cond: \(ROW\(session_key, agent_id\) > ROW\(/);
      // Each row's parent by key, never a walk of the parents from the first.
      expect(sessions).toMatch(/Index (Only )?Scan using session_spawn_parents_pkey on session_spawn_parents p\s+Index Cond: \(\(session_key = h\.session_key\) AND \(agent_id = h\.agent_id\)\)/);
      expect(sessions).not.toMatch(/Seq Scan|Sort|Merge|Hash/);
      const watchers = await explain(sql.pendingWatchersPage, ['', 1001]);
      expect(watchers).toMatch(/Index Only Scan using session_watch_cursors_pending on session_watch_cursors/);
      expect(watchers).not.toMatch(/Seq Scan|Sort|Bitmap/);
    } finally {
      await store.close();
    }
  });

  it('T4, T12, T15 every page of the PostgreSQL store is the memory store\'s page, in code point order, unbound and under the tree scope; pending watchers too', async () => {
    const store = await createPostgresStore({ now: () => T0, connectionString: pg.url(), schema: pg.schema(), logger: pg.log });
    const memory = createMemoryStore({ now: () => T0 });
    try {
      const all = inputs();
      for (let i = 0; i < all.length; i += 300) {
        await store.recordMany(all.slice(i, i + 300));
        memory.recordMany(all.slice(i, i + 300));
      }
      const rows = await store.sessionsPage({ limit: 10_000 });
      expect(rows).toHaveLength(603);
      expect(rows.map((r) => r.sessionKey)).toEqual(rows.map((r) => r.sessionKey).sort(byUtf8));
      expect(rows).toEqual(memory.sessionsPage({ limit: 10_000 }));
      expect(await store.sessionsPage({ after: rows[599]!, limit: 10 })).toEqual(rows.slice(600));
      expect(await walkTools(store)).toEqual(await walkTools(memory));
      const tree = await walkTools(store, LEAD);
      expect(tree).toEqual(await walkTools(memory, LEAD));
      expect(tree).toHaveLength(1 + 2 * Math.ceil(600 / 7));

      const watchers = Array.from({ length: 40 }, (_, i) => `agent:main:${['w', '\uff21', '\u{1f600}'][i % 3]}${i}`);
      for (const w of watchers) {
        for (const t of [LEAD, 'agent:main:s0']) {
          await store.watch({ watcherSessionKey: w, targetSessionKey: t, agentId: 'main' });
          memory.watch({ watcherSessionKey: w, targetSessionKey: t, agentId: 'main' });
        }
      }
      const turns = [LEAD, 'agent:main:s0'].map((t) => ({ ...created(t), kind: 'goal_changed' as const, actorType: 'human' as const }));
      await store.recordMany(turns);
      memory.recordMany(turns);
      const sorted = [...watchers].sort(byUtf8);
      expect(await store.pendingWatchersPage({ limit: 15 })).toEqual(sorted.slice(0, 15));
      expect(await store.pendingWatchersPage({ after: sorted[14]!, limit: 100 })).toEqual(sorted.slice(15));
      expect(memory.pendingWatchersPage({ after: sorted[14]!, limit: 100 })).toEqual(sorted.slice(15));
      await expect(store.sessionsPage({ limit: 0 })).rejects.toThrow(RangeError);
    } finally {
      await store.close();
    }
    expect(pg.log.entries.filter((e) => e.level === 'error')).toEqual([]);
  });
});
