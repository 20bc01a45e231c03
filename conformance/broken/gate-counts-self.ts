/**
 * BROKEN (R9b): onlyIfWatched counts any agent-scoped producer watcher, including the target
 * session itself, so a producer that passes the session's own key writes events nobody can be told
 * about (R11 drops the target from its own watcher set).
 */
import type { CreateOptions, WatchCursor } from '../../spec/index.js';
import { isAgentScopedKey } from '../../src/core/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R9b', what: 'onlyIfWatched counts a producer watcher equal to the target' };

class GateCountsSelf extends VariantStore {
  protected override gate(cursorsOnTarget: WatchCursor[], watchers: readonly string[]): boolean {
    return cursorsOnTarget.length > 0 || watchers.some(isAgentScopedKey);
  }
}

export const create = (options: CreateOptions) => new GateCountsSelf(options);
