/**
 * Writes conformance/tools/vectors/*.json: each scenario's calls run against the in-memory reference
 * store through the tool handlers, with the outcomes (structured result and exact text) recorded.
 * `--check` exits 1 when the committed files differ. Run: npm run tools:vectors
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TOOL_VECTOR_FORMAT, type ToolVector, type ToolVectorCall } from '../../spec/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { replayToolVector, toolVectorsDir } from './replay.js';

const T0 = 1_767_225_600_000; // 2026-01-01T00:00:00Z
const MIN = 60_000;
const DAY = 86_400_000;

type Call = Omit<ToolVectorCall, 'expect'>;
interface Scenario {
  name: string;
  rules: string[];
  description: string;
  defaultAgentId?: string;
  caller?: string;
  visibility?: 'self' | 'tree' | 'agent' | 'all';
  calls: Call[];
}

const human = (sessionKey: string, agentId: string, now: number, extra: Record<string, unknown> = {}): Call => ({
  now,
  tool: 'record',
  args: { sessionKey, agentId, kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram', payload: { channel: 'telegram' }, ...extra },
});

const WORKER = 'agent:main:worker';
const LEAD = 'agent:main:lead';
const GRANDCHILD = 'agent:main:grandchild';
const PEER = 'agent:main:peer';
const OPS_HELPER = 'agent:ops:helper';
const OPS_OTHER = 'agent:ops:other';

const spawn = (child: string, agentId: string, parent: string, now: number): Call => ({
  now,
  tool: 'record',
  args: { sessionKey: child, agentId, kind: 'child_spawned', actorType: 'agent', actorId: parent, summary: 'child session spawned', watchers: [parent] },
});

/**
 * T10-T13: the same calls under each visibility, bound to LEAD. LEAD spawned WORKER (which spawned
 * GRANDCHILD) and OPS_HELPER, another agent's session; PEER (its agent) and OPS_OTHER are strangers.
 */
function scopeScenario(visibility: 'self' | 'tree' | 'agent' | 'all', description: string): Scenario {
  const everyone = [LEAD, WORKER, GRANDCHILD, OPS_HELPER, PEER, OPS_OTHER];
  return {
    name: `t10-visibility-${visibility}`,
    rules: ['T10', 'T11', 'T12', 'T13', 'R14'],
    description,
    caller: LEAD,
    visibility,
    calls: [
      spawn(WORKER, 'main', LEAD, T0),
      spawn(GRANDCHILD, 'main', WORKER, T0 + 1),
      spawn(OPS_HELPER, 'ops', LEAD, T0 + 2),
      human(PEER, 'main', T0 + 3),
      human(OPS_OTHER, 'ops', T0 + 4),
      ...everyone.map((k): Call => ({ now: T0 + MIN, tool: 'session_status', args: { sessionKey: k } })),
      { now: T0 + MIN, tool: 'sessions_list', args: { rows: everyone.map((sessionKey) => ({ sessionKey })) } },
      { now: T0 + MIN, tool: 'session_watch', args: { watcherSessionKey: LEAD, targetSessionKey: GRANDCHILD } },
      { now: T0 + MIN, tool: 'session_watch', args: { watcherSessionKey: LEAD, targetSessionKey: PEER } },
      { now: T0 + MIN, tool: 'session_watch', args: { watcherSessionKey: LEAD, targetSessionKey: OPS_OTHER } },
      { now: T0 + MIN, tool: 'session_watch', args: { watcherSessionKey: WORKER, targetSessionKey: GRANDCHILD } },
      human(GRANDCHILD, 'main', T0 + 2 * MIN),
      human(PEER, 'main', T0 + 2 * MIN),
      { now: T0 + 3 * MIN, tool: 'session_notices', args: { watcherSessionKey: WORKER } },
      { now: T0 + 3 * MIN, tool: 'session_unwatch', args: { watcherSessionKey: WORKER, targetSessionKey: GRANDCHILD } },
      { now: T0 + 3 * MIN, tool: 'session_notices', args: { watcherSessionKey: LEAD } },
      { now: T0 + 3 * MIN, tool: 'session_unwatch', args: { watcherSessionKey: LEAD, targetSessionKey: OPS_OTHER } },
    ],
  };
}

