import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { brokenSources, memorySubject } from '../../conformance/feed/broken.js';
import { checkPendingReads } from '../../conformance/feed/pending-reads.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { createSqliteStore } from '../../src/sqlite/index.js';

const NOW = 1_767_225_600_000;

describe('R60 R61 R68: pending reads against the model (many watchers, long runs of commits)', () => {
  it('the memory store', async () => {
    await checkPendingReads({ open: async () => ({ subject: memorySubject(), close: () => {} }), numRuns: 60 });
  });

  it('the SQLite store (a file, so the change sequence is durable state)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ssk-reads-'));
    let n = 0;
    try {
      await checkPendingReads({
        open: async () => {
          const store = createSqliteStore({ path: join(dir, `s${n++}.db`), now: () => NOW, logger: memoryLogger() });
          return { subject: store, close: () => store.close() };
        },
        numRuns: 30,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // The property has teeth: each broken source misses one kind of news, and a run finds it.
  for (const [name, broken] of Object.entries(brokenSources)) {
    it(`catches the broken source ${name} (${broken.breaks})`, async () => {
      const failure = await checkPendingReads({ open: async () => ({ subject: broken.open(), close: () => {} }), numRuns: 200, seed: 7 }).then(
        () => undefined,
        (error: unknown) => error as Error & { cause?: unknown },
      );
      expect(failure, 'the property passed a broken source').toBeDefined();
      // fast-check reports the counterexample; the property's own message is the cause.
      expect(String((failure!.cause as Error | undefined)?.message)).toMatch(/^R60|^R68/);
    });
  }
});

describe('R72: what the change marks do not see (SQLite)', () => {
  it('unwatch, reset, delete and expiry remove rows without news; the counter outlives them and never hands a value out twice', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ssk-marks-'));
    let now = NOW;
    const store = createSqliteStore({ path: join(dir, 'state.db'), now: () => now, logger: memoryLogger() });
    try {
      const human = (t: string) => store.record({ sessionKey: t, agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'human turn' });
      for (const t of ['agent:main:a', 'agent:main:b', 'agent:main:c', 'agent:main:d']) store.watch({ watcherSessionKey: 'agent:main:main', targetSessionKey: t, agentId: 'main' });
      store.watch({ watcherSessionKey: 'agent:main:ops', targetSessionKey: 'agent:main:a', agentId: 'main' });
      for (const t of ['agent:main:a', 'agent:main:b', 'agent:main:c', 'agent:main:d']) human(t);
      const p0 = store.readPending({});
      expect(Number(p0.position)).toBe(4); // one mark per commit that changed a notice
      store.unwatch({ watcherSessionKey: 'agent:main:main', targetSessionKey: 'agent:main:a', agentId: 'main' });
      store.deleteSession('agent:main:b', 'main');
      store.resetSession('agent:main:ops');
      const p1 = store.readPending({ since: p0.position });
      expect(p1).toEqual({ position: p0.position, changes: [], snapshot: [] }); // removals are no news, and mark nothing
      now += 31 * 24 * 3_600_000; // past retention: the idle cursors expire (R44) at the next prune
      store.prune();
      expect(store.listPending()).toEqual([]);
      expect(store.readPending({ since: p1.position }).changes).toEqual([]);
      // A new watch and turn after all that: the next value, never one handed out before.
      store.watch({ watcherSessionKey: 'agent:main:main', targetSessionKey: 'agent:main:a', agentId: 'main' });
      human('agent:main:a');
      const p2 = store.readPending({ since: p1.position });
      expect(Number(p2.position)).toBe(5);
      expect(p2.changes.map((c) => [c.targetSessionKey, c.pending])).toEqual([['agent:main:a', true]]);
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
