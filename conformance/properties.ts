/**
 * The properties of the suite. `model` runs every script against the implementation and the
 * reference in lockstep. Every other property is tied to rule numbers of spec/PROTOCOL.md and
 * judges the implementation alone, from what it returns, against what the property itself knows it
 * did (records, clock, options): none of them consults the reference, so each one catches a
 * broken rule on its own.
 */
import fc from 'fast-check';
import { EVENT_KINDS, LIMITS, type ChangesSinceResponse, type EventKind, type Notice, type StateEvent, type StoreFactory } from '../spec/index.js';
import {
  AGENT_SCOPED_WATCHERS,
  BARE_WATCHERS,
  CHILD,
  GLOBAL,
  IDENTITIES,
  LEAD,
  LOG_ONLY_KINDS,
  MAIN,
  NOTIFY_KINDS,
  OPS,
  OPS_MAIN,
  OPS_SUB,
  PARENT,
  PEER,
  TERMINAL_KINDS,
  WATCHERS,
  advanceBack,
  advanceFraction,
  advanceSmall,
  changesSinceDraft,
  concretize,
  deleteDraft,
  drainDraft,
  expectedInvalidField,
  genericDraft,
  genericDrafts,
  inputOf,
  invalidDraft,
  optionsArb,
  modelDrafts,
  pendingDraft,
  pruneDraft,
  advanceHours,
  advanceMonth,
  recordDraft,
  refusedClockDraft,
  resetDraft,
  restartDraft,
  scenario,
  smallLimitsArb,
  spawnDraft,
  stateVersionDraft,
  watchDraft,
  type Draft,
  type Identity,
} from './arbitraries.js';
import { agentOf, eventProblems, expectedContextKey, expectedNoticeText, expectedWake, isAgentScoped, notifyClass, noticeProblems } from './facts.js';
import { CursorSet, WatcherModel, eligiblePassed } from './cursor-model.js';
import { LogModel } from './log-model.js';
import { Run, withRun } from './run.js';
import {
  ConformanceFailure,
  HOUR,
  MINUTE,
  T0,
  canonical,
  describeOutcome,
  formatCommand,
  humanDuration,
  same,
  sameOutcome,
  type Command,
  type Outcome,
  type Scenario,
} from './script.js';
import { loadVectors, runVector, scriptLineOf, vectorScenario } from './vectors.js';

export interface PropertyContext {
  /** The implementation under test. */
  factory: StoreFactory;
  /** The oracle (only `model` uses it). */
  reference: StoreFactory;
  thorough: boolean;
}

export interface ConformanceProperty {
  name: string;
  rules: string[];
  title: string;
  /** Default number of generated cases (fast-check numRuns). */
  runs: number;
  /** Fixed scenarios run once, whatever --runs says. */
  fixed?: boolean;
  arbitrary(options: { thorough: boolean }): fc.Arbitrary<Scenario>;
  check(scenario: Scenario, ctx: PropertyContext): Promise<void>;
}

type Input = Record<string, unknown>;

const len = (thorough: boolean, n: number) => (thorough ? Math.round(n * 2.5) : n);

function forTarget(notices: readonly Notice[], key: string, agentId: string): Notice[] {
  return notices.filter((n) => n.targetSessionKey === key && n.targetAgentId === agentId);
}

function recordInput(cmd: Command): Input | undefined {
  return cmd.op === 'record' && cmd.args[0] !== null && typeof cmd.args[0] === 'object' ? (cmd.args[0] as Input) : undefined;
}

const show = (v: unknown) => canonical(v);

/** A clock reading relative to the scripts' start (T0). */
function clockText(t: number): string {
  return t === T0 ? 'the start' : `start ${t > T0 ? '+' : '-'} ${humanDuration(Math.abs(t - T0))}`;
}

// ---------------------------------------------------------------------------------------------
// model: lockstep with the reference
// ---------------------------------------------------------------------------------------------

const model: ConformanceProperty = {
  name: 'model',
  rules: ['R1-R51'],
  title: 'every observable result equals the reference store\'s, command by command',
  runs: 150,
  arbitrary: ({ thorough }) => scenario(optionsArb, modelDrafts(len(thorough, 40))),
  async check(sc, ctx) {
    const sub = await Run.open(ctx.factory, sc.options);
    const ref = await Run.open(ctx.reference, sc.options);
    try {
      const compare = (a: Outcome, b: Outcome, what: string) => {
        if (!sameOutcome(a, b)) sub.fail(`${what} differs from the reference\n  expected: ${describeOutcome(b)}\n  actual:   ${describeOutcome(a)}`);
      };
      for (const cmd of sc.commands) {
        const [a, b] = [await sub.do(cmd), await ref.do(cmd)];
        compare(a, b, formatCommand(cmd));
      }
      // Epilogue: everything observable at the end.
      sub.epilogue();
      for (const w of WATCHERS) compare(await sub.must('pendingNotices', w).then(ok), await ref.must('pendingNotices', w).then(ok), `epilogue pendingNotices(${show(w)})`);
      for (const [k, a] of IDENTITIES) {
        const req = { sessionKey: k, agentId: a, since: 0 };
        compare(await sub.must('changesSince', req).then(ok), await ref.must('changesSince', req).then(ok), `epilogue changesSince(${show(req)})`);
      }
      for (const w of AGENT_SCOPED_WATCHERS) {
        compare(await sub.must('drainNotices', w).then(ok), await ref.must('drainNotices', w).then(ok), `epilogue drainNotices(${show(w)})`);
        compare(await sub.must('drainNotices', w).then(ok), await ref.must('drainNotices', w).then(ok), `epilogue second drainNotices(${show(w)})`);
      }
    } finally {
      await sub.close();
      await ref.close();
    }
  },
};

function ok(result: unknown): Outcome {
  return { ok: true, result };
}

// ---------------------------------------------------------------------------------------------
// Notices over general scripts: R24, R23/R25/R26, R13, R29
// ---------------------------------------------------------------------------------------------

/**
 * R24 also promises that a pending notice stays until something entitled to remove it happens. A
 * notice of watcher w about target (k, a) may leave the queue only by
 *   - drainNotices(w) (R27),
 *   - resetSession(w) (R50), deleteSession(w, *) or deleteSession(k, a) (R51),
 *   - expiry (R44) in prune(), in restart() (which prunes after rebuilding: R29 rebuilds every
 *     pending notice, so across a restart only expiry removes one), or in a record() whose insert
 *     triggers the write-path prune (R43). Expiry needs the cursor idle for longer than the
 *     retention, and the cursor was refreshed when the notice was enqueued, so it is possible only
 *     once the clock is more than the retention past the earliest clock seen while it was pending.
 */
function vanishAllowed(cmd: Command, w: string, n: Notice, expiryPossible: boolean): string | undefined {
  const [a0, a1] = cmd.args;
  if (cmd.op === 'drainNotices' && a0 === w) return 'drain';
  if (cmd.op === 'resetSession' && a0 === w) return 'reset';
  if (cmd.op === 'deleteSession' && (a0 === w || (a0 === n.targetSessionKey && a1 === n.targetAgentId))) return 'delete';
  if (expiryPossible) return 'expiry';
  return undefined;
}

const oneNoticePerPair: ConformanceProperty = {
  name: 'R24-one-pending-notice',
  rules: ['R24'],
  title: 'at most one pending notice per watcher/target pair, byte-identical until it is drained, and never lost except by drain, reset, delete or expiry',
  runs: 100,
  arbitrary: ({ thorough }) => scenario(optionsArb, genericDrafts({ maxLength: len(thorough, 40) })),
  check: (sc, ctx) =>
    withRun(ctx.factory, sc.options, async (run) => {
      const retention = sc.options.retentionMs ?? LIMITS.retentionMs;
      let lastPruneAt = Math.floor(run.clock.t);
      let maxSequence = 0;
      /** The earliest clock seen while each (watcher, target) notice was pending. */
      const since = new Map<string, number>();
      const slot = (w: string, n: Notice) => `${w}\u0000${n.targetAgentId}\u0000${n.targetSessionKey}`;
      let before = await run.pendingAll(WATCHERS);
      for (const cmd of sc.commands) {
        const o = await run.do(cmd);
        const now = Math.floor(run.clock.t);
        // Did this command prune (R43/R44)? prune() and restart() always do; a record when its insert was due.
        let pruned = o.ok && (cmd.op === 'prune' || cmd.op === 'restart');
        if (cmd.op === 'record' && o.ok && o.result !== null) {
          const seq = (o.result as StateEvent).sequence;
          if (seq > maxSequence) {
            maxSequence = seq;
            pruned = now - lastPruneAt >= LIMITS.pruneIntervalMs || now < lastPruneAt;
          }
        }
        if (pruned) lastPruneAt = now;
        const after = await run.pendingAll(WATCHERS);
        for (const w of WATCHERS) {
          const list = after.get(w)!;
          const seen = new Set<string>();
          for (const n of list) {
            const pair = `${n.targetAgentId} ${n.targetSessionKey}`;
            if (seen.has(pair)) run.fail(`R24: ${show(w)} has two pending notices for ${show(n.targetSessionKey)} (agent ${n.targetAgentId}): ${show(list)}`);
            seen.add(pair);
          }
          for (const old of before.get(w)!) {
            const still = forTarget(list, old.targetSessionKey, old.targetAgentId)[0];
            const key = slot(w, old);
            if (!still) {
              const earliest = since.get(key) ?? now;
              if (!vanishAllowed(cmd, w, old, pruned && earliest < now - retention)) {
                run.fail(
                  `R24: the pending notice of ${show(w)} about ${show(old.targetSessionKey)} (agent ${old.targetAgentId}) vanished; only a drain by the watcher (R27), a reset (R50) or delete (R51) of it, deleting the target, or expiry (R44: idle for more than ${humanDuration(retention)}; pending since ${clockText(earliest)}, now ${clockText(now)}) may remove it\n  was: ${show(old)}`,
                );
              }
              since.delete(key);
              continue;
            }
            if (cmd.op === 'drainNotices' && cmd.args[0] === w) continue;
            if (!same(still, old)) run.fail(`R24: a pending notice of ${show(w)} changed without being drained\n  before: ${show(old)}\n  after:  ${show(still)}`);
          }
          // A drain acks (R27: refresh), so a follow-up left in the slot counts from now.
          if (cmd.op === 'drainNotices' && cmd.args[0] === w) for (const n of list) since.delete(slot(w, n));
          for (const n of list) {
            const key = slot(w, n);
            since.set(key, Math.min(since.get(key) ?? now, now));
          }
        }
        before = after;
      }
    }),
};

