/**
 * One watcher, one target: a model of a single cursor (L, N, M) and the checks that R12, R15, R17
 * (notify-r10-r18.ts) and R27/R28 (notices-r20-r29.ts) run over it.
 */
import fc from 'fast-check';
import type { Notice, StateEvent } from '../../spec/index.js';
import { advanceSmall, changesSinceDraft, CHILD, concretize, type Draft, GLOBAL, type Identity, inputOf, LEAD, LOG_ONLY_KINDS, MAIN, NOTIFY_KINDS, OPS_MAIN, PARENT, PEER, restartDraft, TERMINAL_KINDS } from '../arbitraries.js';
import { notifyClass } from '../facts.js';
import { withRun } from '../run.js';
import { type Command, same, type Scenario } from '../script.js';
import { forTarget, type Input, type PropertyContext, recordInput, show } from './common.js';

// ---------------------------------------------------------------------------------------------
// One watcher, one target: R15, R27/R28, R12, R17
// ---------------------------------------------------------------------------------------------

interface PairCursor {
  L: number;
  N: number;
  M: number;
  explicit: boolean;
}

/** The cursor of one (watcher, target) pair, as R14-R16, R21, R27-R29 describe it; `queued` is N > L (R20). */
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

  /** R29: a restart changes no cursor. */
  onRestart(): void {}
}

type PairBias = 'mixed' | 'self' | 'log-only';

export function pairScenario(bias: PairBias, maxLength: number): fc.Arbitrary<Scenario> {
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

export async function checkPair(sc: Scenario, ctx: PropertyContext, checks: PairChecks): Promise<void> {
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
