import type pg from 'pg';
import { PostgresDriverUnavailableError } from './errors.js';
import { messageOf } from '../shared/logger.js';

/**
 * `pg` is an optional peer dependency, loaded on first use: importing session-state-kit (or this
 * subpath) never needs it, only opening a PostgreSQL store does.
 */
export type PgModule = typeof pg;

/** How `pg` is imported; tests pass another to see a missing driver. */
export type PgImporter = (specifier: string) => Promise<unknown>;

const importPg: PgImporter = (specifier) => import(specifier);
/** Each importer's driver, once it loaded (the process's one `pg`, and whatever a test passes). */
const loaded = new Map<PgImporter, Promise<PgModule>>();

/** `pg`, imported once per process; a failed import is not kept, so the next open tries again. */
export function loadPg(importer: PgImporter = importPg): Promise<PgModule> {
  // A computed specifier: bundlers (esbuild, the CLI's single-file builds) leave it to run time,
  // so a bundle never carries pg and never fails on its optional native part.
  const specifier = 'pg';
  let driver = loaded.get(importer);
  if (driver === undefined) {
    driver = importer(specifier).then(
      (mod) => ((mod as unknown as { default?: PgModule }).default ?? (mod as unknown as PgModule)),
      (error: unknown) => {
        loaded.delete(importer);
        throw new PostgresDriverUnavailableError(messageOf(error), { cause: error });
      },
    );
    loaded.set(importer, driver);
  }
  return driver;
}
