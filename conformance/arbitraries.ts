/**
 * Generators of scripts. Everything draws from a small pool of keys (agent-scoped main sessions, a
 * sub-agent, another agent's sessions, the bare `global` under two agents, the bare `main`), so
 * watchers, targets, actors and dedupe keys collide all the time.
 */
import fc from 'fast-check';
import { EVENT_KINDS, NOTIFY_CLASS, type EventKind } from '../spec/index.js';
import { DAY, HOUR, MINUTE, T0, same, type Command, type Scenario, type ScenarioOptions } from './script.js';
import { expectedContextKey } from './facts.js';

export const MAIN = 'main';
export const OPS = 'ops';
export const PARENT = 'agent:main:main';
export const PEER = 'agent:main:peer';
/** R1/R20: keys are exact identifiers; this one differs from PEER only in case (a case-folding store merges them). */
export const PEER_CASE = 'agent:main:Peer';
export const CHILD = 'agent:main:subagent:child';
export const LEAD = 'agent:main:subagent:lead';
export const OPS_MAIN = 'agent:ops:main';
export const OPS_SUB = 'agent:ops:subagent:helper';
export const GLOBAL = 'global';
export const BARE_MAIN = 'main';

export type Identity = readonly [sessionKey: string, agentId: string];

/** Session identities (targets). `global` exists under two agents: R20 keeps them apart. */
export const IDENTITIES: readonly Identity[] = [
  [PARENT, MAIN],
  [PEER, MAIN],
  [PEER_CASE, MAIN],
  [CHILD, MAIN],
  [OPS_MAIN, OPS],
  [OPS_SUB, OPS],
  [GLOBAL, MAIN],
  [GLOBAL, OPS],
];
export const AGENT_SCOPED_WATCHERS = [PARENT, PEER, PEER_CASE, CHILD, LEAD, OPS_MAIN, OPS_SUB] as const;
export const BARE_WATCHERS = [GLOBAL, BARE_MAIN] as const;
/** Every key a notice could (wrongly) be queued for. */
export const WATCHERS: readonly string[] = [...AGENT_SCOPED_WATCHERS, ...BARE_WATCHERS];
export const ACTOR_IDS: readonly string[] = [PARENT, PEER, CHILD, LEAD, OPS_MAIN];

const SUMMARIES = ['human message via telegram', 'goal updated', 'message from another session', 'child run completed', 'session compacted', 'state changed'];
const SKEWS = [-2 * DAY, -25 * HOUR, -DAY, -23 * HOUR, -HOUR, -1, 1, HOUR, 2 * DAY];
/** R6: absolute occurredAt values the schema allows at its ends (clamped into the last day). */
export const EDGE_TIMES = [0, 1, Number.MAX_SAFE_INTEGER] as const;
export const DEDUPE_KEYS = ['d1', 'd2', 'd3'];

export const NOTIFY_KINDS = EVENT_KINDS.filter((k) => NOTIFY_CLASS[k] === 'notify');
export const TERMINAL_KINDS = EVENT_KINDS.filter((k) => NOTIFY_CLASS[k] === 'terminal');
export const LOG_ONLY_KINDS = EVENT_KINDS.filter((k) => NOTIFY_CLASS[k] === 'log-only');

/** A command before the clock is known: record inputs may carry an occurredAt relative to now. */
export interface Draft {
  cmd: Command;
  skew?: number;
  /**
   * R6: run this command with the clock at this (refused) reading, then step the clock back to
   * where it was: concretize() turns it into advance(to - t), the command, advance(t - to).
   */
  clockAt?: number;
}

/** Resolves relative occurredAt values and clock episodes by replaying the clock through the script. */
export function concretize(drafts: readonly Draft[]): Command[] {
  let t = T0;
  return drafts.flatMap(({ cmd, skew, clockAt }) => {
    if (cmd.op === 'advance') t += cmd.args[0] as number;
    let out = cmd;
    if (skew !== undefined && (cmd.op === 'record' || cmd.op === 'repeatRecord')) {
      const input = { ...(cmd.args[0] as Record<string, unknown>), occurredAt: Math.floor(t) + skew }; // an integer even on a fractional clock (R6)
      out = { ...cmd, args: [input, ...cmd.args.slice(1)] };
    }
    if (clockAt === undefined) return [out];
    return [{ op: 'advance' as const, args: [clockAt - t] }, out, { op: 'advance' as const, args: [t - clockAt] }];
  });
}

