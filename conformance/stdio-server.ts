/**
 * Serves one of our stores over the conformance wire protocol on stdin/stdout, proving the
 * protocol end to end (conformance/stdio.test.ts) and showing other languages what to write:
 *
 *   session-state-kit conformance --exec "node --import tsx conformance/stdio-server.ts --store memory"
 *
 * Flags: --store memory | sqlite (an in-memory SQLite database per create) | sqlite-file (a fresh
 * database file per create, which other processes of this command open again: multi-handle mode,
 * W8), --broken NAME (one of conformance/broken), --impl PATH (a module exporting `create` or a
 * default factory), --quirk NAME (one deliberately broken wire behaviour, conformance/wire-cases.ts).
 *
 *   session-state-kit conformance --handles 3 --exec "node --import tsx conformance/stdio-server.ts --store sqlite-file"
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionStateStore, StoreFactory } from '../spec/index.js';
import { loadFactory } from './load.js';
import { serveWire, type WireQuirk, type WireSharing } from './wire-server.js';

async function pickFactory(argv: string[]): Promise<{ factory: StoreFactory; name: string; sharing?: WireSharing; cleanup?: () => void }> {
  const flag = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const broken = flag('--broken');
  if (broken !== undefined) {
    const { brokenByName } = await import('./broken/index.js');
    const b = brokenByName(broken);
    if (!b) throw new Error(`unknown broken implementation ${broken}`);
    return { factory: b.create, name: `broken:${b.name}` };
  }
  const impl = flag('--impl');
  if (impl !== undefined) return { factory: await loadFactory(impl), name: impl };
  const store = flag('--store') ?? 'memory';
  if (store === 'memory') {
    const { createMemoryStore } = await import('../src/memory/index.js');
    return { factory: createMemoryStore, name: 'session-state-kit memory' };
  }
  if (store === 'sqlite') {
    const { sqliteStoreFactory } = await import('../src/sqlite/index.js');
    const { silentLogger } = await import('../src/shared/logger.js');
    return { factory: sqliteStoreFactory({ logger: silentLogger }), name: 'session-state-kit sqlite (:memory:)' };
  }
  if (store === 'sqlite-file') {
    const { SqliteStore, createSqliteStore } = await import('../src/sqlite/index.js');
    const { silentLogger } = await import('../src/shared/logger.js');
    // Files live in this process's own directory; the process that created a file removes it with
    // the directory when it exits (the driver closes the other processes' handles first).
    const dir = mkdtempSync(join(tmpdir(), 'ssk-wire-'));
    let files = 0;
    const sharing: WireSharing = {
      backingOf: (s: SessionStateStore) => (s instanceof SqliteStore ? s.path : undefined),
      open: (backing, options) => createSqliteStore({ logger: silentLogger, ...options, path: backing }),
    };
    const factory: StoreFactory = (options) => {
      const path = join(dir, `store-${files++}.db`);
      const s = createSqliteStore({ logger: silentLogger, ...options, path });
      const close = s.close.bind(s);
      s.close = () => {
        close();
        for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
      };
      return s;
    };
    return { factory, name: 'session-state-kit sqlite (a file per create, shared across processes)', sharing, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
  }
  throw new Error(`unknown --store ${store} (memory, sqlite or sqlite-file)`);
}

pickFactory(process.argv.slice(2)).then(
  async ({ factory, name, sharing, cleanup }) => {
    const quirk = process.argv.includes('--quirk') ? (process.argv[process.argv.indexOf('--quirk') + 1] as WireQuirk) : undefined;
    await serveWire(factory, { input: process.stdin, output: process.stdout }, name, sharing, quirk === undefined ? {} : { quirk });
    cleanup?.();
    process.exit(0);
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  },
);
