import fc from 'fast-check';
import type { MaybePromise, Notice, NoticeAck } from '../../spec/index.js';
import { changesBetween, snapshotPending, type PendingSnapshot } from '../../src/core/index.js';
import type { PairChange, PendingPair, PendingRead, PendingReadRequest } from '../../spec/index.js';

/**
 * R60, R61, R68 as a property any change-feed source must hold: many watchers, a long run of
 * commits of every kind, and reads at random points. The model is the source's own full listing
 * (`listPending`, a different read) taken after every operation: a pair whose notice changed
 * (became pending or not, another L, another wake) between two reads is news iff it is pending at
 * the second. Each read must report every such pending pair with its current L and wake (nothing
 * missed) and no pending pair that did not change (nothing signalled that was not new), each pair
 * at most once; and a snapshot must equal the listing. A read that names the watchers it wants
 * owes only their news, and anything else it reports must be as true. Operations, not reads, are
 * the model's unit, so a pair removed and made pending again between two reads is news as it
 * should be.
 */

/** What the property drives: a store's writes and its two pending reads. */
export interface PendingReadSubject {
  record(input: Record<string, unknown>): MaybePromise<unknown>;
  watch(request: { watcherSessionKey: string; targetSessionKey: string; agentId: string; provenance?: 'explicit' | 'ambient' }): MaybePromise<unknown>;
  unwatch(request: { watcherSessionKey: string; targetSessionKey: string; agentId: string }): MaybePromise<unknown>;
  pendingNotices(watcherSessionKey: string): MaybePromise<Notice[]>;
  drainNotices(watcherSessionKey: string): MaybePromise<Notice[]>;
  ackNotices(watcherSessionKey: string, notices: readonly NoticeAck[]): MaybePromise<Notice[]>;
  resetSession(sessionKey: string): MaybePromise<void>;
  deleteSession(sessionKey: string, agentId: string): MaybePromise<void>;
  readPending(request: PendingReadRequest): MaybePromise<PendingRead>;
  listPending(): MaybePromise<PendingPair[]>;
}

export interface PendingReadsOptions {
  /** Opens a fresh, empty subject per run; `close` after. */
  open: () => Promise<{ subject: PendingReadSubject; close: () => MaybePromise<void> }>;
  numRuns?: number;
  seed?: number;
}

const AGENT = 'main';
/** Main lanes, a sub-agent (wake next-turn), and a second main lane; four targets. */
const WATCHERS = ['agent:main:main', 'agent:main:coord', 'agent:main:subagent:w1', 'agent:main:ops'] as const;
const TARGETS = ['agent:main:t0', 'agent:main:t1', 'agent:main:t2', 'agent:main:t3'] as const;

type Op =
  | { op: 'human'; target: number; watchers: number[] }
  | { op: 'agent'; target: number; actor: number }
  | { op: 'spawn'; target: number; parent: number }
  | { op: 'run'; target: number; kind: 'run_completed' | 'run_failed' }
  | { op: 'watch'; watcher: number; target: number; provenance: 'explicit' | 'ambient' }
  | { op: 'unwatch'; watcher: number; target: number }
  | { op: 'drain'; watcher: number }
  | { op: 'ack'; watcher: number; keep: number }
  | { op: 'reset'; watcher: number }
  | { op: 'delete'; target: number }
  /** `only`: the watchers the read asks for (R68's `watchers`); absent: every watcher. */
  | { op: 'read'; only?: number[] };

const w = fc.integer({ min: 0, max: WATCHERS.length - 1 });
const t = fc.integer({ min: 0, max: TARGETS.length - 1 });

export const pendingReadOps: fc.Arbitrary<Op[]> = fc.array(
  fc.oneof(
    { weight: 6, arbitrary: fc.record({ op: fc.constant('human' as const), target: t, watchers: fc.uniqueArray(w, { maxLength: 2 }) }) },
    { weight: 3, arbitrary: fc.record({ op: fc.constant('agent' as const), target: t, actor: w }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('spawn' as const), target: t, parent: w }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('run' as const), target: t, kind: fc.constantFrom('run_completed' as const, 'run_failed' as const) }) },
    { weight: 3, arbitrary: fc.record({ op: fc.constant('watch' as const), watcher: w, target: t, provenance: fc.constantFrom('explicit' as const, 'ambient' as const) }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('unwatch' as const), watcher: w, target: t }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('drain' as const), watcher: w }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('ack' as const), watcher: w, keep: fc.nat({ max: 3 }) }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('reset' as const), watcher: w }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), target: t }) },
    { weight: 3, arbitrary: fc.constant({ op: 'read' as const }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('read' as const), only: fc.uniqueArray(w, { maxLength: 3 }) }) },
  ),
  { minLength: 20, maxLength: 120 },
);

const slot = (p: { watcherSessionKey: string; targetSessionKey: string; targetAgentId: string }) => `${p.watcherSessionKey}\u0000${p.targetAgentId}\u0000${p.targetSessionKey}`;
const show = (p: PendingPair) => `${p.watcherSessionKey} <- ${p.targetSessionKey} L=${p.lastSeenSequence} ${p.wake}`;
const pairOf = ({ watcherSessionKey, targetSessionKey, targetAgentId, lastSeenSequence, wake }: PendingPair): PendingPair => ({ watcherSessionKey, targetSessionKey, targetAgentId, lastSeenSequence, wake });

