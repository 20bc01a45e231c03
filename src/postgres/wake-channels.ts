import { parseRoutePayload, ROUTE_EVERYONE, watcherRouteHash, wakeGroupOf } from '../core/index.js';

/**
 * R75: the channels of a store's wakes. Every wake goes to the store's channel, as it always has
 * (a process that listens there, of this release or an older one, hears every commit); a wake
 * whose watchers fall in a few wake groups also goes to each group's channel, and any other wake
 * (everyone, or many groups) to the `_all` channel. A process whose feeds subscribe to watchers
 * one by one listens on their groups' channels and `_all` instead of the store's channel, so a
 * commit wakes the processes that serve its watchers and not the rest of a fleet.
 */

/** A wake spanning more groups than this goes to `_all`: a NOTIFY per group would cost the writer more than the wakes it saves. */
export const MAX_GROUPS_PER_WAKE = 4;
/** A process needing more groups than this listens on the store's channel: it would hear most commits anyway. */
export const MAX_LISTENED_GROUPS = 256;

export const allChannel = (base: string): string => `${base}_all`;
export const groupChannel = (base: string, group: string): string => `${base}_g${group}`;

/**
 * The channels a wake goes to, the store's own first. `watchers`: those whose pairs the commit
 * changed, or `*`. `unique`: the payload names this commit alone (R74's news carries its
 * transaction id), so a process listening on two of its groups can tell the second copy (see
 * RemoteListener); a payload that may repeat across commits goes to one channel besides the store's.
 */
export function wakeChannels(base: string, watchers: readonly string[] | typeof ROUTE_EVERYONE, unique: boolean): string[] {
  if (watchers === ROUTE_EVERYONE) return [base, allChannel(base)];
  const groups = [...new Set(watchers.map((w) => wakeGroupOf(watcherRouteHash(w))))].sort();
  if (groups.length === 0) return [base];
  if (groups.length > (unique ? MAX_GROUPS_PER_WAKE : 1)) return [base, allChannel(base)];
  return [base, ...groups.map((g) => groupChannel(base, g))];
}

/** The wake groups an interest's hashes fall in; undefined for everything. */
export function groupsOf(interest: 'all' | readonly string[] | undefined): ReadonlySet<string> | undefined {
  if (interest === undefined || interest === 'all') return undefined;
  return new Set(interest.map(wakeGroupOf));
}

/** The channels a process listens on for its subscriptions' groups (undefined in a set: one wants everything). */
export function listenedChannels(base: string, interests: Iterable<ReadonlySet<string> | undefined>): Set<string> {
  const groups = new Set<string>();
  for (const g of interests) {
    if (g === undefined) return new Set([base]);
    for (const x of g) groups.add(x);
  }
  if (groups.size > MAX_LISTENED_GROUPS) return new Set([base]);
  return new Set([allChannel(base), ...[...groups].sort().map((g) => groupChannel(base, g))]);
}

/**
 * The wake groups a payload names, or 'everyone' (no payload, `*`, anything unparsable: R73).
 * Parsed once per wake, then asked of each subscription (concerns).
 */
export function namedGroups(payload: string | undefined): ReadonlySet<string> | 'everyone' {
  const named = parseRoutePayload(payload);
  if (named === 'everyone') return named;
  const groups = new Set<string>();
  for (const h of named) groups.add(wakeGroupOf(h));
  return groups;
}

/** Whether a wake naming `named` (namedGroups) may concern a subscription listening for `groups` (undefined: everything). */
export function concerns(named: ReadonlySet<string> | 'everyone', groups: ReadonlySet<string> | undefined): boolean {
  if (groups === undefined || named === 'everyone') return true;
  for (const g of named) if (groups.has(g)) return true;
  return false;
}