export const SCENARIOS: Scenario[] = [
  {
    name: 't03-session-status',
    rules: ['T3', 'T2', 'R30', 'R34'],
    description: 'stateVersion alone, then the delta since a version: one line per event with actor and payload; the agent comes from an agent-scoped key, a bare key names its agent.',
    calls: [
      { now: T0, tool: 'session_status', args: { sessionKey: WORKER } },
      human(WORKER, 'main', T0 + MIN),
      { now: T0 + 2 * MIN, tool: 'record', args: { sessionKey: WORKER, agentId: 'main', kind: 'goal_changed', actorType: 'human', summary: 'goal updated', payload: { action: 'updated' } } },
      { now: T0 + 3 * MIN, tool: 'record', args: { sessionKey: WORKER, agentId: 'main', kind: 'agent_message', actorType: 'agent', actorId: LEAD, summary: 'message from the lead' } },
      { now: T0 + 4 * MIN, tool: 'record', args: { sessionKey: WORKER, agentId: 'main', kind: 'run_failed', actorType: 'system', summary: 'child run timed out', payload: { outcome: 'timeout' } } },
      { now: T0 + 5 * MIN, tool: 'session_status', args: { sessionKey: WORKER } },
      { now: T0 + 5 * MIN, tool: 'session_status', args: { sessionKey: WORKER, changesSince: 0 } },
      { now: T0 + 5 * MIN, tool: 'session_status', args: { sessionKey: WORKER, agentId: 'main', changesSince: 1 } },
      { now: T0 + 5 * MIN, tool: 'session_status', args: { sessionKey: WORKER, changesSince: 4 } },
      { now: T0 + 5 * MIN, tool: 'record', args: { sessionKey: 'global', agentId: 'ops', kind: 'created', actorType: 'system', summary: 'session created' } },
      { now: T0 + 5 * MIN, tool: 'session_status', args: { sessionKey: 'global', agentId: 'ops', changesSince: 0 } },
      { now: T0 + 5 * MIN, tool: 'session_status', args: { sessionKey: 'global', agentId: 'main' } },
    ],
  },
  {
    name: 't03-history-gap',
    rules: ['T3', 'R33'],
    description: 'After pruning by age, a delta from before the pruned watermark says so on its own line.',
    calls: [
      human(WORKER, 'main', T0),
      human(WORKER, 'main', T0 + 31 * DAY),
      { now: T0 + 31 * DAY, tool: 'session_status', args: { sessionKey: WORKER, changesSince: 0 } },
      { now: T0 + 31 * DAY, tool: 'session_status', args: { sessionKey: WORKER, changesSince: 1 } },
    ],
  },
  {
    name: 't03-truncated',
    rules: ['T3', 'R31'],
    description: 'A delta longer than 200 events ends with the call that reads the rest.',
    calls: [
      ...Array.from({ length: 201 }, (_, i): Call => ({ now: T0 + i, tool: 'record', args: { sessionKey: WORKER, agentId: 'main', kind: 'compacted', actorType: 'system', summary: 'compacted' } })),
      { now: T0 + 300, tool: 'session_status', args: { sessionKey: WORKER, changesSince: 0 } },
      { now: T0 + 300, tool: 'session_status', args: { sessionKey: WORKER, changesSince: 200 } },
    ],
  },
  {
    name: 't01-t02-bad-arguments',
    rules: ['T1', 'T2', 'R9', 'R1'],
    description: 'Arguments a model can get wrong: each is a ValidationError naming the field, and nothing is written (the head stays 0).',
    calls: [
      { now: T0, tool: 'session_status', args: {} },
      { now: T0, tool: 'session_status', args: { sessionKey: WORKER, since: 3 } },
      { now: T0, tool: 'session_status', args: { sessionKey: WORKER, changesSince: -1 } },
      { now: T0, tool: 'session_status', args: { sessionKey: WORKER, changesSince: 1.5 } },
      { now: T0, tool: 'session_status', args: { sessionKey: WORKER, changesSince: '3' } },
      { now: T0, tool: 'session_status', args: { sessionKey: 'agent:main:"quoted"' } },
      { now: T0, tool: 'session_status', args: { sessionKey: 'agent:main:\ud800' } },
      { now: T0, tool: 'session_status', args: { sessionKey: WORKER, agentId: 'other' } },
      { now: T0, tool: 'session_status', args: { sessionKey: 'global' } },
      { now: T0, tool: 'session_status', args: 'agent:main:worker' },
      { now: T0, tool: 'session_watch', args: { watcherSessionKey: LEAD } },
      { now: T0, tool: 'session_watch', args: { watcherSessionKey: LEAD, targetSessionKey: WORKER, agentId: 'ops' } },
      { now: T0, tool: 'session_watch', args: { watcherSessionKey: LEAD, targetSessionKey: WORKER, watch: true } },
      { now: T0, tool: 'session_notices', args: { watcherSessionKey: '' } },
      { now: T0, tool: 'sessions_list', args: { rows: [{ sessionKey: WORKER }, { agentId: 'main' }] } },
      { now: T0, tool: 'sessions_list', args: { rows: [{ sessionKey: 'main' }] } },
      human(WORKER, 'main', T0 + MIN),
      { now: T0 + MIN, tool: 'session_notices', args: { watcherSessionKey: LEAD } },
      { now: T0 + MIN, tool: 'session_status', args: { sessionKey: WORKER } },
    ],
  },
  {
    name: 't04-sessions-list',
    rules: ['T4', 'T2', 'R5'],
    description: "Annotating a runtime's rows: stateVersion only when > 0, other fields kept, a stale stateVersion removed, bare keys under the runtime's agent.",
    defaultAgentId: 'main',
    calls: [
      { now: T0, tool: 'sessions_list', args: { rows: [] } },
      human(WORKER, 'main', T0 + MIN),
      { now: T0 + MIN, tool: 'record', args: { sessionKey: 'main', agentId: 'main', kind: 'created', actorType: 'system', summary: 'session created' } },
      {
        now: T0 + 2 * MIN,
        tool: 'sessions_list',
        args: {
          rows: [
            { sessionKey: WORKER, label: 'worker', kind: 'subagent' },
            { sessionKey: LEAD, stateVersion: 99 },
            { sessionKey: 'main' },
            { sessionKey: 'main', agentId: 'ops' },
          ],
        },
      },
    ],
  },
  {
    name: 't05-t07-watch-and-notices',
    rules: ['T5', 'T7', 'R21', 'R22', 'R24', 'R26', 'R27', 'R28'],
    description: 'A watch starts at the current version (history never notifies), refusals write nothing, two changes give one notice, notices of two targets come in key order, a change after the notice froze comes back once (R28), then the list is empty.',
    calls: [
      human(WORKER, 'main', T0),
      { now: T0 + MIN, tool: 'session_watch', args: { watcherSessionKey: LEAD, targetSessionKey: WORKER } },
      { now: T0 + MIN, tool: 'session_watch', args: { watcherSessionKey: 'main', targetSessionKey: WORKER } },
      { now: T0 + MIN, tool: 'session_watch', args: { watcherSessionKey: WORKER, targetSessionKey: WORKER } },
      { now: T0 + MIN, tool: 'session_watch', args: { watcherSessionKey: LEAD, targetSessionKey: 'agent:main:helper' } },
      { now: T0 + 2 * MIN, tool: 'session_notices', args: { watcherSessionKey: LEAD } },
      human(WORKER, 'main', T0 + 3 * MIN),
      human(WORKER, 'main', T0 + 4 * MIN),
      human('agent:main:helper', 'main', T0 + 5 * MIN),
      { now: T0 + 6 * MIN, tool: 'session_notices', args: { watcherSessionKey: LEAD } },
      // R28: the second change arrived after the notice froze at 2, so one follow-up quotes 2.
      { now: T0 + 6 * MIN, tool: 'session_notices', args: { watcherSessionKey: LEAD } },
      { now: T0 + 6 * MIN, tool: 'session_notices', args: { watcherSessionKey: LEAD } },
      { now: T0 + 7 * MIN, tool: 'session_status', args: { sessionKey: WORKER, changesSince: 1 } },
    ],
  },
  {
    name: 't06-unwatch',
    rules: ['T6', 'T7', 'R52'],
    description: 'Unwatching ends the watch and takes its pending notice with it; a second unwatch has nothing to stop; a bare target names its agent.',
    calls: [
      { now: T0, tool: 'session_watch', args: { watcherSessionKey: LEAD, targetSessionKey: WORKER } },
      human(WORKER, 'main', T0 + MIN),
      { now: T0 + 2 * MIN, tool: 'session_unwatch', args: { watcherSessionKey: LEAD, targetSessionKey: WORKER } },
      { now: T0 + 2 * MIN, tool: 'session_notices', args: { watcherSessionKey: LEAD } },
      { now: T0 + 2 * MIN, tool: 'session_unwatch', args: { watcherSessionKey: LEAD, targetSessionKey: WORKER } },
      human(WORKER, 'main', T0 + 3 * MIN),
      { now: T0 + 3 * MIN, tool: 'session_notices', args: { watcherSessionKey: LEAD } },
      { now: T0 + 3 * MIN, tool: 'session_watch', args: { watcherSessionKey: LEAD, targetSessionKey: 'global', agentId: 'ops' } },
      { now: T0 + 3 * MIN, tool: 'session_unwatch', args: { watcherSessionKey: LEAD, targetSessionKey: 'global', agentId: 'ops' } },
    ],
  },
  scopeScenario('self', 'Visibility self: only the caller itself; every other target is forbidden, naming the scope. Another session\'s notices are forbidden in every scope.'),
  scopeScenario('tree', 'Visibility tree (the default): the caller and what it spawned, transitively, across agents, from child_spawned events; its agent\'s other sessions are forbidden.'),
  scopeScenario('agent', 'Visibility agent: every session of the caller\'s agent, plus its spawn tree in another agent; another agent\'s stranger is forbidden.'),
  scopeScenario('all', 'Visibility all: every target; the notice tools still act only on the caller\'s own notices.'),
];

