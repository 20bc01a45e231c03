/**
 * The parts of node-postgres this entry's public declarations name, written structurally so that a
 * consumer's type check (skipLibCheck false) needs neither `pg`'s nor `@types/pg`'s declarations:
 * a runtime may load `pg` without TypeScript types, and only the code here calls it.
 */

/** A connected client or a pool: what migrations and diagnostics run statements on. */
export interface PgQueryable {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  /** Runs one parameterized statement (`$1`, `$2`, ...) and returns its rows. */
  query<R = any>(text: string, values?: unknown[]): Promise<{ rows: R[]; rowCount: number | null }>;
}

/** node-postgres pool settings (host, user, password, ssl, ...), passed through as given. */
export interface PgPoolSettings {
  [setting: string]: unknown;
  connectionString?: string;
  max?: number;
  connectionTimeoutMillis?: number;
  application_name?: string;
}