export function payloadFor(kind: EventKind): fc.Arbitrary<Record<string, unknown> | undefined> {
  switch (kind) {
    case 'human_direct_message':
      return fc.option(
        fc.record({ channel: fc.constantFrom('telegram', 'web'), turns: fc.integer({ min: 1, max: 3 }) }, { requiredKeys: [] }),
        { nil: undefined },
      );
    case 'goal_changed':
      return fc.option(fc.record({ action: fc.constantFrom('created', 'updated', 'cleared', 'completed') }), { nil: undefined });
    case 'upstream_missing':
      return fc.record({ channel: fc.constantFrom('claude', 'codex') });
    case 'run_failed':
      return fc.record({ outcome: fc.constantFrom('cancelled', 'timeout', 'error') });
    case 'adopted':
      return fc.record({ catalogId: fc.constantFrom('claude', 'codex'), hostId: fc.constantFrom('gateway:local', 'node-2') });
    default:
      return fc.constant(undefined);
  }
}

function compact(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}

export interface RecordShape {
  identities?: readonly Identity[];
  kinds?: readonly EventKind[];
  actorIds?: readonly string[];
  watchers?: readonly string[];
  onlyIfWatched?: boolean;
  dedupe?: boolean;
  skew?: boolean;
}

/** A valid record() input (and an optional occurredAt skew relative to now). */
export function recordDraft(shape: RecordShape = {}): fc.Arbitrary<Draft> {
  const identities = shape.identities ?? IDENTITIES;
  const kinds = shape.kinds ?? EVENT_KINDS;
  return fc
    .record({
      identity: fc.constantFrom(...identities),
      kind: fc.constantFrom(...kinds),
      actorType: fc.constantFrom('human', 'agent', 'system'),
      actorId: fc.option(fc.constantFrom(...(shape.actorIds ?? ACTOR_IDS)), { nil: undefined, freq: 2 }),
      summary: fc.constantFrom(...SUMMARIES),
      watchers: fc.option(fc.array(fc.constantFrom(...(shape.watchers ?? WATCHERS)), { minLength: 1, maxLength: 3 }), { nil: undefined, freq: 2 }),
      dedupeKey: shape.dedupe === false ? fc.constant(undefined) : fc.option(fc.constantFrom(...DEDUPE_KEYS), { nil: undefined, freq: 3 }),
      runId: fc.option(fc.constantFrom('r1', 'r2'), { nil: undefined, freq: 4 }),
      sessionId: fc.option(fc.constant('sess-1'), { nil: undefined, freq: 6 }),
      onlyIfWatched: shape.onlyIfWatched ? fc.option(fc.constant(true), { nil: undefined, freq: 4 }) : fc.constant(undefined),
      skew: shape.skew === false ? fc.constant(undefined) : fc.option(fc.constantFrom(...SKEWS), { nil: undefined, freq: 3 }),
      edge: shape.skew === false ? fc.constant(undefined) : fc.option(fc.constantFrom(...EDGE_TIMES), { nil: undefined, freq: 12 }),
    })
    .chain((r) => payloadFor(r.kind).map((payload) => ({ ...r, payload })))
    .map((r) => {
      const input = compact({
        sessionKey: r.identity[0],
        agentId: r.identity[1],
        kind: r.kind,
        actorType: r.actorType,
        actorId: r.actorId,
        runId: r.runId,
        sessionId: r.sessionId,
        summary: r.summary,
        payload: r.payload,
        dedupeKey: r.dedupeKey,
        watchers: r.watchers,
        onlyIfWatched: r.onlyIfWatched,
        occurredAt: r.skew === undefined ? r.edge : undefined,
      });
      return r.skew === undefined ? { cmd: { op: 'record', args: [input] } } : { cmd: { op: 'record', args: [input] }, skew: r.skew };
    });
}

/** R14: a child_spawned on a sub-agent-ish target, seeding the spawning parent. */
export function spawnDraft(): fc.Arbitrary<Draft> {
  return fc
    .record({
      child: fc.constantFrom<Identity>([CHILD, MAIN], [PEER, MAIN], [OPS_SUB, OPS]),
      parent: fc.constantFrom(PARENT, LEAD, OPS_MAIN, PEER, GLOBAL),
      run: fc.constantFrom('r1', 'r2', 'r3'),
      extra: fc.option(fc.constantFrom(...WATCHERS), { nil: undefined, freq: 4 }),
    })
    .map(({ child, parent, run, extra }) => ({
      cmd: {
        op: 'record',
        args: [
          {
            sessionKey: child[0],
            agentId: child[1],
            kind: 'child_spawned',
            actorType: 'agent',
            actorId: parent,
            runId: run,
            dedupeKey: `child-spawned:${run}`,
            summary: 'child session spawned',
            watchers: extra === undefined ? [parent] : [parent, extra],
          },
        ],
      },
    }));
}