function noticeShapeProblem(w: string, n: Notice): string | undefined {
  const p = noticeProblems(n);
  if (p) return `notice ${p}: ${show(n)}`;
  if (n.watcherSessionKey !== w) return `R26: pendingNotices(${show(w)}) returned a notice for watcher ${show(n.watcherSessionKey)}`;
  const text = expectedNoticeText(n.targetSessionKey, n.lastSeenSequence);
  if (n.text !== text) return `R23: notice text must be exactly\n    ${text}\n  got\n    ${n.text}`;
  const ck = expectedContextKey(n.targetAgentId, n.targetSessionKey);
  if (n.contextKey !== ck) return `R24: contextKey must be ${ck}, got ${n.contextKey}`;
  if (n.wake !== expectedWake(w)) return `R25: wake for watcher ${show(w)} must be ${expectedWake(w)}, got ${n.wake}`;
  const agent = agentOf(n.targetSessionKey);
  if (agent !== undefined && agent !== n.targetAgentId) return `R1: target ${show(n.targetSessionKey)} belongs to agent ${agent}, notice says ${n.targetAgentId}`;
  return undefined;
}

function orderProblem(list: readonly Notice[]): string | undefined {
  for (let i = 1; i < list.length; i++) {
    const a = list[i - 1]!;
    const b = list[i]!;
    const cmp = a.targetSessionKey < b.targetSessionKey ? -1 : a.targetSessionKey > b.targetSessionKey ? 1 : a.targetAgentId < b.targetAgentId ? -1 : a.targetAgentId > b.targetAgentId ? 1 : 0;
    if (cmp >= 0) return `R26: notices must be ordered by (targetSessionKey, targetAgentId) in code-unit order: ${show(list.map((n) => [n.targetSessionKey, n.targetAgentId]))}`;
  }
  return undefined;
}

const noticeText: ConformanceProperty = {
  name: 'R23-notice-text',
  rules: ['R23', 'R25', 'R26'],
  title: 'every notice has the exact text, context key and wake, and lists are ordered by target',
  runs: 100,
  arbitrary: ({ thorough }) => scenario(optionsArb, genericDrafts({ maxLength: len(thorough, 40) })),
  check: (sc, ctx) =>
    withRun(ctx.factory, sc.options, async (run) => {
      const inspect = (w: string, list: Notice[]) => {
        for (const n of list) {
          const p = noticeShapeProblem(w, n);
          if (p) run.fail(p);
        }
        const o = orderProblem(list);
        if (o) run.fail(o);
      };
      for (const cmd of sc.commands) {
        const o = await run.do(cmd);
        if (cmd.op === 'drainNotices' && o.ok) inspect(cmd.args[0] as string, o.result as Notice[]);
        for (const [w, list] of await run.pendingAll(AGENT_SCOPED_WATCHERS)) inspect(w, list);
      }
    }),
};

const bareKeys: ConformanceProperty = {
  name: 'R13-bare-keys',
  rules: ['R13'],
  title: 'bare keys never get a cursor or a notice, but bare sessions keep their log',
  runs: 100,
  arbitrary: ({ thorough }) =>
    scenario(
      optionsArb,
      fc.array(
        fc.oneof(
          { arbitrary: recordDraft({ watchers: [GLOBAL, 'main', PARENT, PEER], dedupe: false }), weight: 8 },
          { arbitrary: spawnDraft(), weight: 2 },
          { arbitrary: watchDraft(fc.constantFrom(GLOBAL, 'main', PARENT)), weight: 3 },
          { arbitrary: drainDraft(fc.constantFrom(GLOBAL, 'main')), weight: 2 },
          { arbitrary: restartDraft, weight: 1 },
          { arbitrary: advanceSmall, weight: 1 },
        ),
        { maxLength: len(thorough, 30), size: 'max' },
      ),
    ),
  check: (sc, ctx) =>
    withRun(ctx.factory, sc.options, async (run) => {
      for (const cmd of sc.commands) {
        const o = await run.do(cmd);
        if (cmd.op === 'watch' && BARE_WATCHERS.includes((cmd.args[0] as { watcherSessionKey: string }).watcherSessionKey as never)) {
          const r = run.ok<{ watched: boolean }>(o, 'watch');
          if (r.watched !== false) run.fail(`R13/R21: watch by a bare watcher must return {watched: false}, got ${show(r)}`);
        }
        if (cmd.op === 'drainNotices' && o.ok && (o.result as unknown[]).length > 0) run.fail(`R13: drainNotices(${show(cmd.args[0])}) returned ${show(o.result)}`);
        const input = recordInput(cmd);
        if (input && !isAgentScoped(input['sessionKey'] as string) && input['onlyIfWatched'] !== true) {
          const e = run.ok<StateEvent | null>(o, 'record');
          if (!e || e.sessionKey !== input['sessionKey']) run.fail(`R13: a bare session still has a log; record returned ${show(e)}`);
        }
        for (const w of BARE_WATCHERS) {
          const list = await run.pending(w);
          if (list.length > 0) run.fail(`R13: the bare key ${show(w)} must never hold a notice, got ${show(list)}`);
        }
      }
    }),
};

/**
 * R29 scripts: the general mix, restarts, and chunks that leave a notice pending with material work
 * interleaved after it (L < N < M) right before a restart, the state in which the sweep's N := M
 * matters: without it the drain after the restart acks only to N and owes a needless follow-up.
 */
function restartDrafts(maxLength: number): fc.Arbitrary<Draft[]> {
  const interleaved = fc
    .record({
      w: fc.constantFrom(...AGENT_SCOPED_WATCHERS),
      t: fc.constantFrom(...IDENTITIES),
      kinds: fc.tuple(fc.constantFrom(...NOTIFY_KINDS), fc.constantFrom(...NOTIFY_KINDS)),
      passAgain: fc.boolean(),
      drainBetween: fc.boolean(),
      noise: fc.option(genericDraft({ months: false }), { nil: undefined, freq: 3 }),
    })
    .filter(({ w, t }) => w !== t[0])
    .map(({ w, t, kinds: [k1, k2], passAgain, drainBetween, noise }): Draft[] => {
      const rec = (kind: string, pass: boolean): Draft => ({ cmd: { op: 'record', args: [inputOf(t[0], t[1], kind as never, { actorType: 'human', ...(pass ? { watchers: [w] } : {}) })] } });
      // Two material events before a drain (N frozen at the first, M at the second); optionally a
      // drain in between that leaves a follow-up pending and a third event on top of it.
      const body = drainBetween ? [rec(k1, true), rec(k2, passAgain), drainDraftOf(w), rec(k1, passAgain)] : [rec(k1, true), rec(k2, passAgain)];
      return [...body, ...(noise ? [noise] : []), { cmd: { op: 'restart', args: [] } }];
    });
  return fc
    .array(
      fc.oneof(
        { arbitrary: genericDrafts({ maxLength: 4, months: false }), weight: 4 },
        { arbitrary: restartDraft.map((d) => [d]), weight: 1 },
        { arbitrary: interleaved, weight: 3 },
      ),
      { maxLength, size: 'max' },
    )
    .map((chunks) => chunks.flat());
}

const restart: ConformanceProperty = {
  name: 'R29-restart',
  rules: ['R29'],
  title: 'restart rebuilds exactly the pending notices from durable cursors, with N := M so a drain right after it owes no follow-up',
  runs: 100,
  arbitrary: ({ thorough }) => scenario(fc.constant({}), restartDrafts(len(thorough, 14))),
  check: (sc, ctx) =>
    withRun(ctx.factory, sc.options, async (run) => {
      for (const cmd of sc.commands) {
        const before = cmd.op === 'restart' ? await run.pendingAll(WATCHERS) : undefined;
        const o = await run.do(cmd);
        if (!before) continue;
        run.ok(o, 'restart');
        const after = await run.pendingAll(WATCHERS);
        for (const w of WATCHERS) {
          if (!same(before.get(w), after.get(w))) {
            run.fail(`R29: restart must rebuild exactly the pending notices of ${show(w)} (no cursor expired here)\n  before: ${show(before.get(w))}\n  after:  ${show(after.get(w))}`);
          }
        }
        // The sweep set N := M on every pending cursor, so draining right now (no material event
        // has arrived since the restart) acks everything: nothing may follow up.
        for (const w of AGENT_SCOPED_WATCHERS) {
          const drained = await run.must<Notice[]>('drainNotices', w);
          if (!same(drained, after.get(w))) run.fail(`R27: drainNotices(${show(w)}) right after the restart must return what was pending\n  pending: ${show(after.get(w))}\n  drained: ${show(drained)}`);
          const followUps = await run.pending(w);
          if (followUps.length > 0) {
            run.fail(
              `R29: a restart sets N := M on every cursor with M > L, so a drain right after it (no material event since) acks up to M and owes no follow-up; ${show(w)} got ${show(followUps)}: the restart did not sweep the durable cursors`,
            );
          }
        }
      }
    }),
};

// ---------------------------------------------------------------------------------------------
// One watcher, one target: R15, R27/R28, R12, R17
// ---------------------------------------------------------------------------------------------

interface PairCursor {
  L: number;
  N: number;
  M: number;
  explicit: boolean;
}

/** The cursor of one (watcher, target) pair, as R14-R16, R21, R27-R29 describe it. */
class PairModel {
  cursor: PairCursor | undefined;
  queued = false;
  head = 0;
  constructor(
    readonly w: string,
    readonly t: string,
    readonly agent: string,
  ) {}

  onRecord(input: Input, seq: number): void {
    if (input['sessionKey'] !== this.t || input['agentId'] !== this.agent) return;
    this.head = seq;
    const cls = notifyClass(input['kind'] as string);
    const passed = Array.isArray(input['watchers']) && input['watchers'].includes(this.w);
    if (cls === 'log-only') return;
    if (cls === 'seed') {
      if (!passed) return;
      const c = this.cursor;
      if (!c) this.cursor = { L: seq, N: seq, M: seq, explicit: false };
      else if (!(c.N > c.L)) c.L = c.N = c.M = seq;
      return;
    }
    if (input['actorId'] === this.w) return;
    if (cls === 'terminal') {
      if (!this.cursor?.explicit) return;
    } else if (!this.cursor && !passed) return;
    const c = (this.cursor ??= { L: 0, N: 0, M: 0, explicit: false });
    if (c.N === c.L) c.N = seq;
    c.M = Math.max(c.M, seq);
    this.queued = true;
  }

