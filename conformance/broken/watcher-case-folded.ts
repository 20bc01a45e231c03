/**
 * BROKEN (R20): watcher keys folded to lower case, as one production system's queue did: the
 * notices of `agent:main:Peer` and `agent:main:peer` share one queue, so a read by either shows
 * both and a drain by `agent:main:peer` eats the notice of `agent:main:Peer`. Keys are identifiers
 * parsed exactly as given (R1). Reaching it takes two watcher keys that differ only in case
 * (conformance/arbitraries.ts: PEER_CASE).
 */
import type { CreateOptions, WatchCursor } from '../../spec/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R20', what: 'folds watcher keys to lower case, so a drain by agent:main:peer eats the notice of agent:main:Peer' };

class WatcherCaseFolded extends VariantStore {
  protected override cursorsOfWatcher(watcherSessionKey: string): WatchCursor[] {
    const folded = watcherSessionKey.toLowerCase();
    const out: WatchCursor[] = [];
    for (const byWatcher of this.state.cursors.values()) {
      for (const c of byWatcher.values()) if (c.watcherSessionKey.toLowerCase() === folded) out.push(c);
    }
    return out;
  }
}

export const create = (options: CreateOptions) => new WatcherCaseFolded(options);
