import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { StoreFactory } from '../spec/index.js';
import type { ConformanceTarget, OpenHandle } from './handles.js';

/**
 * Loads a contract factory from a module: its `create` export, else its default export (a
 * factory, or an object with `create`). Relative paths resolve against the working directory.
 */
export async function loadFactory(modulePath: string): Promise<StoreFactory> {
  const url = /^[a-z][a-z0-9+.-]*:/i.test(modulePath) && !/^[a-z]:[\\/]/i.test(modulePath) ? modulePath : pathToFileURL(resolve(modulePath)).href;
  const mod = (await import(url)) as Record<string, unknown>;
  const candidates = [mod['create'], mod['default'], (mod['default'] as Record<string, unknown> | undefined)?.['create']];
  const factory = candidates.find((c) => typeof c === 'function');
  if (!factory) throw new Error(`${modulePath} exports no factory: export \`create(options)\` or a default factory (spec/schemas/contract.ts StoreFactory)`);
  return factory as StoreFactory;
}

/**
 * Like loadFactory, for the multi-handle mode too: when the module also exports `openHandle`
 * (or its default export is `{create, openHandle}`), the result opens more handles on one store.
 */
export async function loadTarget(modulePath: string): Promise<ConformanceTarget> {
  const create = await loadFactory(modulePath);
  const url = /^[a-z][a-z0-9+.-]*:/i.test(modulePath) && !/^[a-z]:[\\/]/i.test(modulePath) ? modulePath : pathToFileURL(resolve(modulePath)).href;
  const mod = (await import(url)) as Record<string, unknown>;
  const openHandle = [mod['openHandle'], (mod['default'] as Record<string, unknown> | undefined)?.['openHandle']].find((c) => typeof c === 'function') as OpenHandle | undefined;
  return openHandle ? { create, openHandle } : create;
}
