import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, join } from 'node:path';
import type { SessionStateStore } from '../../spec/index.js';
import { createMemoryStore } from '../memory/index.js';
import { parseCommand, shellQuote, wantsHelp } from './args.js';
import { demoClock, DEMO_AGENT, DEMO_CHILD, DEMO_MANAGER, DEMO_SPAN_MS, runDemo, type DemoOptions } from './demo.js';
import { DEMO_USAGE } from './help.js';
import { CliError, EXIT, UsageError, type ExitCode, type Io } from './io.js';
import { cliInvocation } from './invocation.js';
import { loadSqlite } from './load-sqlite.js';
import { messageOf } from '../shared/logger.js';

/**
 * `session-state-kit demo`: the scenario in demo.ts on the SQLite adapter (':memory:' by default),
 * the in-memory reference store (--store memory), or a new file (--db) that inspect can read after.
 */
export async function demoCommand(argv: readonly string[], io: Io): Promise<ExitCode> {
  if (wantsHelp(argv)) {
    io.out(DEMO_USAGE);
    return EXIT.ok;
  }
  const { values, positionals } = parseCommand(
    argv,
    { store: { type: 'string' }, db: { type: 'string' }, keep: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    'demo',
  );
  if (positionals.length > 0) throw new UsageError(`demo takes no arguments, got: ${positionals.join(' ')}`, [`see: ${cliInvocation()} demo --help`]);
  const kind = values.store ?? 'sqlite';
  if (kind !== 'sqlite' && kind !== 'memory') throw new UsageError(`--store must be sqlite or memory, got ${JSON.stringify(kind)}`);
  if (values.keep === true && values.db !== undefined) throw new UsageError('--keep picks a new file itself; leave out --db (or --keep)');
  // --keep (npm run demo): a new file in the temp directory, kept for inspect and the library.
  const file = values.keep === true ? freePath(join(tmpdir(), 'ssk-demo.db')) : values.db;
  if (file !== undefined && kind === 'memory') throw new UsageError(`${values.keep === true ? '--keep' : '--db'} needs the SQLite store (leave out --store memory)`);
  const leftover = file === undefined ? undefined : leftoverOf(file);
  if (file !== undefined && leftover !== undefined) {
    const free = freePath(file);
    throw new UsageError(`${leftover} already exists; the demo writes a fresh database`, [`pick a new path, e.g. --db ${shellQuote(free)}`]);
  }

  // A file outlives the demo, so its clock ends at the wall clock: a real-clock store (or inspect)
  // opening it later finds the last steps' events and cursor inside retention instead of pruning
  // them (R40, R44). Without a file the fixed start keeps the output reproducible.
  const clock = file === undefined ? demoClock() : demoClock(Math.floor(Date.now()) - DEMO_SPAN_MS);
  const print = (line: string) => io.out(line);
  let store: SessionStateStore;
  let restart: DemoOptions['restart'];
  if (kind === 'memory') {
    store = createMemoryStore({ now: clock.now });
    print('session-state-kit demo: one manager, one child, one person (in-memory reference store)');
  } else {
    const { createSqliteStore } = await loadSqlite();
    if (file === undefined) {
      store = createSqliteStore({ path: ':memory:', now: clock.now });
      print("session-state-kit demo: one manager, one child, one person (SQLite adapter, database ':memory:')");
    } else {
      store = createSqliteStore({ path: file, now: clock.now });
      print(`session-state-kit demo: one manager, one child, one person (SQLite adapter, file ${file})`);
      // A real restart: the connection closes and the file is reopened; the pending notice is read from it (R29).
      restart = async (s) => {
        await s.close();
        return { store: createSqliteStore({ path: file, now: clock.now }), how: 'store closed and the file reopened' };
      };
    }
  }
  try {
    store = await runDemo(store, clock, print, restart ? { restart } : {});
  } catch (error) {
    await store.close();
    if (error instanceof CliError) throw error;
    throw new CliError(EXIT.failure, `demo failed: ${messageOf(error)}`);
  }
  await store.close();
  if (file !== undefined) {
    const q = shellQuote(file);
    // Printed as this process was started, so each line runs as printed (a fresh clone has no bin yet).
    const cli = cliInvocation();
    print(`\nThe state is kept in ${file}; look at it without writing to it:`);
    print(`   ${cli} inspect ${q} heads`);
    print(`   ${cli} inspect ${q} changes ${DEMO_CHILD} --since 0`);
    print(`   ${cli} inspect ${q} notices ${DEMO_MANAGER}`);
    print('or open it with the library (the clock is the wall clock; the demo ended at "now"):');
    print(`   const store = createSqliteStore({ path: ${JSON.stringify(file)} });`);
    print(`   store.pendingNotices(${JSON.stringify(DEMO_MANAGER)}); store.changesSince({ sessionKey: ${JSON.stringify(DEMO_CHILD)}, agentId: ${JSON.stringify(DEMO_AGENT)}, since: 0 });`);
    print('or watch it in the browser, live and read-only (Ctrl-C stops it):');
    print(`   ${cli} ui --db ${q}`);
  } else {
    // Nothing is left to look at: the next step is a run that keeps its file.
    print(`\nThis run kept nothing. Keep the state in a file, then look at it (inspect, ui): ${cliInvocation()} demo --keep`);
  }
  return EXIT.ok;
}

/** `path` if nothing is there, else the first of `<name>-2<ext>`, `<name>-3<ext>`, ... that is free, in the same directory. */
export function freePath(path: string): string {
  if (!taken(path)) return path;
  const ext = extname(path);
  const stem = basename(path, ext);
  for (let i = 2; ; i++) {
    const candidate = join(dirname(path), `${stem}-${i}${ext}`);
    if (!taken(candidate)) return candidate;
  }
}

/**
 * A database path is in use while the file or any of SQLite's files beside it exists: a new
 * database next to a deleted one's `-wal` and `-shm` would read them as its own (a disk I/O error).
 */
function taken(path: string): boolean {
  return leftoverOf(path) !== undefined;
}

function leftoverOf(path: string): string | undefined {
  return [path, `${path}-wal`, `${path}-shm`, `${path}-journal`].find((p) => existsSync(p));
}