const identity = fc.constantFrom(...IDENTITIES);
const watcher = fc.constantFrom(...WATCHERS);

export const sinceArb = fc.oneof(
  { arbitrary: fc.constant(0), weight: 2 },
  { arbitrary: fc.integer({ min: 0, max: 16 }), weight: 5 },
  { arbitrary: fc.integer({ min: 0, max: 300 }), weight: 2 },
);
export const limitArb = fc.option(fc.oneof(fc.integer({ min: 1, max: 4 }), fc.constantFrom(199, 200, 201, 1000)), { nil: undefined, freq: 2 });

export function changesSinceDraft(ids: fc.Arbitrary<Identity> = identity): fc.Arbitrary<Draft> {
  return fc.record({ id: ids, since: sinceArb, limit: limitArb }).map(({ id, since, limit }) => ({
    cmd: { op: 'changesSince', args: [compact({ sessionKey: id[0], agentId: id[1], since, limit })] },
  }));
}

export function watchDraft(watchers: fc.Arbitrary<string> = watcher, ids: fc.Arbitrary<Identity> = identity): fc.Arbitrary<Draft> {
  return fc.record({ w: watchers, id: ids }).map(({ w, id }) => ({
    cmd: { op: 'watch', args: [{ watcherSessionKey: w, targetSessionKey: id[0], agentId: id[1] }] },
  }));
}

const simple = (op: Command['op'], args: unknown[] = []): Draft => ({ cmd: { op, args } });

/** R21b: an ambient (queue-only) watch. */
export function ambientWatchDraft(watchers: fc.Arbitrary<string> = watcher, ids: fc.Arbitrary<Identity> = identity): fc.Arbitrary<Draft> {
  return fc.record({ w: watchers, id: ids }).map(({ w, id }) => ({
    cmd: { op: 'watch', args: [{ watcherSessionKey: w, targetSessionKey: id[0], agentId: id[1], provenance: 'ambient' }] },
  }));
}

/** R52. */
export function unwatchDraft(watchers: fc.Arbitrary<string> = watcher, ids: fc.Arbitrary<Identity> = identity): fc.Arbitrary<Draft> {
  return fc.record({ w: watchers, id: ids }).map(({ w, id }) => ({
    cmd: { op: 'unwatch', args: [{ watcherSessionKey: w, targetSessionKey: id[0], agentId: id[1] }] },
  }));
}

/** R27b: acks of guessed notices (a context key and a small L; some match a pending cursor, most do not). */
export function ackDraft(watchers: fc.Arbitrary<string> = watcher, ids: fc.Arbitrary<Identity> = identity): fc.Arbitrary<Draft> {
  const one = fc.record({ id: ids, l: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 16 })) }).map(({ id, l }) => ({ contextKey: expectedContextKey(id[1], id[0]), lastSeenSequence: l }));
  return fc.record({ w: watchers, acks: fc.array(one, { maxLength: 3 }) }).map(({ w, acks }) => ({ cmd: { op: 'ackNotices', args: [w, acks] } }));
}

export const advanceSmall = fc.integer({ min: 1, max: 10 * MINUTE }).map((ms) => simple('advance', [ms]));
/** Past the 1 h prune interval (R43). */
export const advanceHours = fc.integer({ min: HOUR, max: 3 * HOUR }).map((ms) => simple('advance', [ms]));
/** Past the 30-day retention (R40, R44). */
export const advanceMonth = fc.constantFrom(30 * DAY + 1, 31 * DAY).map((ms) => simple('advance', [ms]));
/** R43: the clock steps back (NTP, a restored VM); the write path must still prune. */
export const advanceBack = fc.constantFrom(-1, -MINUTE, -30 * MINUTE, -2 * HOUR, -DAY).map((ms) => simple('advance', [ms]));
/** R6: fractional clock readings (quarters stay exact in binary, so stepping back and forth is exact). */
export const advanceFraction = fc.constantFrom(0.25, 0.5, 0.75, 1.25, MINUTE + 0.5, HOUR + 0.75).map((ms) => simple('advance', [ms]));
/** R6: readings a store must refuse with ClockError (JSON can carry these; NaN it cannot). */
export const BAD_CLOCKS = [-1, -0.5, -T0] as const;

