import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { MAX_POLL_MS, parseCommand, parseInteger } from './args.js';
import { cliInvocation } from './invocation.js';
import { DatabaseProblem, EXIT, UsageError, type ExitCode, type Io } from './io.js';
import { toDatabaseProblem } from './state-db.js';
import type { UiSource } from '../ui/source.js';

/**
 * `session-state-kit ui`: the live view (PROTOCOL.md section 13). Opens the store read-only
 * (R80), serves the page on loopback unless told otherwise, behind a token on every address (R87),
 * and runs until SIGINT/SIGTERM.
 */

const OPTIONS = {
  db: { type: 'string' },
  pg: { type: 'string' },
  schema: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  token: { type: 'string' },
  'token-file': { type: 'string' },
  'poll-ms': { type: 'string' },
  open: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface UiCommandOptions {
  /** Resolves when the server should stop; default: SIGINT or SIGTERM. */
  until?: Promise<void>;
  /** Where SSK_UI_TOKEN is read; default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
}

const TOKEN_RULE = '16 to 200 characters of A-Z, a-z, 0-9, "_" or "-"';

/**
 * R87: the token from --token-file, --token or SSK_UI_TOKEN (undefined: the server makes one).
 * A command line is readable by every local user (ps, /proc/<pid>/cmdline); a file or the
 * environment is not, so --token still works but is warned about.
 */
function givenToken(values: { token?: string | undefined; 'token-file'?: string | undefined }, env: UiCommandOptions['env'] & object, pattern: RegExp, io: Io): string | undefined {
  const file = values['token-file'];
  if (file !== undefined && values.token !== undefined) throw new UsageError('pass the token one way: --token-file <path>, SSK_UI_TOKEN or --token, not two');
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new UsageError(`--token-file ${file}: cannot read it (${String((error as { code?: unknown }).code ?? error)})`);
    }
    const token = text.trim();
    if (!pattern.test(token)) throw new UsageError(`--token-file ${file} must hold one token: ${TOKEN_RULE}`);
    // Like ssh with a private key: a token others may read is no secret (mode bits mean nothing on Windows).
    if (process.platform !== 'win32' && (statSync(file).mode & 0o077) !== 0) {
      io.err(`session-state-kit ui: warning: ${file} can be read by other users; chmod 600 it\n`);
    }
    return token;
  }
  if (values.token !== undefined) {
    if (!pattern.test(values.token)) throw new UsageError(`--token must be ${TOKEN_RULE}`);
    io.err('session-state-kit ui: warning: --token is visible to every local user (ps, /proc/<pid>/cmdline); pass it with --token-file <path> or SSK_UI_TOKEN instead\n');
    return values.token;
  }
  const fromEnv = env['SSK_UI_TOKEN'];
  if (fromEnv === undefined || fromEnv === '') return undefined;
  if (!pattern.test(fromEnv)) throw new UsageError(`SSK_UI_TOKEN must be ${TOKEN_RULE}`);
  return fromEnv;
}

function signalled(): { stopped: Promise<void>; dispose: () => void } {
  let stop = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return { stopped, dispose: () => (process.off('SIGINT', stop), process.off('SIGTERM', stop)) };
}

function openBrowser(url: string, io: Io): void {
  const [cmd, args] = process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
  try {
    const child = spawn(cmd, args as string[], { stdio: 'ignore', detached: true });
    child.on('error', () => io.err(`session-state-kit ui: could not open a browser (${cmd}); open ${url} yourself\n`));
    child.unref();
  } catch {
    io.err(`session-state-kit ui: could not open a browser; open ${url} yourself\n`);
  }
}

