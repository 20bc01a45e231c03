import { PgStateReader } from '../postgres/index.js';
import { StoreUiSource } from './store-source.js';

/**
 * The live view of a PostgreSQL store (`ui --pg <url>`): the pages of store-source.ts over the
 * schema's read model (postgres/state-reader.ts), on one connection whose transactions are all
 * READ ONLY (R80), so the server refuses any write.
 */
export class PgUiSource extends StoreUiSource<PgStateReader> {
  /**
   * Connects, makes every transaction of the session read-only, and checks the schema. Throws the
   * adapter's typed errors (PostgresStoreError and its kinds, NotAStateSchemaError). The header
   * names the store `label` (default: the URL without its password) and the schema unless `public`.
   */
  static async open(url: string, schema: string, label?: string): Promise<PgUiSource> {
    return new PgUiSource(await PgStateReader.open(url, schema, { consistency: 'live', applicationName: 'session-state-kit-ui', ...(label === undefined ? {} : { label }) }));
  }
}