export const drainDraft = (w: fc.Arbitrary<string> = watcher) => w.map((x) => simple('drainNotices', [x]));
export const pendingDraft = (w: fc.Arbitrary<string> = watcher) => w.map((x) => simple('pendingNotices', [x]));
export const stateVersionDraft = identity.map((id) => simple('stateVersion', [id[0], id[1]]));
export const pruneDraft = fc.constant(simple('prune'));
export const restartDraft = fc.constant(simple('restart'));
export const resetDraft = fc.constantFrom(...WATCHERS, ...IDENTITIES.map((i) => i[0])).map((k) => simple('resetSession', [k]));
export const deleteDraft = identity.map((id) => simple('deleteSession', [id[0], id[1]]));
/** R51: a bare key exists under several agents; deleting one agent's must leave the other's watches. */
export const bareDeleteDraft = fc.constantFrom<Identity>([GLOBAL, MAIN], [GLOBAL, OPS]).map((id) => simple('deleteSession', [id[0], id[1]]));

/** R51: a watch on one agent's bare session, then a delete of the same key under either agent. */
export function bareDeleteDrafts(): fc.Arbitrary<Draft[]> {
  return fc
    .record({ w: fc.constantFrom(PARENT, PEER, OPS_MAIN), a: fc.constantFrom(MAIN, OPS), b: fc.constantFrom(MAIN, OPS) })
    .map(({ w, a, b }) => [
      { cmd: { op: 'record', args: [{ sessionKey: GLOBAL, agentId: a, kind: 'goal_changed', actorType: 'human', summary: 'goal updated', watchers: [w] }] } },
      simple('deleteSession', [GLOBAL, b]),
    ]);
}

/**
 * R26: more targets pending for one watcher than a bounded queue would hold (a production queue
 * dropped all but the last 20): 21 to 26 sessions changed by a person, each naming the watcher,
 * then a read of the watcher's notices.
 */
