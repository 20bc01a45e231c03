import type { SessionStateStore } from '../../spec/index.js';
import type { ToolStore } from '../../src/tools/index.js';

/** A store that logs every method call, so "nothing written" (and "nothing read") can be asserted. */
export function spied(store: SessionStateStore): { store: ToolStore; calls: string[] } {
  const calls: string[] = [];
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(prop));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, calls };
}
