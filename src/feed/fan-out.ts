import { compareFeedPairs, newsByWatcher, parseRoutePayload, snapshotPending, watcherRouteHash } from '../core/index.js';
import { errorDetails, type Logger } from '../shared/logger.js';
import type { PairChange, PendingPair, PendingReadRequest } from '../../spec/index.js';
import type { NoticeSignal } from './types.js';

/**
 * Who hears what a feed reads (R60, R61, R69, R73): the subscribers, by watcher and of every
 * watcher, the newcomers waiting for their snapshot, and the routing hashes a server push is held
 * against. When to read is the feed's (feed.ts); this side only hands out what a read found.
 */

export interface Subscriber {
  listener: (s: NoticeSignal) => void;
  watcherSessionKey: string | undefined;
  /** R61: waits for the read that serves its first signals from a snapshot. */
  fresh: boolean;
  /** Set while a read carries its snapshot; a read that fails leaves it fresh. */
  serving: boolean;
}

/** R68: past this many watchers a read asks for every watcher's changes rather than send the list each time. */
const MAX_WATCHERS_ASKED = 256;

/**
 * R73: every feed on one connection hears the same payload of a commit, one after another: the
 * last one parsed is kept, so a process parses each payload once, not once per feed.
 */
let lastPayload: string | undefined;
let lastRoute: ReadonlySet<string> | 'everyone' = 'everyone';
function routeOf(payload: string | undefined): ReadonlySet<string> | 'everyone' {
  if (payload === undefined) return 'everyone';
  if (payload !== lastPayload) {
    lastRoute = parseRoutePayload(payload);
    lastPayload = payload;
  }
  return lastRoute;
}

export class Audience {
  private readonly subscribers = new Set<Subscriber>();
  /** Subscribers that hear of every watcher, and those of one watcher each: a signal costs its listeners, not every subscriber (R69). */
  private readonly everyone = new Set<Subscriber>();
  private readonly byWatcher = new Map<string, Set<Subscriber>>();
  /** Subscribers still waiting for their snapshot (R61): a read looks at these, not at every subscriber. */
  private readonly awaitingSnapshot = new Set<Subscriber>();
  /** R73: the routing hashes of the watchers in byWatcher, each with how many of those watchers share it. */
  private readonly hashWatchers = new Map<string, number>();

  constructor(private readonly logger: Logger) {}

  get size(): number {
    return this.subscribers.size;
  }

  /** R61: whether a subscriber still waits for the snapshot a read will serve it. */
  get waiting(): boolean {
    return this.awaitingSnapshot.size > 0;
  }

  /** Bumped whenever interest() may answer differently. */
  interestVersion = 0;

  /** R75: the wakes this audience wants: everything while someone hears every watcher, else its watchers' routing hashes. */
  interest(): 'all' | string[] {
    return this.everyone.size > 0 ? 'all' : [...this.hashWatchers.keys()];
  }

  /** Whether a change of this watcher's pair reaches anyone here. */
  listensTo(watcherSessionKey: string): boolean {
    return this.everyone.size > 0 || this.byWatcher.has(watcherSessionKey);
  }

  /** A newcomer: fresh until a read serves its snapshot (R61). Returns its removal, which says whether it was still here. */
  add(listener: (s: NoticeSignal) => void, watcher: string | undefined): () => boolean {
    const sub: Subscriber = { listener, watcherSessionKey: watcher, fresh: true, serving: false };
    this.subscribers.add(sub);
    this.awaitingSnapshot.add(sub);
    if (watcher === undefined) {
      if (this.everyone.size === 0) this.interestVersion++;
      this.everyone.add(sub);
    } else {
      let set = this.byWatcher.get(watcher);
      if (!set) {
        this.byWatcher.set(watcher, (set = new Set()));
        this.addRoute(watcher);
      }
      set.add(sub);
    }
    return () => {
      if (!this.subscribers.delete(sub)) return false;
      this.awaitingSnapshot.delete(sub);
      if (watcher === undefined) {
        this.everyone.delete(sub);
        if (this.everyone.size === 0) this.interestVersion++;
      } else {
        const set = this.byWatcher.get(watcher);
        set?.delete(sub);
        if (set?.size === 0) {
          this.byWatcher.delete(watcher);
          this.dropRoute(watcher);
        }
      }
      return true;
    };
  }

