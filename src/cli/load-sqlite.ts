import { CliError, EXIT } from './io.js';
import { messageOf } from '../shared/logger.js';

type SqliteModule = typeof import('../sqlite/index.js');

/**
 * The SQLite adapter needs better-sqlite3 (a dependency whose native addon may not have been built): load it only for the
 * commands that need it, and say how to get it when it is missing.
 */
export function loadSqlite(): Promise<SqliteModule> {
  return needsSqlite(() => import('../sqlite/index.js'));
}

/** Loads a module that (transitively) imports better-sqlite3, turning its absence into an actionable error. */
export async function needsSqlite<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const message = messageOf(error);
    if (/better-sqlite3/.test(message)) {
      throw new CliError(EXIT.failure, `the SQLite adapter needs the better-sqlite3 package: ${message.split('\n')[0]}`, [
        'install it next to session-state-kit: npm install better-sqlite3',
        'or run the demo on the reference store: session-state-kit demo --store memory',
      ]);
    }
    throw error;
  }
}
