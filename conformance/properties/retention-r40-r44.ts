/**
 * Retention and pruning (PROTOCOL.md section 5): R40-R42 real limits and monotonic heads (with R5),
 * R43 prune schedule, R44 cursor expiry.
 */
import fc from 'fast-check';
import { type ChangesSinceResponse, type EventKind, LIMITS, type Notice, type StateEvent } from '../../spec/index.js';
import { advanceBack, advanceHours, advanceSmall, changesSinceDraft, CHILD, concretize, type Draft, GLOBAL, IDENTITIES, type Identity, inputOf, LEAD, MAIN, OPS, OPS_MAIN, PARENT, PEER, pruneDraft, recordDraft, restartDraft, scenario, smallLimitsArb } from '../arbitraries.js';
import { WatcherModel } from '../cursor-model.js';
import { withRun } from '../run.js';
import { type Command, HOUR, humanDuration, MINUTE, same, type Scenario } from '../script.js';
import { clockText, type ConformanceProperty, type Input, len, recordInput, show } from './common.js';
import { driveLog, logDrafts, pageProblems } from './log-script.js';

export const headsMonotonic: ConformanceProperty = {
  name: 'R42-heads-monotonic',
  rules: ['R5', 'R42'],
  needs: ['limits'],
  title: 'stateVersion is the highest sequence recorded for the session and never falls, through pruning by age and by row cap',
  runs: 100,
  arbitrary: ({ thorough }) => scenario(smallLimitsArb, logDrafts(len(thorough, 40))),
  check: (sc, ctx) => {
    const last = new Map<string, number>();
    return driveLog(sc, ctx, async (run, model, cmd) => {
      if (cmd.op === 'deleteSession') last.delete(`${cmd.args[1] as string} ${cmd.args[0] as string}`);
      for (const [k, a] of IDENTITIES) {
        const v = await run.must<number>('stateVersion', k, a);
        const prev = last.get(`${a} ${k}`) ?? 0;
        if (v < prev) run.fail(`R42: stateVersion(${show(k)}, ${show(a)}) fell from ${prev} to ${v}`);
        if (v !== model.head(k, a)) run.fail(`R5: stateVersion(${show(k)}, ${show(a)}) must be ${model.head(k, a)}, the highest sequence recorded for that session; got ${v}`);
        last.set(`${a} ${k}`, v);
      }
    });
  },
};

export const realLimits: ConformanceProperty = {
  name: 'R42-real-limits',
  rules: ['R40', 'R41', 'R42'],
  title: 'at the real limits (50,000 rows, 30 days) pruning keeps heads and stamps the gap',
  runs: 1,
  fixed: true,
  arbitrary: () => {
    const b = (i: number) => inputOf(GLOBAL, OPS, 'human_direct_message', { actorType: 'human', summary: `human message ${i}` });
    const a = inputOf(PEER, MAIN, 'human_direct_message', { actorType: 'human', summary: 'human message via telegram' });
    const commands: Command[] = [
      { op: 'record', args: [b(1)] },
      { op: 'record', args: [b(2)] },
      { op: 'record', args: [b(3)] },
      { op: 'repeatRecord', args: [a, LIMITS.maxRows] },
      { op: 'prune', args: [] },
      { op: 'advance', args: [LIMITS.retentionMs + 1] },
      { op: 'record', args: [inputOf(CHILD, MAIN, 'created')] },
      { op: 'record', args: [a] },
    ];
    return fc.constant({ options: {}, commands });
  },
  check: (sc, ctx) =>
    driveLog(sc, ctx, async (run, model, cmd) => {
      if (cmd.op === 'advance') return;
      for (const [k, a] of [[GLOBAL, OPS], [PEER, MAIN], [CHILD, MAIN]] as const) {
        const head = model.head(k, a);
        const v = await run.must<number>('stateVersion', k, a);
        if (v !== head) run.fail(`R42: stateVersion(${show(k)}, ${show(a)}) must stay ${head} through pruning, got ${v}`);
        for (const since of new Set([0, Math.max(0, head - 1), head])) {
          const req = { sessionKey: k, agentId: a, since, limit: 3 };
          const r = await run.must<ChangesSinceResponse>('changesSince', req);
          const e = model.expectedPage(k, a, since, 3);
          const p = pageProblems(r, e, req) ?? (r.stateChanges.historyGap !== e.historyGap ? `R33: historyGap must be ${e.historyGap}` : undefined);
          if (p) run.fail(`changesSince(${show(req)}) at ${model.maxSequence} recorded events: ${p}`);
        }
      }
    }),
};

