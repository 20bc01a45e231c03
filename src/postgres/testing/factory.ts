import type { CreateOptions, SessionStateStore, StoreFactory } from '../../../spec/index.js';
import type { Logger } from '../../shared/logger.js';
import { PostgresStore, createPostgresStore } from '../postgres-store.js';
import { startTestPostgres, type TestPostgres } from './embedded.js';

/**
 * A conformance target on PostgreSQL (used by `session-state-kit conformance --builtin postgres`):
 * a server from startTestPostgres (SSK_PG_URL or embedded), a fresh schema per created store, and
 * `openHandle` opening another pool on the same schema (another machine, multi-handle mode).
 * `dispose` drops the schemas it created (on SSK_PG_URL) and stops an embedded server.
 */
export interface PostgresConformanceTarget {
  factory: StoreFactory & { openHandle: (first: SessionStateStore, options: CreateOptions) => Promise<SessionStateStore> };
  server: TestPostgres;
  dispose(): Promise<void>;
}

export async function postgresConformanceTarget(logger: Logger): Promise<PostgresConformanceTarget> {
  const server = await startTestPostgres();
  const tag = `${process.pid.toString(36)}_${Date.now().toString(36)}`;
  const schemas: string[] = [];
  const open: PostgresStore[] = [];
  const track = (p: Promise<PostgresStore>) =>
    p.then((s) => {
      open.push(s);
      return s;
    });
  const create = (options: CreateOptions) => {
    const schema = `ssk_conformance_${tag}_${schemas.length}`;
    schemas.push(schema);
    return track(createPostgresStore({ ...options, connectionString: server.url, schema, logger, maxConnections: 4 }));
  };
  const factory = Object.assign(create, {
    openHandle: (first: SessionStateStore, options: CreateOptions) => {
      if (!(first instanceof PostgresStore)) throw new TypeError('openHandle: the first handle is not a PostgresStore');
      return track(createPostgresStore({ ...options, connectionString: server.url, schema: first.schema, logger, maxConnections: 4 }));
    },
  });
  return {
    factory,
    server,
    dispose: async () => {
      for (const s of open) await s.close().catch(() => {});
      if (!server.embedded && schemas.length > 0) {
        const { loadPg } = await import('../driver.js');
        const pg = await loadPg();
        const client = new pg.Client({ connectionString: server.url });
        await client.connect();
        for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`).catch(() => {});
        await client.end();
      }
      await server.stop();
    },
  };
}
