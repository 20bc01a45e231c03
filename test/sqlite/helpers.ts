import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type Database from 'better-sqlite3';
import { memoryLogger } from '../../src/shared/logger.js';
import { SqliteStore, sqliteHandle, type SqliteStoreOptions } from '../../src/sqlite/sqlite-store.js';
import { T0 } from '../contract/harness.js';

/** A temp directory removed after the file's tests. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `ssk-${prefix}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface Opened {
  store: SqliteStore;
  db: Database.Database;
  clock: { now: () => number; set: (t: number) => void; advance: (ms: number) => void };
  logger: ReturnType<typeof memoryLogger>;
}

/** A store with a controllable clock and a logger that keeps what it was told. */
export function openStore(options: Partial<SqliteStoreOptions> = {}, clockStart = T0): Opened {
  let t = clockStart;
  const clock = { now: () => t, set: (v: number) => void (t = v), advance: (ms: number) => void (t += ms) };
  const logger = memoryLogger();
  const store = new SqliteStore({ logger, ...options, now: clock.now });
  return { store, db: sqliteHandle(store), clock, logger };
}

/** Reads a single integer from the store's own connection (integers come back as bigint there). */
export function scalar(db: Database.Database, sql: string, ...params: unknown[]): number {
  const row = db.prepare(sql).raw().get(...params) as unknown[] | undefined;
  if (!row) throw new Error(`no row for ${sql}`);
  return Number(row[0]);
}

export function rows(db: Database.Database, sql: string, ...params: unknown[]): Record<string, unknown>[] {
  return (db.prepare(sql).all(...params) as Record<string, unknown>[]).map((r) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])),
  );
}
