import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate } from '../../src/sqlite/schema.js';
import { createSqliteStore } from '../../src/sqlite/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { connect, tempDir } from './helpers.js';

/** T12, schema step 9: a file from step 8 gets its spawn parents from the spawn events it retains. */
const dir = tempDir('spawn-parents');
const row = (seq: number, key: string, kind: string, actorType: string, actorId: string | null) =>
  `INSERT INTO session_state_events (sequence, session_key, agent_id, kind, actor_type, actor_id, occurred_at, recorded_at, summary) VALUES (${seq}, '${key}', 'main', '${kind}', '${actorType}', ${actorId === null ? 'NULL' : `'${actorId}'`}, 0, 0, 's')`;

describe('T12 schema step 9', () => {
  it('T12 the backfill takes each session\'s first retained child_spawned; a later one and other kinds do not count', () => {
    const path = join(dir, 'step8.db');
    const db = connect(path);
    expect(migrate(db, path, MIGRATIONS.slice(0, 8))).toBe(8);
    db.exec(
      [
        row(1, 'agent:main:worker', 'child_spawned', 'agent', 'agent:main:lead'),
        row(2, 'agent:main:worker', 'child_spawned', 'agent', 'agent:main:intruder'),
        row(3, 'agent:main:orphan', 'human_direct_message', 'human', null),
        row(4, 'agent:main:system-spawned', 'child_spawned', 'system', 'agent:main:lead'),
      ].join(';\n'),
    );
    db.close();
    const store = createSqliteStore({ path, logger: memoryLogger() });
    try {
      expect(store.spawnParent('agent:main:worker', 'main')).toBe('agent:main:lead');
      expect(store.spawnParent('agent:main:orphan', 'main')).toBeUndefined();
      expect(store.spawnParent('agent:main:system-spawned', 'main')).toBeUndefined();
      // deleteSession forgets it with the rest of the session (R51).
      store.deleteSession('agent:main:worker', 'main');
      expect(store.spawnParent('agent:main:worker', 'main')).toBeUndefined();
    } finally {
      store.close();
    }
  });
});