  onWatch(): void {
    if (!this.cursor) this.cursor = { L: this.head, N: this.head, M: this.head, explicit: true };
    else this.cursor.explicit = true;
  }

  /** Returns the lastSeenSequence the drained notice quoted, if one was pending. */
  onDrain(): number | undefined {
    const c = this.cursor;
    if (!this.queued || !c) return undefined;
    const quoted = c.L;
    const frozen = c.N;
    c.L = frozen;
    if (c.M > frozen) c.N = c.M;
    this.queued = c.M > frozen;
    return quoted;
  }

  onRestart(): void {
    const c = this.cursor;
    this.queued = !!c && c.M > c.L;
    if (c && this.queued) c.N = c.M;
  }
}

type PairBias = 'mixed' | 'self' | 'log-only';

function pairScenario(bias: PairBias, maxLength: number): fc.Arbitrary<Scenario> {
  const T: Identity = [CHILD, MAIN];
  return fc.constantFrom(PARENT, LEAD).chain((w) => {
    const others = fc.constantFrom<[string, string | undefined]>(['agent', PEER], ['human', undefined], ['system', undefined], ['agent', OPS_MAIN]);
    const self = fc.constant<[string, string | undefined]>(['agent', w]);
    const actor = bias === 'self' ? fc.oneof({ arbitrary: self, weight: 3 }, { arbitrary: others, weight: 2 }) : fc.oneof({ arbitrary: self, weight: 1 }, { arbitrary: others, weight: 4 });
    const watchers = fc.option(fc.constantFrom([w], [w, GLOBAL], [PEER]), { nil: undefined });
    const onT = (kinds: readonly string[]) =>
      fc.record({ kind: fc.constantFrom(...kinds), actor, watchers }).map(({ kind, actor: [type, id], watchers: ws }) => ({
        cmd: { op: 'record', args: [inputOf(T[0], T[1], kind as never, { actorType: type, ...(id ? { actorId: id } : {}), ...(ws ? { watchers: ws } : {}) })] },
      })) as fc.Arbitrary<Draft>;
    const respawn: Draft = { cmd: { op: 'record', args: [inputOf(T[0], T[1], 'child_spawned', { actorType: 'agent', actorId: w, watchers: [w] })] } };
    const noise: Draft = { cmd: { op: 'record', args: [inputOf(PEER, MAIN, 'human_direct_message', { actorType: 'human', watchers: [w] })] } };
    const simple = (op: Command['op'], args: unknown[]): Draft => ({ cmd: { op, args } });
    const watch = simple('watch', [{ watcherSessionKey: w, targetSessionKey: T[0], agentId: T[1] }]);
    const w8 = (n: number, mixed: number) => (bias === 'mixed' ? mixed : n);
    const step = fc.oneof(
      { arbitrary: onT(NOTIFY_KINDS), weight: 8 },
      { arbitrary: onT(TERMINAL_KINDS), weight: 2 },
      { arbitrary: onT(LOG_ONLY_KINDS), weight: w8(bias === 'log-only' ? 6 : 1, 2) },
      { arbitrary: fc.constant(respawn), weight: 1 },
      { arbitrary: fc.constant(noise), weight: 1 },
      { arbitrary: fc.constant(simple('drainNotices', [w])), weight: 5 },
      { arbitrary: fc.constant(simple('pendingNotices', [w])), weight: 1 },
      { arbitrary: fc.constant(watch), weight: 1 },
      { arbitrary: restartDraft, weight: 1 },
      { arbitrary: advanceSmall, weight: 1 },
      { arbitrary: changesSinceDraft(fc.constant(T)), weight: 1 },
    );
    const setup = fc.constantFrom<Draft[]>(
      [watch],
      [respawn],
      [],
      [{ cmd: { op: 'record', args: [inputOf(T[0], T[1], 'created')] } }, { cmd: { op: 'record', args: [inputOf(T[0], T[1], 'goal_changed', { actorType: 'human' })] } }, watch],
    );
    return fc.record({ setup, steps: fc.array(step, { maxLength, size: 'max' }) }).map(({ setup: s, steps }) => ({
      options: {},
      meta: { watcher: w, target: T[0], agentId: T[1] },
      commands: concretize([...s, ...steps]),
    }));
  });
}

interface PairChecks {
  /** R15: every notice of the pair quotes the model's L (the frozen watermark at the last ack). */
  quotes?: boolean;
  /** Whether a notice of the pair is pending exactly when the model says so: always, or right after drains. */
  existence?: 'always' | 'after-drain';
  /** R27: drain returns exactly what pendingNotices returned just before. */
  drainMatchesPending?: boolean;
  /** Records after which the watcher's pending notices must not change at all. */
  unchangedAfter?: { rule: string; when: (input: Input, w: string) => boolean };
}

async function checkPair(sc: Scenario, ctx: PropertyContext, checks: PairChecks): Promise<void> {
  const { watcher: w, target: t, agentId: a } = sc.meta as { watcher: string; target: string; agentId: string };
  await withRun(ctx.factory, sc.options, async (run) => {
    const m = new PairModel(w, t, a);
    const expectState = (list: Notice[], phase: string) => {
      const mine = forTarget(list, t, a);
      if (mine.length > 1) run.fail(`R24: ${mine.length} notices of ${show(w)} for ${show(t)}: ${show(mine)}`);
      if (checks.existence === 'always' || (checks.existence === 'after-drain' && phase === 'after-drain')) {
        if (mine.length !== (m.queued ? 1 : 0)) {
          run.fail(
            m.queued
              ? `${phase === 'after-drain' ? 'R28: material work arrived between the notice and the drain, so exactly one follow-up' : 'R15: a material event from another actor, so one notice'} must be pending for ${show(w)} about ${show(t)}; got none`
              : `${phase === 'after-drain' ? 'R28: nothing material arrived between the notice and the drain, so no follow-up' : 'no notice'} may be pending for ${show(w)} about ${show(t)}; got ${show(mine)}`,
          );
        }
      }
      if (checks.quotes && mine[0]) {
        if (!m.cursor) run.fail(`${show(w)} has no reason to hold a notice about ${show(t)}: ${show(mine[0])}`);
        else if (mine[0].lastSeenSequence !== m.cursor.L) {
          run.fail(`R15/R27: the notice must quote the frozen watermark of the last ack, changesSince ${m.cursor.L}; it quotes ${mine[0].lastSeenSequence}`);
        }
      }
    };
    for (const cmd of sc.commands) {
      const input = recordInput(cmd);
      const guard = input && checks.unchangedAfter?.when(input, w) ? await run.pending(w) : undefined;
      const before = cmd.op === 'drainNotices' ? await run.pending(w) : undefined;
      const o = await run.do(cmd);
      if (input) {
        const e = run.ok<StateEvent | null>(o, 'record of a valid input');
        if (!e) return run.fail('record of a valid input returned undefined');
        m.onRecord(input, e.sequence);
      } else if (cmd.op === 'watch') {
        if (run.ok<{ watched: boolean }>(o, 'watch').watched !== true) run.fail('R21: an agent-scoped watcher watching another session must get {watched: true}');
        m.onWatch();
      } else if (cmd.op === 'restart') {
        run.ok(o, 'restart');
        m.onRestart();
      } else if (cmd.op === 'drainNotices') {
        const drained = run.ok<Notice[]>(o, 'drainNotices');
        if (checks.drainMatchesPending && !same(drained, before)) {
          run.fail(`R27: drainNotices must return exactly what pendingNotices returned\n  pending: ${show(before)}\n  drained: ${show(drained)}`);
        }
        const queuedBefore = m.queued;
        const L = m.cursor?.L;
        const quoted = m.onDrain();
        const mine = forTarget(drained, t, a);
        if (checks.existence === 'always' && mine.length !== (queuedBefore ? 1 : 0)) {
          run.fail(`R27: the drain must return ${queuedBefore ? 'the one pending notice' : 'no notice'} for ${show(t)}, got ${show(mine)}`);
        }
        if (checks.quotes && mine[0] && quoted !== undefined && mine[0].lastSeenSequence !== L) {
          run.fail(`R15: the drained notice must quote changesSince ${L}, got ${mine[0].lastSeenSequence}`);
        }
        expectState(await run.pending(w), 'after-drain');
        continue;
      }
      if (guard) {
        const after = await run.pending(w);
        if (!same(guard, after)) run.fail(`${checks.unchangedAfter!.rule}\n  before: ${show(guard)}\n  after:  ${show(after)}`);
      }
      expectState(await run.pending(w), 'after');
    }
  });
}

const frozenWatermark: ConformanceProperty = {
  name: 'R15-frozen-watermark',
  rules: ['R15'],
  title: 'a pending notice quotes the watermark frozen at the last ack; later events never move it',
  runs: 120,
  arbitrary: ({ thorough }) => pairScenario('mixed', len(thorough, 30)),
  check: (sc, ctx) => checkPair(sc, ctx, { quotes: true }),
};

const ackOnDrain: ConformanceProperty = {
  name: 'R27-R28-ack-on-drain',
  rules: ['R27', 'R28'],
  title: 'drain returns the pending notices and acks; exactly one follow-up iff work interleaved',
  runs: 120,
  arbitrary: ({ thorough }) => pairScenario('mixed', len(thorough, 30)),
  check: (sc, ctx) => checkPair(sc, ctx, { existence: 'always', drainMatchesPending: true, quotes: true }),
};

const selfSuppression: ConformanceProperty = {
  name: 'R12-self-suppression',
  rules: ['R12'],
  title: 'a watcher is never told about its own action (no notice, no cursor write)',
  runs: 100,
  arbitrary: ({ thorough }) => pairScenario('self', len(thorough, 30)),
  check: (sc, ctx) =>
    checkPair(sc, ctx, {
      existence: 'after-drain',
      unchangedAfter: { rule: 'R12: an event whose actorId is the watcher must not change its notices', when: (i, w) => i['actorId'] === w },
    }),
};

