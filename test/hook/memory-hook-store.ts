import type { HookStore } from '../../src/integrations/hook-apply.js';
import type { MemoryStore } from '../../src/memory/index.js';

/** The store a hook run opens, over a memory store; `extra` replaces parts of it (a failing write, a counted close). */
export function hookStoreOver(memory: MemoryStore, extra: Partial<HookStore> = {}): HookStore {
  return {
    record: (i) => memory.record(i),
    stateVersion: (k, a) => memory.stateVersion(k, a),
    resetSession: (k) => memory.resetSession(k),
    pendingNotices: (w) => memory.pendingNotices(w),
    ackNotices: (w, n) => memory.ackNotices(w, n),
    close: () => undefined,
    ...extra,
  };
}
