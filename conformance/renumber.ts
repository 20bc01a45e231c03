/**
 * R7 asks sequences to be one global, strictly increasing counter, never reused; it does not ask
 * them to be dense. The reference hands out 1, 2, 3, ... (a dedupe hit consumes nothing), but an
 * implementation whose counter skips values (a database sequence consumed by a conflicting insert
 * or a rolled-back transaction, SQLite AUTOINCREMENT under ON CONFLICT DO NOTHING) obeys every
 * rule. So the suite compares sequences **up to an order-preserving renaming** (W6): each store the
 * suite opens is wrapped, and the k-th distinct sequence the implementation returns from `record`
 * or `recordMany` is renamed k, in both directions:
 *
 *   - results: `sequence`, `stateVersion`, `earliestAvailableSequence`, a notice's
 *     `lastSeenSequence` and the L its text quotes are renamed to the reference's numbering;
 *   - arguments: `changesSince`'s `since` and `ackNotices`' `lastSeenSequence` are renamed back.
 *
 * A new event whose sequence is not above every sequence seen so far breaks R7, and `record`
 * fails with that. A value between two sequences is renamed by its distance to the one below:
 * one above is the next name (R32's `stateVersion + 1` when nothing is retained), anything further
 * becomes a fraction no correct answer has. For an implementation numbering as the reference does
 * the renaming is the identity and nothing is copied.
 */
import type { SessionStateStore } from '../spec/index.js';
import type { HandleFactory, OpenHandle } from './handles.js';

/** The renaming of one backing store, shared by all its handles. */
export class SequenceRenaming {
  /** The implementation's sequences in the order handed out; the k-th (from 1) is renamed k. */
  private readonly seen: number[] = [];
  private readonly names = new Map<number, number>();

  /** The name of an event's sequence; a new one must be above every earlier one (R7). */
  name(sequence: unknown): unknown {
    if (typeof sequence !== 'number' || !Number.isSafeInteger(sequence)) return sequence;
    const known = this.names.get(sequence);
    if (known !== undefined) return known;
    const last = this.seen[this.seen.length - 1];
    if (last !== undefined && sequence < last) {
      throw new Error(`R7: the new event's sequence ${sequence} is below an earlier event's ${last}: sequences must strictly increase and never be reused`);
    }
    this.seen.push(sequence);
    this.names.set(sequence, this.seen.length);
    return this.seen.length;
  }

  /** Any sequence-valued result (a head, a watermark, an L) in the reference's numbering. */
  toName(value: unknown): unknown {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) return value;
    const known = this.names.get(value);
    if (known !== undefined) return known;
    // The largest sequence below `value`.
    let lo = 0;
    let hi = this.seen.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.seen[mid]! < value) lo = mid + 1;
      else hi = mid;
    }
    if (lo === 0) return this.seen.length === 0 ? value : value - this.seen[0]! - 0.5; // below the first: never a correct answer
    const below = this.seen[lo - 1]!;
    const gap = value - below;
    return gap === 1 ? lo + 1 : lo + gap - 0.5;
  }

  /** A sequence-valued argument in the reference's numbering, as the implementation numbers it. */
  fromName(name: unknown): unknown {
    if (typeof name !== 'number' || !Number.isSafeInteger(name) || name <= 0) return name;
    const n = this.seen.length;
    if (name <= n) return this.seen[name - 1]!;
    return n === 0 ? name : this.seen[n - 1]! + (name - n);
  }

  /** True while the implementation numbers exactly as the reference (nothing to rename). */
  get identity(): boolean {
    const n = this.seen.length;
    return n === 0 || this.seen[n - 1] === n;
  }
}

const NOTICE_L = /changesSince (0|[1-9][0-9]*)\.$/;

function renameNotice(r: SequenceRenaming, n: unknown): unknown {
  if (n === null || typeof n !== 'object') return n;
  const notice = n as { lastSeenSequence?: unknown; text?: unknown };
  const out: Record<string, unknown> = { ...notice };
  out['lastSeenSequence'] = r.toName(notice.lastSeenSequence);
  if (typeof notice.text === 'string') out['text'] = notice.text.replace(NOTICE_L, (_m, l: string) => `changesSince ${String(r.toName(Number(l)))}.`);
  return out;
}

function renameEvent(r: SequenceRenaming, e: unknown): unknown {
  if (e === null || typeof e !== 'object' || !('sequence' in e)) return e;
  return { ...e, sequence: r.name((e as { sequence: unknown }).sequence) };
}

