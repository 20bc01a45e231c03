/**
 * Generates conformance/vectors/*.json: hand-written scripts, one or more rules each, plus a few
 * random scripts from fixed seeds, with the outputs of the reference store (`npm run
 * conformance:vectors`). `--check` exits 1 when the committed files differ (a test does the same).
 */
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { LIMITS, VECTOR_FORMAT, type ConformanceVector, type StoreFactory, type VectorStep } from '../spec/index.js';
import { createMemoryStore } from '../src/memory/index.js';
import { modelDrafts, optionsArb, scenario } from './arbitraries.js';
import { Clock, DAY, HOUR, MINUTE, T0, callStore, closeQuietly, openStore, type Command, type ScenarioOptions } from './script.js';
import { expectedContextKey } from './facts.js';
import { toExpectation } from './vectors.js';

export interface VectorSpec {
  name: string;
  rules: string[];
  description: string;
  options?: ScenarioOptions;
  script: Command[];
}

// ---- a tiny script DSL -------------------------------------------------------------------------

const A = 'main';
const PARENT = 'agent:main:main';
const CHILD = 'agent:main:subagent:child';
const PEER = 'agent:main:peer';
const COORD = 'agent:main:coordinator';
const LEAD = 'agent:main:subagent:lead';
const OPS_MAIN = 'agent:ops:main';

