/**
 * Keys, input and events (PROTOCOL.md section 1): R1 identity agent, R3/R4 no message text,
 * R6 clock, R8 dedupe, R9 validation, R9b only if watched.
 */
import fc from 'fast-check';
import { type ChangesSinceResponse, EVENT_KINDS, type EventKind, LIMITS, type Notice, type StateEvent } from '../../spec/index.js';
import { advanceFraction, advanceSmall, AGENT_SCOPED_WATCHERS, CHILD, deleteDraft, type Draft, drainDraft, expectedInvalidField, genericDraft, genericDrafts, GLOBAL, IDENTITIES, inputOf, invalidDraft, LEAD, MAIN, OPS, OPS_MAIN, OPS_SUB, optionsArb, PARENT, PEER, refusedClockDraft, resetDraft, restartDraft, scenario, unwatchDraft, watchDraft, WATCHERS } from '../arbitraries.js';
import { agentOf, eventProblems, isAgentScoped } from '../facts.js';
import { CursorSet, eligiblePassed } from '../cursor-model.js';
import { LogModel } from '../log-model.js';
import { Run, withRun } from '../run.js';
import { type Command, describeOutcome, type Outcome, same, sameOutcome, type Scenario, T0 } from '../script.js';
import { type ConformanceProperty, type Input, len, ok, type PropertyContext, recordInput, show } from './common.js';
import { logDrafts } from './log-script.js';

export const dedupe: ConformanceProperty = {
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

export const noMessageText: ConformanceProperty = {
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

export const validation: ConformanceProperty = {
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

export const identityAgent: ConformanceProperty = {
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

export const clock: ConformanceProperty = {
  name: 'R6-clock',
  rules: ['R6', 'W2'],
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
        if (!input || !o.ok) return;
        if (o.result === null) {
          // Only R9b may skip a valid record; a fractional reading (floored) or any time R6 clamps must not.
          if (input['onlyIfWatched'] !== true) run.fail(`R6: with now() = ${run.clock.t} a valid record returned nothing: the reading is floored and occurredAt clamped, never a reason to drop the event; input ${describeOutcome({ ok: true, result: input })}`);
          return;
        }
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

export const onlyIfWatched: ConformanceProperty = {
  name: 'R9b-only-if-watched',
  rules: ['R9b'],
  title: 'onlyIfWatched writes iff the target has a cursor or the producer passed an agent-scoped watcher other than the target',
  runs: 100,
  arbitrary: ({ thorough }) => {
    const rec = fc
      .record({
        t: fc.constantFrom(...IDENTITIES),
        // R14 seeds no cursor of a session on itself: a spawn naming its own key must leave it unwatched.
        kind: fc.oneof({ arbitrary: fc.constantFrom(...EVENT_KINDS), weight: 3 }, { arbitrary: fc.constant<EventKind>('child_spawned'), weight: 1 }),
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
          { arbitrary: unwatchDraft(), weight: 1 },
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
        } else if (cmd.op === 'unwatch') {
          const r = cmd.args[0] as { watcherSessionKey: string; targetSessionKey: string; agentId: string };
          run.ok(o, 'unwatch');
          cursors.onUnwatch(r.watcherSessionKey, r.targetSessionKey, r.agentId); // R52
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
