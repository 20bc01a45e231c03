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
