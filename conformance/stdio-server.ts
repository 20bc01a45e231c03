/**
 * Serves one of our stores over the conformance wire protocol on stdin/stdout, proving the
 * protocol end to end (conformance/stdio.test.ts) and showing other languages what to write:
 *
 *   session-state-kit conformance --exec "node --import tsx conformance/stdio-server.ts --store memory"
 *
 * Flags: --store memory | sqlite (an in-memory SQLite database per create), --broken NAME (one of
 * conformance/broken), --impl PATH (a module exporting `create` or a default factory).
 */
import type { StoreFactory } from '../spec/index.js';
import { loadFactory } from './load.js';
import { serveWire } from './wire-server.js';

async function pickFactory(argv: string[]): Promise<{ factory: StoreFactory; name: string }> {
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
  throw new Error(`unknown --store ${store} (memory or sqlite)`);
}

pickFactory(process.argv.slice(2)).then(
  async ({ factory, name }) => {
    await serveWire(factory, { input: process.stdin, output: process.stdout }, name);
    process.exit(0);
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  },
);