const logOnly: ConformanceProperty = {
  name: 'R17-log-only',
  rules: ['R17'],
  title: 'log-only kinds never enqueue a notice or move a cursor',
  runs: 100,
  arbitrary: ({ thorough }) => pairScenario('log-only', len(thorough, 30)),
  check: (sc, ctx) =>
    checkPair(sc, ctx, {
      existence: 'after-drain',
      unchangedAfter: { rule: 'R17: a log-only event (compacted, adopted, created) must not change any notice', when: (i) => notifyClass(i['kind'] as string) === 'log-only' },
    }),
};

// ---------------------------------------------------------------------------------------------
// Structured scenarios: R21/R22, R14, R16
// ---------------------------------------------------------------------------------------------

const explicitWatch: ConformanceProperty = {
  name: 'R21-R22-explicit-watch',
  rules: ['R21', 'R22'],
  title: 'explicit watch starts at the current head: history never notifies; re-watch keeps a pending notice',
  runs: 100,
  arbitrary: ({ thorough }) =>
    fc
      .record({
        w: fc.constantFrom(LEAD, OPS_MAIN, PARENT),
        t: fc.constantFrom<Identity>([PEER, MAIN], [GLOBAL, OPS], [CHILD, MAIN]),
      })
      .chain(({ w, t }) => {
        const notW = (ids: readonly string[]) => ids.filter((x) => x !== w);
        const history = recordDraft({ identities: [t], watchers: notW([PARENT, PEER, GLOBAL, CHILD]), actorIds: notW([PARENT, PEER, CHILD]), dedupe: false });
        const elsewhere = recordDraft({ identities: IDENTITIES.filter((i) => i[0] !== t[0]), watchers: notW([PARENT, PEER]), dedupe: false });
        const watch: Draft = { cmd: { op: 'watch', args: [{ watcherSessionKey: w, targetSessionKey: t[0], agentId: t[1] }] } };
        const refusal = fc.constantFrom<Draft>(
          { cmd: { op: 'watch', args: [{ watcherSessionKey: t[0], targetSessionKey: t[0], agentId: t[1] }] } },
          { cmd: { op: 'watch', args: [{ watcherSessionKey: GLOBAL, targetSessionKey: t[0], agentId: t[1] }] } },
        );
        const quiet = fc.oneof(
          restartDraft,
          advanceSmall,
          pendingDraft(fc.constant(w)),
          drainDraft(fc.constant(w)),
          changesSinceDraft(fc.constant(t)),
          fc.constant(watch),
          refusal,
          recordDraft({ identities: [t], kinds: LOG_ONLY_KINDS, watchers: [w], dedupe: false }),
          recordDraft({ identities: [t], kinds: [...NOTIFY_KINDS, ...TERMINAL_KINDS], actorIds: [w], watchers: [w], dedupe: false }).map((d) => ({
            cmd: { op: 'record' as const, args: [{ ...(d.cmd.args[0] as Input), actorType: 'agent', actorId: w }] },
          })),
        );
        const material = recordDraft({ identities: [t], kinds: [...NOTIFY_KINDS, ...TERMINAL_KINDS], actorIds: notW([PEER, PARENT]), dedupe: false, watchers: notW([PEER, GLOBAL]) }).map((d) => {
          const input = { ...(d.cmd.args[0] as Input) };
          if (input['actorId'] === undefined) input['actorType'] = 'human';
          return { cmd: { op: 'record' as const, args: [input] } };
        });
        return fc
          .record({
            prefix: fc.array(fc.oneof(history, elsewhere, advanceSmall), { maxLength: len(thorough, 6), size: 'max' }),
            mid: fc.array(quiet, { maxLength: len(thorough, 5), size: 'max' }),
            first: material,
            after: fc.array(fc.oneof(material, fc.constant(watch), restartDraft, quiet), { maxLength: len(thorough, 5), size: 'max' }),
          })
          .map(({ prefix, mid, first, after }) => ({
            options: {},
            meta: { watcher: w, target: t[0], agentId: t[1] },
            commands: concretize([...prefix, watch, ...mid, first, ...after, drainDraftOf(w)]),
          }));
      }),
  check: (sc, ctx) =>
    withRun(ctx.factory, sc.options, async (run) => {
      const { watcher: w, target: t, agentId: a } = sc.meta as { watcher: string; target: string; agentId: string };
      let head = 0;
      let watchedAt: number | undefined;
      let notified = false;
      let pendingSnapshot: Notice[] | undefined;
      let done = false;
      for (const cmd of sc.commands) {
        const o = await run.do(cmd);
        if (done) continue;
        const input = recordInput(cmd);
        if (input) {
          const e = run.ok<StateEvent | null>(o, 'record');
          if (!e) return run.fail('record of a valid input returned undefined');
          if (input['sessionKey'] === t && input['agentId'] === a) {
            head = e.sequence;
            const cls = notifyClass(input['kind'] as string);
            if (watchedAt !== undefined && (cls === 'notify' || cls === 'terminal') && input['actorId'] !== w) notified = true;
          }
        } else if (cmd.op === 'watch') {
          const req = cmd.args[0] as { watcherSessionKey: string };
          const r = run.ok<{ watched: boolean }>(o, 'watch');
          if (req.watcherSessionKey !== w) {
            if (r.watched !== false) run.fail(`R21: watch by ${req.watcherSessionKey === t ? 'the target itself' : 'a bare key'} must return {watched: false}, got ${show(r)}`);
          } else {
            if (r.watched !== true) run.fail(`R21: watch must return {watched: true}, got ${show(r)}`);
            watchedAt ??= head;
          }
        }
        if (watchedAt === undefined) continue;
        const mine = forTarget(await run.pending(w), t, a);
        if (cmd.op === 'drainNotices') {
          const drained = forTarget(run.ok<Notice[]>(o, 'drainNotices'), t, a);
          if (!notified) {
            if (drained.length > 0) run.fail(`R22: history before the watch (head ${watchedAt}) must never notify; drained ${show(drained)}`);
            continue; // nothing was pending, so nothing was acked
          }
          if (drained.length !== 1 || drained[0]!.lastSeenSequence !== watchedAt) {
            run.fail(`R21: the first notice after the watch must quote the head at watch time (changesSince ${watchedAt}); drained ${show(drained)}`);
          }
          done = true; // after an ack the pair follows R27/R28, which other properties check
          continue;
        }
        if (!notified) {
          if (mine.length > 0) run.fail(`R22: history before the watch (head ${watchedAt}) and the watcher's own or log-only events must not notify; pending ${show(mine)}`);
          continue;
        }
        if (mine.length !== 1 || mine[0]!.lastSeenSequence !== watchedAt) {
          run.fail(`R21: an explicit watch starts at the head (${watchedAt}); after a change by another actor exactly one notice quoting changesSince ${watchedAt} must be pending, got ${show(mine)}`);
        }
        if (cmd.op === 'watch' && pendingSnapshot && !same(pendingSnapshot, mine)) {
          run.fail(`R21: re-watching must keep the pending notice and its frozen watermark\n  before: ${show(pendingSnapshot)}\n  after:  ${show(mine)}`);
        }
        pendingSnapshot = mine;
      }
    }),
};

function drainDraftOf(w: string): Draft {
  return { cmd: { op: 'drainNotices', args: [w] } };
}

const spawnSeeding: ConformanceProperty = {
  name: 'R14-spawn-seeding',
  rules: ['R14'],
  title: 'child_spawned seeds the parent\'s cursor at its sequence, notifies nobody, never clobbers a pending notice',
  runs: 100,
  arbitrary: ({ thorough }) =>
    fc
      .record({
        p: fc.constantFrom(PARENT, LEAD, OPS_MAIN),
        c: fc.constantFrom<Identity>([CHILD, MAIN], [OPS_SUB, OPS]),
        pre: fc.constantFrom('none', 'pending', 'idle'),
      })
      .chain(({ p, c, pre }) => {
        const prefix = recordDraft({ identities: [c], kinds: ['human_direct_message', 'goal_changed', 'compacted', 'created', 'run_completed'], watchers: [PEER, GLOBAL], actorIds: [PEER], dedupe: false });
        const preSteps: Draft[] =
          pre === 'none'
            ? []
            : [
                { cmd: { op: 'record', args: [inputOf(c[0], c[1], 'human_direct_message', { actorType: 'human', watchers: [p] })] } },
                ...(pre === 'idle' ? [drainDraftOf(p)] : []),
              ];
        const spawn = fc.record({ actorIsParent: fc.boolean(), extra: fc.boolean() }).map(
          ({ actorIsParent, extra }): Draft => ({
            cmd: {
              op: 'record',
              args: [inputOf(c[0], c[1], 'child_spawned', { actorType: 'agent', ...(actorIsParent ? { actorId: p } : {}), runId: 'run-9', watchers: extra ? [p, GLOBAL] : [p] })],
            },
          }),
        );
        const quiet = fc.oneof(
          recordDraft({ identities: [c], kinds: [...LOG_ONLY_KINDS, ...TERMINAL_KINDS], watchers: [p], dedupe: false }),
          recordDraft({ identities: [c], kinds: NOTIFY_KINDS, actorIds: [p], dedupe: false }).map((d) => ({
            cmd: { op: 'record' as const, args: [{ ...(d.cmd.args[0] as Input), actorType: 'agent', actorId: p }] },
          })),
          restartDraft,
          pendingDraft(fc.constant(p)),
          changesSinceDraft(fc.constant(c)),
        );
        const material: Draft = { cmd: { op: 'record', args: [inputOf(c[0], c[1], 'human_direct_message', { actorType: 'human' })] } };
        return fc
          .record({ prefix: fc.array(prefix, { maxLength: len(thorough, 4), size: 'max' }), spawn, mid: fc.array(quiet, { maxLength: len(thorough, 4), size: 'max' }) })
          .map(({ prefix: pf, spawn: sp, mid }) => ({
            options: {},
            meta: { parent: p, child: c[0], agentId: c[1], before: pre },
            commands: concretize([...pf, ...preSteps, sp, ...mid, material]),
          }));
      }),
  check: (sc, ctx) =>
    withRun(ctx.factory, sc.options, async (run) => {
      const { parent: p, child: c, agentId: a } = sc.meta as { parent: string; child: string; agentId: string };
      let spawnedAt: number | undefined;
      let pendingAtSpawn: Notice[] = [];
      const last = sc.commands.length;
      for (const [i, cmd] of sc.commands.entries()) {
        const input = recordInput(cmd);
        const isSpawn = input?.['kind'] === 'child_spawned';
        if (isSpawn) pendingAtSpawn = forTarget(await run.pending(p), c, a);
        const o = await run.do(cmd);
        if (input) {
          const e = run.ok<StateEvent | null>(o, 'record');
          if (!e) return run.fail('record of a valid input returned undefined');
          if (isSpawn) spawnedAt = e.sequence;
        }
        if (spawnedAt === undefined) continue;
        const mine = forTarget(await run.pending(p), c, a);
        if (i + 1 < last) {
          if (!same(mine, pendingAtSpawn)) {
            run.fail(
              pendingAtSpawn.length
                ? `R14: a spawn onto a pending cursor must leave the pending notice as it was\n  before: ${show(pendingAtSpawn)}\n  after:  ${show(mine)}`
                : `R14: child_spawned notifies nobody, and until a change by another actor the parent has nothing pending; got ${show(mine)}`,
            );
          }
          continue;
        }
        const expected = pendingAtSpawn[0]?.lastSeenSequence ?? spawnedAt;
        if (mine.length !== 1 || mine[0]!.lastSeenSequence !== expected) {
          run.fail(
            `R14: after the spawn (sequence ${spawnedAt}) ${pendingAtSpawn.length ? `the notice pending before it (changesSince ${expected}) must stay` : `the parent's cursor is seeded there, so the next change notifies it quoting changesSince ${spawnedAt}`}; pending ${show(mine)}`,
          );
        }
      }
    }),
};

