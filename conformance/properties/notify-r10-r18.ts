/**
 * Which events notify whom (PROTOCOL.md section 2): R12 self-suppression, R13 bare keys, R14 spawn
 * seeding, R15 frozen watermark, R16 terminal runs, R17 log-only.
 */
import fc from 'fast-check';
import type { Notice, StateEvent } from '../../spec/index.js';
import { advanceSmall, BARE_WATCHERS, changesSinceDraft, CHILD, concretize, type Draft, drainDraft, GLOBAL, type Identity, inputOf, LEAD, LOG_ONLY_KINDS, MAIN, NOTIFY_KINDS, OPS, OPS_MAIN, OPS_SUB, optionsArb, PARENT, PEER, pendingDraft, recordDraft, restartDraft, scenario, spawnDraft, TERMINAL_KINDS, watchDraft } from '../arbitraries.js';
import { isAgentScoped, notifyClass } from '../facts.js';
import { withRun } from '../run.js';
import { same } from '../script.js';
import { type ConformanceProperty, drainDraftOf, forTarget, type Input, len, recordInput, show } from './common.js';
import { checkPair, pairScenario } from './pair.js';

export const bareKeys: ConformanceProperty = {
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

// ---------------------------------------------------------------------------------------------
// One watcher, one target (pair.ts): R15, R12, R17
// ---------------------------------------------------------------------------------------------

export const frozenWatermark: ConformanceProperty = {
  name: 'R15-frozen-watermark',
  rules: ['R15'],
  title: 'a pending notice quotes the watermark frozen at the last ack; later events never move it',
  runs: 120,
  arbitrary: ({ thorough }) => pairScenario('mixed', len(thorough, 30)),
  check: (sc, ctx) => checkPair(sc, ctx, { quotes: true }),
};

export const selfSuppression: ConformanceProperty = {
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

export const logOnly: ConformanceProperty = {
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
// Structured scenarios: R14, R16
// ---------------------------------------------------------------------------------------------

export const spawnSeeding: ConformanceProperty = {
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

export const terminalRuns: ConformanceProperty = {
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
