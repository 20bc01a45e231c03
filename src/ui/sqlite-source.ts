import { SqliteStateReader, type SqliteReadMode, type SqliteStateReaderOptions, type SqlValue } from '../sqlite/index.js';
import { StoreUiSource } from './store-source.js';

/**
 * The live view of a SQLite state file (R80-R86): the pages of store-source.ts over the file's
 * read model (sqlite/state-reader.ts), which opens it read-only and `query_only`, falling back to
 * an immutable read where this user cannot create its -shm (R80).
 */
export class SqliteUiSource extends StoreUiSource<SqliteStateReader> {
  /**
   * Opens an existing state file read-only; throws the adapter's typed errors (NotAStateDatabaseError,
   * SchemaTooNewError), and ReadOnlyDirectoryError when this user cannot read it at all (R80).
   */
  static open(path: string, options: Pick<SqliteStateReaderOptions, 'driver'> = {}): SqliteUiSource {
    return new SqliteUiSource(SqliteStateReader.open(path, options));
  }

  /** 'immutable' while the file is read without a -shm (R80), else 'shared'. */
  get openMode(): SqliteReadMode {
    return this.reads.openMode;
  }

  /** The plan SQLite chooses for a statement (tests assert pages read through an index, R82). */
  plan(sql: string, ...params: SqlValue[]): string[] {
    return this.reads.plan(sql, ...params);
  }
}
