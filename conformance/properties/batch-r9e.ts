/**
 * R9e: recordMany, the optional batched record. A twin store (the reference, as in `model`: the
 * wire protocol keeps one store per process, W5, so the twin cannot be a second store of the
 * implementation) receives the same inputs one `record` at a time, and every result and every
 * observation must agree. Sequences are compared by rank (the n-th sequence a store hands out), so
 * an implementation whose counter is sparse (R7 allows it) still compares.
 */
import fc from 'fast-check';
import type { SessionStateStore } from '../../spec/index.js';
import { advanceSmall, ambientWatchDraft, type Draft, drainDraft, IDENTITIES, INVALID_CASES, recordDraft, spawnDraft, watchDraft, WATCHERS } from '../arbitraries.js';
import { Run } from '../run.js';
import { callStore, describeOutcome, type Scenario } from '../script.js';
import { type ConformanceProperty, len, show } from './common.js';

const SEQUENCE_FIELDS = new Set(['sequence', 'stateVersion', 'lastSeenSequence', 'earliestAvailableSequence', 'since']);

/** Replaces every sequence-valued field by its rank among `sequences` (0 stays 0). */
function byRank(value: unknown, rank: Map<number, number>, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => byRank(v, rank));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, byRank(v, rank, k)]));
  }
  if (typeof value === 'number' && SEQUENCE_FIELDS.has(key) && value !== 0) return rank.get(value) ?? `unseen sequence ${value}`;
  return value;
}

function sequencesIn(results: readonly unknown[]): number[] {
  const out: number[] = [];
  for (const r of results) {
    if (r !== null && typeof r === 'object' && typeof (r as { sequence?: unknown }).sequence === 'number') out.push((r as { sequence: number }).sequence);
  }
  return out;
}

/** A batch of 1..6 valid inputs, or (1 in 4) the same with one invalid input spliced in. */
const RECORD_INVALID = INVALID_CASES.filter((c) => c.cmd.op === 'record');

const batchDraft: fc.Arbitrary<Draft> = fc
  .record({
    inputs: fc.array(fc.oneof({ weight: 5, arbitrary: recordDraft({ skew: false, onlyIfWatched: true }) }, { weight: 1, arbitrary: spawnDraft() }), { minLength: 1, maxLength: 6 }),
    bad: fc.option(fc.record({ at: fc.nat({ max: 6 }), which: fc.nat({ max: RECORD_INVALID.length - 1 }) }), { nil: undefined, freq: 4 }),
  })
  .map(({ inputs, bad }) => {
    const args = inputs.map((d) => d.cmd.args[0]);
    if (bad) args.splice(Math.min(bad.at, args.length), 0, RECORD_INVALID[bad.which]!.cmd.args[0]);
    return { cmd: { op: 'recordMany', args: [args] } };
  });

const drafts = (n: number): fc.Arbitrary<Draft[]> =>
  fc.array(
    fc.oneof(
      { weight: 6, arbitrary: batchDraft },
      { weight: 2, arbitrary: watchDraft() },
      { weight: 1, arbitrary: ambientWatchDraft() },
      { weight: 2, arbitrary: drainDraft() },
      { weight: 1, arbitrary: advanceSmall },
    ),
    { minLength: 1, maxLength: n },
  );

/** The field R9e expects for a batch holding one invalid input (INVALID_CASES), or undefined. */
function expectedBatchField(inputs: readonly unknown[]): string | undefined {
  for (const [i, input] of inputs.entries()) {
    const c = RECORD_INVALID.find((k) => k.cmd.args[0] === input);
    if (c) return `${i}.${c.field}`;
  }
  return undefined;
}

async function observe(run: Run, rank: Map<number, number>): Promise<string> {
  const seen: unknown[] = [];
  for (const [k, a] of IDENTITIES) {
    seen.push(await run.must('stateVersion', k, a));
    seen.push(await run.must('changesSince', { sessionKey: k, agentId: a, since: 0 }));
  }
  for (const w of WATCHERS) seen.push(await run.pending(w));
  return show(byRank(seen, rank));
}