  clear(): void {
    this.subscribers.clear();
    this.awaitingSnapshot.clear();
    this.everyone.clear();
    this.byWatcher.clear();
    this.hashWatchers.clear();
  }

  /**
   * What the next read asks for besides the changes: the snapshot of the newcomers not yet being
   * served (R61), who they are, and, while nobody hears every watcher, the watchers whose changes
   * are wanted (R68: a fleet's replica reads its own pairs, not every commit's), up to a list
   * short enough to send with every read.
   */
  nextRead(): { served: Subscriber[]; snapshot?: PendingReadRequest['snapshot']; watchers?: string[] } {
    const served = [...this.awaitingSnapshot].filter((s) => !s.serving);
    for (const s of served) s.serving = true;
    const snapshot: PendingReadRequest['snapshot'] = served.some((s) => s.watcherSessionKey === undefined)
      ? 'all'
      : served.length > 0
        ? [...new Set(served.map((s) => s.watcherSessionKey!))]
        : undefined;
    const watchers = this.everyone.size === 0 && this.byWatcher.size <= MAX_WATCHERS_ASKED ? [...this.byWatcher.keys()] : undefined;
    return { served, ...(snapshot === undefined ? {} : { snapshot }), ...(watchers === undefined ? {} : { watchers }) };
  }

  /** A read that failed or was dropped: its newcomers wait for the next one. */
  unserve(served: readonly Subscriber[]): void {
    for (const s of served) s.serving = false;
  }

  /** R60: each watcher's news to its established listeners (a fresh one waits for its snapshot). */
  publishChanges(changes: readonly PairChange[]): void {
    if (changes.length === 0) return;
    for (const [watcher, news] of newsByWatcher(changes)) {
      const pairs: PendingPair[] = news.map(({ pending: _pending, ...pair }) => pair);
      for (const sub of [...this.everyone, ...(this.byWatcher.get(watcher) ?? [])]) {
        if (!sub.fresh && this.subscribers.has(sub)) this.emit(sub, watcher, pairs);
      }
    }
  }

  /** R61: a served subscriber's first signals, one per watcher it listens to with something pending. */
  publishSnapshot(snapshot: readonly PendingPair[], served: readonly Subscriber[]): void {
    const grouped = served.length > 0 ? snapshotPending(snapshot) : new Map<string, readonly PendingPair[]>();
    const watchers = [...grouped.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const sub of served) {
      sub.serving = false;
      if (!this.subscribers.has(sub)) continue; // unsubscribed during the read
      sub.fresh = false;
      this.awaitingSnapshot.delete(sub);
      for (const w of sub.watcherSessionKey === undefined ? watchers : [sub.watcherSessionKey]) {
        const pairs = grouped.get(w);
        if (pairs && pairs.length > 0) this.emit(sub, w, [...pairs].sort(compareFeedPairs));
      }
    }
  }

  /**
   * R73: whether a server push concerns anyone here: a wake without a payload or with `*`, any wake
   * while someone hears every watcher, or one naming a subscribed watcher's hash.
   */
  hears(payload: string | undefined): boolean {
    const named = routeOf(payload);
    if (named === 'everyone' || this.everyone.size > 0) return true;
    for (const h of named) if (this.hashWatchers.has(h)) return true;
    return false;
  }

  private emit(sub: Subscriber, watcherSessionKey: string, pairs: readonly PendingPair[]): void {
    try {
      // A copy per listener: what one listener does with its signal never reaches another.
      sub.listener({ watcherSessionKey, changed: pairs.map((p) => ({ ...p })) });
    } catch (error) {
      // A throwing logger must not break the feed either (best effort, R9): guardedLogger.
      this.logger.error('notice feed: a listener threw', { watcherSessionKey, ...errorDetails(error) });
    }
  }

  /** Called once as a watcher key enters byWatcher. */
  private addRoute(watcher: string): void {
    const h = watcherRouteHash(watcher);
    if (!this.hashWatchers.has(h)) this.interestVersion++;
    this.hashWatchers.set(h, (this.hashWatchers.get(h) ?? 0) + 1);
  }

  /** Called once as a watcher key leaves byWatcher: its hash is the one addRoute counted (a pure function of the key). */
  private dropRoute(watcher: string): void {
    const h = watcherRouteHash(watcher);
    const n = (this.hashWatchers.get(h) ?? 1) - 1;
    if (n > 0) this.hashWatchers.set(h, n);
    else {
      this.hashWatchers.delete(h);
      this.interestVersion++;
    }
  }
}
