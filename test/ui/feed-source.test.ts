/**
 * R68, R70 for the live view (R86): on a file whose schema marks cursor changes, the view's feed
 * reads what changed after its position, never every pending pair, and watches the -wal file; on
 * an older file (which the read-only view never migrates) it falls back to listing and diffing.
 */
import { mkdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryLogger } from '../../src/shared/logger.js';
import { createSqliteStore } from '../../src/sqlite/index.js';
import { MIGRATIONS, migrate } from '../../src/sqlite/schema.js';
import { SqliteUiSource } from '../../src/ui/sqlite-source.js';
import { connect, tempDir } from '../sqlite/helpers.js';

const T0 = Date.UTC(2026, 0, 1);

describe('the live view\'s feed source (R68, R70, R86)', () => {
  it('R68: on a step-8 file it reads the changes after its position and names the -wal file; a step-7 file falls back to the full listing', async () => {
    const dir = tempDir('ssk-ui-feed-');
    try {
      const path = join(dir, 'team.db');
      const store = createSqliteStore({ path, now: () => T0, logger: memoryLogger() });
      for (let i = 0; i < 50; i++) store.watch({ watcherSessionKey: `agent:main:w${i}`, targetSessionKey: 'agent:main:peer', agentId: 'main' });
      store.record({ sessionKey: 'agent:main:peer', agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'human turn' });
      const view = SqliteUiSource.open(path);
      const source = view.feedSource();
      expect(source.changeFiles?.()).toEqual([`${path}-wal`]);
      const first = await source.readPending!({});
      store.watch({ watcherSessionKey: 'agent:main:main', targetSessionKey: 'agent:main:other', agentId: 'main' });
      store.record({ sessionKey: 'agent:main:other', agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'human turn' });
      const next = await source.readPending!({ since: first.position });
      expect(next.changes.map((c) => [c.watcherSessionKey, c.targetSessionKey, c.pending])).toEqual([['agent:main:main', 'agent:main:other', true]]);
      await view.close();
      store.close();

      const old = join(dir, 'old.db');
      const raw = connect(old);
      migrate(raw, old, MIGRATIONS.slice(0, 7));
      raw.close();
      const oldView = SqliteUiSource.open(old);
      expect(oldView.feedSource().readPending).toBeUndefined();
      expect(await oldView.feedSource().listPending!()).toEqual([]);
      await oldView.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('R70: a view opened through a symlink watches the -wal beside the real file, which is where SQLite writes it', async () => {
    const dir = tempDir('ssk-ui-link-');
    try {
      mkdirSync(join(dir, 'real'));
      const path = join(dir, 'real', 'team.db');
      const store = createSqliteStore({ path, now: () => T0, logger: memoryLogger() });
      store.record({ sessionKey: 'agent:main:peer', agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'human turn' });
      const link = join(dir, 'link.db');
      symlinkSync(path, link);
      const view = SqliteUiSource.open(link);
      expect(view.feedSource().changeFiles?.()).toEqual([`${realpathSync(path)}-wal`]);
      await view.close();
      store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
