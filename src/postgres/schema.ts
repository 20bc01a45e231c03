import type { PgQueryable } from './pg-types.js';
import { NotAStateSchemaError, SchemaTooNewError, toSafeNumber } from './errors.js';

/**
 * The PostgreSQL schema of the adapter and its migrations. All objects live in one PostgreSQL
 * schema (`public` unless the store is given another), so several stores can share a database.
 *
 * Versioning: `session_state_schema` holds one row per applied step; the version is its highest
 * `version`. A schema with a lower version is migrated forward on open, under an advisory lock so
 * two machines opening at once do not race; a higher version is refused (SchemaTooNewError). To
 * change the schema, append a step to MIGRATIONS; never edit a released step.
 */

export const TABLES = {
  version: 'session_state_schema',
  /** The signal log (R5-R8). `sequence` comes from one global SEQUENCE (R7): never reused. */
  events: 'session_state_events',
  /** Durable heads (R5) and pruned watermarks (R33, R42), per identity (session_key, agent_id). */
  heads: 'session_state_heads',
  /** Watch cursors (R20): last_seen = L, notified = N, material = M. */
  cursors: 'session_watch_cursors',
  sequence: 'session_state_sequence',
  /** T12 (step 3): who spawned a session, from its first child_spawned event, kept through pruning. */
  spawnParents: 'session_spawn_parents',
} as const;

/** PostgreSQL keeps the first NAMEDATALEN - 1 bytes of an identifier and drops the rest. */
export const MAX_IDENTIFIER_BYTES = 63;

/**
 * A schema name the server would truncate names other tables than the store thinks: its locks and
 * NOTIFY channel come from the full name, its tables from the first 63 bytes, so two long names
 * with one prefix would share tables but not locks. Refused before any connection.
 */
export function validateSchemaName(schema: unknown): asserts schema is string {
  if (typeof schema !== 'string' || schema.length === 0 || schema.includes('\u0000')) {
    throw new RangeError(`schema must be a non-empty PostgreSQL identifier without NUL, got ${JSON.stringify(schema)}`);
  }
  const bytes = new TextEncoder().encode(schema).length;
  if (bytes > MAX_IDENTIFIER_BYTES) {
    throw new RangeError(
      `schema "${schema}" is ${bytes} bytes; PostgreSQL keeps only the first ${MAX_IDENTIFIER_BYTES} bytes of a name, so its tables would be another schema's while its locks and NOTIFY channel are not: use a name of at most ${MAX_IDENTIFIER_BYTES} bytes`,
    );
  }
}

/** Quotes a PostgreSQL identifier (doubling any `"`), for schema and table names. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** One step of the PostgreSQL schema's migrations: the version it reaches and its SQL. */
export interface PgMigrationStep {
  /** 1, 2, 3, ...: the schema version after this step. */
  version: number;
  description: string;
  /** SQL for the step; `s` is the quoted schema name. */
  sql: (s: string) => string;
}

// Keys are compared byte-wise (COLLATE "C"): deterministic whatever the database's locale, and the
// cheapest comparison. R26 ordering is done in JS (UTF-16 code units), never by SQL.
const V1 = (s: string) => `
CREATE SEQUENCE ${s}.${TABLES.sequence} AS bigint NO CYCLE;
CREATE TABLE ${s}.${TABLES.events} (
  sequence     bigint PRIMARY KEY DEFAULT nextval('${s.replace(/'/g, "''")}.${TABLES.sequence}'),
  dedupe_key   text COLLATE "C" UNIQUE,
  session_key  text COLLATE "C" NOT NULL,
  agent_id     text COLLATE "C" NOT NULL,
  session_id   text,
  kind         text NOT NULL,
  actor_type   text NOT NULL,
  actor_id     text,
  run_id       text,
  occurred_at  bigint NOT NULL,
  recorded_at  bigint NOT NULL,
  summary      text NOT NULL,
  payload_json text
);
ALTER SEQUENCE ${s}.${TABLES.sequence} OWNED BY ${s}.${TABLES.events}.sequence;
CREATE INDEX session_state_events_identity ON ${s}.${TABLES.events} (agent_id, session_key, sequence);
CREATE INDEX session_state_events_occurred ON ${s}.${TABLES.events} (occurred_at);

CREATE TABLE ${s}.${TABLES.heads} (
  session_key         text COLLATE "C" NOT NULL,
  agent_id            text COLLATE "C" NOT NULL,
  last_sequence       bigint NOT NULL,
  pruned_max_sequence bigint NOT NULL DEFAULT 0,
  updated_at          bigint NOT NULL,
  PRIMARY KEY (session_key, agent_id)
);

CREATE TABLE ${s}.${TABLES.cursors} (
  watcher_session_key text COLLATE "C" NOT NULL,
  target_session_key  text COLLATE "C" NOT NULL,
  target_agent_id     text COLLATE "C" NOT NULL,
  last_seen           bigint NOT NULL,
  notified            bigint NOT NULL,
  material            bigint NOT NULL,
  provenance          text NOT NULL CHECK (provenance IN ('spawn', 'explicit', 'ambient')),
  updated_at          bigint NOT NULL,
  PRIMARY KEY (watcher_session_key, target_session_key, target_agent_id),
  CHECK (last_seen <= notified AND notified <= material)
);
CREATE INDEX session_watch_cursors_target ON ${s}.${TABLES.cursors} (target_agent_id, target_session_key);
-- R20: a notice is pending iff N > L; pendingNotices, drainNotices and the feed read only these rows.
CREATE INDEX session_watch_cursors_pending ON ${s}.${TABLES.cursors} (watcher_session_key) WHERE notified > last_seen;
`;