async function apply(s: PendingReadSubject, o: Exclude<Op, { op: 'read' }>, n: number): Promise<void> {
  const base = { agentId: AGENT };
  const W = (i: number): string => WATCHERS[i]!;
  const T = (i: number): string => TARGETS[i]!;
  switch (o.op) {
    case 'human':
      await s.record({ ...base, sessionKey: T(o.target), kind: 'human_direct_message', actorType: 'human', summary: `human turn ${n}`, watchers: o.watchers.map(W) });
      return;
    case 'agent':
      await s.record({ ...base, sessionKey: T(o.target), kind: 'agent_message', actorType: 'agent', actorId: W(o.actor), summary: `agent message ${n}` });
      return;
    case 'spawn':
      await s.record({ ...base, sessionKey: T(o.target), kind: 'child_spawned', actorType: 'agent', actorId: W(o.parent), summary: 'child session spawned', watchers: [W(o.parent)] });
      return;
    case 'run':
      await s.record({ ...base, sessionKey: T(o.target), kind: o.kind, actorType: 'system', summary: 'child run ended', ...(o.kind === 'run_failed' ? { payload: { outcome: 'error' } } : {}) });
      return;
    case 'watch':
      await s.watch({ watcherSessionKey: W(o.watcher), targetSessionKey: T(o.target), agentId: AGENT, provenance: o.provenance });
      return;
    case 'unwatch':
      await s.unwatch({ watcherSessionKey: W(o.watcher), targetSessionKey: T(o.target), agentId: AGENT });
      return;
    case 'drain':
      await s.drainNotices(W(o.watcher));
      return;
    case 'ack': {
      const pending = await s.pendingNotices(W(o.watcher));
      await s.ackNotices(W(o.watcher), pending.filter((_, i) => i % (o.keep + 1) === 0));
      return;
    }
    case 'reset':
      await s.resetSession(W(o.watcher));
      return;
    case 'delete':
      await s.deleteSession(T(o.target), AGENT);
      return;
  }
}

/** Runs the property; throws (fast-check's report) on the first counterexample. */
export async function checkPendingReads(options: PendingReadsOptions): Promise<void> {
  await fc.assert(
    fc.asyncProperty(pendingReadOps, async (ops) => {
      const { subject: s, close } = await options.open();
      try {
        let listing: PendingSnapshot<PendingPair> = snapshotPending(await s.listPending());
        // A first read: the position to read from, and a snapshot of everything (R61).
        const first = await s.readPending({ snapshot: 'all' });
        expectSnapshot(first.snapshot, listing, 'first snapshot');
        let position = first.position;
        /** Pairs whose notice changed since the last read (the model's news, once pending). */
        let dirty = new Set<string>();
        let n = 0;
        for (const o of ops) {
          if (o.op !== 'read') {
            await apply(s, o, ++n);
            const next = snapshotPending(await s.listPending());
            for (const c of changesBetween(listing, next)) dirty.add(slot(c));
            listing = next;
            continue;
          }
          const watcher: string = WATCHERS[n % WATCHERS.length]!;
          const only = o.only === undefined ? undefined : new Set<string>(o.only.map((i) => WATCHERS[i]!));
          const read = await s.readPending({ since: position, snapshot: [watcher], ...(only === undefined ? {} : { watchers: [...only] }) });
          const pendingNow = new Map<string, PendingPair>();
          for (const pairs of listing.values()) for (const p of pairs) pendingNow.set(slot(p), p);
          const seen = new Set<string>();
          const got = new Map<string, PairChange>();
          for (const c of read.changes) {
            if (seen.has(slot(c))) throw new Error(`R68: a read reported ${show(c)} twice`);
            seen.add(slot(c));
            got.set(slot(c), c);
          }
          for (const key of dirty) {
            const now = pendingNow.get(key);
            if (!now) continue;
            // R68: a read that names its watchers owes only their news (it may carry more).
            if (only !== undefined && !only.has(now.watcherSessionKey)) continue;
            const c = got.get(key);
            if (!c || !c.pending) throw new Error(`R60/R68: missed news: ${show(now)} changed since the last read and is pending, but the read did not report it`);
            if (c.lastSeenSequence !== now.lastSeenSequence || c.wake !== now.wake) throw new Error(`R68: reported ${show(c)}, but the pair is ${show(now)}`);
          }
          for (const c of got.values()) {
            if (c.pending && !dirty.has(slot(c))) throw new Error(`R60: reported ${show(c)} as news, but its notice did not change since the last read`);
            if (c.pending && !pendingNow.has(slot(c))) throw new Error(`R68: reported ${show(c)} as pending, but it is not`);
          }
          expectSnapshot(read.snapshot, new Map([[watcher, listing.get(watcher) ?? []]]), `snapshot of ${watcher}`);
          // The position covers every change, named or not: what a read left out is not owed later.
          position = read.position;
          dirty = new Set();
        }
      } finally {
        await close();
      }
    }),
    { numRuns: options.numRuns ?? 40, ...(options.seed === undefined ? {} : { seed: options.seed }) },
  );
}

function expectSnapshot(got: readonly PendingPair[], want: PendingSnapshot<PendingPair>, what: string): void {
  const a = [...got].map(pairOf).map((p) => JSON.stringify(p)).sort();
  const b = [...want.values()].flat().map(pairOf).map((p) => JSON.stringify(p)).sort();
  if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`R61: ${what} differs from the listing\n  got:  ${a.join('\n        ')}\n  want: ${b.join('\n        ')}`);
}
