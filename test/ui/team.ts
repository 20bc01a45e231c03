/**
 * A small team's state file for the live view's tests and screenshots: a manager with two
 * sub-agents, a second agent's session watching one of them, a person stepping in (pending
 * notices), a session whose old history was pruned (a gap), ambient and explicit watches, and a
 * session with a hostile key and summary from the conformance vectors (R1, R23: accepted keys
 * appear verbatim). Times end a minute before `endAt`, so a live record lands after them.
 */
import { createSqliteStore } from '../../src/sqlite/index.js';

export const TEAM = {
  manager: 'agent:main:main',
  research: 'agent:main:subagent:research',
  writer: 'agent:main:subagent:writer',
  archive: 'agent:main:subagent:archive',
  ops: 'agent:ops:main',
  /** A key r01-r23-hostile-keys accepts and quotes verbatim in the notice. */
  hostile: 'agent:main:😀 (x) <y> [z]',
  hostileSummary: '<img src=x onerror="window.__pwned=1"><b>bold</b> & <script>window.__pwned=2</script>',
  agent: 'main',
  opsAgent: 'ops',
} as const;

const MIN = 60_000;
const DAY = 24 * 60 * MIN;

export function buildTeam(path: string, endAt = Date.now()): void {
  let t = endAt - 41 * DAY;
  const store = createSqliteStore({ path, now: () => t });
  const { manager, research, writer, archive, ops, hostile, agent } = TEAM;
  const rec = (sessionKey: string, kind: string, actorType: 'human' | 'agent' | 'system', summary: string, extra: Record<string, unknown> = {}, agentId: string = agent) =>
    store.record({ sessionKey, agentId, kind, actorType, summary, ...extra } as Parameters<typeof store.record>[0]);

  // Old history, pruned 40 days later: the archive's timeline shows the gap (R33).
  rec(archive, 'child_spawned', 'agent', 'child session spawned', { actorId: manager, watchers: [manager] });
  for (let i = 0; i < 3; i++) rec(archive, 'agent_message', 'agent', `old finding ${i + 1}`, { actorId: archive });
  t = endAt - 40 * MIN;
  store.prune();
  rec(archive, 'run_completed', 'system', 'archive run completed', { runId: 'run-archive' });

  // The last 40 minutes: a team at work.
  rec(manager, 'created', 'system', 'manager session created');
  rec(research, 'child_spawned', 'agent', 'child session spawned', { actorId: manager, runId: 'run-r', dedupeKey: 'spawn:research', watchers: [manager] });
  rec(writer, 'child_spawned', 'agent', 'child session spawned', { actorId: manager, runId: 'run-w', dedupeKey: 'spawn:writer', watchers: [manager] });
  store.watch({ watcherSessionKey: ops, targetSessionKey: writer, agentId: agent });
  store.watch({ watcherSessionKey: ops, targetSessionKey: research, agentId: agent, provenance: 'ambient' });
  rec(ops, 'created', 'system', 'ops session created', {}, TEAM.opsAgent);
  for (let m = 0; m < 30; m++) {
    t += MIN;
    rec(writer, 'agent_message', 'agent', `draft section ${m + 1}`, { actorId: writer });
    if (m % 3 === 0) rec(research, 'agent_message', 'agent', `search results batch ${m / 3 + 1}`, { actorId: research });
    if (m % 7 === 0) rec(ops, 'run_completed', 'system', `health check ${m / 7 + 1}`, { runId: `health-${m}` }, TEAM.opsAgent);
  }
  t += MIN;
  // A person steps into the research child: the manager (spawn) and ops (ambient) get notices.
  rec(research, 'human_direct_message', 'human', 'human message via telegram', { payload: { channel: 'telegram' } });
  rec(research, 'goal_changed', 'human', 'goal updated', { payload: { action: 'updated' } });
  // The manager acts on the writer itself: never told about its own action (R12).
  rec(writer, 'agent_message', 'agent', 'message from manager', { actorId: manager });
  t += MIN;
  rec(writer, 'human_direct_message', 'human', 'human message via slack', { payload: { channel: 'slack' } });
  // Hostile key and summary: rendered as text, never as markup (R88).
  store.watch({ watcherSessionKey: 'agent:main:coordinator', targetSessionKey: hostile, agentId: agent });
  rec(hostile, 'human_direct_message', 'human', TEAM.hostileSummary, { payload: { channel: 'web' } });
  store.close();
}
