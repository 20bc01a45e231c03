/**
 * R73: what a wake-up names. A commit that may change pending notices wakes the other processes
 * (PostgreSQL: NOTIFY), and the wake may say which watchers' pairs it changed, so a process whose
 * subscribers are none of them need not read. The names are short hashes of the watcher keys, not
 * the keys: the payload is bounded (PostgreSQL takes under 8,000 bytes) and two keys sharing a
 * hash only cost a read. Anything a reader cannot parse, and an overflow, means "everyone".
 */

/** The longest payload a wake carries (PostgreSQL refuses 8,000 bytes or more); past it: everyone. */
export const ROUTE_PAYLOAD_MAX_BYTES = 7_900;

/** The payload that names every watcher (an overflow, or a change whose watchers the writer does not know). */
export const ROUTE_EVERYONE = '*';

/** R73's names: `w:` and the sorted hashes, comma-separated. */
const NAMES = 'w:(?:[0-9a-f]{8}(?:,[0-9a-f]{8})*)?';
const ROUTED = new RegExp(`^${NAMES}$`);
/** R74: a payload carrying news starts with R73's names, then `;x:` and the commit's id. */
const ROUTED_NEWS = new RegExp(`^(${NAMES});x:\\d`);
/**
 * R74: the whole news form: R73's names, `;x:` and the commit's id (a positive 64-bit integer),
 * `;` and the changed pairs as a JSON array. Groups: the id, the array's text.
 */
export const NEWS_PAYLOAD = new RegExp(`^${NAMES};x:([1-9]\\d{0,19});(\\[.*\\])$`, 's');

/** A watcher key's routing hash: FNV-1a, 32 bits, over its UTF-16 code units, as 8 hex digits. */
export function watcherRouteHash(watcherSessionKey: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < watcherSessionKey.length; i++) {
    h ^= watcherSessionKey.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/**
 * The payload naming `watchers` (each once, sorted, so equal sets give equal payloads and
 * PostgreSQL folds them within a transaction; none: `w:`, a commit that changed no pair's notice),
 * or `*` when they are unknown or do not fit.
 */
export function routePayload(watchers: Iterable<string> | typeof ROUTE_EVERYONE): string {
  if (watchers === ROUTE_EVERYONE) return ROUTE_EVERYONE;
  const hashes = [...new Set([...watchers].map(watcherRouteHash))].sort();
  // 'w:' + 8 hex digits per hash + a comma between: ASCII, so characters are bytes.
  if (2 + hashes.length * 9 - 1 > ROUTE_PAYLOAD_MAX_BYTES) return ROUTE_EVERYONE;
  return `w:${hashes.join(',')}`;
}

/**
 * The watcher hashes a wake names, or 'everyone' for a wake without a payload, `*`, or a payload
 * that is neither exactly the routed form nor that form followed by R74's news (cut short,
 * garbled, from another writer version).
 */
export function parseRoutePayload(payload: string | undefined): ReadonlySet<string> | 'everyone' {
  if (payload === undefined) return 'everyone';
  // R74: a payload with news routes by its names part; what follows is the source's to check.
  const names = ROUTED.test(payload) ? payload : ROUTED_NEWS.exec(payload)?.[1];
  if (names === undefined) return 'everyone';
  return new Set(names === 'w:' ? [] : names.slice(2).split(','));
}

/**
 * R75: a wake group (4,096 of them). A PostgreSQL commit's wake also goes to its group's channel,
 * so a process listens for the groups of the watchers it serves and is not woken for the rest.
 * The routing hash is multiplied by 0x9e3779b1 (Fibonacci hashing) before its top 12 bits are
 * taken: FNV-1a's own top bits barely move between keys that differ in their last characters
 * (agent:main:w1, w2, ...), which would crowd such keys into few groups.
 */
export const WAKE_GROUP_DIGITS = 3;

/** R75: the wake group of an R73 routing hash (8 hex digits), as three hex digits. */
export function wakeGroupOf(routeHash: string): string {
  return (Math.imul(parseInt(routeHash, 16), 0x9e3779b1) >>> 20).toString(16).padStart(WAKE_GROUP_DIGITS, '0');
}