const terminalRuns: ConformanceProperty = {
  name: 'R16-terminal-runs',
  rules: ['R16'],
  title: 'run_completed / run_failed notify explicit watchers only, never the spawning parent or producer watchers',
  runs: 100,
  arbitrary: ({ thorough }) =>
    fc
      .record({
        x: fc.option(fc.constantFrom(LEAD, OPS_MAIN), { nil: undefined }),
        q: fc.boolean(),
        parentExplicit: fc.boolean(),
        terminals: fc.array(
          fc.record({ kind: fc.constantFrom(...TERMINAL_KINDS), actor: fc.constantFrom<string | undefined>(undefined, PARENT, LEAD, OPS_MAIN), watchers: fc.subarray([PARENT, PEER, LEAD, GLOBAL]) }),
          { minLength: 1, maxLength: len(thorough, 4), size: 'max' },
        ),
        restartAfter: fc.boolean(),
      })
      .map(({ x, q, parentExplicit, terminals, restartAfter }) => {
        const C = CHILD;
        const cmds: Draft[] = [{ cmd: { op: 'record', args: [inputOf(C, MAIN, 'child_spawned', { actorType: 'agent', actorId: PARENT, runId: 'r1', watchers: [PARENT] })] } }];
        if (x) cmds.push({ cmd: { op: 'watch', args: [{ watcherSessionKey: x, targetSessionKey: C, agentId: MAIN }] } });
        if (parentExplicit) cmds.push({ cmd: { op: 'watch', args: [{ watcherSessionKey: PARENT, targetSessionKey: C, agentId: MAIN }] } });
        if (q) cmds.push({ cmd: { op: 'record', args: [inputOf(C, MAIN, 'goal_changed', { actorType: 'human', watchers: [PEER] })] } });
        for (const w of [PARENT, PEER, LEAD, OPS_MAIN]) cmds.push(drainDraftOf(w), drainDraftOf(w));
        for (const t of terminals) {
          cmds.push({
            cmd: { op: 'record', args: [inputOf(C, MAIN, t.kind, { actorType: t.actor ? 'agent' : 'system', ...(t.actor ? { actorId: t.actor } : {}), ...(t.watchers.length ? { watchers: t.watchers } : {}) })] },
          });
        }
        if (restartAfter) cmds.push({ cmd: { op: 'restart', args: [] } });
        return { options: {}, meta: { parent: PARENT, explicitWatcher: x ?? '(none)', parentAlsoExplicit: String(parentExplicit) }, commands: concretize(cmds) };
      }),
  check: (sc, ctx) =>
    withRun(ctx.factory, sc.options, async (run) => {
      const x = sc.meta!['explicitWatcher'] === '(none)' ? undefined : sc.meta!['explicitWatcher'];
      const parentExplicit = sc.meta!['parentAlsoExplicit'] === 'true';
      const owed = new Map<string, boolean>();
      let terminalPhase = false;
      for (const cmd of sc.commands) {
        const o = await run.do(cmd);
        const input = recordInput(cmd);
        if (input && notifyClass(input['kind'] as string) === 'terminal') {
          terminalPhase = true;
          if (!run.ok<StateEvent | null>(o, 'record')) run.fail('record of a valid input returned undefined');
          for (const w of [PARENT, LEAD, OPS_MAIN]) {
            const explicit = w === x || (w === PARENT && parentExplicit);
            if (explicit && input['actorId'] !== w) owed.set(w, true);
          }
        }
        if (!terminalPhase) continue;
        for (const w of [PARENT, PEER, LEAD, OPS_MAIN]) {
          const mine = forTarget(await run.pending(w), CHILD, MAIN);
          const expected = owed.get(w) === true;
          if (mine.length !== (expected ? 1 : 0)) {
            const role = w === PARENT ? (parentExplicit ? 'the spawning parent, which also watches explicitly,' : 'the spawning parent') : w === x ? 'an explicit watcher' : w === PEER ? 'a producer-passed watcher' : 'a key that does not watch';
            run.fail(`R16: after a terminal run event, ${role} ${show(w)} must ${expected ? 'have one notice' : 'have no notice'}; pending ${show(mine)}`);
          }
        }
      }
    }),
};

// ---------------------------------------------------------------------------------------------
// Reconciliation and retention: R30-R33, R34, R42, R8 (log model)
// ---------------------------------------------------------------------------------------------

/** Valid, always-written records (no onlyIfWatched) mixed with pruning, deletion and reads. */
function logDrafts(maxLength: number, opts: { bulk?: boolean; dedupe?: boolean } = {}): fc.Arbitrary<Draft[]> {
  const parts: { arbitrary: fc.Arbitrary<Draft>; weight: number }[] = [
    { arbitrary: recordDraft({ dedupe: opts.dedupe ?? true }), weight: 14 },
    { arbitrary: changesSinceDraft(), weight: 6 },
    { arbitrary: stateVersionDraft, weight: 2 },
    { arbitrary: advanceSmall, weight: 3 },
    { arbitrary: advanceHours, weight: 3 },
    { arbitrary: advanceMonth, weight: 1 },
    { arbitrary: advanceBack, weight: 1 },
    { arbitrary: pruneDraft, weight: 2 },
    { arbitrary: restartDraft, weight: 1 },
    { arbitrary: deleteDraft, weight: 1 },
    { arbitrary: watchDraft(), weight: 1 },
    { arbitrary: drainDraft(), weight: 1 },
  ];
  if (opts.bulk) {
    parts.push({
      arbitrary: fc.record({ d: recordDraft({ dedupe: false, skew: false }), n: fc.oneof(fc.integer({ min: 2, max: 8 }), fc.integer({ min: 195, max: 230 }), fc.integer({ min: 201, max: 240 })) }).map(({ d, n }) => ({
        cmd: { op: 'recordMany' as const, args: [d.cmd.args[0], n] },
      })),
      weight: 2,
    });
  }
  return fc.array(fc.oneof(...parts), { maxLength, size: 'max' });
}

type LogCheck = (run: Run, model: LogModel, cmd: Command, o: Outcome) => Promise<void>;

/** Drives a log script, keeping the LogModel in step with what the store returned. */
async function driveLog(sc: Scenario, ctx: PropertyContext, check: LogCheck): Promise<void> {
  await withRun(ctx.factory, sc.options, async (run) => {
    const model = new LogModel(sc.options, run.clock.t);
    for (const cmd of sc.commands) {
      const o = await run.do(cmd);
      if (cmd.op === 'record' || cmd.op === 'recordMany') {
        const results = cmd.op === 'record' ? [run.ok(o, 'record of a valid input')] : run.ok<unknown[]>(o, 'recordMany');
        for (const r of results) {
          const problem = model.onRecord(cmd.args[0] as Input, r, run.clock.t);
          if (problem) run.fail(problem);
        }
      } else if (cmd.op === 'prune' || cmd.op === 'restart') {
        run.ok(o, cmd.op);
        model.prune(run.clock.t);
      } else if (cmd.op === 'deleteSession') {
        run.ok(o, 'deleteSession');
        model.delete(cmd.args[0] as string, cmd.args[1] as string);
      }
      await check(run, model, cmd, o);
    }
  });
}

function pageProblems(r: ChangesSinceResponse, e: ReturnType<LogModel['expectedPage']>, req: { since: number; limit?: number }): string | undefined {
  const got = r.stateChanges.events.map((x) => x.sequence);
  const want = e.events.map((x) => x.sequence);
  if (r.stateVersion !== e.stateVersion) return `R30/R5: stateVersion must be ${e.stateVersion} (the highest sequence recorded for the session), got ${r.stateVersion}`;
  if (canonical(got) !== canonical(want)) {
    return `R30: events must be the session's retained events after ${req.since}, ascending, at most ${Math.min(req.limit ?? 200, 200)} (limit clamped to ${LIMITS.maxChangesPerRead})\n  expected sequences: ${show(want)}\n  got:                ${show(got)}`;
  }
  if (!same(r.stateChanges.events, e.events)) return `R30: events must be returned as recorded\n  expected: ${show(e.events)}\n  got:      ${show(r.stateChanges.events)}`;
  if (r.stateChanges.truncated !== e.truncated) return `R31: truncated must be ${e.truncated}`;
  if (r.stateChanges.earliestAvailableSequence !== e.earliestAvailableSequence) {
    return `R32: earliestAvailableSequence must be ${e.earliestAvailableSequence} (lowest retained, else head + 1, else 0), got ${r.stateChanges.earliestAvailableSequence}`;
  }
  return undefined;
}

