/**
 * Reconciliation (PROTOCOL.md section 4): R30-R32 changesSince pages, R33 history gap, R34 read-only.
 */
import fc from 'fast-check';
import type { ChangesSinceResponse } from '../../spec/index.js';
import { AGENT_SCOPED_WATCHERS, genericDrafts, IDENTITIES, type Identity, optionsArb, scenario, smallLimitsArb, WATCHERS } from '../arbitraries.js';
import { withRun } from '../run.js';
import { type Command, describeOutcome, type Outcome, same, sameOutcome } from '../script.js';
import { type ConformanceProperty, type Input, len, ok, show } from './common.js';
import { driveLog, logDrafts, pageProblems } from './log-script.js';

export const changesSincePage: ConformanceProperty = {
  name: 'R30-R32-changes-since',
  rules: ['R30', 'R31', 'R32'],
  title: 'changesSince returns the retained events after since, ascending, at most 200, with truncated and earliestAvailableSequence',
  runs: 60,
  // The real limits half the time, so that bulk records pile more than 200 retained events onto one
  // session (what the limit clamp and truncated are about; conformance/generators.test.ts keeps it so).
  arbitrary: ({ thorough }) => scenario(fc.oneof(fc.constant({}), optionsArb), logDrafts(len(thorough, 30), { bulk: true })),
  check: (sc, ctx) =>
    driveLog(sc, ctx, async (run, model, cmd, o) => {
      if (cmd.op !== 'changesSince' && cmd.op !== 'repeatRecord') return;
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

export const historyGap: ConformanceProperty = {
  name: 'R33-history-gap',
  rules: ['R33'],
  needs: ['limits'],
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

export const readOnly: ConformanceProperty = {
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
