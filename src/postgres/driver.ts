import type pg from 'pg';
import { PostgresDriverUnavailableError } from './errors.js';
import { messageOf } from '../shared/logger.js';

/**
 * `pg` is an optional peer dependency, loaded on first use: importing session-state-kit (or this
 * subpath) never needs it, only opening a PostgreSQL store does.
 */
export type PgModule = typeof pg;

let loaded: Promise<PgModule> | undefined;

export function loadPg(): Promise<PgModule> {
  // A computed specifier: bundlers (esbuild, the CLI's single-file builds) leave it to run time,
  // so a bundle never carries pg and never fails on its optional native part.
  const specifier = 'pg';
  loaded ??= (import(specifier) as Promise<unknown>).then(
    (mod) => ((mod as unknown as { default?: PgModule }).default ?? (mod as unknown as PgModule)),
    (error: unknown) => {
      loaded = undefined;
      throw new PostgresDriverUnavailableError(messageOf(error), { cause: error });
    },
  );
  return loaded;
}
