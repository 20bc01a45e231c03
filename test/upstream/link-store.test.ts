import Database from 'better-sqlite3';
import { rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLink } from '../../src/core/upstream/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { createClaudeJsonlSource, createMemoryLinkStore, createSqliteLinkStore, createUpstreamMonitor, type UpstreamLinkStore } from '../../src/upstream/index.js';
import { A, COORD, T0, TARGET, appendLines, continueInput, fakeClock, line, tempDir, writeLines } from './helpers.js';

const dir = tempDir('ssk-links-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function describeLinkStore(name: string, make: () => { store: UpstreamLinkStore; reopen?: () => UpstreamLinkStore }) {
  describe(`${name} link store`, () => {
    it('compare-and-set on (serial, revision): create only if absent, update and delete only on a matching token', async () => {
      const { store } = make();
      const l = createLink(continueInput('/a'), { offset: 3, epoch: 0 }, await store.nextSerial(), T0);
      expect(await store.compareAndSet(TARGET, A, undefined, l)).toBe(true);
      expect(await store.compareAndSet(TARGET, A, undefined, l)).toBe(false);
      expect(await store.get(TARGET, A)).toEqual(l);
      const next = { ...l, revision: l.revision + 1, missCount: 1 };
      expect(await store.compareAndSet(TARGET, A, { serial: l.serial, revision: l.revision + 5 }, next)).toBe(false);
      expect(await store.compareAndSet(TARGET, A, { serial: l.serial + 1, revision: l.revision }, next)).toBe(false);
      expect(await store.compareAndSet(TARGET, A, { serial: l.serial, revision: l.revision }, next)).toBe(true);
      expect((await store.get(TARGET, A))?.missCount).toBe(1);
      expect(await store.list()).toEqual([next]);
      expect(await store.compareAndSet(TARGET, A, { serial: l.serial, revision: l.revision }, null)).toBe(false);
      expect(await store.compareAndSet(TARGET, A, { serial: next.serial, revision: next.revision }, null)).toBe(true);
      expect(await store.get(TARGET, A)).toBeUndefined();
    });

    it('returns copies: mutating a read link changes nothing stored', async () => {
      const { store } = make();
      const l = createLink(continueInput('/a'), { offset: 3, epoch: 0 }, await store.nextSerial(), T0);
      await store.compareAndSet(TARGET, A, undefined, l);
      const read = (await store.get(TARGET, A))!;
      (read.marker as { offset: number }).offset = 99;
      expect(((await store.get(TARGET, A))!.marker as { offset: number }).offset).toBe(3);
    });

    it('serials never repeat, even after deletes (and across reopen when durable)', async () => {
      const { store, reopen } = make();
      const a = await store.nextSerial();
      const b = await store.nextSerial();
      expect(b).toBeGreaterThan(a);
      if (reopen) {
        const again = reopen();
        expect(await again.nextSerial()).toBeGreaterThan(b);
      }
    });
  });
}

describeLinkStore('memory', () => ({ store: createMemoryLinkStore() }));

let dbs = 0;
describeLinkStore('sqlite', () => {
  const file = join(dir, `links-${++dbs}.db`);
  const db = new Database(file);
  return {
    store: createSqliteLinkStore(db),
    reopen: () => {
      db.close();
      return createSqliteLinkStore(new Database(file));
    },
  };
});

describe('monitor over the SQLite link store', () => {
  it('keeps markers and miss counts across a monitor restart (new process, same database)', async () => {
    const clock = fakeClock();
    const store = createMemoryStore({ now: clock.now });
    store.watch({ watcherSessionKey: COORD, targetSessionKey: TARGET, agentId: A });
    const file = join(dir, 'restart.jsonl');
    const dbFile = join(dir, 'restart.db');
    writeLines(file, [line.assistant()]);
    const open = () => {
      const db = new Database(dbFile);
      const monitor = createUpstreamMonitor({ store, links: createSqliteLinkStore(db), now: clock.now, logger: memoryLogger(), sources: [createClaudeJsonlSource()] });
      return { db, monitor };
    };
    let m = open();
    await m.monitor.continueSession(continueInput(file));
    appendLines(file, [line.human('one')]);
    await m.monitor.tick();
    m.db.close();
    m = open();
    appendLines(file, [line.human('two')]);
    await m.monitor.tick();
    const events = () => store.changesSince({ sessionKey: TARGET, agentId: A, since: 0 }).stateChanges.events;
    expect(events()).toHaveLength(2);
    unlinkSync(file);
    await m.monitor.tick();
    await m.monitor.tick();
    m.db.close();
    m = open();
    expect((await m.monitor.status())[0]).toMatchObject({ state: 'missing', missCount: 2 });
    await m.monitor.tick();
    expect(events().map((e) => e.kind)).toEqual(['human_direct_message', 'human_direct_message', 'upstream_missing']);
    expect(await m.monitor.status()).toEqual([]);
    m.db.close();
  });
});