const changesSincePage: ConformanceProperty = {
  name: 'R30-R32-changes-since',
  rules: ['R30', 'R31', 'R32'],
  title: 'changesSince returns the retained events after since, ascending, at most 200, with truncated and earliestAvailableSequence',
  runs: 60,
  // The real limits half the time, so that bulk records pile more than 200 retained events onto one
  // session (what the limit clamp and truncated are about; conformance/generators.test.ts keeps it so).
  arbitrary: ({ thorough }) => scenario(fc.oneof(fc.constant({}), optionsArb), logDrafts(len(thorough, 30), { bulk: true })),
  check: (sc, ctx) =>
    driveLog(sc, ctx, async (run, model, cmd, o) => {
      if (cmd.op !== 'changesSince' && cmd.op !== 'recordMany') return;
      const reqs =
        cmd.op === 'changesSince'
          ? [cmd.args[0] as { sessionKey: string; agentId: string; since: number; limit?: number }]
          : [0, 1000].flatMap((limit) => {
              const i = cmd.args[0] as Input;
              return [{ sessionKey: i['sessionKey'] as string, agentId: i['agentId'] as string, since: 0, ...(limit ? { limit } : {}) }];
            });
      for (const [n, req] of reqs.entries()) {
        const r = cmd.op === 'changesSince' && n === 0 ? run.ok<ChangesSinceResponse>(o, 'changesSince') : await run.must<ChangesSinceResponse>('changesSince', req);
        const p = pageProblems(r, model.expectedPage(req.sessionKey, req.agentId, req.since, req.limit), req);
        if (p) run.fail(`changesSince(${show(req)}): ${p}`);
      }
    }),
};

const historyGap: ConformanceProperty = {
  name: 'R33-history-gap',
  rules: ['R33'],
  title: 'historyGap is true exactly when events of that session after since were pruned',
  runs: 100,
  arbitrary: ({ thorough }) => scenario(smallLimitsArb, logDrafts(len(thorough, 40))),
  check: (sc, ctx) =>
    driveLog(sc, ctx, async (run, model, cmd) => {
      if (cmd.op !== 'changesSince' && cmd.op !== 'prune' && cmd.op !== 'record') return;
      const ids = cmd.op === 'changesSince' ? [[(cmd.args[0] as Input)['sessionKey'], (cmd.args[0] as Input)['agentId']] as Identity] : IDENTITIES;
      for (const [k, a] of ids) {
        const sinces = new Set([0, model.head(k, a) - 1, model.head(k, a), ...(cmd.op === 'changesSince' ? [(cmd.args[0] as { since: number }).since] : [])]);
        for (const since of [...sinces].filter((s) => s >= 0)) {
          const r = await run.must<ChangesSinceResponse>('changesSince', { sessionKey: k, agentId: a, since });
          const want = model.prunedAfter(k, a, since);
          if (r.stateChanges.historyGap !== want) {
            run.fail(
              `R33: changesSince(${show({ sessionKey: k, agentId: a, since })}).historyGap must be ${want}: ${want ? 'events of this session after since were pruned' : 'no event of this session after since was pruned (sequences are sparse, R7; gaps prove nothing)'}`,
            );
          }
        }
      }
    }),
};

const headsMonotonic: ConformanceProperty = {
  name: 'R42-heads-monotonic',
  rules: ['R5', 'R42'],
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

const realLimits: ConformanceProperty = {
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
      { op: 'recordMany', args: [a, LIMITS.maxRows] },
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

const readOnly: ConformanceProperty = {
  name: 'R34-read-only',
  rules: ['R34'],
  title: 'changesSince and stateVersion never move a cursor or touch the queue',
  runs: 100,
  arbitrary: ({ thorough }) => scenario(optionsArb, genericDrafts({ maxLength: len(thorough, 40) })),
  check: async (sc, ctx) => {
    const isRead = (c: Command) => c.op === 'changesSince' || c.op === 'stateVersion';
    const outcomes: Outcome[] = [];
    await withRun(ctx.factory, sc.options, async (run) => {
      for (const cmd of sc.commands) {
        const before = isRead(cmd) ? await run.pendingAll(WATCHERS) : undefined;
        const o = await run.do(cmd);
        if (before) {
          const after = await run.pendingAll(WATCHERS);
          for (const w of WATCHERS) if (!same(before.get(w), after.get(w))) run.fail(`R34: a read changed the pending notices of ${show(w)}\n  before: ${show(before.get(w))}\n  after:  ${show(after.get(w))}`);
        } else outcomes.push(o);
      }
      run.epilogue();
      for (const w of AGENT_SCOPED_WATCHERS) outcomes.push(ok(await run.must('drainNotices', w)), ok(await run.must('drainNotices', w)));
    });
    // The same script without its reads must behave identically: reads leave no trace for later.
    await withRun(ctx.factory, sc.options, async (run) => {
      let i = 0;
      for (const cmd of sc.commands) {
        if (isRead(cmd)) {
          run.step++;
          continue;
        }
        const o = await run.do(cmd);
        const first = outcomes[i++]!;
        if (!sameOutcome(o, first)) run.fail(`R34: without the reads this command answers differently, so a read changed state\n  with reads:    ${describeOutcome(first)}\n  without reads: ${describeOutcome(o)}`);
      }
      run.epilogue();
      for (const w of AGENT_SCOPED_WATCHERS) {
        for (let k = 0; k < 2; k++) {
          const o = ok(await run.must('drainNotices', w));
          const first = outcomes[i++]!;
          if (!sameOutcome(o, first)) run.fail(`R34: final drainNotices(${show(w)}) differs between the run with reads and the run without\n  with reads:    ${describeOutcome(first)}\n  without reads: ${describeOutcome(o)}`);
        }
      }
    });
  },
};

const dedupe: ConformanceProperty = {
  name: 'R8-dedupe',
  rules: ['R8'],
  title: 'a retained dedupe key returns the same event and changes nothing; a pruned or deleted one is free again',
  runs: 100,
  arbitrary: ({ thorough }) => scenario(optionsArb, logDrafts(len(thorough, 40))),
  check: async (sc, ctx) => {
    // The log model already checks "same event back" and "fresh sequence once freed"; here, also
    // that a hit touches no head and no notice.
    let guard: { heads: number[]; pending: Map<string, Notice[]> } | undefined;
    const snapshot = async (run: Run) => ({
      heads: await Promise.all(IDENTITIES.map(([k, a]) => run.must<number>('stateVersion', k, a))),
      pending: await run.pendingAll(WATCHERS),
    });
    await withRun(ctx.factory, sc.options, async (run) => {
      const model = new LogModel(sc.options, run.clock.t);
      for (const cmd of sc.commands) {
        const input = recordInput(cmd);
        const hit = input ? model.dedupeHit(input['dedupeKey']) : undefined;
        guard = hit ? await snapshot(run) : undefined;
        const o = await run.do(cmd);
        if (input) {
          const problem = model.onRecord(input, run.ok(o, 'record of a valid input'), run.clock.t);
          if (problem) run.fail(problem);
        } else if (cmd.op === 'prune' || cmd.op === 'restart') model.prune(run.clock.t);
        else if (cmd.op === 'deleteSession') model.delete(cmd.args[0] as string, cmd.args[1] as string);
        if (guard) {
          const after = await snapshot(run);
          if (!same(after.heads, guard.heads)) run.fail(`R8: a dedupe hit must not bump a head: ${show(guard.heads)} -> ${show(after.heads)}`);
          for (const w of WATCHERS) {
            if (!same(after.pending.get(w), guard.pending.get(w))) {
              run.fail(`R8: a dedupe hit must not touch a cursor or enqueue a notice (watcher ${show(w)})\n  before: ${show(guard.pending.get(w))}\n  after:  ${show(after.pending.get(w))}`);
            }
          }
        }
      }
    });
  },
};

// ---------------------------------------------------------------------------------------------
// What is stored: R3/R4/R6 (no message text); R9 (bad input)
// ---------------------------------------------------------------------------------------------

function expectedEvent(input: Input, sequence: number, now: number): Record<string, unknown> {
  const occurred = typeof input['occurredAt'] === 'number' ? Math.min(now, Math.max(now - LIMITS.occurredAtSkewMs, input['occurredAt'])) : now;
  const e: Record<string, unknown> = {
    sequence,
    sessionKey: input['sessionKey'],
    agentId: input['agentId'],
    kind: input['kind'],
    actorType: input['actorType'],
    occurredAt: occurred,
    recordedAt: now,
    summary: input['summary'],
  };
  for (const k of ['sessionId', 'actorId', 'runId', 'payload', 'dedupeKey']) if (input[k] !== undefined) e[k] = input[k];
  return e;
}

const noMessageText: ConformanceProperty = {
  name: 'R3-R4-no-message-text',
  rules: ['R3', 'R4', 'R6'],
  title: 'stored events are exactly the validated metadata: StateEvent and the kind\'s closed payload, nothing more',
  runs: 100,
  arbitrary: ({ thorough }) => scenario(optionsArb, genericDrafts({ maxLength: len(thorough, 40) })),
  check: (sc, ctx) =>
    withRun(ctx.factory, sc.options, async (run) => {
      const seen = new Map<number, unknown>();
      const inspect = (e: unknown, where: string) => {
        const p = eventProblems(e);
        if (p) run.fail(`R3/R4: ${where} returned an event that ${p}: ${show(e)}`);
        const ev = e as StateEvent;
        const prior = seen.get(ev.sequence);
        if (prior !== undefined && !same(prior, e)) run.fail(`${where} returned event ${ev.sequence} differently from record\n  record:  ${show(prior)}\n  now:     ${show(e)}`);
      };
      for (const cmd of sc.commands) {
        const o = await run.do(cmd);
        if (!o.ok) continue;
        const input = recordInput(cmd);
        if (input && o.result !== null) {
          const e = o.result as StateEvent;
          if (!seen.has(e.sequence)) {
            const want = expectedEvent(input, e.sequence, run.clock.t);
            inspect(e, 'record');
            if (!same(e, want)) run.fail(`R3/R4/R6: record must store exactly the validated metadata (occurredAt clamped into [now - 24h, now])\n  expected: ${show(want)}\n  got:      ${show(e)}`);
            seen.set(e.sequence, e);
          } else inspect(e, 'record (dedupe hit)');
        }
        if (cmd.op === 'changesSince') for (const e of (o.result as ChangesSinceResponse).stateChanges.events) inspect(e, 'changesSince');
      }
    }),
};

const validation: ConformanceProperty = {
  name: 'R9-validation',
  rules: ['R9'],
  title: 'bad input throws a ValidationError naming the field, and writes nothing',
  runs: 100,
  arbitrary: ({ thorough }) =>
    scenario(
      optionsArb,
      fc.array(fc.oneof({ arbitrary: genericDrafts({ maxLength: 3, invalid: false }), weight: 2 }, { arbitrary: invalidDraft.map((d) => [d]), weight: 1 }), { maxLength: len(thorough, 15), size: 'max' }).map(
        (chunks) => chunks.flat(),
      ),
    ),
  check: (sc, ctx) =>
    withRun(ctx.factory, sc.options, async (run) => {
      const snapshot = async () => ({
        heads: await Promise.all(IDENTITIES.map(([k, a]) => run.must<number>('stateVersion', k, a))),
        pending: [...(await run.pendingAll(WATCHERS)).values()],
      });
      for (const cmd of sc.commands) {
        const field = expectedInvalidField(cmd);
        const before = field !== undefined ? await snapshot() : undefined;
        const o = await run.do(cmd);
        if (field === undefined) continue;
        if (o.ok) return run.fail(`R9: bad input must throw a ValidationError naming ${show(field)}; the call returned ${describeOutcome(o)}`);
        if (o.error.name !== 'ValidationError' || o.error.field !== field) {
          run.fail(`R9: bad input must throw a ValidationError with field ${show(field)}; got ${describeOutcome(o)}`);
        }
        const after = await snapshot();
        if (!same(before, after)) run.fail(`R9: rejected input must write nothing\n  before: ${show(before)}\n  after:  ${show(after)}`);
      }
    }),
};

// ---------------------------------------------------------------------------------------------
// Cursor expiry: R44 (with R14, R21, R27, R29 as its refresh rules)
// ---------------------------------------------------------------------------------------------

const notice3 = (n: Notice): [string, string, number] => [n.targetSessionKey, n.targetAgentId, n.lastSeenSequence];

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
        human: (t: Identity) => rec(t, 'human_direct_message', { actorType: 'human' }), // material for cursor holders (R15)
        passed: (t: Identity) => rec(t, 'goal_changed', { actorType: 'human', watchers: [w] }), // material, creates a cursor
        terminal: (t: Identity) => rec(t, 'run_completed', {}), // material for explicit cursors only (R16)
        self: (t: Identity) => rec(t, 'agent_message', { actorType: 'agent', actorId: w, watchers: [w] }), // the watcher's own: no write (R12)
        logOnly: (t: Identity) => rec(t, 'compacted', { watchers: [w] }), // no write (R17)
        spawn: (t: Identity) => rec(t, 'child_spawned', { actorType: 'agent', actorId: w, watchers: [w] }), // seeding refreshes (R14)
        drain: () => simple('drainNotices', [w]), // acks refresh (R27)
        restart: () => simple('restart'), // the sweep does not refresh (R29)
      };
      const single = fc.oneof(
        { arbitrary: T.map(kinds.watch), weight: 4 },
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
          start: fc.constantFrom<keyof typeof kinds>('watch', 'passed', 'spawn'),
          pendingFirst: fc.boolean(),
          refresh: fc.constantFrom<keyof typeof kinds>('watch', 'watch', 'drain', 'drain', 'drain', 'human', 'spawn', 'restart', 'restart', 'logOnly', 'self', 'terminal'),
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

const cursorExpiry: ConformanceProperty = {
  name: 'R44-cursor-expiry',
  rules: ['R44'],
  title: 'idle cursors expire after the retention with their notices; exactly watch, ack, material events and spawn seeding refresh them (log-only and own events and the restart sweep do not)',
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
          .map((t) => `    ${t.key} (${t.agentId}): ${t.cursor ? `L=${t.cursor.L} N=${t.cursor.N} M=${t.cursor.M}${t.cursor.explicit ? ' explicit' : ''}, last refreshed at ${at(t.cursor.updatedAt)}${t.queued ? ', notice queued' : ''}` : 'no cursor (never created, or expired)'}`)
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
          const r = cmd.args[0] as { targetSessionKey: string; agentId: string };
          m.onWatch(r.targetSessionKey, r.agentId, now);
        } else if (cmd.op === 'drainNotices') {
          const want = m.onDrain(now);
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
        const want = m.pending();
        if (!same(got, want)) {
          run.fail(
            `R44: pendingNotices(${show(w)}) must be ${show(want)} ([target, agent, changesSince]), got ${show(got)}\n  a cursor expires when pruning finds it idle for more than the retention (${humanDuration(retention)}); watch (R21), a drain's ack (R27), a material event (R15) and spawn seeding (R14) refresh it, the watcher's own and log-only events and the restart sweep (R29) do not.\n  cursors as the spec has them now (${at(now)}):\n${explain()}`,
          );
        }
      }
    }),
};

