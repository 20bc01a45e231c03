import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { memoryLogger } from '../../src/shared/logger.js';
import type { StoreFactory } from '../../spec/index.js';
import { createSqliteStore, sqliteStoreFactory } from '../../src/sqlite/index.js';
import { describeContractRules } from '../contract/rules.js';
import { TEST_DRIVER, TEST_DRIVER_NAME } from './helpers.js';

// The shared rule suite, unchanged, on a fresh temp file per store and on ':memory:', on the test
// driver (SSK_SQLITE_DRIVER; runtimes/run.sh runs this file on node:sqlite and bun:sqlite too).
const dir = mkdtempSync(join(tmpdir(), 'ssk-contract-'));
let n = 0;
const logger = memoryLogger();

describeContractRules(`sqlite ${TEST_DRIVER_NAME} (file)`, sqliteStoreFactory({ path: () => join(dir, `store-${n++}.db`), logger, driver: TEST_DRIVER }));
describeContractRules(`sqlite ${TEST_DRIVER_NAME} (:memory:)`, sqliteStoreFactory({ logger, driver: TEST_DRIVER }));

it('the stores above really ran on the requested driver', () => {
  const store = createSqliteStore({ now: () => 0, driver: TEST_DRIVER });
  expect(store.driver).toBe(TEST_DRIVER_NAME);
  if (TEST_DRIVER !== 'auto') expect(store.driver).toBe(TEST_DRIVER);
  store.close();
});

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
