import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { memoryLogger } from '../../src/shared/logger.js';
import type { StoreFactory } from '../../spec/index.js';
import { createSqliteStore, sqliteStoreFactory } from '../../src/sqlite/index.js';
import { describeContractRules } from '../contract/rules.js';

// The shared rule suite, unchanged, on a fresh temp file per store and on ':memory:'.
const dir = mkdtempSync(join(tmpdir(), 'ssk-contract-'));
let n = 0;
const logger = memoryLogger();

describeContractRules('sqlite (file)', sqliteStoreFactory({ path: () => join(dir, `store-${n++}.db`), logger }));
describeContractRules('sqlite (:memory:)', sqliteStoreFactory({ logger }));

// createSqliteStore itself is contract-shaped (typecheck fails otherwise); path defaults to ':memory:'.
const direct: StoreFactory = createSqliteStore;
it('createSqliteStore is usable directly as a StoreFactory', async () => {
  const store = await direct({ now: () => 0 });
  expect(await store.stateVersion('agent:main:x', 'main')).toBe(0);
  await store.close();
});

it('the rule suite ran without a single logged storage failure', () => {
  expect(logger.entries).toEqual([]);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));
