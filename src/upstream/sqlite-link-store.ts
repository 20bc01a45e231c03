import type Database from 'better-sqlite3';
import type { BetterSqlite3Database } from '../sqlite/index.js';
import type { UpstreamLink } from '../core/upstream/index.js';
import type { LinkToken, UpstreamLinkStore } from './types.js';

/**
 * Links in SQLite: the monitor's own tables, next to (never inside) the signal-log schema, so a
 * database file can hold both. Each link row keeps its CAS token in columns and the rest as JSON.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS upstream_monitor_links (
  session_key TEXT NOT NULL,
  agent_id    TEXT NOT NULL,
  serial      INTEGER NOT NULL,
  revision    INTEGER NOT NULL,
  link_json   TEXT NOT NULL,
  PRIMARY KEY (session_key, agent_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS upstream_monitor_meta (
  name  TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
`;

interface Row {
  serial: number;
  revision: number;
  link_json: string;
}

export class SqliteLinkStore implements UpstreamLinkStore {
  private readonly listStmt;
  private readonly getStmt;
  private readonly upsertStmt;
  private readonly deleteStmt;
  private readonly serialStmt;
  private readonly cas;

  private readonly db: Database.Database;

  // The parameter is structural so the published types need no @types/better-sqlite3; it is a
  // better-sqlite3 Database, whose full API is used inside.
  constructor(handle: BetterSqlite3Database) {
    const db = handle as unknown as Database.Database;
    this.db = db;
    db.exec(SCHEMA);
    this.listStmt = db.prepare<[], Row>('SELECT serial, revision, link_json FROM upstream_monitor_links ORDER BY session_key, agent_id');
    this.getStmt = db.prepare<[string, string], Row>('SELECT serial, revision, link_json FROM upstream_monitor_links WHERE session_key = ? AND agent_id = ?');
    this.upsertStmt = db.prepare<[string, string, number, number, string]>(
      `INSERT INTO upstream_monitor_links (session_key, agent_id, serial, revision, link_json) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (session_key, agent_id) DO UPDATE SET serial = excluded.serial, revision = excluded.revision, link_json = excluded.link_json`,
    );
    this.deleteStmt = db.prepare<[string, string]>('DELETE FROM upstream_monitor_links WHERE session_key = ? AND agent_id = ?');
    // A counter row, so serials are never reused even after every link is deleted (U3).
    this.serialStmt = db.prepare<[], { value: number }>(
      `INSERT INTO upstream_monitor_meta (name, value) VALUES ('serial', 1)
       ON CONFLICT (name) DO UPDATE SET value = value + 1 RETURNING value`,
    );
    this.cas = db.transaction((sessionKey: string, agentId: string, expected: LinkToken | undefined, next: UpstreamLink | null): boolean => {
      const row = this.getStmt.get(sessionKey, agentId);
      const matches = expected === undefined ? row === undefined : row !== undefined && row.serial === expected.serial && row.revision === expected.revision;
      if (!matches) return false;
      if (next === null) this.deleteStmt.run(sessionKey, agentId);
      else this.upsertStmt.run(sessionKey, agentId, next.serial, next.revision, JSON.stringify(next));
      return true;
    });
  }

  list(): UpstreamLink[] {
    return this.listStmt.all().map((r) => JSON.parse(r.link_json) as UpstreamLink);
  }

  get(sessionKey: string, agentId: string): UpstreamLink | undefined {
    const row = this.getStmt.get(sessionKey, agentId);
    return row ? (JSON.parse(row.link_json) as UpstreamLink) : undefined;
  }

  compareAndSet(sessionKey: string, agentId: string, expected: LinkToken | undefined, next: UpstreamLink | null): boolean {
    return this.cas.immediate(sessionKey, agentId, expected, next);
  }

  nextSerial(): number {
    return this.serialStmt.get()!.value;
  }
}

/** The link store over an open better-sqlite3 database (creates its tables if absent). */
export function createSqliteLinkStore(db: BetterSqlite3Database): SqliteLinkStore {
  return new SqliteLinkStore(db);
}