// ---------------------------------------------------------------------------------------------
// R43: the write-path prune schedule, including a clock that steps back
// ---------------------------------------------------------------------------------------------

export const pruneSchedule: ConformanceProperty = {
  name: 'R43-prune-schedule',
  rules: ['R43'],
  needs: ['limits'],
  title: 'an insert prunes when an hour has passed since the last prune or the clock stepped back behind it; prune() and restart() always prune',
  runs: 100,
  arbitrary: ({ thorough }) =>
    scenario(
      fc.oneof(fc.record({ maxRows: fc.integer({ min: 2, max: 5 }) }), fc.record({ retentionMs: fc.constantFrom(90 * MINUTE, 3 * HOUR), maxRows: fc.integer({ min: 3, max: 8 }) })),
      fc.array(
        fc.oneof(
          { arbitrary: recordDraft({ dedupe: false }), weight: 10 },
          { arbitrary: advanceSmall, weight: 3 },
          { arbitrary: advanceHours, weight: 2 },
          { arbitrary: advanceBack, weight: 4 },
          { arbitrary: changesSinceDraft(), weight: 1 },
          { arbitrary: pruneDraft, weight: 1 },
          { arbitrary: restartDraft, weight: 1 },
        ),
        { maxLength: len(thorough, 40), size: 'max' },
      ),
    ),
  check: (sc, ctx) =>
    driveLog(sc, ctx, async (run, model, cmd) => {
      if (cmd.op !== 'record') return;
      for (const [k, a] of IDENTITIES) {
        const r = await run.must<ChangesSinceResponse>('changesSince', { sessionKey: k, agentId: a, since: 0 });
        const got = r.stateChanges.events.map((e) => e.sequence);
        const want = model.expectedPage(k, a, 0, undefined).events.map((e) => e.sequence);
        if (!same(got, want)) {
          run.fail(
            `R43: after this insert (clock at ${clockText(run.clock.t)}; R43's last prune at ${clockText(model.lastPrune)}${model.lastPrune === run.clock.t ? ': this insert had to prune' : ''}) the retained events of ${show(k)} (agent ${a}) must be ${show(want)}: the write path prunes when an hour has passed since the last prune or the clock is behind it (R40/R41 decide what goes); got ${show(got)}`,
          );
        }
      }
    }),
};

// ---------------------------------------------------------------------------------------------
// Cursor expiry: R44 (with R14, R21, R27, R29 as its refresh rules)
// ---------------------------------------------------------------------------------------------

const notice3 = (n: Notice): [string, string, number] => [n.targetSessionKey, n.targetAgentId, n.lastSeenSequence];
const model3 = ([k, a, l]: readonly [string, string, number, string]): [string, string, number] => [k, a, l];

