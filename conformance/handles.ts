/**
 * Multi-handle mode (W8, PROTOCOL.md "Conformance wire protocol"):
 * an implementation may open several handles on one backing store (connections to one SQLite
 * file, processes behind `--exec`, clients of one PostgreSQL database). The suite then spreads the
 * commands of its model-based properties over the handles, and checks that every handle sees the
 * same durable state: a notice raised through one handle is pending in all of them, and a drain
 * through one takes it for all (R20, R26, R27).
 *
 * What a handle keeps for itself: only what a process keeps. Each handle has its own prune clock
 * (R43: an insert through a handle prunes when an hour has passed since that handle's last prune;
 * opening a handle and restart() on it prune), exactly as two processes on one file would; the
 * reference runs the same way (MemoryStore.openHandle shares the state, not the prune clock).
 */
import type { CreateOptions, MaybePromise, SessionStateStore, StoreFactory } from '../spec/index.js';
import { MemoryStore, createMemoryStore } from '../src/memory/index.js';

/** Another handle on the backing store that `first` (made by `create`) lives on. */
export type OpenHandle = (first: SessionStateStore, options: CreateOptions) => MaybePromise<SessionStateStore>;

/**
 * What `runConformance` accepts: a contract StoreFactory, or a factory object that can also open
 * more handles on one store. `create` makes a fresh, empty store (the first handle); `openHandle`
 * opens another handle on the same backing store, with the same clock (options.now) and limits.
 */
export interface HandleFactory {
  create: StoreFactory;
  openHandle?: OpenHandle;
}

/** What runConformance accepts: a plain StoreFactory, or a HandleFactory that can also open more handles on one store. */
export type ConformanceTarget = StoreFactory | HandleFactory;

/** Either shape as a HandleFactory. */
export function asHandleFactory(target: ConformanceTarget): HandleFactory {
  if (typeof target === 'function') {
    // A function may carry openHandle itself (execFactory does).
    const open = (target as StoreFactory & { openHandle?: OpenHandle }).openHandle;
    return open ? { create: target, openHandle: open } : { create: target };
  }
  if (!target || typeof target.create !== 'function') throw new TypeError('runConformance needs a StoreFactory or an object with create(options) (and optionally openHandle(first, options))');
  return target;
}

/** The reference with handles: MemoryStore handles sharing one MemoryState. */
export const MEMORY_HANDLES: HandleFactory = {
  create: createMemoryStore,
  openHandle: (first, options) => {
    if (!(first instanceof MemoryStore)) throw new TypeError('MEMORY_HANDLES.openHandle: the first handle is not a MemoryStore');
    return first.openHandle(options);
  },
};

/** Default number of handles when the target can open more than one. */
export const DEFAULT_HANDLES = 3;