export const recordMany: ConformanceProperty = {
  name: 'R9e-record-many',
  rules: ['R9e'],
  needs: ['recordMany'],
  title: 'recordMany answers and leaves the store exactly as the reference calling record on each input in order; one bad input rejects the batch and writes nothing',
  runs: 60,
  optionalMethod: 'recordMany',
  // Default limits only: R9e prunes once per batch, so a prune that removes rows mid-script would
  // differ from the twin's per-record schedule by design, not by fault.
  arbitrary: ({ thorough }) => drafts(len(thorough, 14)).map((d): Scenario => ({ options: {}, commands: d.map((x) => x.cmd) })),
  check: async (sc, ctx) => {
    const batched = await Run.open(ctx.factory, sc.options);
    let single: Run | undefined;
    try {
      single = await Run.open(ctx.reference, sc.options);
      const ranks = [new Map<number, number>(), new Map<number, number>()] as const;
      const note = (which: 0 | 1, results: readonly unknown[]) => {
        for (const s of sequencesIn(results)) if (!ranks[which].has(s)) ranks[which].set(s, ranks[which].size + 1);
      };
      for (const cmd of sc.commands) {
        if (cmd.op !== 'recordMany') {
          const a = await batched.do(cmd);
          const b = await single.do(cmd);
          if (show(byRank(a, ranks[0])) !== show(byRank(b, ranks[1]))) batched.fail(`the store and the reference disagree on ${cmd.op}: ${describeOutcome(a)} vs ${describeOutcome(b)}`);
          continue;
        }
        const inputs = cmd.args[0] as unknown[];
        const badField = expectedBatchField(inputs);
        const before = badField === undefined ? undefined : await observe(batched, ranks[0]);
        const o = await batched.do(cmd);
        single.clock.t = batched.clock.t;
        if (badField !== undefined) {
          const error = o.ok ? undefined : o.error;
          if (error?.name !== 'ValidationError') batched.fail(`R9e: a batch with an invalid input must throw a ValidationError, got ${describeOutcome(o)}`);
          if (error?.field !== badField) batched.fail(`R9e: the error must name the bad input by index: field ${show(badField)}, got ${show(error?.field)}`);
          if ((await observe(batched, ranks[0])) !== before) batched.fail('R9e: a rejected batch must write nothing (heads, logs or pending notices changed)');
          continue;
        }
        const got = batched.ok<unknown[]>(o, 'recordMany of valid inputs');
        if (!Array.isArray(got) || got.length !== inputs.length) batched.fail(`R9e: recordMany must answer one result per input (${inputs.length}), got ${show(got)}`);
        const want: unknown[] = [];
        for (const input of inputs) want.push(single.ok(await callStore(single.store, 'record', [input]), 'record of a valid input'));
        note(0, got);
        note(1, want);
        const shownGot = show(byRank(got, ranks[0]));
        const shownWant = show(byRank(want, ranks[1]));
        if (shownGot !== shownWant) batched.fail(`R9e: recordMany's results differ from record called on each input in order\n  recordMany: ${shownGot}\n  record x${inputs.length}: ${shownWant}`);
        const [a, b] = [await observe(batched, ranks[0]), await observe(single, ranks[1])];
        if (a !== b) batched.fail(`R9e: after the batch the store differs from one that recorded the inputs one by one\n  recordMany: ${a}\n  record:     ${b}`);
      }
      // A batch's later events on a target already pending show only as a follow-up (R28), which
      // pending notices do not reveal: the script ends with every watcher drained twice on both.
      for (let round = 1; round <= 2; round++) {
        for (const w of WATCHERS) {
          const cmd = { op: 'drainNotices' as const, args: [w] };
          const [a, b] = [show(byRank(await batched.do(cmd), ranks[0])), show(byRank(await single.do(cmd), ranks[1]))];
          if (a !== b) batched.fail(`R9e: the final drain ${round} of ${w} differs from the reference's (R28 follow-ups)\n  recordMany: ${a}\n  record:     ${b}`);
        }
      }
    } finally {
      if (single) await single.close();
      await batched.close();
    }
  },
};

/** R9e is optional: whether `store` offers recordMany (an empty batch answers [] and writes nothing). */
export async function offersRecordMany(store: SessionStateStore): Promise<boolean> {
  if (typeof (store as { recordMany?: unknown }).recordMany !== 'function') return false;
  const o = await callStore(store, 'recordMany', [[]]);
  return o.ok && Array.isArray(o.result) && o.result.length === 0;
}
