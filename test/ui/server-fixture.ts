/**
 * One live view over a real SQLite file on a real port, in process, for the tests that hold the
 * server's answers to exact bytes: a temp directory, a store seeded once and closed, the read-only
 * source over it, and a client that returns status, headers and body.
 */
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteStore, type SqliteStore } from '../../src/sqlite/index.js';
import type { Logger } from '../../src/shared/logger.js';
import { APP_PATH, startUiServer, type UiServer } from '../../src/ui/server.js';
import { SqliteUiSource } from '../../src/ui/sqlite-source.js';
import type { UiSource } from '../../src/ui/source.js';

export const T0 = 1_767_225_600_000;

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface CallOptions {
  method?: string;
  /** Replaces the default (the token as a bearer header). */
  headers?: Record<string, string>;
  /** Resolves with the first chunk and drops the connection (for the event stream). */
  firstChunk?: boolean;
}

export interface UiFixture {
  readonly server: UiServer;
  readonly source: SqliteUiSource;
  readonly path: string;
  call(path: string, options?: CallOptions): Promise<Reply>;
  /** GET of `${APP_PATH}api/${path}` with the token, its body parsed. */
  api(path: string): Promise<{ status: number; json: Record<string, unknown> }>;
  close(): Promise<void>;
}

export interface UiFixtureOptions {
  token: string;
  /** Writes the file's state; `tick` moves the store's clock on by a minute. */
  seed?: (store: SqliteStore, tick: () => void) => Promise<void>;
  /** Default 50; 'server-default' leaves it to the server. */
  pollMs?: number | 'server-default';
  logger?: Logger;
  /** Serves this instead of the file's source (a wrapper of it, say); the file's is still closed. */
  wrap?: (source: SqliteUiSource) => UiSource;
}

export function callServer(port: number, token: string, path: string, options: CallOptions = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(`http://127.0.0.1:${port}${path}`, { method: options.method ?? 'GET', headers: options.headers ?? { authorization: `Bearer ${token}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => {
        body += d;
        if (options.firstChunk) {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
          req.destroy();
        }
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', (e) => (options.firstChunk ? undefined : reject(e)));
    req.end();
  });
}

export async function startUiFixture(options: UiFixtureOptions): Promise<UiFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'ssk-ui-fixture-'));
  const path = join(dir, 'team.db');
  let now = T0;
  const store = createSqliteStore({ path, now: () => now });
  await options.seed?.(store, () => void (now += 60_000));
  store.close();
  const source = SqliteUiSource.open(path);
  const server = await startUiServer({ source: options.wrap ? options.wrap(source) : source, token: options.token, ...(options.pollMs === 'server-default' ? {} : { pollMs: options.pollMs ?? 50 }), ...(options.logger ? { logger: options.logger } : {}) });
  const call = (p: string, o?: CallOptions) => callServer(server.port, options.token, p, o);
  return {
    server,
    source,
    path,
    call,
    api: async (p) => {
      const r = await call(`${APP_PATH}api/${p}`);
      return { status: r.status, json: JSON.parse(r.body) as Record<string, unknown> };
    },
    close: async () => {
      await server.close();
      await source.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
