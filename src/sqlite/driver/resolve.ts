import { SqliteDriverUnavailableError } from './errors.js';
import { betterSqlite3Driver } from './better-sqlite3.js';
import { bunSqliteDriver } from './bun-sqlite.js';
import { isBun, runtimeName } from './load.js';
import { nodeSqliteDriver } from './node-sqlite.js';
import type { SqliteDriver, SqliteDriverChoice, SqliteDriverName } from './types.js';

export const DRIVER_NAMES: readonly SqliteDriverName[] = ['better-sqlite3', 'node:sqlite', 'bun:sqlite'];

/** The driver for a name; throws SqliteDriverUnavailableError when this runtime cannot load it. */
export function loadSqliteDriver(name: SqliteDriverName): SqliteDriver {
  switch (name) {
    case 'better-sqlite3':
      return betterSqlite3Driver();
    case 'node:sqlite':
      return nodeSqliteDriver();
    case 'bun:sqlite':
      return bunSqliteDriver();
  }
}

/**
 * 'auto': bun:sqlite on Bun; on Node, better-sqlite3 when it is installed and loads (it is the
 * long-proven one, and needs no experimental flag or warning), else node:sqlite (Node 22.13+).
 */
export function resolveSqliteDriver(choice: SqliteDriverChoice = 'auto'): SqliteDriver {
  if (typeof choice === 'object' && choice !== null) {
    if (typeof choice.open !== 'function' || typeof choice.name !== 'string') throw new TypeError('driver must be a name or an object with name and open()');
    return choice;
  }
  if (choice === 'auto') {
    if (isBun()) return bunSqliteDriver();
    const reasons: string[] = [];
    for (const name of ['better-sqlite3', 'node:sqlite'] as const) {
      try {
        return loadSqliteDriver(name);
      } catch (error) {
        if (!(error instanceof SqliteDriverUnavailableError)) throw error;
        reasons.push(...error.reasons);
      }
    }
    throw new SqliteDriverUnavailableError('auto', reasons);
  }
  if (!DRIVER_NAMES.includes(choice)) throw new RangeError(`unknown SQLite driver ${JSON.stringify(choice)}; use 'auto', ${DRIVER_NAMES.map((n) => `'${n}'`).join(', ')} or a driver object`);
  return loadSqliteDriver(choice);
}

/** The drivers this runtime can load, by name (for diagnostics and tests). */
export function availableSqliteDrivers(): SqliteDriverName[] {
  return DRIVER_NAMES.filter((name) => {
    try {
      loadSqliteDriver(name);
      return true;
    } catch (error) {
      if (error instanceof SqliteDriverUnavailableError) return false;
      throw error;
    }
  });
}

export { runtimeName };