function expiryScenario(maxLength: number): fc.Arbitrary<Scenario> {
  return fc
    .record({ w: fc.constantFrom(PARENT, LEAD, OPS_MAIN), retention: fc.constantFrom(4 * HOUR, 10 * HOUR) })
    .chain(({ w, retention }) => {
      const R = retention;
      const T = fc.constantFrom(...EXPIRY_TARGETS);
      const rec = (t: Identity, kind: EventKind, extra: Input): Draft => ({ cmd: { op: 'record', args: [inputOf(t[0], t[1], kind, extra)] } });
      const simple = (op: Command['op'], args: unknown[] = []): Draft => ({ cmd: { op, args } });
      const watchT = (t: Identity) => simple('watch', [{ watcherSessionKey: w, targetSessionKey: t[0], agentId: t[1] }]);
      const kinds = {
        watch: watchT,
        ambient: (t: Identity) => simple('watch', [{ watcherSessionKey: w, targetSessionKey: t[0], agentId: t[1], provenance: 'ambient' }]), // creates, or changes nothing (R21b)
        human: (t: Identity) => rec(t, 'human_direct_message', { actorType: 'human' }), // material for cursor holders (R15)
        passed: (t: Identity) => rec(t, 'goal_changed', { actorType: 'human', watchers: [w] }), // material, creates a cursor
        terminal: (t: Identity) => rec(t, 'run_completed', {}), // material for explicit cursors only (R16)
        self: (t: Identity) => rec(t, 'agent_message', { actorType: 'agent', actorId: w, watchers: [w] }), // the watcher's own: no write (R12)
        logOnly: (t: Identity) => rec(t, 'compacted', { watchers: [w] }), // no write (R17)
        spawn: (t: Identity) => rec(t, 'child_spawned', { actorType: 'agent', actorId: w, watchers: [w] }), // seeding refreshes (R14)
        drain: () => simple('drainNotices', [w]), // acks refresh (R27)
        restart: () => simple('restart'), // changes no cursor (R29)
      };
      const single = fc.oneof(
        { arbitrary: T.map(kinds.watch), weight: 4 },
        { arbitrary: T.map(kinds.ambient), weight: 2 },
        { arbitrary: T.map(kinds.human), weight: 4 },
        { arbitrary: T.map(kinds.passed), weight: 2 },
        { arbitrary: T.map(kinds.terminal), weight: 1 },
        { arbitrary: T.map(kinds.self), weight: 1 },
        { arbitrary: T.map(kinds.logOnly), weight: 1 },
        { arbitrary: T.map(kinds.spawn), weight: 1 },
        { arbitrary: fc.constant(kinds.drain()), weight: 4 },
        { arbitrary: fc.constant(simple('pendingNotices', [w])), weight: 1 },
        { arbitrary: restartDraft, weight: 2 },
        { arbitrary: pruneDraft, weight: 3 },
        // steps in fractions of the retention, so that a refresh in between decides what a prune keeps
        { arbitrary: fc.constantFrom(R / 4, R / 3, R / 2, (2 * R) / 3, R + 1).map((ms) => simple('advance', [ms])), weight: 7 },
        { arbitrary: advanceSmall, weight: 1 },
        { arbitrary: advanceBack, weight: 1 },
      );
      // An episode: a cursor is touched at t0 (optionally left with a notice pending), one candidate
      // refresh happens at t0 + a, and a prune at t0 + R + d (d < a) expires the cursor exactly when
      // the candidate did not refresh it; a change by a person then shows whether it is still there.
      const episode = fc
        .record({
          t: T,
          start: fc.constantFrom<keyof typeof kinds>('watch', 'passed', 'spawn', 'ambient'),
          pendingFirst: fc.boolean(),
          refresh: fc.constantFrom<keyof typeof kinds>('watch', 'watch', 'ambient', 'drain', 'drain', 'drain', 'human', 'spawn', 'restart', 'restart', 'logOnly', 'self', 'terminal'),
          a: fc.constantFrom(R / 4, R / 2, (2 * R) / 3),
          d: fc.constantFrom(1, R / 8),
        })
        .map(({ t, start, pendingFirst, refresh, a, d }): Draft[] => [
          kinds[start](t),
          ...(pendingFirst ? [kinds.human(t)] : []),
          simple('advance', [a]),
          kinds[refresh](t),
          simple('advance', [R - a + d]),
          simple('prune'),
          kinds.human(t),
        ]);
      const drafts = fc.array(fc.oneof({ arbitrary: single.map((d) => [d]), weight: 1 }, { arbitrary: episode, weight: 1 }), { maxLength, size: 'max' }).map((c) => c.flat());
      return drafts.map((d) => ({
        options: { retentionMs: R },
        meta: { watcher: w, targets: EXPIRY_TARGETS.map((t) => `${t[0]} (${t[1]})`).join(', ') },
        commands: concretize(d),
      }));
    });
}

