/**
 * T15 for the in-memory store: its sessions in key order, so a keyed page starts by binary search
 * instead of sorting every session per page. Code point order, as SQLite's BINARY and
 * PostgreSQL's "C" compare UTF-8 text, so the three stores page alike. New sessions wait in a
 * list of their own (an append is a push) and are merged at the next page read; a deleted session
 * is skipped when met and dropped at that merge. An implementation detail of MemoryState.
 */
export interface OrderedSession {
  sessionKey: string;
  agentId: string;
}

/** A UTF-16 unit's rank in code point order: a surrogate (half of an astral character) sorts after every other unit. */
function rank(unit: number): number {
  return unit >= 0xd800 && unit <= 0xdfff ? unit + 0x2000 : unit >= 0xe000 ? unit - 0x800 : unit;
}

/** Unicode code point order (the order of the UTF-8 bytes), not JS's UTF-16 code unit order. */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return rank(x) - rank(y);
  }
  return a.length - b.length;
}

export function compareSessions(a: OrderedSession, b: OrderedSession): number {
  return compareCodePoints(a.sessionKey, b.sessionKey) || compareCodePoints(a.agentId, b.agentId);
}

/** @internal */
export class SessionOrder {
  private sorted: OrderedSession[];
  private added: OrderedSession[] = [];

  constructor(sessions: Iterable<OrderedSession>) {
    this.sorted = [...sessions].sort(compareSessions);
  }

  /** A session whose head was just created. */
  add(session: OrderedSession): void {
    this.added.push(session);
  }

  /** The live sessions strictly after `after`, at most `limit`; `live` says whether a session still has a head. */
  page(after: OrderedSession | undefined, limit: number, live: (s: OrderedSession) => boolean): OrderedSession[] {
    if (this.added.length > 0) this.merge(live);
    let lo = 0;
    if (after !== undefined) {
      let hi = this.sorted.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (compareSessions(this.sorted[mid]!, after) <= 0) lo = mid + 1;
        else hi = mid;
      }
    }
    const out: OrderedSession[] = [];
    for (let i = lo; i < this.sorted.length && out.length < limit; i++) {
      const s = this.sorted[i]!;
      if (live(s)) out.push(s);
    }
    return out;
  }

  /** One pass: the new sessions sorted into the rest, deleted ones dropped, a session deleted and created again kept once. */
  private merge(live: (s: OrderedSession) => boolean): void {
    const added = this.added.sort(compareSessions);
    this.added = [];
    const merged: OrderedSession[] = [];
    const push = (s: OrderedSession) => {
      const last = merged[merged.length - 1];
      if (live(s) && (last === undefined || compareSessions(last, s) !== 0)) merged.push(s);
    };
    let i = 0;
    let j = 0;
    while (i < this.sorted.length || j < added.length) {
      if (j >= added.length || (i < this.sorted.length && compareSessions(this.sorted[i]!, added[j]!) <= 0)) push(this.sorted[i++]!);
      else push(added[j++]!);
    }
    this.sorted = merged;
  }
}
