/**
 * Watchers, notices and acknowledgement (PROTOCOL.md section 3): R21/R22 explicit watch, R23/R25/R26
 * notice text, R24 one pending notice, R27/R28 ack on drain, R29 restart.
 */
import fc from 'fast-check';
import { LIMITS, type Notice, type StateEvent } from '../../spec/index.js';
import { advanceSmall, AGENT_SCOPED_WATCHERS, changesSinceDraft, CHILD, concretize, type Draft, drainDraft, genericDraft, genericDrafts, GLOBAL, IDENTITIES, type Identity, inputOf, LEAD, LOG_ONLY_KINDS, MAIN, NOTIFY_KINDS, OPS, OPS_MAIN, optionsArb, PARENT, PEER, pendingDraft, recordDraft, restartDraft, scenario, TERMINAL_KINDS, WATCHERS } from '../arbitraries.js';
import { agentOf, expectedContextKey, expectedNoticeText, expectedWake, noticeProblems, notifyClass } from '../facts.js';
import { withRun } from '../run.js';
import { type Command, describeOutcome, humanDuration, type Outcome, same, sameOutcome } from '../script.js';
import { clockText, type ConformanceProperty, drainDraftOf, forTarget, type Input, len, recordInput, show } from './common.js';
import { checkPair, pairScenario } from './pair.js';

// ---------------------------------------------------------------------------------------------
// Notices over general scripts: R24, R23/R25/R26, R29
// ---------------------------------------------------------------------------------------------

/**
 * R24 also promises that a pending notice stays until something entitled to remove it happens. A
 * notice of watcher w about target (k, a) may leave the queue only by
 *   - drainNotices(w) (R27),
 *   - resetSession(w) (R50), deleteSession(w, *) or deleteSession(k, a) (R51),
 *   - unwatch(w, target) (R52) or an ack by ackNotices(w, ...) (R27b),
 *   - expiry (R44) in prune(), in restart() (which only prunes: R29 changes no cursor, so across a
 *     restart only expiry removes one), or in a record() whose insert
 *     triggers the write-path prune (R43). Expiry needs the cursor idle for longer than the
 *     retention, and the cursor was refreshed when the notice was enqueued, so it is possible only
 *     once the clock is more than the retention past the earliest clock seen while it was pending.
 */
function vanishAllowed(cmd: Command, w: string, n: Notice, expiryPossible: boolean): string | undefined {
  const [a0, a1] = cmd.args;
  if (cmd.op === 'drainNotices' && a0 === w) return 'drain';
  if (cmd.op === 'ackNotices' && a0 === w) return 'ack';
  if (cmd.op === 'unwatch') {
    const r = a0 as { watcherSessionKey?: unknown; targetSessionKey?: unknown; agentId?: unknown };
    if (r?.watcherSessionKey === w && r.targetSessionKey === n.targetSessionKey && r.agentId === n.targetAgentId) return 'unwatch';
  }
  if (cmd.op === 'resetSession' && a0 === w) return 'reset';
  if (cmd.op === 'deleteSession' && (a0 === w || (a0 === n.targetSessionKey && a1 === n.targetAgentId))) return 'delete';
  if (expiryPossible) return 'expiry';
  return undefined;
}

export const oneNoticePerPair: ConformanceProperty = {
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

export const noticeText: ConformanceProperty = {
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

/**
 * R29 scripts: the general mix (no month-long jumps, so nothing ages out and a restart's prune
 * removes nothing), restarts, and chunks that leave a notice pending with material work
 * interleaved after it (L < N < M) right before a restart, then drain: the state in which v1's
 * sweep (N := M) would change what the drain reopens (R28).
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
      return [...body, ...(noise ? [noise] : []), { cmd: { op: 'restart', args: [] } }, drainDraftOf(w), { cmd: { op: 'pendingNotices', args: [w] } }];
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

export const restart: ConformanceProperty = {
  name: 'R29-restart',
  rules: ['R29'],
  title: 'a restart changes no cursor: the same notices are pending before and after, and every later answer is what the same script without restarts gets',
  runs: 100,
  arbitrary: ({ thorough }) => scenario(fc.constant({}), restartDrafts(len(thorough, 14))),
  check: async (sc, ctx) => {
    // The twin: the same script on a fresh store of the same implementation, without the restarts.
    const twin: Outcome[] = [];
    await withRun(ctx.factory, sc.options, async (run) => {
      for (const cmd of sc.commands) if (cmd.op !== 'restart') twin.push(await run.do(cmd));
    });
    await withRun(ctx.factory, sc.options, async (run) => {
      let i = 0;
      for (const cmd of sc.commands) {
        const before = cmd.op === 'restart' ? await run.pendingAll(WATCHERS) : undefined;
        const o = await run.do(cmd);
        if (before) {
          run.ok(o, 'restart');
          const after = await run.pendingAll(WATCHERS);
          for (const w of WATCHERS) {
            if (!same(before.get(w), after.get(w))) {
              run.fail(`R29: a restart must leave exactly the same notices pending for ${show(w)} (nothing aged out here)\n  before: ${show(before.get(w))}\n  after:  ${show(after.get(w))}`);
            }
          }
          continue;
        }
        const without = twin[i++]!;
        if (!sameOutcome(o, without)) {
          run.fail(
            `R29: a restart changes no cursor, so every answer after it must equal the answer of the same script without restarts (nothing aged out here, so the restart's prune removes nothing)\n  with the restarts:    ${describeOutcome(o)}\n  without the restarts: ${describeOutcome(without)}\n  (a restart that rewrites cursors, e.g. v1's sweep setting N := M, changes what a later drain reopens, R28)`,
          );
        }
      }
    });
  },
};

// ---------------------------------------------------------------------------------------------
// One watcher, one target (pair.ts): R27/R28
// ---------------------------------------------------------------------------------------------

export const ackOnDrain: ConformanceProperty = {
  name: 'R27-R28-ack-on-drain',
  rules: ['R27', 'R28'],
  title: 'drain returns the pending notices and acks; exactly one follow-up iff work interleaved',
  runs: 120,
  arbitrary: ({ thorough }) => pairScenario('mixed', len(thorough, 30)),
  check: (sc, ctx) => checkPair(sc, ctx, { existence: 'always', drainMatchesPending: true, quotes: true }),
};

// ---------------------------------------------------------------------------------------------
// Structured scenarios: R21/R22
// ---------------------------------------------------------------------------------------------

export const explicitWatch: ConformanceProperty = {
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
