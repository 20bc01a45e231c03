/**
 * Watch lifecycle beyond v1 (PROTOCOL.md section 3 and 6): R21b ambient watches, R27b ackNotices
 * (at-least-once delivery), R52 unwatch. One watcher, a few targets, and the cursor model of
 * cursor-model.ts: after every step the watcher's pending notices (target, L and wake) must be
 * exactly the model's cursors with N > L (R20).
 */
import fc from 'fast-check';
import type { Notice, StateEvent } from '../../spec/index.js';
import { advanceSmall, CHILD, concretize, type Draft, GLOBAL, type Identity, inputOf, LEAD, MAIN, OPS, OPS_MAIN, PARENT, PEER, restartDraft } from '../arbitraries.js';
import { type ModelNotice, WatcherModel } from '../cursor-model.js';
import { expectedContextKey } from '../facts.js';
import { withRun } from '../run.js';
import { type Command, same, type Scenario } from '../script.js';
import { type ConformanceProperty, type Input, len, type PropertyContext, recordInput, show } from './common.js';

const TARGETS: readonly Identity[] = [
  [PEER, MAIN],
  [CHILD, MAIN],
  [GLOBAL, OPS],
];

/** Placeholder arguments of an ackNotices step, resolved at run time from what was delivered. */
type AckKind = 'delivered' | 'delivered-again' | 'shifted' | 'foreign';
const ACK_MARK = '$ack';

const notice4 = (n: Notice): ModelNotice => [n.targetSessionKey, n.targetAgentId, n.lastSeenSequence, n.wake];

type Bias = 'ambient' | 'ack' | 'unwatch';

function watchScenario(bias: Bias, maxLength: number): fc.Arbitrary<Scenario> {
  return fc.constantFrom(PARENT, LEAD, OPS_MAIN).chain((w) => {
    const T = fc.constantFrom(...TARGETS);
    const simple = (op: Command['op'], args: unknown[] = []): Draft => ({ cmd: { op, args } });
    const rec = (t: Identity, kind: Parameters<typeof inputOf>[2], extra: Input): Draft => ({ cmd: { op: 'record', args: [inputOf(t[0], t[1], kind, extra)] } });
    const watch = (t: Identity, provenance?: 'ambient' | 'explicit') =>
      simple('watch', [{ watcherSessionKey: w, targetSessionKey: t[0], agentId: t[1], ...(provenance ? { provenance } : {}) }]);
    const boost = (b: Bias, n: number) => (bias === b ? n : 1);
    const step = fc.oneof(
      { arbitrary: T.map((t) => watch(t, 'ambient')), weight: boost('ambient', 4) + 1 },
      { arbitrary: T.map((t) => watch(t)), weight: 2 },
      { arbitrary: T.map((t) => simple('unwatch', [{ watcherSessionKey: w, targetSessionKey: t[0], agentId: t[1] }])), weight: boost('unwatch', 4) },
      { arbitrary: T.map((t) => rec(t, 'human_direct_message', { actorType: 'human' })), weight: 8 },
      { arbitrary: T.map((t) => rec(t, 'goal_changed', { actorType: 'human', watchers: [w] })), weight: 2 },
      { arbitrary: T.map((t) => rec(t, 'run_completed', {})), weight: boost('ambient', 3) },
      { arbitrary: T.map((t) => rec(t, 'child_spawned', { actorType: 'agent', actorId: w, watchers: [w] })), weight: boost('ambient', 2) },
      { arbitrary: T.map((t) => rec(t, 'agent_message', { actorType: 'agent', actorId: w, watchers: [w] })), weight: 1 },
      { arbitrary: fc.constant(simple('pendingNotices', [w])), weight: boost('ack', 4) + 1 },
      { arbitrary: fc.constant(simple('drainNotices', [w])), weight: 2 },
      {
        arbitrary: fc.constantFrom<AckKind>('delivered', 'delivered', 'delivered-again', 'shifted', 'foreign').map((k) => simple('ackNotices', [w, { [ACK_MARK]: k }])),
        weight: boost('ack', 5),
      },
      { arbitrary: restartDraft, weight: 1 },
      { arbitrary: advanceSmall, weight: 1 },
    );
    return fc.array(step, { maxLength, size: 'max' }).map((steps) => ({
      options: {},
      meta: { watcher: w, targets: TARGETS.map((t) => `${t[0]} (${t[1]})`).join(', ') },
      commands: concretize(steps),
    }));
  });
}

/** Turns an ackNotices placeholder into real arguments from the deliveries seen so far. */
function resolveAck(cmd: Command, last: Notice[], previous: Notice[]): Command {
  const mark = (cmd.args[1] as Record<string, AckKind> | undefined)?.[ACK_MARK];
  if (mark === undefined) return cmd;
  const pick = (ns: Notice[]) => ns.map((n) => ({ contextKey: n.contextKey, lastSeenSequence: n.lastSeenSequence }));
  const acks =
    mark === 'delivered'
      ? last
      : mark === 'delivered-again'
        ? previous
        : mark === 'shifted'
          ? pick(last).map((n) => ({ ...n, lastSeenSequence: n.lastSeenSequence + 1 }))
          : pick(last).map((n) => ({ ...n, contextKey: `${n.contextKey}0` })); // odd hex: does not decode (R24)
  return { ...cmd, args: [cmd.args[0], acks] };
}