/** Records expectations from the reference store. */
export async function buildVector(s: Scenario): Promise<ToolVector> {
  const binding = { ...(s.defaultAgentId ? { defaultAgentId: s.defaultAgentId } : {}), ...(s.caller ? { caller: s.caller } : {}), ...(s.visibility ? { visibility: s.visibility } : {}) };
  const base = { startAt: s.calls[0]?.now ?? T0, calls: s.calls as ToolVectorCall[], ...binding };
  const { outcomes } = await replayToolVector(base, createMemoryStore);
  return {
    format: TOOL_VECTOR_FORMAT,
    name: s.name,
    rules: s.rules,
    description: s.description,
    startAt: base.startAt,
    ...binding,
    calls: s.calls.map((c, i) => ({ ...c, expect: outcomes[i]! })),
  };
}

export function renderVector(v: ToolVector): string {
  return JSON.stringify(v, null, 2) + '\n';
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const checkOnly = process.argv.includes('--check');
  const dir = toolVectorsDir();
  mkdirSync(dir, { recursive: true });
  let drift = 0;
  for (const s of SCENARIOS) {
    const path = join(dir, `${s.name}.json`);
    const text = renderVector(await buildVector(s));
    if (checkOnly) {
      if (!existsSync(path) || readFileSync(path, 'utf8') !== text) {
        console.error(`drift: conformance/tools/vectors/${s.name}.json (run npm run tools:vectors)`);
        drift++;
      }
    } else writeFileSync(path, text);
  }
  if (drift > 0) process.exit(1);
  console.log(checkOnly ? 'tool vectors are up to date' : `wrote ${SCENARIOS.length} tool vectors`);
}
