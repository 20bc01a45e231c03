import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { memoryLogger } from '../../src/shared/logger.js';
import { resolveSqliteDriver, type SqlValue, type SqliteConnection, type SqliteDriverChoice, type SqliteOpenOptions } from '../../src/sqlite/index.js';
import { SqliteStore, sqliteConnection, type SqliteStoreOptions } from '../../src/sqlite/sqlite-store.js';
import { T0 } from '../contract/harness.js';

/**
 * The driver these tests run on: SSK_SQLITE_DRIVER (runtimes/run.sh sets 'node:sqlite' on Node 22
 * and 'bun:sqlite' on Bun), else 'auto' (better-sqlite3 in the main suite on Node 20).
 */
export const TEST_DRIVER = (process.env['SSK_SQLITE_DRIVER'] ?? 'auto') as SqliteDriverChoice;
const driver = resolveSqliteDriver(TEST_DRIVER);
export const TEST_DRIVER_NAME = driver.name;

/** A temp directory removed after the file's tests. */
/** The error `fn` throws, or a test failure if it throws nothing. Typed by the caller (any by default: tests read its fields). */
export function thrown<E = any>(fn: () => unknown): E {
  try {
    fn();
  } catch (error) {
    return error as E;
  }
  throw new Error('expected a throw');
}

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `ssk-${prefix}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface Opened {
  store: SqliteStore;
  db: SqliteConnection;
  clock: { now: () => number; set: (t: number) => void; advance: (ms: number) => void };
  logger: ReturnType<typeof memoryLogger>;
}

/** A store on the test driver with a controllable clock and a logger that keeps what it was told. */
export function openStore(options: Partial<SqliteStoreOptions> = {}, clockStart = T0): Opened {
  let t = clockStart;
  const clock = { now: () => t, set: (v: number) => void (t = v), advance: (ms: number) => void (t += ms) };
  const logger = memoryLogger();
  const store = new SqliteStore({ logger, driver: TEST_DRIVER, ...options, now: clock.now });
  return { store, db: sqliteConnection(store), clock, logger };
}

/** Another connection to a file (or ':memory:') on the test driver, outside any store. */
export function connect(path: string, options: SqliteOpenOptions = {}): SqliteConnection {
  return driver.open(path, options);
}

/** Reads a single integer (connections read integers as bigint). */
export function scalar(db: SqliteConnection, sql: string, ...params: SqlValue[]): number {
  const row = db.prepare(sql).get(...params);
  if (!row) throw new Error(`no row for ${sql}`);
  return Number(Object.values(row)[0]);
}

export function rows(db: SqliteConnection, sql: string, ...params: SqlValue[]): Record<string, unknown>[] {
  return db.prepare(sql).all(...params).map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));
}

/** A person's message to a session (R11): the record the read model's files write most. */
export const human = (sessionKey: string, agentId = 'main') => ({ sessionKey, agentId, kind: 'human_direct_message' as const, actorType: 'human' as const, actorId: 'telegram:42', summary: 'a person typed' });