async function checkWatches(sc: Scenario, ctx: PropertyContext): Promise<void> {
  const w = sc.meta!['watcher']!;
  await withRun(ctx.factory, sc.options, async (run) => {
    const m = new WatcherModel(w, TARGETS, Number.MAX_SAFE_INTEGER, run.clock.t);
    let last: Notice[] = [];
    let previous: Notice[] = [];
    const explain = () =>
      m.targets
        .map((t) => `    ${t.key} (${t.agentId}): ${t.cursor ? `L=${t.cursor.L} N=${t.cursor.N} M=${t.cursor.M} ${t.cursor.provenance}` : 'no cursor'}`)
        .join('\n');
    for (const raw of sc.commands) {
      const cmd = raw.op === 'ackNotices' ? resolveAck(raw, last, previous) : raw;
      const o = await run.do(cmd);
      const now = Math.floor(run.clock.t);
      const input = recordInput(cmd);
      if (input) {
        const e = run.ok<StateEvent | null>(o, 'record of a valid input');
        if (!e) return run.fail('record of a valid input returned undefined');
        m.onRecord(input, e.sequence, now);
      } else if (cmd.op === 'watch') {
        const r = cmd.args[0] as { targetSessionKey: string; agentId: string; provenance?: 'explicit' | 'ambient' };
        if (run.ok<{ watched: boolean }>(o, 'watch').watched !== true) run.fail(`R21${r.provenance === 'ambient' ? 'b' : ''}: an agent-scoped watcher watching another session must get {watched: true}`);
        m.onWatch(r.targetSessionKey, r.agentId, now, r.provenance);
      } else if (cmd.op === 'unwatch') {
        const r = cmd.args[0] as { targetSessionKey: string; agentId: string };
        const want = m.onUnwatch(r.targetSessionKey, r.agentId);
        const got = run.ok<{ unwatched: boolean }>(o, 'unwatch');
        if (!same(got, { unwatched: want })) run.fail(`R52: unwatch must return {unwatched: ${want}} (${want ? 'a cursor existed' : 'no cursor existed'}), got ${show(got)}`);
      } else if (cmd.op === 'drainNotices') {
        const want = m.onDrain(now);
        const got = run.ok<Notice[]>(o, 'drainNotices').map(notice4);
        if (!same(got, want)) run.fail(`R27: drainNotices(${show(w)}) must return ${show(want)} ([target, agent, changesSince, wake]), got ${show(got)}`);
      } else if (cmd.op === 'ackNotices') {
        const given = cmd.args[1] as { contextKey: string; lastSeenSequence: number }[];
        const named = TARGETS.flatMap(([k, a]) =>
          given.filter((n) => n.contextKey === expectedContextKey(a, k)).map((n) => [k, a, n.lastSeenSequence] as const),
        );
        const want = m.onAck(named, now);
        const got = run.ok<Notice[]>(o, 'ackNotices').map(notice4);
        if (!same(got, want)) {
          run.fail(
            `R27b: ackNotices(${show(w)}, ${show(given)}) must ack exactly the named pairs still pending with a quoted L and return them, ${show(want)}; got ${show(got)}\n  (a pair acked since the notice was delivered quotes another L now and must not be acked: that would swallow its follow-up)`,
          );
        }
      } else if (cmd.op === 'restart') {
        run.ok(o, 'restart');
        m.onRestart(now);
      } else if (cmd.op === 'pendingNotices') {
        previous = last;
        last = run.ok<Notice[]>(o, 'pendingNotices');
      }
      const got = (await run.pending(w)).map(notice4);
      const want = m.pending();
      if (!same(got, want)) {
        run.fail(
          `pendingNotices(${show(w)}) must be ${show(want)} ([target, agent, changesSince, wake]), got ${show(got)}\n  R20: exactly the cursors with N > L; R21b: an ambient cursor starts at the head, is not notified by terminal runs, never wakes (next-turn), is promoted by an explicit watch or a spawn seed and never downgraded; R52: unwatch deletes the cursor and its notice; R27b: an ack acks only a pending pair with the quoted L.\n  cursors as the spec has them now:\n${explain()}`,
        );
      }
    }
  });
}

export const ambientWatch: ConformanceProperty = {
  name: 'R21b-ambient-watch',
  rules: ['R21b', 'R16', 'R20', 'R25'],
  needs: ['ambientWatch'],
  title: 'an ambient watch starts at the head, is notified like a spawn cursor but never by terminal runs, never wakes, and is promoted but never downgraded',
  runs: 100,
  arbitrary: ({ thorough }) => watchScenario('ambient', len(thorough, 30)),
  check: checkWatches,
};

export const ackNotices: ConformanceProperty = {
  name: 'R27b-ack-notices',
  rules: ['R27b', 'R28'],
  title: 'ackNotices acks exactly the delivered notices still pending with the same L, and returns them',
  runs: 100,
  arbitrary: ({ thorough }) => watchScenario('ack', len(thorough, 30)),
  check: checkWatches,
};

export const unwatch: ConformanceProperty = {
  name: 'R52-unwatch',
  rules: ['R52'],
  needs: ['unwatch'],
  title: 'unwatch deletes the cursor and its pending notice, whatever its provenance, and says whether one existed',
  runs: 100,
  arbitrary: ({ thorough }) => watchScenario('unwatch', len(thorough, 30)),
  check: checkWatches,
};
