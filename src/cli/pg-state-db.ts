import { PgStateReader, PostgresStoreError, redactUrl } from '../postgres/index.js';
import { messageOf } from '../shared/logger.js';
import { DatabaseProblem } from './io.js';

/**
 * `inspect --pg` and `ui --pg`'s way into a PostgreSQL store: the schema's read model
 * (postgres/state-reader.ts). inspect reads one REPEATABLE READ, READ ONLY transaction, so every
 * query of one command sees one snapshot while live stores write. Every way that can fail to open
 * becomes a DatabaseProblem (exit 3) with the adapter's hint.
 */

/** Connects read-only for one inspect command and checks the schema. */
export async function openPgReader(url: string, schema = 'public'): Promise<PgStateReader> {
  try {
    return await PgStateReader.open(url, schema, { consistency: 'snapshot', applicationName: 'session-state-kit-inspect' });
  } catch (error) {
    throw pgOpenProblem(error, url);
  }
}

/** The adapter's typed open errors as exit 3 with their hint; anything else with the URL (password redacted). */
export function pgOpenProblem(error: unknown, url: string): DatabaseProblem {
  if (error instanceof PostgresStoreError) return new DatabaseProblem(error.message.replace(`; ${error.hint}`, ''), [error.hint]);
  return new DatabaseProblem(`${redactUrl(url)}: ${messageOf(error)}`);
}
