import { createRequire } from 'node:module';

/**
 * Lazy loading: nothing here runs at import time, so `session-state-kit/sqlite` imports on Node 22
 * or Bun without better-sqlite3 installed, and on Node 20 without node:sqlite.
 */

export function runtimeName(): string {
  const bun = process.versions['bun'];
  return bun === undefined ? `Node ${process.versions.node}` : `Bun ${bun}`;
}

export function isBun(): boolean {
  return process.versions['bun'] !== undefined;
}

/** A package from the application's node_modules, as resolved from this file. */
export function requirePackage(name: string): unknown {
  return createRequire(import.meta.url)(name);
}

/** A runtime built-in ('node:sqlite', 'bun:sqlite'), or undefined where the runtime has none. */
export function builtinModule(name: string): unknown {
  const getBuiltin = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  if (typeof getBuiltin === 'function') {
    const found = getBuiltin.call(process, name);
    if (found !== undefined) return found;
  }
  // Older Bun releases lack getBuiltinModule but resolve their built-ins through require.
  if (isBun()) return requirePackage(name);
  return undefined;
}
