import { existsSync } from 'node:fs';
import type { SessionStateStore } from '../../spec/index.js';
import { createMemoryStore } from '../memory/memory-store.js';
import { parseCommand, shellQuote, wantsHelp } from './args.js';
import { demoClock, DEMO_CHILD, DEMO_MANAGER, runDemo, type DemoOptions } from './demo.js';
import { DEMO_USAGE } from './help.js';
import { CliError, EXIT, UsageError, type ExitCode, type Io } from './io.js';
import { loadSqlite } from './load-sqlite.js';

/**
 * `session-state-kit demo`: the scenario in demo.ts on the SQLite adapter (':memory:' by default),
 * the in-memory reference store (--store memory), or a new file (--db) that inspect can read after.
 */
export async function demoCommand(argv: readonly string[], io: Io): Promise<ExitCode> {
  if (wantsHelp(argv)) {
    io.out(DEMO_USAGE);
    return EXIT.ok;
  }
  const { values, positionals } = parseCommand(argv, { store: { type: 'string' }, db: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, 'demo');
  if (positionals.length > 0) throw new UsageError(`demo takes no arguments, got: ${positionals.join(' ')}`, ['see: session-state-kit demo --help']);
  const kind = values.store ?? 'sqlite';
  if (kind !== 'sqlite' && kind !== 'memory') throw new UsageError(`--store must be sqlite or memory, got ${JSON.stringify(kind)}`);
  const file = values.db;
  if (file !== undefined && kind === 'memory') throw new UsageError('--db needs the SQLite store (leave out --store memory)');
  if (file !== undefined && existsSync(file)) {
    throw new UsageError(`${file} already exists; the demo writes a fresh database`, ['pick a new path, e.g. --db /tmp/ssk-demo.db']);
  }

  const clock = demoClock();
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
    throw new CliError(EXIT.failure, `demo failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  await store.close();
  if (file !== undefined) {
    const q = shellQuote(file);
    print(`\nThe state is kept in ${file}; look at it without writing to it:`);
    print(`   session-state-kit inspect ${q} heads`);
    print(`   session-state-kit inspect ${q} changes ${DEMO_CHILD} --since 0`);
    print(`   session-state-kit inspect ${q} notices ${DEMO_MANAGER}`);
  }
  return EXIT.ok;
}