export function fanOutDrafts(): fc.Arbitrary<Draft[]> {
  return fc
    .record({ w: fc.constantFrom(PARENT, PEER_CASE, OPS_MAIN), n: fc.integer({ min: 21, max: 26 }), agent: fc.constantFrom(MAIN, OPS) })
    .map(({ w, n, agent }) => [
      ...Array.from({ length: n }, (_, i): Draft => ({
        cmd: { op: 'record', args: [{ sessionKey: `agent:${agent}:fan-${String(i).padStart(2, '0')}`, agentId: agent, kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram', watchers: [w] }] },
      })),
      simple('pendingNotices', [w]),
    ]);
}

// ---- bad input (R9): each mutation breaks exactly one field, so the expected field is known ----

export interface InvalidCase {
  field: string;
  cmd: Command;
}

const BASE = { sessionKey: PEER, agentId: MAIN, kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram' };

export const INVALID_CASES: readonly InvalidCase[] = [
  { field: 'sessionKey', cmd: { op: 'record', args: [{ ...BASE, sessionKey: '' }] } },
  { field: 'sessionKey', cmd: { op: 'record', args: [{ ...BASE, sessionKey: 'agent:main:"quoted"' }] } },
  { field: 'agentId', cmd: { op: 'record', args: [{ ...BASE, agentId: OPS }] } },
  { field: 'summary', cmd: { op: 'record', args: [{ ...BASE, summary: 'line one\nline two' }] } },
  { field: 'summary', cmd: { op: 'record', args: [{ ...BASE, summary: '   ' }] } },
  { field: 'kind', cmd: { op: 'record', args: [{ ...BASE, kind: 'chat_message' }] } },
  { field: 'actorType', cmd: { op: 'record', args: [{ ...BASE, actorType: 'robot' }] } },
  { field: 'message', cmd: { op: 'record', args: [{ ...BASE, message: 'hello, here is my whole message' }] } },
  { field: 'occurredAt', cmd: { op: 'record', args: [{ ...BASE, occurredAt: 1.5 }] } },
  { field: 'watchers.1', cmd: { op: 'record', args: [{ ...BASE, watchers: [PARENT, 42] }] } },
  { field: 'payload', cmd: { op: 'record', args: [{ ...BASE, kind: 'run_failed', actorType: 'system', summary: 'child run failed' }] } },
  { field: 'payload.text', cmd: { op: 'record', args: [{ ...BASE, payload: { text: 'hello, here is my whole message' } }] } },
  { field: 'payload.outcome', cmd: { op: 'record', args: [{ ...BASE, kind: 'run_failed', payload: { outcome: 'boom' } }] } },
  { field: 'payload', cmd: { op: 'record', args: [{ ...BASE, kind: 'compacted', payload: {} }] } },
  { field: 'dedupeKey', cmd: { op: 'record', args: [{ ...BASE, dedupeKey: '' }] } },
  { field: 'agentId', cmd: { op: 'watch', args: [{ watcherSessionKey: PARENT, targetSessionKey: PEER }] } },
  { field: 'agentId', cmd: { op: 'watch', args: [{ watcherSessionKey: PARENT, targetSessionKey: PEER, agentId: OPS }] } },
  { field: 'watcherSessionKey', cmd: { op: 'watch', args: [{ watcherSessionKey: '', targetSessionKey: PEER, agentId: MAIN }] } },
  { field: 'since', cmd: { op: 'changesSince', args: [{ sessionKey: PEER, agentId: MAIN, since: -1 }] } },
  { field: 'since', cmd: { op: 'changesSince', args: [{ sessionKey: PEER, agentId: MAIN, since: 1.5 }] } },
  { field: 'limit', cmd: { op: 'changesSince', args: [{ sessionKey: PEER, agentId: MAIN, since: 0, limit: 0 }] } },
  { field: 'sessionKey', cmd: { op: 'stateVersion', args: ['', MAIN] } },
  { field: 'agentId', cmd: { op: 'stateVersion', args: [PEER, 'not an id'] } },
  { field: 'watcherSessionKey', cmd: { op: 'pendingNotices', args: [''] } },
  { field: 'watcherSessionKey', cmd: { op: 'drainNotices', args: ['a\nb'] } },
  { field: 'sessionKey', cmd: { op: 'resetSession', args: [''] } },
  { field: 'agentId', cmd: { op: 'deleteSession', args: [GLOBAL, ''] } },
  // R1: an agent-scoped key named with another agent, on reads and deletes too
  { field: 'agentId', cmd: { op: 'stateVersion', args: [PEER, OPS] } },
  { field: 'agentId', cmd: { op: 'changesSince', args: [{ sessionKey: OPS_MAIN, agentId: MAIN, since: 0 }] } },
  { field: 'agentId', cmd: { op: 'deleteSession', args: [PARENT, OPS] } },
  { field: 'sessionKey', cmd: { op: 'record', args: [{ ...BASE, sessionKey: 'agent:main:a\u2028b' }] } },
  { field: 'summary', cmd: { op: 'record', args: [{ ...BASE, summary: 'right-to-left \u202e override' }] } },
];

export const invalidDraft: fc.Arbitrary<Draft> = fc.constantFrom(...INVALID_CASES).map((c) => ({ cmd: c.cmd }));

export function expectedInvalidField(cmd: Command): string | undefined {
  return INVALID_CASES.find((c) => same(c.cmd, cmd))?.field;
}

// ---- scripts ---------------------------------------------------------------------------------

export interface ScriptShape {
  maxLength: number;
  invalid?: boolean;
  /** Clock jumps past 30 days (off when a property needs cursors to survive). */
  months?: boolean;
  onlyIfWatched?: boolean;
}

/** The general mix: every operation, weighted towards records and notice traffic, now and then a fan-out burst (R26). */
export function genericDrafts(shape: ScriptShape): fc.Arbitrary<Draft[]> {
  return fc
    .array(fc.oneof({ arbitrary: genericDraft(shape).map((d) => [d]), weight: 60 }, { arbitrary: fanOutDrafts(), weight: 1 }, { arbitrary: bareDeleteDrafts(), weight: 2 }), { maxLength: shape.maxLength, size: 'max' })
    .map((parts) => parts.flat());
}

/** One command of the general mix. */
export function genericDraft(shape: Omit<ScriptShape, 'maxLength'>): fc.Arbitrary<Draft> {
  const parts: { arbitrary: fc.Arbitrary<Draft>; weight: number }[] = [
    { arbitrary: recordDraft({ onlyIfWatched: shape.onlyIfWatched ?? true }), weight: 30 },
    { arbitrary: spawnDraft(), weight: 5 },
    { arbitrary: watchDraft(), weight: 7 },
    { arbitrary: drainDraft(), weight: 8 },
    { arbitrary: pendingDraft(), weight: 4 },
    { arbitrary: changesSinceDraft(), weight: 5 },
    { arbitrary: stateVersionDraft, weight: 2 },
    { arbitrary: advanceSmall, weight: 4 },
    { arbitrary: advanceHours, weight: 3 },
    { arbitrary: advanceBack, weight: 1 },
    { arbitrary: pruneDraft, weight: 2 },
    { arbitrary: restartDraft, weight: 2 },
    { arbitrary: resetDraft, weight: 1 },
    { arbitrary: deleteDraft, weight: 1 },
    { arbitrary: bareDeleteDraft, weight: 1 },
  ];
  if (shape.months !== false) parts.push({ arbitrary: advanceMonth, weight: 1 });
  if (shape.invalid) parts.push({ arbitrary: invalidDraft, weight: 2 });
  return fc.oneof(...parts);
}

/** R6: a call that needs the clock (a record that will be written, an accepted watch, a drain, prune, restart), run with a refused reading. */
export const refusedClockDraft: fc.Arbitrary<Draft> = fc
  .record({
    d: fc.oneof(
      recordDraft({ dedupe: false, skew: false }),
      fc
        .record({ w: fc.constantFrom(...AGENT_SCOPED_WATCHERS), t: fc.constantFrom(...IDENTITIES) })
        .filter(({ w, t }) => w !== t[0])
        .map(({ w, t }): Draft => ({ cmd: { op: 'watch', args: [{ watcherSessionKey: w, targetSessionKey: t[0], agentId: t[1] }] } })),
      drainDraft(fc.constantFrom(...AGENT_SCOPED_WATCHERS)),
      pruneDraft,
      restartDraft,
    ),
    at: fc.constantFrom(...BAD_CLOCKS),
  })
  .map(({ d, at }) => ({ cmd: d.cmd, clockAt: at }));

/** The `model` property's mix (and the random vectors'): the general one with bad input, fractional clocks and refused clocks. */
export function modelDrafts(maxLength: number): fc.Arbitrary<Draft[]> {
  const one = fc.oneof(
    { arbitrary: genericDraft({ invalid: true }), weight: 16 },
    { arbitrary: ambientWatchDraft(), weight: 1 },
    { arbitrary: unwatchDraft(), weight: 1 },
    { arbitrary: ackDraft(), weight: 1 },
    { arbitrary: advanceFraction, weight: 1 },
    { arbitrary: refusedClockDraft, weight: 1 },
  );
  return fc
    .array(fc.oneof({ arbitrary: one.map((d) => [d]), weight: 60 }, { arbitrary: fanOutDrafts(), weight: 1 }, { arbitrary: bareDeleteDrafts(), weight: 2 }), { maxLength, size: 'max' })
    .map((parts) => parts.flat());
}

/** Store options: the real limits, or small ones so pruning and cursor expiry really happen. */
export const optionsArb: fc.Arbitrary<ScenarioOptions> = fc.oneof(
  fc.constant({}),
  fc.record({ retentionMs: fc.constantFrom(2 * HOUR, 3 * HOUR, 26 * HOUR), maxRows: fc.integer({ min: 3, max: 8 }) }),
  fc.record({ maxRows: fc.integer({ min: 2, max: 6 }) }),
  fc.record({ retentionMs: fc.constantFrom(90 * MINUTE, 5 * HOUR) }),
);
export const smallLimitsArb: fc.Arbitrary<ScenarioOptions> = fc.oneof(
  fc.record({ retentionMs: fc.constantFrom(2 * HOUR, 3 * HOUR, 26 * HOUR), maxRows: fc.integer({ min: 3, max: 8 }) }),
  fc.record({ maxRows: fc.integer({ min: 2, max: 6 }) }),
  fc.record({ retentionMs: fc.constantFrom(90 * MINUTE, 5 * HOUR) }),
);

export function scenario(options: fc.Arbitrary<ScenarioOptions>, drafts: fc.Arbitrary<Draft[]>): fc.Arbitrary<Scenario> {
  return fc.record({ options, drafts }).map(({ options: o, drafts: d }) => ({ options: o, commands: concretize(d) }));
}

/** A kind-appropriate record input, used by scenario builders that need a specific kind. */
export function inputOf(sessionKey: string, agentId: string, kind: EventKind, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const payload =
    kind === 'run_failed'
      ? { outcome: 'error' }
      : kind === 'upstream_missing'
        ? { channel: 'claude' }
        : kind === 'adopted'
          ? { catalogId: 'claude', hostId: 'gateway:local' }
          : undefined;
  return compact({ sessionKey, agentId, kind, actorType: 'system', summary: `${kind.replace(/_/g, ' ')} happened`, payload, ...extra });
}