// ---------------------------------------------------------------------------------------------
// Calls that must be refused and change nothing: R1 (agent match), R6 (clock)
// ---------------------------------------------------------------------------------------------

/**
 * Everything observable at the end of a script, plus a probe: a change by a person on every
 * session, then the pending notices, which reveals every cursor (pending or not) that watches it.
 */
async function finalObservations(run: Run): Promise<[string, Outcome][]> {
  run.epilogue();
  const out: [string, Outcome][] = [];
  for (const w of WATCHERS) out.push([`pendingNotices(${show(w)})`, ok(await run.pending(w))]);
  for (const [k, a] of IDENTITIES) {
    out.push([`stateVersion(${show(k)}, ${show(a)})`, ok(await run.must('stateVersion', k, a))]);
    const req = { sessionKey: k, agentId: a, since: 0 };
    out.push([`changesSince(${show(req)})`, ok(await run.must('changesSince', req))]);
  }
  for (const [k, a] of IDENTITIES) {
    const probe = inputOf(k, a, 'human_direct_message', { actorType: 'human', summary: 'probe' });
    out.push([`probe record(${show(probe)})`, ok(await run.must('record', probe))]);
  }
  for (const w of AGENT_SCOPED_WATCHERS) {
    out.push([`drainNotices(${show(w)}) after the probe`, ok(await run.must('drainNotices', w))]);
    out.push([`second drainNotices(${show(w)})`, ok(await run.must('drainNotices', w))]);
  }
  return out;
}

/**
 * Runs the script twice: once whole, checking each refused command with `onRefused`, and once
 * without the refused commands (`refused[i]`). Every other command, and the final observations,
 * must answer identically: a refused call wrote nothing.
 */
async function withoutRefused(sc: Scenario, ctx: PropertyContext, refused: readonly boolean[], rule: string, onRefused: (run: Run, cmd: Command, o: Outcome) => void, onKept?: (run: Run, cmd: Command, o: Outcome) => void): Promise<void> {
  const outcomes: Outcome[] = [];
  let finals: [string, Outcome][] = [];
  await withRun(ctx.factory, sc.options, async (run) => {
    for (const [i, cmd] of sc.commands.entries()) {
      const o = await run.do(cmd);
      if (refused[i]) onRefused(run, cmd, o);
      else {
        outcomes.push(o);
        onKept?.(run, cmd, o);
      }
    }
    finals = await finalObservations(run);
  });
  await withRun(ctx.factory, sc.options, async (run) => {
    let k = 0;
    for (const [i, cmd] of sc.commands.entries()) {
      if (refused[i]) {
        run.step++;
        continue;
      }
      const o = await run.do(cmd);
      const first = outcomes[k++]!;
      if (!sameOutcome(o, first)) run.fail(`${rule}: without the refused calls this command answers differently, so a refused call changed state\n  with them:    ${describeOutcome(first)}\n  without them: ${describeOutcome(o)}`);
    }
    const again = await finalObservations(run);
    for (const [j, [what, o]] of again.entries()) {
      const first = finals[j]![1];
      if (!sameOutcome(o, first)) run.fail(`${rule}: a refused call changed state: ${what} differs between the run with the refused calls and the run without\n  with them:    ${describeOutcome(first)}\n  without them: ${describeOutcome(o)}`);
    }
  });
}

/** R1: a call naming an agent-scoped key with another agent. */
function wrongAgentCall(cmd: Command): boolean {
  const mismatch = (key: unknown, agent: unknown) => typeof key === 'string' && agentOf(key) !== undefined && agentOf(key) !== agent;
  const a = cmd.args[0] as Input | undefined;
  switch (cmd.op) {
    case 'stateVersion':
    case 'deleteSession':
      return mismatch(cmd.args[0], cmd.args[1]);
    case 'changesSince':
    case 'record':
      return !!a && mismatch(a['sessionKey'], a['agentId']);
    case 'watch':
      return !!a && mismatch(a['targetSessionKey'], a['agentId']);
    default:
      return false;
  }
}

const identityAgent: ConformanceProperty = {
  name: 'R1-identity-agent',
  rules: ['R1'],
  title: 'an agent-scoped key named with another agent is a ValidationError on agentId for record, watch, stateVersion, changesSince and deleteSession, and changes nothing (a wrong-agent delete removes no watch)',
  runs: 100,
  arbitrary: ({ thorough }) => {
    const wrong = fc
      .record({
        k: fc.constantFrom(PARENT, PEER, CHILD, LEAD, OPS_MAIN, OPS_SUB),
        b: fc.constantFrom(MAIN, OPS, 'other'),
        op: fc.constantFrom('deleteSession', 'deleteSession', 'deleteSession', 'stateVersion', 'changesSince', 'record', 'watch'),
        since: fc.nat({ max: 12 }),
      })
      .filter(({ k, b }) => agentOf(k) !== b)
      .map(({ k, b, op, since }): Draft => {
        switch (op) {
          case 'stateVersion':
          case 'deleteSession':
            return { cmd: { op, args: [k, b] } };
          case 'changesSince':
            return { cmd: { op, args: [{ sessionKey: k, agentId: b, since }] } };
          case 'record':
            return { cmd: { op, args: [inputOf(k, b, 'human_direct_message', { actorType: 'human' })] } };
          default:
            return { cmd: { op: 'watch', args: [{ watcherSessionKey: k === LEAD ? PARENT : LEAD, targetSessionKey: k, agentId: b }] } };
        }
      });
    // Every key the wrong-agent calls name starts out watching something, with a notice pending:
    // a delete that ignored the agent would visibly end those watches.
    const setup: Draft[] = [
      { cmd: { op: 'record', args: [inputOf(PEER, MAIN, 'human_direct_message', { actorType: 'human', watchers: [PARENT, CHILD, LEAD, OPS_MAIN, OPS_SUB] })] } },
      { cmd: { op: 'record', args: [inputOf(OPS_MAIN, OPS, 'goal_changed', { actorType: 'human', watchers: [PEER] })] } },
    ];
    return scenario(
      optionsArb,
      fc.array(fc.oneof({ arbitrary: genericDraft({ months: false }), weight: 5 }, { arbitrary: wrong, weight: 3 }), { maxLength: len(thorough, 25), size: 'max' }).map((d) => [...setup, ...d]),
    );
  },
  check: (sc, ctx) =>
    withoutRefused(sc, ctx, sc.commands.map(wrongAgentCall), 'R1', (run, cmd, o) => {
      if (o.ok || o.error.name !== 'ValidationError' || o.error.field !== 'agentId') {
        const a = cmd.args[0] as Input;
        const [key, agent] = typeof a === 'string' ? [a, cmd.args[1]] : cmd.op === 'watch' ? [a['targetSessionKey'], a['agentId']] : [a['sessionKey'], a['agentId']];
        run.fail(`R1: the key ${show(key)} belongs to agent ${show(agentOf(key as string))}, not ${show(agent)}, so ${cmd.op} must throw a ValidationError with field "agentId" and change nothing; got ${describeOutcome(o)}`);
      }
    }),
};