const EXPIRY_TARGETS: readonly Identity[] = [
  [PEER, MAIN],
  [CHILD, MAIN],
  [GLOBAL, OPS],
];

export const cursorExpiry: ConformanceProperty = {
  name: 'R44-cursor-expiry',
  rules: ['R44'],
  needs: ['limits', 'ambientWatch'],
  title: 'idle cursors expire after the retention with their notices, ambient ones too; exactly an explicit watch, ack, material events and spawn seeding refresh them (log-only and own events, an ambient re-registration and a restart do not)',
  runs: 100,
  arbitrary: ({ thorough }) => expiryScenario(len(thorough, 12)),
  check: (sc, ctx) =>
    withRun(ctx.factory, sc.options, async (run) => {
      const w = sc.meta!['watcher']!;
      const retention = sc.options.retentionMs!;
      const m = new WatcherModel(w, EXPIRY_TARGETS, retention, run.clock.t);
      const at = clockText;
      const explain = () =>
        m.targets
          .map((t) => `    ${t.key} (${t.agentId}): ${t.cursor ? `L=${t.cursor.L} N=${t.cursor.N} M=${t.cursor.M}${t.cursor.provenance === 'spawn' ? '' : ` ${t.cursor.provenance}`}, last refreshed at ${at(t.cursor.updatedAt)}${t.cursor.N > t.cursor.L ? ', notice pending' : ''}` : 'no cursor (never created, or expired)'}`)
          .join('\n');
      for (const cmd of sc.commands) {
        const o = await run.do(cmd);
        const now = Math.floor(run.clock.t);
        const input = recordInput(cmd);
        if (input) {
          const e = run.ok<StateEvent | null>(o, 'record of a valid input');
          if (!e) return run.fail('record of a valid input returned undefined');
          m.onRecord(input, e.sequence, now);
        } else if (cmd.op === 'watch') {
          if (run.ok<{ watched: boolean }>(o, 'watch').watched !== true) run.fail('R21: an agent-scoped watcher watching another session must get {watched: true}');
          const r = cmd.args[0] as { targetSessionKey: string; agentId: string; provenance?: 'explicit' | 'ambient' };
          m.onWatch(r.targetSessionKey, r.agentId, now, r.provenance);
        } else if (cmd.op === 'drainNotices') {
          const want = m.onDrain(now).map(model3);
          const got = run.ok<Notice[]>(o, 'drainNotices').map(notice3);
          if (!same(got, want)) run.fail(`R27/R44: drainNotices(${show(w)}) must return ${show(want)}, got ${show(got)}\n  cursors (retention ${humanDuration(retention)}, now ${at(now)}) before this drain acked them:\n${explain()}`);
        } else if (cmd.op === 'restart') {
          run.ok(o, 'restart');
          m.onRestart(now);
        } else if (cmd.op === 'prune') {
          run.ok(o, 'prune');
          m.onPrune(now);
        }
        const got = (await run.pending(w)).map(notice3);
        const want = m.pending().map(model3);
        if (!same(got, want)) {
          run.fail(
            `R44: pendingNotices(${show(w)}) must be ${show(want)} ([target, agent, changesSince]), got ${show(got)}\n  a cursor expires when pruning finds it idle for more than the retention (${humanDuration(retention)}); watch (R21), a drain's ack (R27), a material event (R15) and spawn seeding (R14) refresh it, the watcher's own and log-only events, an ambient re-registration (R21b) and a restart (R29) do not.\n  cursors as the spec has them now (${at(now)}):\n${explain()}`,
          );
        }
      }
    }),
};
