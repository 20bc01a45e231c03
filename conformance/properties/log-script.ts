/**
 * Log scripts: valid, always-written records mixed with pruning, deletion and reads, driven with the
 * LogModel in step. Used by R8 (log-r1-r9b.ts), R30-R33 (reconcile-r30-r35.ts) and R42/R43
 * (retention-r40-r44.ts).
 */
import fc from 'fast-check';
import { type ChangesSinceResponse, LIMITS } from '../../spec/index.js';
import { advanceBack, advanceHours, advanceMonth, advanceSmall, changesSinceDraft, deleteDraft, type Draft, drainDraft, pruneDraft, recordDraft, restartDraft, stateVersionDraft, watchDraft } from '../arbitraries.js';
import { LogModel } from '../log-model.js';
import { Run, withRun } from '../run.js';
import { canonical, type Command, type Outcome, same, type Scenario } from '../script.js';
import { type Input, type PropertyContext, show } from './common.js';

/** Valid, always-written records (no onlyIfWatched) mixed with pruning, deletion and reads. */
export function logDrafts(maxLength: number, opts: { bulk?: boolean; dedupe?: boolean } = {}): fc.Arbitrary<Draft[]> {
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
        cmd: { op: 'repeatRecord' as const, args: [d.cmd.args[0], n] },
      })),
      weight: 2,
    });
  }
  return fc.array(fc.oneof(...parts), { maxLength, size: 'max' });
}

type LogCheck = (run: Run, model: LogModel, cmd: Command, o: Outcome) => Promise<void>;

/** Drives a log script, keeping the LogModel in step with what the store returned. */
export async function driveLog(sc: Scenario, ctx: PropertyContext, check: LogCheck): Promise<void> {
  await withRun(ctx.factory, sc.options, async (run) => {
    const model = new LogModel(sc.options, run.clock.t);
    for (const cmd of sc.commands) {
      const o = await run.do(cmd);
      if (cmd.op === 'record' || cmd.op === 'repeatRecord') {
        const results = cmd.op === 'record' ? [run.ok(o, 'record of a valid input')] : run.ok<unknown[]>(o, 'repeatRecord');
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

export function pageProblems(r: ChangesSinceResponse, e: ReturnType<LogModel['expectedPage']>, req: { since: number; limit?: number }): string | undefined {
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
