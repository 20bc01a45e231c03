/**
 * model: every script runs against the implementation and the reference store in lockstep, and
 * every observable result must be equal (the whole protocol, R1-R51). In multi-handle mode
 * (conformance/handles.ts) the commands are spread over the handles of one store on both sides.
 */
import { AGENT_SCOPED_WATCHERS, IDENTITIES, modelDrafts, optionsArb, scenario, WATCHERS } from '../arbitraries.js';
import { Run } from '../run.js';
import { describeOutcome, formatCommand, type Outcome, sameOutcome } from '../script.js';
import { type ConformanceProperty, len, ok, onHandles, show } from './common.js';

// ---------------------------------------------------------------------------------------------
// model: lockstep with the reference
// ---------------------------------------------------------------------------------------------

export const model: ConformanceProperty = {
  name: 'model',
  rules: ['R1-R51'],
  title: 'every observable result equals the reference store\'s, command by command (spread over the handles of one store in multi-handle mode)',
  runs: 150,
  arbitrary: ({ thorough, handles }) => scenario(optionsArb, onHandles(modelDrafts(len(thorough, 40)), handles)),
  async check(sc, ctx) {
    const handles = ctx.handles;
    const sub = await Run.open(ctx.target, sc.options, handles);
    const ref = await Run.open(ctx.reference, sc.options, handles);
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
      for (let h = 0; h < handles; h++) {
        const on = handles > 1 ? `[handle ${h}] ` : '';
        for (const w of WATCHERS) compare(await sub.pending(w, h).then(ok), await ref.pending(w, h).then(ok), `epilogue ${on}pendingNotices(${show(w)})`);
      }
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