export async function uiCommand(argv: readonly string[], io: Io, options: UiCommandOptions = {}): Promise<ExitCode> {
  const { values, positionals } = parseCommand(argv, OPTIONS, 'ui');
  if (positionals.length > 0) throw new UsageError(`ui takes no positional arguments, got ${positionals.join(' ')}`, ['pass the store with --db <file> or --pg <url>']);
  if ((values.db === undefined) === (values.pg === undefined)) throw new UsageError('ui needs exactly one of --db <file> or --pg <url>', [`see: ${cliInvocation()} ui --help`]);
  if (values.schema !== undefined && values.pg === undefined) throw new UsageError('--schema needs --pg <url>');
  const port = values.port === undefined ? 0 : parseInteger(values.port, '--port');
  if (port > 65535) throw new UsageError(`--port must be an integer from 0 to 65535, got ${port}`);
  const pollMs = values['poll-ms'] === undefined ? undefined : parseInteger(values['poll-ms'], '--poll-ms', 10, MAX_POLL_MS);
  const host = values.host ?? '127.0.0.1';
  // An empty host would bind every interface and print an address nobody can open.
  if (host.trim() === '') throw new UsageError('--host needs an address or a host name (default 127.0.0.1)');
  const { TOKEN_PATTERN, startUiServer } = await import('../ui/server.js');
  // R87: without one given the server makes a token, on loopback too, and it is printed in the address.
  const token = givenToken(values, options.env ?? process.env, TOKEN_PATTERN, io);

  let source: UiSource;
  if (values.db !== undefined) {
    const path = values.db;
    // The inspect checks (exit 3): missing, not a regular file; then, on opening, not a state database or too new.
    if (!existsSync(path)) throw new DatabaseProblem(`${path}: no such file`, ['pass the path of a state database file written by the SQLite adapter']);
    if (!statSync(path).isFile()) throw new DatabaseProblem(`${path}: not a regular file`);
    // R80: SQLite URI filenames, so a reader who may not write the file's directory can open it
    // immutable. A process-wide switch that better-sqlite3 reads once, when it loads: this
    // command is the first to load it, and opens only absolute paths (never read as URIs).
    process.env['SQLITE_USE_URI'] ??= '1';
    const { SqliteUiSource } = await import('../ui/sqlite-source.js');
    const { ReadOnlyDirectoryError } = await import('../sqlite/index.js');
    try {
      source = SqliteUiSource.open(path);
    } catch (error) {
      if (error instanceof ReadOnlyDirectoryError) {
        throw new DatabaseProblem(error.message, [
          'give this user write access to the directory (SQLite creates the -shm file there), or',
          'open the view while a writer has the file open (its -wal and -shm exist then), or copy the file somewhere writable',
        ]);
      }
      throw toDatabaseProblem(error, path, 'ui');
    }
  } else {
    const { PgUiSource } = await import('../ui/pg-source.js');
    const { pgOpenProblem } = await import('./pg-state-db.js');
    const url = values.pg!;
    try {
      source = await PgUiSource.open(url, values.schema ?? 'public');
    } catch (error) {
      throw pgOpenProblem(error, url); // the same messages and hints as inspect --pg (exit 3)
    }
  }
  // Listening for the signals before the address is printed: whoever reads it may stop us at once.
  const signals = options.until === undefined ? signalled() : undefined;
  let server: Awaited<ReturnType<typeof startUiServer>>;
  try {
    server = await startUiServer({
      source,
      host,
      port,
      ...(token === undefined ? {} : { token }),
      ...(pollMs === undefined ? {} : { pollMs }),
      logger: { warn: (m, d) => io.err(`session-state-kit ui: ${m} ${d ? JSON.stringify(d) : ''}\n`), error: (m, d) => io.err(`session-state-kit ui: ${m} ${d ? JSON.stringify(d) : ''}\n`) },
    });
  } catch (error) {
    signals?.dispose();
    await source.close();
    const code = (error as { code?: unknown }).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') throw new UsageError(`cannot listen on ${host}:${port} (${String(code)})`, ['pass another --port, or --port 0 for any free port']);
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') throw new UsageError(`--host ${host}: no such host (${String(code)})`, ['pass an address of this machine, e.g. 127.0.0.1']);
    throw error;
  }
  io.out(`session-state-kit ui: ${source.label} (read-only) at ${server.url}`);
  io.out('press Ctrl-C to stop');
  if (values.open === true) openBrowser(server.url, io);
  await (options.until ?? signals!.stopped);
  await server.close();
  await source.close();
  return EXIT.ok;
}


