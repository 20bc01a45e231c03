/**
 * Multi-handle mode (conformance/handles.ts): several handles on one backing store (connections,
 * processes) must be one store to their callers. R20: what is pending is the durable cursors'
 * state, so every handle reads the same notices; R26: byte-identical; R27: a drain through one
 * handle takes the notices for all, so each notice reaches exactly one drainer. Judged from the
 * implementation's own answers, without the reference (`model` compares with it in this mode too).
 */
import type { Notice } from '../../spec/index.js';
import { genericDrafts, optionsArb, scenario, WATCHERS } from '../arbitraries.js';
import { withRun } from '../run.js';
import { same } from '../script.js';
import { type ConformanceProperty, len, onHandles, show } from './common.js';

const pairOf = (n: Notice) => `${n.targetAgentId} ${n.targetSessionKey} ${n.lastSeenSequence}`;

export const handlesAgree: ConformanceProperty = {
  name: 'R20-R27-handles-agree',
  rules: ['R20', 'R26', 'R27'],
  title: 'every handle on one store sees the same pending notices after every command on any handle, and a drain through one handle takes them for all',
  runs: 80,
  multiHandle: true,
  arbitrary: ({ thorough, handles }) => scenario(optionsArb, onHandles(genericDrafts({ maxLength: len(thorough, 30) }), handles)),
  check: (sc, ctx) =>
    withRun(
      ctx.target,
      sc.options,
      async (run) => {
        const n = run.stores.length;
        /** Each watcher's notices as every handle reads them; they must agree. */
        const read = async (): Promise<Map<string, Notice[]>> => {
          const out = new Map<string, Notice[]>();
          for (const w of WATCHERS) {
            const first = await run.pending(w, 0);
            for (let h = 1; h < n; h++) {
              const other = await run.pending(w, h);
              if (!same(first, other)) {
                run.fail(`R20/R26: the handles of one store disagree on pendingNotices(${show(w)}): what is pending is durable state, the same through every handle\n  handle 0: ${show(first)}\n  handle ${h}: ${show(other)}`);
              }
            }
            out.set(w, first);
          }
          return out;
        };
        let before = await read();
        for (const cmd of sc.commands) {
          const o = await run.do(cmd);
          const after = await read();
          if (cmd.op === 'drainNotices' && o.ok && typeof cmd.args[0] === 'string' && before.has(cmd.args[0])) {
            const w = cmd.args[0];
            const drained = o.result as Notice[];
            if (!same(drained, before.get(w))) {
              run.fail(`R27: a drain through handle ${cmd.handle ?? 0} must return exactly what every handle showed pending just before\n  pending: ${show(before.get(w))}\n  drained: ${show(drained)}`);
            }
            const taken = new Set(drained.map(pairOf));
            const again = after.get(w)!.filter((x) => taken.has(pairOf(x)));
            if (again.length > 0) run.fail(`R27: after a drain through handle ${cmd.handle ?? 0} the drained notices must be gone from every handle (each goes to exactly one drainer); still pending: ${show(again)}`);
          }
          before = after;
        }
      },
      ctx.handles,
    ),
};