/** The commands that run with a refused clock: concretize() brackets each with two advances. */
function refusedClockSteps(commands: readonly Command[]): boolean[] {
  const out = commands.map(() => false);
  let t = T0;
  for (const [i, c] of commands.entries()) {
    if (c.op !== 'advance') continue;
    const next = t + (c.args[0] as number);
    if (next < 0 && t >= 0) {
      out[i] = true;
      if (i + 1 < out.length) out[i + 1] = true;
    } else if (t < 0) out[i] = true;
    t = next;
  }
  return out;
}

const clock: ConformanceProperty = {
  name: 'R6-clock',
  rules: ['R6'],
  title: 'a fractional clock is floored in everything stored; a negative clock is refused with ClockError and writes nothing',
  runs: 100,
  arbitrary: ({ thorough }) =>
    scenario(
      optionsArb,
      fc.array(fc.oneof({ arbitrary: genericDraft({ months: false }), weight: 8 }, { arbitrary: advanceFraction, weight: 3 }, { arbitrary: refusedClockDraft, weight: 3 }), {
        maxLength: len(thorough, 30),
        size: 'max',
      }),
    ),
  check: (sc, ctx) => {
    const seen = new Set<number>();
    const refused = refusedClockSteps(sc.commands);
    return withoutRefused(
      sc,
      ctx,
      refused,
      'R6',
      (run, cmd, o) => {
        if (cmd.op === 'advance') return;
        const refusedOk = !o.ok && o.error.name === 'ClockError';
        // A drain with nothing pending may not need the clock at all; one that acks must refuse.
        const emptyDrain = cmd.op === 'drainNotices' && o.ok && Array.isArray(o.result) && o.result.length === 0;
        if (!refusedOk && !emptyDrain) run.fail(`R6: now() returned ${run.clock.t}, not a finite number >= 0: ${cmd.op} must throw a ClockError before writing anything; got ${describeOutcome(o)}`);
      },
      (run, cmd, o) => {
        const input = recordInput(cmd);
        if (!input || !o.ok || o.result === null) return;
        const e = o.result as StateEvent;
        if (seen.has(e.sequence)) return; // a dedupe hit returns the stored event
        seen.add(e.sequence);
        const now = Math.floor(run.clock.t);
        const want = expectedEvent(input, e.sequence, now);
        if (e.recordedAt !== now || e.occurredAt !== want['occurredAt']) {
          run.fail(`R6: with now() = ${run.clock.t} the store's clock reads ${now} (floored): recordedAt must be ${now} and occurredAt ${String(want['occurredAt'])}; got recordedAt ${e.recordedAt}, occurredAt ${e.occurredAt}`);
        }
      },
    );
  },
};

// ---------------------------------------------------------------------------------------------
// R9b: only if watched
// ---------------------------------------------------------------------------------------------

const onlyIfWatched: ConformanceProperty = {
  name: 'R9b-only-if-watched',
  rules: ['R9b'],
  title: 'onlyIfWatched writes iff the target has a cursor or the producer passed an agent-scoped watcher other than the target',
  runs: 100,
  arbitrary: ({ thorough }) => {
    const rec = fc
      .record({
        t: fc.constantFrom(...IDENTITIES),
        kind: fc.constantFrom(...EVENT_KINDS),
        gated: fc.oneof({ arbitrary: fc.constant(true), weight: 3 }, { arbitrary: fc.constant(false), weight: 1 }),
        watchers: fc.constantFrom('self', 'self+bare', 'self+other', 'other', 'bare', 'none', 'self'),
        other: fc.constantFrom(PARENT, PEER, LEAD, OPS_MAIN),
        actor: fc.option(fc.constantFrom(PARENT, PEER, LEAD, OPS_MAIN), { nil: undefined }),
      })
      .map(({ t, kind, gated, watchers, other, actor }): Draft => {
        const ws = { self: [t[0]], 'self+bare': [t[0], GLOBAL, 'main'], 'self+other': [t[0], other], other: [other], bare: [GLOBAL], none: undefined }[watchers];
        const extra: Input = { actorType: actor ? 'agent' : 'human', ...(actor ? { actorId: actor } : {}), ...(ws ? { watchers: ws } : {}), ...(gated ? { onlyIfWatched: true } : {}) };
        return { cmd: { op: 'record', args: [inputOf(t[0], t[1], kind, extra)] } };
      });
    return scenario(
      fc.constant({}),
      fc.array(
        fc.oneof(
          { arbitrary: rec, weight: 12 },
          { arbitrary: watchDraft(), weight: 2 },
          { arbitrary: resetDraft, weight: 1 },
          { arbitrary: deleteDraft, weight: 2 },
          { arbitrary: drainDraft(), weight: 1 },
          { arbitrary: restartDraft, weight: 1 },
          { arbitrary: advanceSmall, weight: 1 },
        ),
        { maxLength: len(thorough, 30), size: 'max' },
      ),
    );
  },
  check: (sc, ctx) =>
    withRun(ctx.factory, sc.options, async (run) => {
      const cursors = new CursorSet();
      for (const cmd of sc.commands) {
        const input = recordInput(cmd);
        const [k, a] = input ? [input['sessionKey'] as string, input['agentId'] as string] : ['', ''];
        const written = input ? input['onlyIfWatched'] !== true || cursors.watched(input) : false;
        const head = input && !written ? await run.must<number>('stateVersion', k, a) : undefined;
        const o = await run.do(cmd);
        if (input) {
          const e = run.ok<StateEvent | null>(o, 'record of a valid input');
          if (written && !e) {
            run.fail(
              input['onlyIfWatched'] === true
                ? `R9b: ${show(k)} (agent ${a}) ${cursors.hasTarget(k, a) ? 'has a cursor on it' : `has the eligible producer watcher(s) ${show(eligiblePassed(input))}`}, so this onlyIfWatched record must be written; record returned undefined`
                : 'record of a valid input returned undefined',
            );
          }
          if (!written) {
            if (e) run.fail(`R9b: nobody watches ${show(k)} (agent ${a}): no cursor targets it and the producer passed no agent-scoped watcher other than the target itself (passed: ${show(input['watchers'] ?? [])}), so nothing may be written; record returned ${show(e)}`);
            const after = await run.must<number>('stateVersion', k, a);
            if (after !== head) run.fail(`R9b: an onlyIfWatched record that is not written must not move the head: stateVersion went from ${head} to ${after}`);
          }
          if (e) cursors.onWritten(input);
        } else if (cmd.op === 'watch') {
          const r = cmd.args[0] as { watcherSessionKey: string; targetSessionKey: string; agentId: string };
          const want = isAgentScoped(r.watcherSessionKey) && r.watcherSessionKey !== r.targetSessionKey;
          if (run.ok<{ watched: boolean }>(o, 'watch').watched !== want) run.fail(`R21: watch must return {watched: ${want}}`);
          cursors.onWatch(r.watcherSessionKey, r.targetSessionKey, r.agentId);
        } else if (cmd.op === 'resetSession') {
          run.ok(o, 'resetSession');
          cursors.onReset(cmd.args[0] as string);
        } else if (cmd.op === 'deleteSession') {
          run.ok(o, 'deleteSession');
          cursors.onDelete(cmd.args[0] as string, cmd.args[1] as string);
        }
      }
    }),
};

// ---------------------------------------------------------------------------------------------
// R43: the write-path prune schedule, including a clock that steps back
// ---------------------------------------------------------------------------------------------

const pruneSchedule: ConformanceProperty = {
  name: 'R43-prune-schedule',
  rules: ['R43'],
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
// Fixed vectors
// ---------------------------------------------------------------------------------------------

const vectors: ConformanceProperty = {
  name: 'vectors',
  rules: ['R1-R51'],
  title: 'the fixed vectors in conformance/vectors replay with the recorded outputs',
  runs: 1,
  fixed: true,
  arbitrary: () => fc.constant({ options: {}, commands: [] }),
  async check(_sc, ctx) {
    for (const v of loadVectors()) {
      const r = await runVector(ctx.factory, v);
      if (r.failure) {
        const err = new ConformanceFailure(scriptLineOf(v, r.failure.step), `vector ${v.name} (${v.rules.join(', ')}): ${r.failure.message}`);
        (err as ConformanceFailure & { scenario?: Scenario }).scenario = vectorScenario(v);
        throw err;
      }
    }
  },
};

export const PROPERTIES: readonly ConformanceProperty[] = [
  model,
  oneNoticePerPair,
  noticeText,
  frozenWatermark,
  ackOnDrain,
  selfSuppression,
  bareKeys,
  explicitWatch,
  spawnSeeding,
  logOnly,
  terminalRuns,
  readOnly,
  changesSincePage,
  historyGap,
  headsMonotonic,
  realLimits,
  pruneSchedule,
  restart,
  cursorExpiry,
  dedupe,
  noMessageText,
  clock,
  identityAgent,
  onlyIfWatched,
  validation,
  vectors,
];