// Step 2 (R68): the change feed reads what changed, not everything pending. A cursor write that
// changes the pair's notice records the writing transaction's id (pg_current_xact_id(), a 64-bit
// xid that never wraps). Transactions commit in any order, so a reader does not keep a number but
// a snapshot (pg_current_snapshot()): the next read returns the rows changed by transactions that
// snapshot did not see, found through this index from the snapshot's xmin. No counter row, so
// concurrent writers never queue on one. A step-1 schema has NULL everywhere: its pending notices
// reach a feed through the snapshot every subscriber starts from (R61).
const V2 = (s: string) => `
ALTER TABLE ${s}.${TABLES.cursors} ADD COLUMN changed_xid xid8;
CREATE INDEX session_watch_cursors_changed ON ${s}.${TABLES.cursors} (changed_xid) WHERE changed_xid IS NOT NULL;
`;

// Step 3 (T12): who spawned a session, recorded once at its first child_spawned event and kept
// through pruning, so the tree scope never depends on retention. Backfilled from the retained logs.
const V3 = (s: string) => `
CREATE TABLE ${s}.${TABLES.spawnParents} (
  session_key text COLLATE "C" NOT NULL,
  agent_id    text COLLATE "C" NOT NULL,
  parent      text,
  PRIMARY KEY (session_key, agent_id)
);
INSERT INTO ${s}.${TABLES.spawnParents} (session_key, agent_id, parent)
  SELECT DISTINCT ON (agent_id, session_key) session_key, agent_id, CASE WHEN actor_type = 'agent' THEN actor_id END
  FROM ${s}.${TABLES.events} WHERE kind = 'child_spawned' ORDER BY agent_id, session_key, sequence;
`;

/** Every schema step ever released, oldest first. Append only. */
export const MIGRATIONS: readonly PgMigrationStep[] = [
  { version: 1, description: 'signal log, heads, watch cursors, global sequence', sql: V1 },
  { version: 2, description: 'change feed: cursors carry the id of the transaction that last changed their notice, indexed', sql: V2 },
  { version: 3, description: 'spawn parents: who spawned a session, kept through pruning (the tree scope)', sql: V3 },
];

/** The schema version this code writes and fully understands. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

function latestVersion(steps: readonly PgMigrationStep[]): number {
  steps.forEach((step, i) => {
    if (step.version !== i + 1) throw new Error(`migration steps must be numbered 1, 2, 3, ...; step ${i} has version ${step.version}`);
  });
  return steps.length;
}

/**
 * The schema's version without writing: 0 for a schema (or database) without our tables.
 * Throws SchemaTooNewError above `supported`, NotAStateSchemaError for foreign tables with our names.
 */
export async function readSchemaVersion(client: PgQueryable, schema: string, supported: number = SCHEMA_VERSION): Promise<number> {
  const found = await client.query<{ version_table: string | null; events_table: string | null }>(
    'SELECT to_regclass($1) AS version_table, to_regclass($2) AS events_table',
    [`${quoteIdent(schema)}.${TABLES.version}`, `${quoteIdent(schema)}.${TABLES.events}`],
  );
  const row = found.rows[0]!;
  if (row.version_table === null) {
    if (row.events_table !== null) throw new NotAStateSchemaError(schema, `it has a ${TABLES.events} table but no ${TABLES.version} table`);
    return 0;
  }
  const v = await client.query<{ v: string | null }>(`SELECT max(version)::bigint AS v FROM ${quoteIdent(schema)}.${TABLES.version}`);
  const version = v.rows[0]?.v === null || v.rows[0]?.v === undefined ? 0 : toSafeNumber(v.rows[0].v, `${TABLES.version}.version`);
  if (version > supported) throw new SchemaTooNewError(schema, version, supported);
  return version;
}

/** Advisory lock key (two int4 halves) for migrations: one migrator per database at a time. */
const MIGRATION_LOCK: [number, number] = [0x53534b31, 1];

/**
 * Brings the schema up to the newest step in `steps`. Reads first, so an up-to-date schema (or a
 * role that may only read and write rows) needs no DDL privilege; otherwise it takes the migration
 * lock, then in one transaction re-checks the version (another machine may have migrated
 * meanwhile) and applies the missing steps. `steps` is a parameter so tests can simulate other
 * releases.
 *
 * The lock is the session's, taken before the transaction begins: a transaction that waited for a
 * lock inside itself could still hold the catalog as it was when it began, so its re-check would
 * miss the tables the other machine just created and create them again ("already exists"). A
 * transaction that begins after the wait sees them.
 */
export async function migrate(client: PgQueryable, schema: string, steps: readonly PgMigrationStep[] = MIGRATIONS): Promise<number> {
  const target = latestVersion(steps);
  if ((await readSchemaVersion(client, schema, target)) === target) return target;
  const s = quoteIdent(schema);
  await client.query('SELECT pg_advisory_lock($1, $2)', MIGRATION_LOCK);
  try {
    await client.query('BEGIN');
    try {
      const found = await readSchemaVersion(client, schema, target);
      if (found < target) {
        const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
        if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${s}`);
        if (found === 0) {
          await client.query(
            `CREATE TABLE ${s}.${TABLES.version} (version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
          );
        }
        for (const step of steps) {
          if (step.version <= found) continue;
          await client.query(step.sql(s));
          await client.query(`INSERT INTO ${s}.${TABLES.version} (version, description) VALUES ($1, $2)`, [step.version, step.description]);
        }
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    }
  } finally {
    // A connection that is gone has released it already.
    await client.query('SELECT pg_advisory_unlock($1, $2)', MIGRATION_LOCK).catch(() => {});
  }
  return target;
}
