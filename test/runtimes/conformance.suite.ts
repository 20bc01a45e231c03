/**
 * The conformance suite on one SQLite driver, chosen by SSK_SQLITE_DRIVER: runtimes/run.sh runs this
 * on Node 22 (node:sqlite, under vitest) and on Bun (bun:sqlite, under `bun test`). It is not a
 * *.test.ts file because the main suite already runs the same on better-sqlite3
 * (conformance/conformance.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROPERTIES, formatReport, runConformance } from '../../conformance/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import type { ConformanceTarget } from '../../conformance/handles.js';
import { SqliteStore, createSqliteStore, sqliteStoreFactory, type SqliteDriverChoice } from '../../src/sqlite/index.js';

const driver = (process.env['SSK_SQLITE_DRIVER'] ?? 'auto') as SqliteDriverChoice;
const SEED = Number(process.env['SSK_CONFORMANCE_SEED'] ?? 20260101);
const dir = mkdtempSync(join(tmpdir(), 'ssk-conformance-driver-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const logger = memoryLogger();
const probe = createSqliteStore({ now: () => 0, driver });
const driverName = probe.driver;
probe.close();

// The same runs per property as the main suite gives better-sqlite3.
const CASES: [string, ConformanceTarget, number, boolean][] = [
  [':memory:', sqliteStoreFactory({ logger, driver }), 40, false],
  ['file', sqliteStoreFactory({ logger, driver, path: () => join(dir, `store-${files++}.db`) }), 10, true],
  // Multi-handle mode: three connections to one file.
  [
    'file, 3 connections',
    {
      create: (o) => createSqliteStore({ logger, driver, ...o, path: join(dir, `store-${files++}.db`) }),
      openHandle: (first, o) => createSqliteStore({ logger, driver, ...o, path: (first as SqliteStore).path }),
    },
    10,
    true,
  ],
];

describe.each(CASES)(`conformance suite on ${driverName} (%s)`, (_where, factory, runs, skipRealLimits) => {
  it('passes every property', async () => {
    const multi = typeof factory !== 'function';
    const names = PROPERTIES.filter((p) => multi || !p.multiHandle)
      .map((p) => p.name)
      .filter((n) => !(skipRealLimits && n === 'R42-real-limits'));
    const result = await runConformance(factory, { seed: SEED, properties: names, runs });
    if (!result.passed) console.error(formatReport(result));
    expect(result.properties.map((p) => [p.name, p.passed])).toEqual(names.map((n) => [n, true]));
    expect(result.properties.every((p) => p.runs >= 1)).toBe(true);
  }, 300_000);
});

it('ran on the requested driver and logged no storage failure', () => {
  if (driver !== 'auto') expect(driverName).toBe(driver);
  expect(logger.entries).toEqual([]);
});