function renameChanges(r: SequenceRenaming, c: unknown): unknown {
  if (c === null || typeof c !== 'object') return c;
  const res = c as { stateVersion?: unknown; stateChanges?: { events?: unknown; earliestAvailableSequence?: unknown } };
  const out: Record<string, unknown> = { ...res, stateVersion: r.toName(res.stateVersion) };
  const sc = res.stateChanges;
  if (sc !== null && typeof sc === 'object') {
    out['stateChanges'] = {
      ...sc,
      events: Array.isArray(sc.events) ? sc.events.map((e: unknown) => (e !== null && typeof e === 'object' ? { ...e, sequence: r.toName((e as { sequence?: unknown }).sequence) } : e)) : sc.events,
      earliestAvailableSequence: r.toName(sc.earliestAvailableSequence),
    };
  }
  return out;
}

/** A data property's value, without running a getter (arguments are the implementation's to read, R9a). */
function dataValue(o: unknown, key: string): { value: unknown } | undefined {
  if (o === null || typeof o !== 'object') return undefined;
  const d = Object.getOwnPropertyDescriptor(o, key);
  return d && 'value' in d ? { value: d.value } : undefined;
}

function renameArgs(r: SequenceRenaming, op: string, args: unknown[]): unknown[] {
  if (op === 'changesSince') {
    const since = dataValue(args[0], 'since');
    if (!since) return args;
    const mapped = r.fromName(since.value);
    return mapped === since.value ? args : [{ ...(args[0] as object), since: mapped }, ...args.slice(1)];
  }
  if (op === 'ackNotices' && Array.isArray(args[1])) {
    let changed = false;
    const acks = (args[1] as unknown[]).map((a) => {
      const l = dataValue(a, 'lastSeenSequence');
      if (!l) return a;
      const mapped = r.fromName(l.value);
      if (mapped === l.value) return a;
      changed = true;
      return { ...(a as object), lastSeenSequence: mapped };
    });
    if (changed) return [args[0], acks, ...args.slice(2)];
  }
  return args;
}

function renameResult(r: SequenceRenaming, op: string, result: unknown): unknown {
  switch (op) {
    case 'record':
      return renameEvent(r, result);
    case 'recordMany':
      return Array.isArray(result) ? result.map((e) => renameEvent(r, e)) : result;
    case 'stateVersion':
      return r.toName(result);
    case 'changesSince':
      return renameChanges(r, result);
    case 'pendingNotices':
    case 'drainNotices':
    case 'ackNotices':
      return Array.isArray(result) ? result.map((n) => renameNotice(r, n)) : result;
    default:
      return result;
  }
}

const RENAMED = new Set(['record', 'recordMany', 'stateVersion', 'changesSince', 'pendingNotices', 'drainNotices', 'ackNotices']);
const inner = new WeakMap<object, { store: SessionStateStore; renaming: SequenceRenaming }>();

function isThenable(x: unknown): x is PromiseLike<unknown> {
  return x !== null && (typeof x === 'object' || typeof x === 'function') && typeof (x as { then?: unknown }).then === 'function';
}

/** `store` as the suite sees it: sequences in the reference's numbering (see above). */
export function renameStore(store: SessionStateStore, renaming = new SequenceRenaming()): SessionStateStore {
  const wrapped = new Proxy(store as unknown as object, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver === wrapped ? target : receiver);
      if (typeof key !== 'string' || !RENAMED.has(key) || typeof value !== 'function') return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      return (...args: unknown[]) => {
        // The identity renaming passes arguments through untouched.
        const sent = renaming.identity ? args : renameArgs(renaming, key, args);
        const out = (value as (...a: unknown[]) => unknown).apply(target, sent);
        return isThenable(out) ? Promise.resolve(out).then((v) => renameResult(renaming, key, v)) : renameResult(renaming, key, out);
      };
    },
  }) as unknown as SessionStateStore;
  inner.set(wrapped as object, { store, renaming });
  return wrapped;
}

/** The target with every store it makes renamed; handles on one store share its renaming. */
export function renameTarget(target: HandleFactory): HandleFactory {
  const out: HandleFactory = {
    create: (options) => {
      const s = target.create(options);
      return isThenable(s) ? Promise.resolve(s).then((x) => renameStore(x)) : renameStore(s);
    },
  };
  const open = target.openHandle;
  if (open) {
    const openHandle: OpenHandle = (first, options) => {
      const w = inner.get(first as object);
      const s = open(w ? w.store : first, options);
      const renaming = w?.renaming ?? new SequenceRenaming();
      return isThenable(s) ? Promise.resolve(s).then((x) => renameStore(x, renaming)) : renameStore(s, renaming);
    };
    out.openHandle = openHandle;
  }
  return out;
}

/** The store a renamed handle wraps (for code that needs the implementation's own object). */
export function unwrapRenamed(store: SessionStateStore): SessionStateStore {
  return inner.get(store as object)?.store ?? store;
}