type In = Record<string, unknown>;
const rec = (input: In): Command => ({ op: 'record', args: [input] });
const agentOfKey = (key: string) => /^agent:([^:]+):/.exec(key)?.[1] ?? A;
const human = (key = CHILD, extra: In = {}): Command =>
  rec({ sessionKey: key, agentId: agentOfKey(key), kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram', ...extra });
const ev = (key: string, kind: string, extra: In = {}): Command => {
  const payload = kind === 'run_failed' ? { outcome: 'error' } : kind === 'upstream_missing' ? { channel: 'claude' } : kind === 'adopted' ? { catalogId: 'claude', hostId: 'gateway:local' } : undefined;
  return rec({ sessionKey: key, agentId: agentOfKey(key), kind, actorType: 'system', summary: `${kind.replace(/_/g, ' ')}`, ...(payload ? { payload } : {}), ...extra });
};
const byAgent = (key: string, kind: string, actor: string, extra: In = {}) => ev(key, kind, { actorType: 'agent', actorId: actor, ...extra });
const spawn = (child = CHILD, parent = PARENT, run = 'r1'): Command =>
  rec({
    sessionKey: child,
    agentId: agentOfKey(child),
    kind: 'child_spawned',
    actorType: 'agent',
    actorId: parent,
    runId: run,
    dedupeKey: `child-spawned:${run}`,
    summary: 'child session spawned',
    watchers: [parent],
  });
const watch = (w: string, t: string, a = agentOfKey(t)): Command => ({ op: 'watch', args: [{ watcherSessionKey: w, targetSessionKey: t, agentId: a }] });
const ambient = (w: string, t: string, a = agentOfKey(t)): Command => ({ op: 'watch', args: [{ watcherSessionKey: w, targetSessionKey: t, agentId: a, provenance: 'ambient' }] });
const unwatch = (w: string, t: string, a = agentOfKey(t)): Command => ({ op: 'unwatch', args: [{ watcherSessionKey: w, targetSessionKey: t, agentId: a }] });
/** R27b: ack by context key and L, as a runtime would pass back the notices it delivered. */
const ack = (w: string, notices: [target: string, lastSeen: number, agent?: string][]): Command => ({
  op: 'ackNotices',
  args: [w, notices.map(([t, l, a = agentOfKey(t)]) => ({ contextKey: expectedContextKey(a, t), lastSeenSequence: l }))],
});
const pending = (w: string): Command => ({ op: 'pendingNotices', args: [w] });
const drain = (w: string): Command => ({ op: 'drainNotices', args: [w] });
const since = (key: string, s: number, limit?: number, agent = agentOfKey(key)): Command => ({
  op: 'changesSince',
  args: [{ sessionKey: key, agentId: agent, since: s, ...(limit !== undefined ? { limit } : {}) }],
});
const version = (key: string, agent = agentOfKey(key)): Command => ({ op: 'stateVersion', args: [key, agent] });
const prune: Command = { op: 'prune', args: [] };
const restart: Command = { op: 'restart', args: [] };
const reset = (key: string): Command => ({ op: 'resetSession', args: [key] });
const del = (key: string, agent = agentOfKey(key)): Command => ({ op: 'deleteSession', args: [key, agent] });
const advance = (ms: number): Command => ({ op: 'advance', args: [ms] });
const times = (n: number, c: Command): Command[] => Array.from({ length: n }, () => c);

export const HAND_WRITTEN: VectorSpec[] = [
  {
    name: 'r01-r04-r09-bad-input',
    rules: ['R1', 'R2', 'R3', 'R4', 'R9'],
    description: 'Bad keys (empty, lone surrogate, quote, control character, too long, agent mismatch), actor types, summaries and payloads throw a ValidationError naming the field and write nothing; a bare key is valid.',
    script: [
      human(''),
      human('agent:main:x\uD800'),
      human('agent:main:"q"'),
      human('agent:main:a\nb'),
      human('x'.repeat(LIMITS.keyMaxLength + 1)),
      human(CHILD, { agentId: 'other' }),
      human(CHILD, { actorId: 'a\uDC00' }),
      human(CHILD, { actorType: 'robot' }),
      human(CHILD, { summary: 'line one\nline two' }),
      human(CHILD, { summary: '   ' }),
      human(CHILD, { summary: 'x'.repeat(LIMITS.summaryMaxLength + 1) }),
      human(CHILD, { kind: 'chat_message' }),
      human(CHILD, { message: 'the whole message text' }),
      human(CHILD, { payload: { text: 'the whole message text' } }),
      rec({ sessionKey: CHILD, agentId: A, kind: 'run_failed', actorType: 'system', summary: 'child run failed' }),
      rec({ sessionKey: CHILD, agentId: A, kind: 'run_failed', actorType: 'system', summary: 'child run failed', payload: { outcome: 'boom' } }),
      rec({ sessionKey: CHILD, agentId: A, kind: 'compacted', actorType: 'system', summary: 'session compacted', payload: {} }),
      human(CHILD, { watchers: [PARENT, 42] }),
      human(CHILD, { occurredAt: 1.5 }),
      human(CHILD, { dedupeKey: '' }),
      { op: 'record', args: [null] },
      { op: 'watch', args: [{ watcherSessionKey: COORD, targetSessionKey: CHILD }] },
      since(CHILD, -1),
      since(CHILD, 0, 0),
      { op: 'stateVersion', args: ['', A] },
      { op: 'pendingNotices', args: [''] },
      { op: 'deleteSession', args: ['global', ''] },
      version(CHILD),
      pending(PARENT),
      human(CHILD, { summary: 'x'.repeat(LIMITS.summaryMaxLength) }),
      rec({ sessionKey: 'global', agentId: 'ops', kind: 'goal_changed', actorType: 'human', summary: 'goal updated', payload: { action: 'updated' } }),
      version('global', 'ops'),
    ],
  },
  {
    name: 'r06-occurred-at-clamp',
    rules: ['R6'],
    description: 'occurredAt is clamped into [now - 24 h, now]; recordedAt and absent occurredAt are now.',
    script: [human(CHILD, { occurredAt: T0 + 5 * HOUR }), human(CHILD, { occurredAt: T0 - 10 * DAY }), human(CHILD, { occurredAt: T0 - HOUR }), advance(MINUTE), human()],
  },
  {
    name: 'r01-identity-agent-match',
    rules: ['R1', 'R9'],
    description: 'An agent-scoped key named with another agent is a ValidationError on agentId for record, watch, stateVersion, changesSince and deleteSession, and changes nothing: the wrong-agent delete leaves the real session\'s watches and notices. A key whose agent segment is not a valid agent id is bare. Line separators and bidi controls are refused in keys and summaries.',
    script: [
      spawn(),
      human(),
      human(CHILD, { agentId: 'ops' }),
      watch(COORD, CHILD, 'ops'),
      version(CHILD, 'ops'),
      since(CHILD, 0, undefined, 'ops'),
      del(CHILD, 'ops'),
      del(PARENT, 'ops'),
      pending(PARENT),
      version(CHILD),
      human(),
      drain(PARENT),
      rec({ sessionKey: 'agent:bad agent:x', agentId: 'ops', kind: 'goal_changed', actorType: 'human', summary: 'goal updated' }),
      watch('agent:bad agent:x', PEER),
      version('agent:bad agent:x', 'ops'),
      human('agent:main:x\u2028y'),
      human('agent:main:\u202eevil'),
      human(CHILD, { summary: 'a\u2029b' }),
      version(CHILD),
    ],
  },
  {
    name: 'r06-clock-floor-and-refusal',
    rules: ['R6', 'R9'],
    description: 'A fractional clock reading is floored in everything stored (recordedAt, occurredAt); a negative reading is refused with ClockError by every call that reads the clock (record, a watch that writes, every drain whether or not anything is pending, prune, restart) before anything is written: heads, notices and the queue are as they were once the clock is valid again.',
    script: [
      advance(0.75),
      spawn(),
      human(),
      human(CHILD, { occurredAt: T0 + HOUR }),
      human(CHILD, { occurredAt: T0 - HOUR }),
      advance(MINUTE + 0.5),
      human(PEER),
      advance(-1 - (T0 + MINUTE + 1.25)),
      human(),
      watch(COORD, CHILD),
      drain(PARENT),
      restart,
      prune,
      pending(PARENT),
      version(CHILD),
      advance(1 + T0 + MINUTE + 1.25 - 0.5),
      version(CHILD),
      since(CHILD, 0),
      pending(PARENT),
      drain(PARENT),
      drain(PARENT),
      pending(COORD),
    ],
  },
  {
    name: 'r07-r08-sequences-and-dedupe',
    rules: ['R5', 'R7', 'R8'],
    description: 'Sequences are global and never reused; a retained dedupe key returns the same event and changes nothing; once pruned or deleted the key is free.',
    options: { retentionMs: DAY },
    script: [
      spawn(),
      human(CHILD, { dedupeKey: 'turn-1' }),
      pending(PARENT),
      human(CHILD, { dedupeKey: 'turn-1' }),
      ev(CHILD, 'run_completed', { dedupeKey: 'turn-1' }),
      version(CHILD),
      drain(PARENT),
      human(CHILD, { dedupeKey: 'turn-1' }),
      pending(PARENT),
      human(PEER),
      del(PEER),
      human(PEER),
      advance(2 * DAY),
      prune,
      human(CHILD, { dedupeKey: 'turn-1' }),
      version(CHILD),
    ],
  },
  {
    name: 'r09b-only-if-watched',
    rules: ['R9b'],
    description: 'onlyIfWatched writes only when the target has a cursor or the producer passes an agent-scoped watcher other than the target (the target itself and bare keys do not count; a passed watcher that is also the actor does, and R12 then tells nobody).',
    script: [
      human(PEER, { onlyIfWatched: true }),
      human(PEER, { onlyIfWatched: true, watchers: ['global', PEER] }),
      human(PEER, { onlyIfWatched: true, watchers: [PEER] }),
      version(PEER),
      byAgent(CHILD, 'agent_message', PARENT, { onlyIfWatched: true, watchers: [PARENT] }),
      pending(PARENT),
      watch(COORD, PEER),
      human(PEER, { onlyIfWatched: true }),
      human(CHILD, { onlyIfWatched: true, watchers: [PARENT] }),
      pending(PARENT),
      pending(COORD),
    ],
  },
  {
    name: 'r10-kind-classes',
    rules: ['R10', 'R16', 'R17'],
    description: 'Every kind behaves as its class says for an explicit watcher: notify and terminal notify, seed and log-only do not.',
    script: [
      watch(COORD, CHILD),
      ...['human_direct_message', 'goal_changed', 'agent_message', 'session_reset', 'upstream_missing', 'child_spawned', 'run_completed', 'run_failed', 'compacted', 'adopted', 'created'].flatMap((kind) => [
        ev(CHILD, kind),
        pending(COORD),
        drain(COORD),
      ]),
    ],
  },
  {
    name: 'r11-r12-r13-watcher-set',
    rules: ['R11', 'R12', 'R13'],
    description: 'Producer watchers and cursor holders are notified once each; the target itself, the actor and bare keys never are.',
    script: [
      watch(COORD, CHILD),
      watch('global', CHILD),
      human(CHILD, { watchers: [PARENT, PARENT, COORD, CHILD, 'global', 'main'] }),
      pending(PARENT),
      pending(COORD),
      pending(CHILD),
      pending('global'),
      pending('main'),
      drain(PARENT),
      drain(COORD),
      byAgent(CHILD, 'agent_message', PARENT, { watchers: [PARENT] }),
      pending(PARENT),
      pending(COORD),
      byAgent(CHILD, 'goal_changed', COORD),
      pending(COORD),
      rec({ sessionKey: 'global', agentId: 'ops', kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram' }),
      since('global', 0, undefined, 'ops'),
    ],
  },
  {
    name: 'r14-spawn-seeding',
    rules: ['R14'],
    description: 'child_spawned seeds the parent at its sequence without a notice; a re-spawn onto a pending cursor keeps the pending notice; onto an idle one it re-seeds.',
    script: [
      human(),
      spawn(),
      pending(PARENT),
      human(),
      pending(PARENT),
      spawn(CHILD, PARENT, 'r2'),
      pending(PARENT),
      drain(PARENT),
      pending(PARENT),
      spawn(CHILD, PARENT, 'r3'),
      human(),
      pending(PARENT),
    ],
  },
  {
    name: 'r15-r24-coalescing',
    rules: ['R15', 'R24'],
    description: 'Twenty fast changes give one byte-identical pending notice quoting the frozen watermark.',
    script: [spawn(), human(), pending(PARENT), ...times(19, human()), pending(PARENT), drain(PARENT), pending(PARENT)],
  },
  {
    name: 'r16-terminal-runs',
    rules: ['R16'],
    description: 'run_completed and run_failed notify explicit watchers only, never the spawning parent or producer-passed watchers.',
    script: [
      spawn(),
      watch(COORD, CHILD),
      ev(CHILD, 'run_completed', { watchers: [PARENT] }),
      rec({ sessionKey: CHILD, agentId: A, kind: 'run_failed', actorType: 'system', summary: 'child run timed out', payload: { outcome: 'timeout' }, watchers: [PARENT, PEER] }),
      pending(PARENT),
      pending(PEER),
      pending(COORD),
      watch(PARENT, CHILD),
      ev(CHILD, 'run_completed'),
      pending(PARENT),
    ],
  },
  {
    name: 'r17-log-only',
    rules: ['R17', 'R44'],
    description: 'Log-only events change no cursor: no notice, no follow-up after a drain.',
    script: [spawn(), human(), ev(CHILD, 'compacted', { watchers: [PARENT] }), ev(CHILD, 'created'), drain(PARENT), pending(PARENT), ev(CHILD, 'adopted', { watchers: [PARENT] }), pending(PARENT)],
  },
  {
    name: 'r20-identity',
    rules: ['R20', 'R5'],
    description: "Cursors and heads are per (session key, agent id): two agents' global sessions are independent.",
    script: [
      watch(OPS_MAIN, 'global', 'ops'),
      rec({ sessionKey: 'global', agentId: 'other', kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram' }),
      pending(OPS_MAIN),
      rec({ sessionKey: 'global', agentId: 'ops', kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram' }),
      pending(OPS_MAIN),
      version('global', 'ops'),
      version('global', 'other'),
      version('global', 'main'),
    ],
  },
  {
    name: 'r21-r22-explicit-watch',
    rules: ['R21', 'R22'],
    description: 'Watch is refused for bare and self watchers; it starts at the head, so history never notifies; re-watch keeps a pending notice.',
    script: [
      human(PEER),
      human(PEER),
      watch(PEER, PEER),
      watch('main', PEER),
      watch(COORD, PEER),
      pending(COORD),
      restart,
      pending(COORD),
      human(PEER),
      pending(COORD),
      human(PEER),
      watch(COORD, PEER),
      pending(COORD),
      watch(COORD, 'agent:main:not-yet'),
      human('agent:main:not-yet'),
      pending(COORD),
    ],
  },
  {
    name: 'r23-r25-r26-notice-shape',
    rules: ['R23', 'R24', 'R25', 'R26'],
    description: 'Exact notice text and context key, wake by watcher kind, and (target, agent) order in code units.',
    script: [
      ...times(11, human(PEER)),
      watch(PARENT, CHILD),
      spawn(),
      human(),
      pending(PARENT),
      watch(LEAD, PEER),
      watch(COORD, 'agent:main:z'),
      watch(COORD, 'agent:main:b'),
      watch(COORD, 'agent:main:m'),
      watch(COORD, 'global', 'ops'),
      human('agent:main:z'),
      human('agent:main:b'),
      human('agent:main:m'),
      rec({ sessionKey: 'global', agentId: 'ops', kind: 'goal_changed', actorType: 'human', summary: 'goal updated' }),
      human(PEER),
      pending(COORD),
      pending(LEAD),
      drain(COORD),
    ],
  },
  {
    name: 'r27-r28-ack-and-follow-up',
    rules: ['R27', 'R28'],
    description: 'Drain acks to the frozen watermark; work interleaved before the drain reopens exactly one follow-up quoting the old watermark; none otherwise.',
    script: [spawn(), human(), human(), human(), pending(PARENT), drain(PARENT), pending(PARENT), restart, drain(PARENT), drain(PARENT), human(), drain(PARENT), drain(PARENT)],
  },
  {
    name: 'r29-restart',
    rules: ['R29'],
    description: 'A restart changes no cursor: the same notices are pending before and after, and a drain after it owes the same follow-up (R28) as without the restart.',
    script: [spawn(), watch(COORD, PEER), human(), human(), human(PEER), drain(COORD), restart, pending(PARENT), pending(COORD), restart, pending(PARENT), drain(PARENT), drain(PARENT)],
  },
  {
    name: 'r30-r32-changes-since',
    rules: ['R30', 'R31', 'R32', 'R34'],
    description: 'Ascending events after since, at most limit, clamped to 200, with truncated and earliestAvailableSequence; reads move no cursor.',
    script: [
      since(CHILD, 0),
      spawn(),
      ...Array.from({ length: 205 }, (_, i) => (i % 50 === 0 ? [human(), human(PEER)] : [human()])).flat(),
      pending(PARENT),
      since(CHILD, 0, 1000),
      since(CHILD, 205),
      since(CHILD, 3, 1),
      since(CHILD, 3, 2),
      since(CHILD, 5000),
      version(CHILD),
      pending(PARENT),
    ],
  },
  {
    name: 'r33-history-gap',
    rules: ['R33', 'R32', 'R7'],
    description: 'historyGap comes from the pruned watermark of that session, never from sparse sequences.',
    options: { retentionMs: DAY },
    script: [
      human(),
      human(PEER),
      human(PEER),
      human(PEER),
      human(),
      since(CHILD, 1),
      advance(DAY / 2),
      human(),
      advance(DAY / 2 + 1),
      prune,
      since(CHILD, 0),
      since(CHILD, 1),
      since(CHILD, 5),
      since(PEER, 5),
      since(PEER, 4),
      since(PEER, 0),
    ],
  },
  {
    name: 'r40-r42-pruning',
    rules: ['R40', 'R41', 'R42'],
    description: 'Pruning by age then by row cap keeps the newest, never removes or lowers a head, and stamps the pruned watermark.',
    options: { retentionMs: 10 * DAY, maxRows: 5 },
    script: [
      human(CHILD, { occurredAt: T0 - DAY }),
      ...times(4, human()),
      ...times(4, human(PEER)),
      prune,
      since(CHILD, 0),
      since(PEER, 0),
      version(CHILD),
      advance(9 * DAY + HOUR),
      prune,
      since(CHILD, 0),
      advance(2 * DAY),
      prune,
      since(CHILD, 0),
      since(PEER, 0),
      version(PEER),
      human(PEER),
      since(PEER, 0),
    ],
  },
  {
    name: 'r43-prune-schedule',
    rules: ['R43'],
    description: 'The write path prunes at most once an hour (counted from creation or the last prune); prune() and restart() always prune.',
    options: { maxRows: 2 },
    script: [
      ...times(5, human()),
      since(CHILD, 0),
      advance(HOUR - 1),
      human(),
      since(CHILD, 0),
      advance(1),
      human(),
      since(CHILD, 0),
      ...times(3, human()),
      since(CHILD, 0),
      restart,
      since(CHILD, 0),
    ],
  },
  {
    name: 'r43-clock-steps-back',
    rules: ['R43'],
    description: 'After the clock steps back behind the last prune, the next insert prunes at once (it does not wait for the clock to catch up); from then on the hourly schedule counts from that prune.',
    options: { maxRows: 2 },
    script: [
      ...times(4, human()),
      since(CHILD, 0),
      advance(-DAY),
      human(),
      since(CHILD, 0),
      advance(30 * MINUTE),
      human(),
      human(),
      since(CHILD, 0),
      advance(30 * MINUTE),
      human(),
      since(CHILD, 0),
    ],
  },
  {
    name: 'r44-cursor-expiry',
    rules: ['R44'],
    description: 'Idle cursors expire after the retention period with their queued notices; material events, acks and watch refresh them, log-only events do not.',
    options: { retentionMs: 10 * DAY },
    script: [
      watch(COORD, PEER),
      watch(COORD, CHILD),
      watch(LEAD, PEER),
      human(PEER),
      advance(6 * DAY),
      human(CHILD),
      drain(COORD),
      ev(PEER, 'compacted'),
      advance(6 * DAY),
      prune,
      pending(LEAD),
      human(PEER),
      human(CHILD),
      pending(COORD),
      pending(LEAD),
    ],
  },
  {
    name: 'r44-refresh-by-rewatch-and-ack',
    rules: ['R44', 'R21', 'R27'],
    description: 'Watching again refreshes an existing cursor (R21), and so does the ack of a drain (R27): both outlive a prune that expires a cursor nobody touched since the first watch.',
    options: { retentionMs: 10 * DAY },
    script: [
      watch(COORD, PEER),
      watch(COORD, CHILD),
      watch(LEAD, OPS_MAIN),
      human(OPS_MAIN),
      advance(6 * DAY),
      watch(COORD, PEER),
      drain(LEAD),
      advance(5 * DAY),
      prune,
      human(PEER),
      human(CHILD),
      human(OPS_MAIN),
      pending(COORD),
      pending(LEAD),
    ],
  },
  {
    name: 'r29-r44-restart-keeps-expiry-clock',
    rules: ['R29', 'R44'],
    description: 'A restart keeps a pending notice as it is and does not refresh updatedAt: a pending cursor idle past the retention expires with its notice, restart or not.',
    options: { retentionMs: 10 * DAY },
    script: [
      watch(COORD, PEER),
      human(PEER),
      human(PEER),
      advance(6 * DAY),
      restart,
      pending(COORD),
      advance(5 * DAY),
      restart,
      pending(COORD),
      human(PEER),
      pending(COORD),
      watch(COORD, PEER),
      human(PEER),
      advance(DAY),
      restart,
      drain(COORD),
      drain(COORD),
    ],
  },
  {
    name: 'r21b-ambient-watch',
    rules: ['R21b', 'R14', 'R16', 'R20', 'R25', 'R44'],
    description:
      'An ambient watch starts at the head; its notices never wake (next-turn) and terminal runs skip it; re-registering writes nothing (updatedAt kept, so it expires); an explicit watch promotes it (the pending notice now wakes), a spawn seed makes it spawn, and nothing downgrades.',
    options: { retentionMs: 10 * DAY },
    script: [
      human(PEER),
      ambient(COORD, PEER),
      pending(COORD),
      ev(PEER, 'run_completed'),
      pending(COORD),
      human(PEER),
      human(PEER),
      pending(COORD),
      watch(COORD, PEER),
      pending(COORD),
      ambient(COORD, PEER),
      drain(COORD),
      ev(PEER, 'run_completed'),
      pending(COORD),
      ambient(PARENT, CHILD),
      spawn(),
      human(),
      pending(PARENT),
      ambient(COORD, OPS_MAIN),
      ambient('global', PEER),
      ambient(PEER, PEER),
      advance(6 * DAY),
      ambient(COORD, OPS_MAIN),
      advance(5 * DAY),
      prune,
      human(OPS_MAIN),
      pending(COORD),
      { op: 'watch', args: [{ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A, provenance: 'spawn' }] },
    ],
  },
  {
    name: 'r27b-ack-notices',
    rules: ['R27b', 'R24', 'R28'],
    description:
      'ackNotices acks exactly the delivered notices still pending with the quoted L, in one call, and returns them in R26 order; a stale L, a foreign or non-UTF-8 context key, another watcher or a bare key acks nothing; the interleaved event reopens one follow-up; bad input names the field.',
    script: [
      spawn(),
      watch(COORD, PEER),
      human(),
      human(PEER),
      pending(PARENT),
      human(),
      ack(PARENT, [[CHILD, 2]]),
      ack(PARENT, [[CHILD, 1]]),
      pending(PARENT),
      ack(PARENT, [[CHILD, 1]]),
      ack(COORD, [[CHILD, 2]]),
      ack('global', [[PEER, 0]]),
      { op: 'ackNotices', args: [COORD, [{ contextKey: 'session-state:6d61696e:ff', lastSeenSequence: 0 }, { contextKey: 'other:6d61696e:70', lastSeenSequence: 0 }]] },
      ack(COORD, [[PEER, 0], [PEER, 3]]),
      ack(PARENT, [[CHILD, 3], [PEER, 0]]),
      pending(PARENT),
      pending(COORD),
      { op: 'ackNotices', args: [PARENT, [{ contextKey: 'x' }]] },
      { op: 'ackNotices', args: [PARENT, 'all'] },
      { op: 'ackNotices', args: ['', []] },
    ],
  },
  {
    name: 'r52-unwatch',
    rules: ['R52', 'R1', 'R15'],
    description:
      'unwatch deletes the cursor and its pending notice whatever its provenance and says whether one existed; bare and self watchers get false; a producer that passes the watcher again re-creates the cursor from 0; bad input names the field.',
    script: [
      unwatch(COORD, PEER),
      watch(COORD, PEER),
      human(PEER),
      pending(COORD),
      unwatch(COORD, PEER),
      pending(COORD),
      unwatch(COORD, PEER),
      human(PEER),
      pending(COORD),
      spawn(),
      human(),
      unwatch(PARENT, CHILD),
      pending(PARENT),
      human(CHILD, { watchers: [PARENT] }),
      pending(PARENT),
      ambient(LEAD, OPS_MAIN),
      unwatch(LEAD, OPS_MAIN, 'main'),
      unwatch(LEAD, OPS_MAIN),
      unwatch('global', PEER),
      unwatch(PEER, PEER),
      { op: 'unwatch', args: [{ watcherSessionKey: COORD, targetSessionKey: PEER }] },
      { op: 'unwatch', args: [{ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A, provenance: 'explicit' }] },
    ],
  },
  {
    name: 'r50-reset',
    rules: ['R50'],
    description: "resetSession removes the watcher's cursors and queued notices; its own log, head and watchers stay.",
    script: [spawn(), watch(COORD, PARENT), human(), human(PARENT), reset(PARENT), pending(PARENT), human(), pending(PARENT), version(PARENT), pending(COORD), restart, pending(PARENT)],
  },
  {
    name: 'r51-delete',
    rules: ['R51', 'R8'],
    description: "deleteSession removes the identity's events, head, cursors both ways and their notices, frees dedupe keys, and leaves other agents' sessions alone.",
    script: [
      spawn(),
      watch(CHILD, PEER),
      human(),
      human(PEER),
      rec({ sessionKey: 'global', agentId: 'ops', kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram' }),
      rec({ sessionKey: 'global', agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram' }),
      del(CHILD),
      version(CHILD),
      since(CHILD, 0),
      pending(PARENT),
      pending(CHILD),
      human(),
      human(PEER),
      restart,
      pending(PARENT),
      pending(CHILD),
      spawn(),
      del('global', 'ops'),
      version('global', 'ops'),
      version('global', 'main'),
    ],
  },
];

/** Random scripts from fixed seeds: the same mix the `model` property generates. */
export const RANDOM_SEEDS = [101, 202, 303, 404, 505, 606];

export function randomSpecs(): VectorSpec[] {
  return RANDOM_SEEDS.map((seed, i) => {
    const [sc] = fc.sample(scenario(optionsArb, modelDrafts(60)), { seed, numRuns: 1 });
    return {
      name: `random-${String(i + 1).padStart(2, '0')}`,
      rules: [],
      description: `A random script (fast-check seed ${seed}) over the shared key pool, as the model property generates them.`,
      options: sc!.options,
      script: sc!.commands,
    };
  });
}

// ---- trust at the edges (R1, R3, R6, R9a, R23b): hostile keys, opaque ids, field order, clock reads, notice link --

const HOSTILE_KEY_CHARS: [string, string][] = [
  ['U+061C arabic letter mark (Cf, bidi)', '\u061c'],
  ['U+200E left-to-right mark (Cf, bidi)', '\u200e'],
  ['U+202E right-to-left override (Cf, bidi)', '\u202e'],
  ['U+2067 right-to-left isolate (Cf, bidi)', '\u2067'],
  ['U+200B zero width space (Cf)', '\u200b'],
  ['U+200D zero width joiner (Cf)', '\u200d'],
  ['U+FEFF byte order mark (Cf)', '\ufeff'],
  ['U+00AD soft hyphen (Cf)', '\u00ad'],
  ['U+E0041 tag latin capital A (Cf)', '\u{e0041}'],
  ['U+2028 line separator (Zl)', '\u2028'],
  ['U+2029 paragraph separator (Zp)', '\u2029'],
  ['U+0085 next line (Cc)', '\u0085'],
  ['U+00A0 no-break space (Zs)', '\u00a0'],
  ['U+3000 ideographic space (Zs)', '\u3000'],
  ['U+0022 quotation mark', '"'],
  ["U+0027 apostrophe", "'"],
  ['U+201C left double quotation mark', '\u201c'],
  ['U+2019 right single quotation mark', '\u2019'],
  ['U+00AB left guillemet', '\u00ab'],
  ['U+300C left corner bracket', '\u300c'],
  ['U+FF02 fullwidth quotation mark', '\uff02'],
];
const ODD_BUT_FINE = ['agent:main:with space', 'agent:main:日本語', 'agent:main:😀 (x) <y> [z]'];
const OPAQUE_BAD: [string, string][] = [
  ['lone high surrogate', '\ud800'],
  ['lone low surrogate', 'run-\udc00'],
  ['BOM only', '\ufeff'],
  ['BOM prefix', '\ufeffrun-1'],
  ['zero-width only', '\u200b\u200c'],
];

export const HARDENING_VECTORS: VectorSpec[] = [
  {
    name: 'r01-r23-hostile-keys',
    rules: ['R1', 'R9', 'R23'],
    description:
      'Session keys are quoted in a notice a model reads, so R1 rejects (ValidationError naming the field, nothing written) keys with a control, format (Cf: bidi controls incl. U+061C, zero-width characters, BOM, soft hyphen, tags), line or paragraph separator, a space other than U+0020, or a quotation mark of any script: ' +
      HOSTILE_KEY_CHARS.map(([name]) => name).join(', ') +
      '; in record sessionKey, actorId and watchers, watch keys, and positional keys. Keys with spaces, CJK, emoji and brackets are accepted and appear verbatim in the notice text.',
    script: [
      ...HOSTILE_KEY_CHARS.map(([, ch]) => human(`agent:main:a${ch}b`)),
      ...HOSTILE_KEY_CHARS.slice(0, 4).map(([, ch]) => human(CHILD, { actorType: 'agent', actorId: `agent:main:x${ch}` })),
      human(CHILD, { watchers: [COORD, `agent:main:w\u202e`] }),
      watch(`agent:main:w\u061c`, CHILD),
      watch(COORD, `agent:main:t\u201d`, A),
      pending(`agent:main:w\u200b`),
      { op: 'stateVersion', args: [`agent:main:s\ufeff`, A] },
      since(`agent:main:s\u2028`, 0, undefined, A),
      version(CHILD),
      ...ODD_BUT_FINE.flatMap((k) => [watch(COORD, k), human(k)]),
      pending(COORD),
    ],
  },
  {
    name: 'r03-r09-opaque-ids-and-summary',
    rules: ['R1', 'R3', 'R9'],
    description:
      'Lone surrogates, a BOM (alone or as a prefix) and zero-width-only strings are rejected in every opaque id (sessionId, runId, dedupeKey), in actorId and in summary, with a ValidationError naming that field; a whitespace-only summary too. Nothing is written.',
    script: [
      ...['sessionId', 'runId', 'dedupeKey', 'actorId', 'summary'].flatMap((field) => OPAQUE_BAD.map(([, v]) => human(CHILD, { [field]: v }))),
      human(CHILD, { summary: '   ' }),
      rec({ sessionKey: CHILD, agentId: '\ufeffmain', kind: 'human_direct_message', actorType: 'human', summary: 'x' }),
      version(CHILD),
      human(CHILD, { sessionId: 's-1', runId: 'r-1', dedupeKey: 'd-1', summary: 'human message via telegram' }),
    ],
  },
  {
    name: 'r09a-field-order',
    rules: ['R9', 'R9a'],
    description:
      'When several fields are bad the error names the first in this order: a non-object argument is "(input)"; then the schema order of the fields (a missing required field at its own place; the payload against its kind at its place); then the first unknown field; then a payload the kind requires; then the agentId agreement of R1.',
    script: [
      rec(null as unknown as In),
      rec(42 as unknown as In),
      rec('record' as unknown as In),
      rec([] as unknown as In),
      human(CHILD, { sessionKey: '', summary: '' }),
      human(CHILD, { kind: 'nope', summary: '' }),
      human(CHILD, { watchers: [''], runId: '' }),
      rec({ zzz: 1, sessionKey: CHILD, agentId: A, kind: 'human_direct_message', actorType: 'human', summary: '' }),
      rec({ sessionKey: CHILD, agentId: 'other', kind: 'human_direct_message', actorType: 'human', summary: 'x', zzz: 1 }),
      rec({ sessionKey: CHILD, agentId: 'other', kind: 'run_failed', actorType: 'system', summary: 'x' }),
      rec({ sessionKey: CHILD, agentId: A, kind: 'run_failed', actorType: 'system', summary: 'x', payload: { outcome: 'nope' }, dedupeKey: '' }),
      rec({ sessionKey: CHILD, kind: 'human_direct_message', actorType: 'human', summary: '' }),
      { op: 'watch', args: [null] },
      { op: 'watch', args: [{ watcherSessionKey: '', targetSessionKey: 5, agentId: A }] },
      { op: 'watch', args: [{ targetSessionKey: CHILD, agentId: 'other', watcherSessionKey: COORD }] },
      { op: 'changesSince', args: [{ sessionKey: CHILD, agentId: A, since: -1, limit: 0 }] },
      { op: 'changesSince', args: [{ limit: 0, since: 0, agentId: '', sessionKey: CHILD }] },
      { op: 'stateVersion', args: ['', ''] },
      version(CHILD),
    ],
  },
  {
    name: 'r06-which-calls-read-the-clock',
    rules: ['R6'],
    description:
      'With the clock refused (negative), exactly record (even with bad input: the clock is read first), a watch that would write, every drain (also an empty one), prune and restart fail with ClockError; stateVersion, changesSince, pendingNotices, a refused watch (bare watcher, R21), resetSession and deleteSession do not read the clock and succeed.',
    script: [
      spawn(),
      human(),
      advance(-(T0 + 1)),
      human(),
      rec({ sessionKey: '' }),
      watch(COORD, CHILD),
      watch('global', CHILD),
      drain(PARENT),
      drain(COORD),
      prune,
      restart,
      version(CHILD),
      since(CHILD, 0),
      pending(PARENT),
      reset(COORD),
      del(PEER),
      advance(T0 + 1),
      pending(PARENT),
      drain(PARENT),
    ],
  },
  {
    name: 'r23b-notice-link',
    rules: ['R23', 'R23b', 'R24'],
    description:
      'With the opt-in link template, the notice text has "Open: [session](<url>)" between "(other actor)." and "Reconcile", the key and agent percent-encoded into the URL; the text is still a function of (target, lastSeen) only, byte-identical while pending, and the context key is unchanged. Without the option (every other vector) the text is exactly R23.',
    options: { noticeLink: 'https://ui.example/agents/{agentId}/sessions/{sessionKey}?from=notice' },
    script: [
      spawn(),
      human(),
      human(),
      pending(PARENT),
      watch(COORD, 'agent:main:with space/and?query#x'),
      human('agent:main:with space/and?query#x'),
      pending(COORD),
      drain(PARENT),
      human(),
      drain(PARENT),
    ],
  },
  // ---- what an independent implementer, building from PROTOCOL.md alone, could read two ways ----
  {
    name: 'r01-r03-lengths-in-code-points',
    rules: ['R1', 'R3', 'R9'],
    description:
      'Lengths count Unicode code points, as JSON Schema maxLength does: a key of 512 code points is accepted even when 501 of them are astral (1,013 UTF-16 code units), so is one of 300 astral characters; 513 code points is a ValidationError on sessionKey. A summary holds 200 code points (200 astral characters included) and not 201; an opaque id 512.',
    script: [
      human(`agent:main:${'\u{1F600}'.repeat(501)}`),
      version(`agent:main:${'\u{1F600}'.repeat(501)}`),
      version(`agent:main:${'\u{1F600}'.repeat(502)}`),
      human(`agent:main:${'\u{1F600}'.repeat(300)}`),
      human(CHILD, { summary: '\u{1F600}'.repeat(200) }),
      human(CHILD, { summary: '\u{1F600}'.repeat(201) }),
      human(CHILD, { dedupeKey: '\u{1F600}'.repeat(512) }),
      human(CHILD, { dedupeKey: '\u{1F600}'.repeat(513) }),
      human(CHILD, { runId: 'x'.repeat(513) }),
      version(CHILD),
    ],
  },
  {
    name: 'r06-clock-upper-bound',
    rules: ['R6', 'R43'],
    description:
      'A clock reading above 2^53 - 1 (the largest time an event can hold) is refused with ClockError like a negative one, by every call that reads the clock; 2^53 - 1 itself is a valid reading (occurredAt is clamped to it), and a read that does not need the clock still answers.',
    script: [
      human(),
      advance(Number.MAX_SAFE_INTEGER - T0),
      human(CHILD, { occurredAt: 0 }),
      advance(1),
      human(),
      drain(PARENT),
      prune,
      restart,
      version(CHILD),
      advance(-1),
      since(CHILD, 0),
    ],
  },
  {
    name: 'r06-clock-bare-drain-and-rewatch',
    rules: ['R6', 'R21b', 'R27', 'R27b'],
    description:
      'With the clock refused, a drain or an ack reads it whatever the watcher (a bare one, which can hold no notice, too) and whether or not anything matches; an accepted watch reads it even when it then writes nothing (an ambient re-registration, R21b); a watch R21 refuses and unwatch do not read it.',
    script: [
      ambient(COORD, CHILD),
      advance(-(T0 + 1)),
      drain('global'),
      { op: 'ackNotices', args: ['global', []] },
      { op: 'ackNotices', args: [COORD, []] },
      ambient(COORD, CHILD),
      watch(CHILD, CHILD),
      unwatch(COORD, PEER),
      advance(T0 + 1),
      unwatch(COORD, CHILD),
    ],
  },
  {
    name: 'r14-no-self-seed',
    rules: ['R14', 'R11', 'R9b'],
    description:
      'A child_spawned that names its own session among the watchers seeds no cursor of the session on itself (R14 seeds only watchers other than the event\'s key, as R11 does), so the session stays unwatched for onlyIfWatched (R9b); the other watcher is seeded as usual.',
    script: [
      rec({ sessionKey: PEER, agentId: A, kind: 'child_spawned', actorType: 'agent', actorId: PEER, runId: 'r1', summary: 'child session spawned', watchers: [PEER] }),
      human(PEER, { onlyIfWatched: true }),
      version(PEER),
      rec({ sessionKey: PEER, agentId: A, kind: 'child_spawned', actorType: 'agent', actorId: PARENT, runId: 'r2', summary: 'child session spawned', watchers: [PEER, PARENT] }),
      human(PEER, { onlyIfWatched: true }),
      pending(PARENT),
      pending(PEER),
    ],
  },
  {
    name: 'r24-r27b-context-key-edges',
    rules: ['R24', 'R27b', 'R9'],
    description:
      'A store writes context keys in lowercase; decoding reads the whole key case-insensitively (prefix and hex digits), so an ack quoting it in uppercase names the same pair and acks it. A key with an empty segment, an odd number of digits or a foreign prefix names no pair and acks nothing. A contextKey longer than 4,096 characters is a ValidationError on notices.<i>.contextKey (NoticeAcks), not a foreign key.',
    script: [
      watch(COORD, PEER),
      human(PEER),
      { op: 'ackNotices', args: [COORD, [{ contextKey: 'session-state::6167656e743a6d61696e3a70656572', lastSeenSequence: 0 }]] },
      { op: 'ackNotices', args: [COORD, [{ contextKey: 'session-state:6d61696e:', lastSeenSequence: 0 }]] },
      { op: 'ackNotices', args: [COORD, [{ contextKey: 'session-state:6d61696e:6167656e743a6d61696e3a7065657', lastSeenSequence: 0 }]] },
      { op: 'ackNotices', args: [COORD, [{ contextKey: `session-state:6d61696e:${'61'.repeat(2100)}`, lastSeenSequence: 0 }]] },
      pending(COORD),
      { op: 'ackNotices', args: [COORD, [{ contextKey: 'session-state:6D61696E:6167656E743A6D61696E3A70656572', lastSeenSequence: 0 }]] },
      watch(COORD, CHILD),
      human(CHILD),
      { op: 'ackNotices', args: [COORD, [{ contextKey: 'SESSION-STATE:6D61696E:6167656E743A6D61696E3A7375626167656E743A6368696C64', lastSeenSequence: 0 }]] },
      pending(COORD),
    ],
  },
  {
    name: 'r09a-payload-and-call-field-order',
    rules: ['R9', 'R9a', 'R4', 'R1', 'R52', 'R27b', 'R21b'],
    description:
      'Inside a payload the error names, in this order: a missing required field (in its schema\'s order), then the first unknown field (in the payload\'s own key order), then the first bad value (in schema order). watch checks provenance after agentId; unwatch checks its fields in schema order and then R1\'s agent agreement; an ackNotices entry checks contextKey before lastSeenSequence, and ignores other fields.',
    script: [
      rec({ sessionKey: CHILD, agentId: A, kind: 'adopted', actorType: 'system', summary: 'x', payload: { catalogId: 5, zzz: 1 } }),
      rec({ sessionKey: CHILD, agentId: A, kind: 'run_failed', actorType: 'system', summary: 'x', payload: { zzz: 1, outcome: 'nope' } }),
      human(CHILD, { payload: { turns: 0, channel: 5 } }),
      human(CHILD, { payload: { b: 1, a: 1 } }),
      { op: 'watch', args: [{ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: 5, provenance: 'loud' }] },
      { op: 'watch', args: [{ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A, provenance: 'loud' }] },
      { op: 'unwatch', args: [{ agentId: 'other', targetSessionKey: '', watcherSessionKey: '' }] },
      { op: 'unwatch', args: [{ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: 'ops' }] },
      { op: 'unwatch', args: [{ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A, provenance: 'explicit' }] },
      { op: 'ackNotices', args: [COORD, [{ lastSeenSequence: -1, contextKey: 5 }]] },
      { op: 'ackNotices', args: [COORD, [{ contextKey: 'session-state:6d61696e:61', lastSeenSequence: 0, wake: 'immediate', extra: 1 }]] },
      version(CHILD),
    ],
  },
  {
    name: 'r23b-template-edges',
    rules: ['R23b', 'R23'],
    description:
      'Beyond its scheme, characters and length nothing in a noticeLink template is parsed: no host is required, a % is kept as written, every occurrence of {sessionKey} and {agentId} is replaced (percent-encoded as encodeURIComponent does), and other brace text, an unclosed placeholder included, stays as written.',
    options: { noticeLink: "https:///{agentId}/%zz/{other}/{sessionKey}-{sessionKey}?q='{agentId}'&p={sessionKey" },
    script: [watch(COORD, "agent:main:a {x} 100%"), human("agent:main:a {x} 100%"), pending(COORD)],
  },
  {
    name: 'r24-ascii-case-only',
    rules: ['R24', 'R27b'],
    description:
      'A context key decodes case-insensitively in ASCII only: SESSION-STATE with uppercase hex names the same pair and acks it, while a key whose prefix holds ſ (U+017F, which Unicode case folding turns into s) is foreign and acks nothing.',
    script: [
      watch(COORD, PEER),
      watch(COORD, CHILD),
      human(PEER),
      human(CHILD),
      { op: 'ackNotices', args: [COORD, [{ contextKey: expectedContextKey(A, PEER).replace('session-state', 'ſeſſion-ſtate'), lastSeenSequence: 0 }]] },
      { op: 'ackNotices', args: [COORD, [{ contextKey: expectedContextKey(A, CHILD).toUpperCase(), lastSeenSequence: 0 }]] },
      pending(COORD),
    ],
  },
  {
    name: 'r27b-context-key-length-in-code-points',
    rules: ['R27b', 'R1', 'R9'],
    description:
      'An ack\'s contextKey is bad input past 4,096 code points, counted as R1 counts (not UTF-16 code units): 4,096 astral characters (8,192 code units) are a foreign key that acks nothing, 4,097 of them, or 4,097 ASCII characters, a ValidationError on notices.0.contextKey.',
    script: [
      watch(COORD, PEER),
      human(PEER),
      { op: 'ackNotices', args: [COORD, [{ contextKey: '\u{1F600}'.repeat(4096), lastSeenSequence: 0 }]] },
      { op: 'ackNotices', args: [COORD, [{ contextKey: '\u{1F600}'.repeat(4097), lastSeenSequence: 0 }]] },
      { op: 'ackNotices', args: [COORD, [{ contextKey: 'a'.repeat(4097), lastSeenSequence: 0 }]] },
      pending(COORD),
    ],
  },
  {
    name: 'r16-passed-and-self',
    rules: ['R16', 'R12', 'R21'],
    description:
      'What a terminal run notifies is decided by the cursor: a producer-passed watcher that also holds an explicit cursor is notified once, by that cursor; and R12 holds, so an explicit watcher that is itself the actor of the terminal run is not.',
    script: [
      watch(COORD, CHILD),
      ev(CHILD, 'run_completed', { actorType: 'system', watchers: [COORD] }),
      pending(COORD),
      drain(COORD),
      ev(CHILD, 'run_failed', { actorType: 'agent', actorId: COORD, payload: { outcome: 'error' } }),
      pending(COORD),
    ],
  },
  {
    name: 'r43-dedupe-hit-at-real-limits',
    rules: ['R43', 'R8', 'R40'],
    description:
      'At the real limits (30 days): a record whose dedupe key is retained changes nothing and does not prune, even a month later, so the next replay of the key is still a hit; the next insert prunes, and only then is the key free again. (Learned from the OpenClaw run: an implementation without per-store limits is judged here too.)',
    script: [human(PEER, { dedupeKey: 'd1' }), advance(30 * DAY + 1), human(PEER, { dedupeKey: 'd1' }), human(PEER, { dedupeKey: 'd1' }), since(PEER, 0), human(CHILD), since(PEER, 0), human(PEER, { dedupeKey: 'd1' })],
  },
  {
    name: 'r01-watchers-differ-by-case',
    rules: ['R1', 'R20', 'R24', 'R27'],
    description:
      'Keys are compared exactly (R1): two watchers whose keys differ only in case are two sessions, each with its own cursor and notice, and a drain by one takes nothing of the other. (Learned from the OpenClaw run, whose notice queue folds case.)',
    script: [watch('agent:main:Lead', PEER), watch('agent:main:lead', CHILD), human(PEER), pending('agent:main:lead'), drain('agent:main:lead'), pending('agent:main:Lead'), drain('agent:main:Lead')],
  },
  {
    name: 'r43-no-prune-on-dedupe-hit',
    rules: ['R43', 'R8', 'R33'],
    description:
      'Pruning happens only where R43 says: a dedupe hit, a record skipped by onlyIfWatched, reads and acks do not prune, even when the interval has passed and the log is over its cap, so historyGap stays false until the next successful insert prunes.',
    options: { maxRows: 2 },
    script: [
      human(CHILD, { dedupeKey: 'd1' }),
      human(CHILD),
      human(CHILD),
      advance(2 * HOUR),
      human(CHILD, { dedupeKey: 'd1' }),
      human('agent:main:unwatched', { onlyIfWatched: true }),
      drain(PARENT),
      since(CHILD, 0),
      human(PEER),
      since(CHILD, 0),
    ],
  },
];

function jsonSafe(value: unknown, where: string): void {
  if (JSON.stringify(JSON.parse(JSON.stringify(value))) !== JSON.stringify(value)) throw new Error(`${where}: arguments must survive JSON`);
}

/** Runs a spec against a factory (the reference, for generation) and records every output. */
export async function buildVector(spec: VectorSpec, factory: StoreFactory = createMemoryStore): Promise<ConformanceVector> {
  const clock = new Clock(T0);
  const options = spec.options ?? {};
  const store = await openStore(factory, clock, options);
  const steps: VectorStep[] = [];
  try {
    for (const cmd of spec.script) {
      if (cmd.op === 'advance') {
        clock.t += cmd.args[0] as number;
        continue;
      }
      if (cmd.op === 'repeatRecord') throw new Error('vectors are expanded scripts');
      // R9e is optional, so no vector may need it: an implementation without recordMany must pass every vector.
      if (cmd.op === 'recordMany') throw new Error('vectors never use the optional recordMany');
      jsonSafe(cmd.args, `${spec.name} step ${steps.length + 1}`);
      const o = await callStore(store, cmd.op, cmd.args);
      steps.push({ now: clock.t, op: cmd.op, args: JSON.parse(JSON.stringify(cmd.args)) as unknown[], expect: toExpectation(o) });
    }
  } finally {
    await closeQuietly(store);
  }
  return { format: VECTOR_FORMAT, name: spec.name, rules: spec.rules, description: spec.description, options, startAt: T0, steps };
}

/** Pretty at the top, one line per step: diffs stay readable. */
export function renderVector(v: ConformanceVector): string {
  const head = { format: v.format, name: v.name, rules: v.rules, description: v.description, options: v.options, startAt: v.startAt };
  const top = JSON.stringify(head, null, 2).replace(/\n}$/, '');
  const steps = v.steps.map((s) => `    ${JSON.stringify({ now: s.now, op: s.op, args: s.args, expect: s.expect })}`).join(',\n');
  return `${top},\n  "steps": [\n${steps}\n  ]\n}\n`;
}

export async function generateAll(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const spec of [...HAND_WRITTEN, ...HARDENING_VECTORS, ...randomSpecs()]) out.set(`${spec.name}.json`, renderVector(await buildVector(spec)));
  return out;
}

const here = fileURLToPath(new URL('./vectors/', import.meta.url));

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes('--check');
  const files = await generateAll();
  let drift = 0;
  mkdirSync(here, { recursive: true });
  const existing = existsSync(here) ? readdirSync(here).filter((f) => f.endsWith('.json')) : [];
  for (const f of existing) {
    if (files.has(f)) continue;
    if (check) {
      console.error(`drift: conformance/vectors/${f} is not generated any more`);
      drift++;
    } else rmSync(join(here, f));
  }
  for (const [name, text] of files) {
    const path = join(here, name);
    if (check) {
      if (!existsSync(path) || readFileSync(path, 'utf8') !== text) {
        console.error(`drift: conformance/vectors/${name} differs from the reference (run npm run conformance:vectors)`);
        drift++;
      }
    } else writeFileSync(path, text);
  }
  if (check && drift > 0) process.exit(1);
  console.log(check ? `conformance/vectors is up to date (${files.size} vectors)` : `wrote ${files.size} vectors to conformance/vectors`);
}
