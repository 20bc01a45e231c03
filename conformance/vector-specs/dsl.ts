import { LIMITS } from '../../spec/index.js';
import { DAY, HOUR, MINUTE, T0, type Command, type ScenarioOptions } from '../script.js';
import { expectedContextKey } from '../facts.js';

/**
 * The vectors' sources (generate-vectors.ts runs them against the reference store): a spec per
 * vector, and the tiny script DSL they are written in. One file per rule family.
 */
export interface VectorSpec {
  name: string;
  rules: string[];
  description: string;
  options?: ScenarioOptions;
  script: Command[];
}

// ---- a tiny script DSL -------------------------------------------------------------------------

export const A = 'main';
export const PARENT = 'agent:main:main';
export const CHILD = 'agent:main:subagent:child';
export const PEER = 'agent:main:peer';
export const COORD = 'agent:main:coordinator';
export const LEAD = 'agent:main:subagent:lead';
export const OPS_MAIN = 'agent:ops:main';

export type In = Record<string, unknown>;
export const rec = (input: In): Command => ({ op: 'record', args: [input] });
export const agentOfKey = (key: string) => /^agent:([^:]+):/.exec(key)?.[1] ?? A;
export const human = (key = CHILD, extra: In = {}): Command =>
  rec({ sessionKey: key, agentId: agentOfKey(key), kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram', ...extra });
export const ev = (key: string, kind: string, extra: In = {}): Command => {
  const payload = kind === 'run_failed' ? { outcome: 'error' } : kind === 'upstream_missing' ? { channel: 'claude' } : kind === 'adopted' ? { catalogId: 'claude', hostId: 'gateway:local' } : undefined;
  return rec({ sessionKey: key, agentId: agentOfKey(key), kind, actorType: 'system', summary: `${kind.replace(/_/g, ' ')}`, ...(payload ? { payload } : {}), ...extra });
};
export const byAgent = (key: string, kind: string, actor: string, extra: In = {}) => ev(key, kind, { actorType: 'agent', actorId: actor, ...extra });
export const spawn = (child = CHILD, parent = PARENT, run = 'r1'): Command =>
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
export const watch = (w: string, t: string, a = agentOfKey(t)): Command => ({ op: 'watch', args: [{ watcherSessionKey: w, targetSessionKey: t, agentId: a }] });
export const ambient = (w: string, t: string, a = agentOfKey(t)): Command => ({ op: 'watch', args: [{ watcherSessionKey: w, targetSessionKey: t, agentId: a, provenance: 'ambient' }] });
export const unwatch = (w: string, t: string, a = agentOfKey(t)): Command => ({ op: 'unwatch', args: [{ watcherSessionKey: w, targetSessionKey: t, agentId: a }] });
/** R27b: ack by context key and L, as a runtime would pass back the notices it delivered. */
export const ack = (w: string, notices: [target: string, lastSeen: number, agent?: string][]): Command => ({
  op: 'ackNotices',
  args: [w, notices.map(([t, l, a = agentOfKey(t)]) => ({ contextKey: expectedContextKey(a, t), lastSeenSequence: l }))],
});
export const pending = (w: string): Command => ({ op: 'pendingNotices', args: [w] });
export const drain = (w: string): Command => ({ op: 'drainNotices', args: [w] });
export const since = (key: string, s: number, limit?: number, agent = agentOfKey(key)): Command => ({
  op: 'changesSince',
  args: [{ sessionKey: key, agentId: agent, since: s, ...(limit !== undefined ? { limit } : {}) }],
});
export const version = (key: string, agent = agentOfKey(key)): Command => ({ op: 'stateVersion', args: [key, agent] });
export const prune: Command = { op: 'prune', args: [] };
export const restart: Command = { op: 'restart', args: [] };
export const reset = (key: string): Command => ({ op: 'resetSession', args: [key] });
export const del = (key: string, agent = agentOfKey(key)): Command => ({ op: 'deleteSession', args: [key, agent] });
export const advance = (ms: number): Command => ({ op: 'advance', args: [ms] });
export const times = (n: number, c: Command): Command[] => Array.from({ length: n }, () => c);
